"""One server-side audit, run in a child process: the data stages of a submitted config, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.pipeline.registry import discover, load_stages
from auditor.pipeline.runner import run_audit
from auditor.pipeline.stage import Stage
from auditor.service.submitted import load_submitted


def data_stage_classes() -> list[type[Stage]]:
    """Every installed stage that does not run the user's code."""
    return [cls for cls in load_stages(discover()) if not getattr(cls, "needs_numeric", False)]


def run_data_stages(payload: dict[str, Any], emit: Callable[[str], None]) -> None:
    """Validate the config again here (the child trusts no one) and emit the report as one JSON record."""
    loaded = load_submitted(payload["config_text"], Path(payload["root"]), payload["base"])
    report = run_audit(loaded, classes=data_stage_classes())
    emit(report.model_dump_json())
