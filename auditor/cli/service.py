"""The service's commands: `audit serve`, `db upgrade`, `token create|list|revoke`, and the two its clients
run, `evaluated` (a holdout evaluation recorded) and `gate` (is a run approved)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from auditor.cli.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    ROOT_HELP,
    ProjectOption,
    TokenOption,
    fail,
    path_arg,
    stdout_console,
)
from auditor.cli.submit import service_client
from auditor.core.errors import AuditError

TOKEN_HELP = "the server token (default: $SPLIT_AUDITOR_TOKEN)"
TOKEN_NAME_MAX = 200  # as the API's POST /api/tokens allows
SERVICE_HINT = "the service needs the `service` extra: pip install 'split-auditor[service]'"
DATA_DIR_HELP = "the service's folder: its SQLite database lives here"
DATABASE_HELP = "a database URL instead of SQLite in --data-dir, e.g. postgresql+psycopg://user@host/db"
DataDirOption = Annotated[Path, typer.Option("--data-dir", metavar="DIR", help=DATA_DIR_HELP)]
DatabaseOption = Annotated[str | None, typer.Option("--database", metavar="URL", help=DATABASE_HELP)]


def _service_missing(exc: ImportError) -> typer.Exit:
    if not _service_import_error(exc):
        raise exc  # a broken install of the auditor itself: show it, do not blame the extra
    return fail(f"{SERVICE_HINT} ({exc.name or exc} is not installed)")


def serve(
    host: Annotated[
        str, typer.Option("--host", metavar="ADDRESS", help="the address to listen on (loopback unless you say so)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="the port to listen on")] = 8765,
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
    data_root: Annotated[
        list[str] | None,
        typer.Option(
            "--data-root",
            metavar="NAME=PATH",
            help="a folder submitted configs may read data from, by the name they give (repeatable)",
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option("--public-url", metavar="URL", help="the URL clients reach the server at (for run links)"),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", metavar="N", min=0, help="queued audits run at once, each in its own process (0: none here)"
        ),
    ] = 2,
    job_timeout: Annotated[
        float,
        # Finite and at most a week: an infinite limit is none, and no timer can be set for it.
        typer.Option(
            "--job-timeout", metavar="SECONDS", min=1, max=7 * 86400, help="seconds a server-side audit may take"
        ),
    ] = 3600.0,
    stage_cpu: Annotated[
        float,
        typer.Option(
            "--stage-cpu", metavar="SECONDS", min=1, help="CPU seconds one stage of a server-side audit may use"
        ),
    ] = 900.0,
    max_body_mb: Annotated[
        float, typer.Option("--max-body-mb", metavar="MB", min=0.01, help="the largest request body, in MiB")
    ] = 32.0,
    auth_failures: Annotated[
        int,
        typer.Option(
            "--auth-failures",
            metavar="N",
            min=1,
            help="wrong tokens one client address may send in a row; then it waits 6 s for each more (429)",
        ),
    ] = 20,
) -> None:
    """Start the audit service: HTTP API, reviewers' pages and the queue of server-side audits."""
    try:
        from auditor.service.server import ServeOptions
        from auditor.service.server import serve as run_server
    except ImportError as exc:
        raise _service_missing(exc) from None
    options = ServeOptions(
        data_dir=data_dir,
        database=database,
        host=host,
        port=port,
        roots=data_root or [],
        public_url=public_url,
        workers=workers,
        job_timeout_s=job_timeout,
        stage_cpu_s=stage_cpu,
        max_body_bytes=int(max_body_mb * 1024 * 1024),
        auth_failures=auth_failures,
    )
    try:
        run_server(options)
    except AuditError as exc:
        raise fail(str(exc)) from None


db_app = typer.Typer(no_args_is_help=True, help="The service database.", rich_markup_mode=None)


def _service_url(data_dir: Path, database: str | None) -> str:
    from auditor.service.db import database_url

    return database_url(data_dir, database)


