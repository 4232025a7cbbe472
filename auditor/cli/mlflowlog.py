"""--mlflow of `audit run` and `audit code`: the report logged to an MLflow run after the verdict is made.

A logging failure is a warning: the exit code stays the audit's (the report files are the verdict; a tracker
that is down must not turn a failed audit into a pass, nor a clean one into a failure). Asking for --mlflow
without mlflow installed is refused before the audit starts, as any other unusable option is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from auditor.cli.common import stderr_console, warn
from auditor.core.errors import AuditError, TrackingError

if TYPE_CHECKING:
    from auditor.core.findings import Report

MlflowOption = Annotated[
    bool,
    typer.Option(
        "--mlflow",
        help="log the report files, verdict, exit code and counts to the active MLflow run (or a new one)",
    ),
]


def require_mlflow(enabled: bool) -> None:
    """AuditError, before anything runs, when --mlflow is given and mlflow cannot be imported."""
    from auditor.integrations.tracking import INSTALL_HINT, mlflow_available

    if enabled and not mlflow_available():
        raise AuditError(f"--mlflow: mlflow is not installed; install it with {INSTALL_HINT}")


def log_report(report: Report, files: list[Path]) -> None:
    """Log ``report`` (``files``, or its default renderings when none were written) and say where it went."""
    from auditor.integrations.tracking import log_to_mlflow

    try:
        logged = log_to_mlflow(report, files or None)
    except TrackingError as exc:
        warn(f"{exc}; the exit code is the audit's ({report.exit_code})")
        return
    started = " (no run was active: started this run for the report and ended it)" if logged.started else ""
    stderr_console().print(
        f"mlflow: logged the report to run {logged.run_id} of experiment {logged.experiment_id}{started}",
        markup=False,
        highlight=False,
    )
