"""`--submit URL`: the audit server checked before any work, its ledger read for a run, the report uploaded."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.cli.common import fail, warn
from auditor.core.errors import AuditError

if TYPE_CHECKING:
    from auditor.core.config import LoadedConfig
    from auditor.core.findings import Report

Uploader = Callable[["Report", "LoadedConfig"], str]


def make_uploader(submit: str | None, project: str | None, token: str | None) -> Uploader | None:
    """With --submit: a function that uploads a finished report and returns its page; checked before the run."""
    if submit is None:
        if project is not None or token is not None:
            raise fail("--project and --token belong to --submit URL")
        return None
    if not project:
        raise fail("--submit needs --project NAME (created on first use when the token may)")
    from auditor.service.names import project_name_problem

    problem = project_name_problem(project)
    if problem is not None:  # the server would refuse it, but only after the whole audit ran
        raise fail(f"--project {problem}; nothing was audited")
    try:
        from auditor.service.client import Client, resolve_token

        client = Client(submit, resolve_token(token))
        # Before the audit: nobody should wait for an audit that an unreachable server or a bad token refuses.
        client.me()
    except AuditError as exc:
        raise fail(f"--submit: {exc}; nothing was audited") from None

    def upload(report: Report, loaded: LoadedConfig) -> str:
        from auditor.service.client import submit

        config_text = None
        if loaded.path is not None:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                raw = loaded.path.read_bytes()  # as audited: its line ends too, or its digest would not match
                # A config edited while it was audited is not the one the report holds: only its digest goes.
                if hashlib.sha256(raw).hexdigest() == report.config_sha256:
                    config_text = raw.decode("utf-8")
        return submit(client, project, report, config_text)

    return upload


@contextlib.contextmanager
def exposure_from_server(
    loaded: LoadedConfig, submit: str | None, project: str | None, token: str | None
) -> Iterator[LoadedConfig]:
    """With --submit: the config with `test_exposure` reading a private temporary copy of the project's ledger
    on the server, so the audit counts the team's recorded evaluations; the copy is removed afterwards."""
    if submit is None or project is None:
        yield loaded
        return
    options = loaded.config.stages.get("test_exposure") or {}
    if options.get("ledger"):
        where = loaded.locate(("stages", "test_exposure", "ledger"))
        warn(
            f"{where}: stages.test_exposure.ledger is set, so the audit counts the evaluations in that file; "
            f"without it, --submit would count those recorded on {submit} for project {project!r}"
        )
        yield loaded
        return
    import dataclasses
    import tempfile

    from auditor.service.client import Client, resolve_token
    from auditor.service.exposure import ServiceLedger, copy_into

    try:
        client = Client(submit, resolve_token(token))
        client.project(project, create=True)  # created now rather than at upload: its ledger must be readable
        sets = ServiceLedger(client, project).sets()
    except AuditError as exc:
        # Without it the audit would call every holdout set fresh: no verdict rather than a false one.
        raise AuditError(
            f"--submit: the project's exposure ledger could not be read: {exc}; nothing was audited"
        ) from None
    with tempfile.TemporaryDirectory(prefix="split-auditor-ledger-") as folder:  # mode 0700: private
        path = Path(folder) / "ledger.sqlite"
        copy_into(sets, path)
        label = f"the exposure ledger of project {project!r} on {client.base_url}"
        stages = {**loaded.config.stages, "test_exposure": {**options, "ledger": str(path), "ledger_label": label}}
        # The copy's folder joins the roots: the option is confined like any path the config names.
        roots = (*loaded.roots, path.parent.resolve())
        yield dataclasses.replace(loaded, config=loaded.config.model_copy(update={"stages": stages}), roots=roots)


def service_client(submit: str, project: str | None, token: str | None) -> Any:
    """A client for --submit, with the server, the token and the project name checked before any work."""
    from auditor.service.client import Client, resolve_token
    from auditor.service.names import project_name_problem

    if not project:
        raise AuditError("--submit needs --project NAME (created on first use when the token may)")
    problem = project_name_problem(project)
    if problem is not None:
        raise AuditError(f"--project {problem}")
    client = Client(submit, resolve_token(token))
    try:
        client.me()
        client.project(project, create=True)
    except AuditError as exc:
        raise AuditError(f"--submit: {exc}; nothing was recorded") from None
    return client