def _service_import_error(exc: ImportError) -> bool:
    """Whether ``exc`` is a missing package of the `service` extra (anything else is a bug to show)."""
    return (exc.name or "").split(".")[0] in {"fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "psycopg"}


def _revision_now(url: str) -> str | None:
    """The schema revision the database is at, None when it has none (or cannot be read: migrating says why)."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy.exc import SQLAlchemyError

    from auditor.service.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except (SQLAlchemyError, OSError):
        return None  # migrate() then reports the unreachable database in one line
    finally:
        engine.dispose()


@db_app.command("upgrade")
def db_upgrade(
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Create or migrate the service database to this version's schema (`audit serve` does it too)."""
    try:
        from auditor.service.db import migrate
    except ImportError as exc:
        raise _service_missing(exc) from None
    try:  # a refused connection or a wrong password is a DatabaseError of one line
        url = _service_url(data_dir, database)
        before = _revision_now(url)
        revision = migrate(url)
    except AuditError as exc:
        raise fail(str(exc)) from None
    if before == revision:
        typer.echo(f"database already at revision {revision}")
    elif before is None:
        typer.echo(f"database created at revision {revision}")
    else:
        typer.echo(f"database upgraded from {before} to {revision}")


token_app = typer.Typer(
    no_args_is_help=True, help="API tokens of the service (run where its database is).", rich_markup_mode=None
)


@contextlib.contextmanager
def _service_engine(data_dir: Path, database: str | None) -> Iterator[Any]:
    """The service database opened directly (where it lives), as an engine disposed of afterwards."""
    try:
        from auditor.service.db import open_database
    except ImportError as exc:
        raise _service_missing(exc) from None
    try:
        engine = open_database(_service_url(data_dir, database))
    except AuditError as exc:
        raise fail(str(exc)) from None
    try:
        yield engine
    finally:
        engine.dispose()


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option("--role", metavar="ROLE", help="submitter | reviewer | admin")],
    name: Annotated[
        str, typer.Option("--name", metavar="WHO", help="the person who holds it: the audit trail shows this name")
    ],
    project: Annotated[
        str | None, typer.Option("--project", metavar="NAME", help="limit the token to this project")
    ] = None,
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Make a token and print it once; only its hash is stored."""
    try:
        from auditor.service import store
        from auditor.service.auth import Role
        from auditor.service.names import project_name_problem
    except ImportError as exc:
        raise _service_missing(exc) from None

    roles = [r.value for r in Role]
    if role not in roles:
        raise fail(f"--role {role!r}: expected one of {', '.join(roles)}")
    if not name.strip() or len(name) > TOKEN_NAME_MAX or not name.isprintable():
        raise fail(f"--name {name!r}: expected the holder's name, 1 to {TOKEN_NAME_MAX} printable characters")
    problem = project_name_problem(project) if project is not None else None
    if problem is not None:
        raise fail(f"--project {problem}")
    with _service_engine(data_dir, database) as engine:
        try:
            secret = store.create_token(engine, name=name, role=Role(role), project=project, created_by="audit token")
        except Exception as exc:  # the driver's error (the database went away meanwhile): one line, exit 2
            first = next(iter(str(exc).splitlines()), "")
            raise fail(f"the token could not be stored: {type(exc).__name__}: {first}") from None
    typer.echo(secret)


@token_app.command("list")
def token_list(
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """List the active tokens: id, holder, role, project, when and by whom made (never the token itself)."""
    from rich.table import Table

    try:
        from auditor.service import store
    except ImportError as exc:
        raise _service_missing(exc) from None
    with _service_engine(data_dir, database) as engine:
        listed = store.list_tokens(engine)
    table = Table("id", "name", "role", "project", "created", "created_by", box=None, pad_edge=False)
    for t in listed:
        created = t.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        table.add_row(str(t.id), t.name, t.role, t.project or "(all)", created, t.created_by)
    stdout_console().print(table)


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[int, typer.Argument(metavar="ID", min=1, help="the token's id, from `audit token list`")],
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Revoke a token: every request with it is refused from now on. The last admin token is kept."""
    try:
        from auditor.service import store
    except ImportError as exc:
        raise _service_missing(exc) from None
    with _service_engine(data_dir, database) as engine:
        try:
            store.revoke_token(engine, token_id)
        except AuditError as exc:  # NotFound (unknown or revoked already), Conflict (the last admin token)
            raise fail(str(exc)) from None
    typer.echo(f"token {token_id} revoked")


def _digests(config: Path) -> dict[str, str]:
    """The sha256 of a config and of the manifest files it names, as a report of it would carry them."""
    from auditor.core.config import load_config
    from auditor.manifest.table import manifest_digest

    loaded = load_config(path_arg(config, "--config"))
    digests = {"config_sha256": loaded.sha256 or ""}
    manifest = manifest_digest(loaded)
    if manifest is not None:
        digests["manifest_sha256"] = manifest
    return digests


def _metrics(values: list[str] | None) -> dict[str, float]:
    """``--metric NAME=VALUE`` options as a dict; a malformed, repeated or non-finite value is refused."""
    import math

    found: dict[str, float] = {}
    for value in values or []:
        name, sep, number = (part.strip() for part in value.partition("="))
        if not sep or not name:
            raise AuditError(f"--metric {value!r}: expected NAME=VALUE, e.g. acc=0.913")
        try:
            result = float(number)
        except ValueError:
            raise AuditError(
                f"--metric {value!r}: {number!r} is not a number; expected NAME=VALUE, e.g. acc=0.913"
            ) from None
        if not math.isfinite(result):
            raise AuditError(f"--metric {value!r}: NaN and infinity are not results; give a finite number")
        if name in found:
            raise AuditError(f"--metric {name!r} is given twice")
        found[name] = result
    return found


