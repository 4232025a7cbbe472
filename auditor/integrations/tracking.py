"""MLflow logging: a report's files as artifacts, its verdict as tags and its counts as metrics of a run.

mlflow is imported when a report is logged (its import alone takes seconds); it is the `mlflow` extra.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditor.core.errors import ArgumentError, TrackingError
from auditor.core.findings import Report
from auditor.render import FILE_RENDERERS, render_files
from auditor.render.common import VERDICT

ARTIFACT_PATH = "split-auditor"  # the folder of the run's artifacts that holds the report files
INSTALL_HINT = "pip install 'split-auditor[mlflow]'"
# Tags that only some reports have: a report without them removes those of the report it replaces in a run.
REPORT_TAGS = frozenset({"config", "manifest_sha256"})


@dataclass(frozen=True)
class LoggedRun:
    """Where a report went: the run's id, its experiment, the artifacts logged, and whether the run was started
    for it (no run was active: it was created, the report logged, and the run ended)."""

    run_id: str
    experiment_id: str
    started: bool
    artifacts: tuple[str, ...]


def mlflow_available() -> bool:
    """Whether mlflow can be imported (looked up, not imported)."""
    import importlib.util

    return importlib.util.find_spec("mlflow") is not None


def log_to_mlflow(
    report: Report,
    files: Sequence[str | Path] | None = None,
    *,
    formats: Sequence[str] = ("json", "markdown", "html"),
    artifact_path: str = ARTIFACT_PATH,
) -> LoggedRun:
    """Log ``report`` to the active MLflow run: ``files`` (default: the report rendered in ``formats``) as
    artifacts under ``artifact_path``, the verdict and exit code as tags, the exit code and the error, warning
    and info counts as metrics. With no active run, the run named by $MLFLOW_RUN_ID is used; with neither, a
    run is started in the current experiment and ended after logging (``started`` says so).

    Raises TrackingError when mlflow is missing, the tracking store refuses, or ``report`` passes and the run
    holds an audit that did not (logged over it, the run would read passed); the report is never changed.
    """
    if not isinstance(report, Report):
        raise ArgumentError(f"log_to_mlflow(report=…): expected a Report, got {type(report).__qualname__}")
    unknown = [f for f in formats if f not in FILE_RENDERERS]
    if files is None and (unknown or not formats):
        expected = ", ".join(FILE_RENDERERS)
        raise ArgumentError(f"log_to_mlflow(formats=…): {unknown or 'none'}; expected some of {expected}")
    try:
        import mlflow
    except ImportError as exc:
        raise TrackingError(f"mlflow is not installed ({exc}); install it with {INSTALL_HINT}") from None
    run_id = None
    try:
        active = mlflow.active_run()
        run_id = active.info.run_id if active is not None else os.environ.get("MLFLOW_RUN_ID") or None
        started = run_id is None
        if run_id is None:
            run_id = str(mlflow.start_run(run_name="split-auditor").info.run_id)
        try:
            return _log(mlflow.MlflowClient(), run_id, report, files, formats, artifact_path, started)
        finally:
            if started:  # a run of the audit's own ends as the audit did: FAILED unless it passed (exit 0)
                mlflow.end_run(status="FINISHED" if report.exit_code == 0 else "FAILED")
    except TrackingError:
        raise
    except Exception as exc:  # the store's and the transport's errors alike: the report itself is fine
        where = f"run {run_id}" if run_id else "a run"
        raise TrackingError(f"mlflow: could not log the report to {where}: {type(exc).__name__}: {exc}") from exc


def _log(
    client: Any,
    run_id: str,
    report: Report,
    files: Sequence[str | Path] | None,
    formats: Sequence[str],
    artifact_path: str,
    started: bool,
) -> LoggedRun:
    from mlflow.entities import Metric, RunTag

    held = {} if started else dict(client.get_run(run_id).data.tags)
    _refuse_a_pass_over_a_failure(run_id, report, held)
    with tempfile.TemporaryDirectory(prefix="split-auditor-") as tmp:
        if files is None:
            files = []
            for name, text in render_files(report, formats, root=Path.cwd()).items():
                (Path(tmp) / name).write_text(text, encoding="utf-8")
                files.append(Path(tmp) / name)
        for path in files:
            client.log_artifact(run_id, str(path), artifact_path)
    s = report.summary
    counts = {"exit_code": report.exit_code, "errors": s.errors, "warnings": s.warnings, "infos": s.infos}
    counts |= {"accepted": s.accepted, "stages_errored": s.stages_errored}
    tags = {
        "verdict": VERDICT.get(report.exit_code, "?").split(":")[0],
        "exit_code": str(report.exit_code),
        "fail_on": report.fail_on,
        "tool_version": report.tool_version,
    }
    if report.config_path:
        tags["config"] = report.config_path
    if report.manifest is not None:
        tags["manifest_sha256"] = report.manifest.sha256
    now = _millis()
    client.log_batch(
        run_id,
        metrics=[Metric(f"audit.{k}", float(v), now, 0) for k, v in counts.items()],
        tags=[RunTag(f"audit.{k}", v) for k, v in tags.items()],
    )
    for name in REPORT_TAGS - tags.keys():  # the report replaced named a config or manifest; this one does not
        if f"audit.{name}" in held:
            client.delete_tag(run_id, f"audit.{name}")
    run = client.get_run(run_id)
    names = tuple(f"{artifact_path}/{Path(p).name}" for p in files)
    return LoggedRun(run_id, run.info.experiment_id, started, names)


def _refuse_a_pass_over_a_failure(run_id: str, report: Report, held: dict[str, str]) -> None:
    """TrackingError when ``report`` passes and the run already holds an audit that did not pass (another audit
    of the same run: the code's after the data's): logged over it, the run would read `passed`, its report files
    the passing one's. A report that does not pass is logged over any: the run then says the latest."""
    before = held.get("audit.exit_code")
    if report.exit_code != 0 or before in (None, "0"):
        return
    what = f"exit {before}" + (f", {held['audit.config']}" if held.get("audit.config") else "")
    raise TrackingError(
        f"mlflow: run {run_id} holds an audit that did not pass ({what}); logged over it, this passing report "
        "would show the run as passed: log this report to a run of its own (e.g. mlflow.start_run(nested=True))"
    )


def _millis() -> int:
    import time

    return int(time.time() * 1000)