def evaluated(
    config: Annotated[Path, typer.Argument(help="the audit.yaml whose manifest holds the split")],
    split: Annotated[str, typer.Option("--split", help="the holdout split that was evaluated")],
    metric: Annotated[
        list[str] | None, typer.Option("--metric", help="a result as NAME=VALUE, e.g. acc=0.913 (repeatable)")
    ] = None,
    note: Annotated[str, typer.Option("--note", help="what the evaluation was for")] = "",
    ledger: Annotated[
        Path | None,
        typer.Option("--ledger", help="the ledger file (default: .split-auditor/ledger.sqlite by the config)"),
    ] = None,
    root: Annotated[list[Path] | None, typer.Option("--root", help=ROOT_HELP)] = None,
    submit: Annotated[
        str | None, typer.Option("--submit", help="record in this audit server's ledger (http://HOST:PORT)")
    ] = None,
    project: ProjectOption = None,
    token: TokenOption = None,
) -> None:
    """Record that a holdout split was evaluated (by its content, so renamed copies keep the count)."""
    from auditor.core.config import load_config
    from auditor.exposure import record
    from auditor.exposure.ledger import Ledger, SqliteLedger
    from auditor.exposure.recording import default_ledger_path

    try:
        results = _metrics(metric)
        if submit is None and (project is not None or token is not None):
            raise AuditError("--project and --token belong to --submit URL")
        if submit is not None and ledger is not None:
            raise AuditError("--ledger and --submit: give one; with --submit the ledger is the server's")
        loaded = load_config(path_arg(config, "config"), roots=root or [])
        target: Ledger
        if submit is not None:
            from auditor.service.exposure import ServiceLedger

            target = ServiceLedger(service_client(submit, project, token), str(project))
            where = f"project {project!r} on {submit}"
        else:
            # The ledger `audit run` reads: a configured stage option counts, or the audit would miss this entry.
            options = loaded.config.stages.get("test_exposure") or {}
            path = path_arg(ledger, "--ledger") if ledger is not None else default_ledger_path(loaded)
            wait = options.get("busy_timeout_s")
            if isinstance(wait, int | float) and not isinstance(wait, bool) and wait >= 0:
                target = SqliteLedger(path, float(wait))
            else:
                target = SqliteLedger(path)
            where = str(path)
        seen = _Seen(target)
        entry = record(loaded, split, metrics=results, note=note, ledger=seen)
        assert seen.sketch is not None
        if isinstance(target, SqliteLedger):
            count = sum(len(s.evaluations) for s in target.sets() if s.sketch == seen.sketch)
        else:
            count = int((getattr(target, "last", None) or {}).get("evaluations", 0))
    except AuditError as exc:
        raise fail(str(exc)) from None
    basis = "row content" if seen.sketch.basis == "content" else "sample ids"
    shown = ", ".join(f"{k}={v:g}" for k, v in entry.metrics.items())
    typer.echo(
        f"recorded: '{entry.split}' (fingerprint {seen.sketch.digest[:12]}, {seen.sketch.n_rows} rows by {basis})"
        f"{f' [{shown}]' if shown else ''} in {where}; this set now has {count} evaluation(s)"
    )


@dataclass
class _Seen:
    """A ledger that remembers the sketch it recorded, to say which set was counted."""

    inner: Any
    sketch: Any = None

    def record(self, sketch: Any, evaluation: Any, ids: Any = ()) -> int:
        self.sketch = sketch
        return int(self.inner.record(sketch, evaluation, ids) if ids else self.inner.record(sketch, evaluation))

    def sets(self) -> Any:
        return self.inner.sets()


def gate(
    url: Annotated[str, typer.Argument(help="the audit server, http://HOST:PORT")],
    project: Annotated[str, typer.Option("--project", help="the run's project")],
    run_id: Annotated[int, typer.Option("--run", min=1, help="the run's number")],
    token: Annotated[str | None, typer.Option("--token", help=TOKEN_HELP)] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="seconds to wait for the server")] = 60.0,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="the audit.yaml about to be trained on: pass only if the run audited it "
            "and the manifest it names, byte for byte",
        ),
    ] = None,
) -> None:
    """Exit 0 only when the run is approved, 1 when it is not (yet), 2 when the server cannot say."""
    from auditor.service.client import Client, resolve_token

    try:
        digests = _digests(config) if config is not None else None
        answer = Client(url, resolve_token(token), timeout_s=timeout).gate(project, run_id, digests)
    except AuditError as exc:
        raise fail(str(exc)) from None
    approved = answer.get("approved") is True
    typer.echo(f"{'approved' if approved else 'not approved'}: {answer.get('reason', '')}")
    raise typer.Exit(EXIT_CLEAN if approved else EXIT_FINDINGS)
