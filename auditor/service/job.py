"""One server-side audit, run in a child process: the data stages of a submitted config, nothing else; the others
are in its report as skipped, with their reasons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.pipeline.cpulimit import CpuBudget
from auditor.pipeline.runner import run_audit
from auditor.service.submitted import load_submitted, server_stage_classes


def run_data_stages(payload: dict[str, Any], emit: Callable[[str], None]) -> None:
    """Validate the config again here (the child trusts no one) and emit the report as one JSON record."""
    loaded = load_submitted(payload["config_text"], Path(payload["root"]), payload["base"])
    seconds = payload.get("stage_cpu_s")
    cpu = CpuBudget(float(seconds), "audit serve --stage-cpu") if seconds is not None else None
    report = run_audit(loaded, classes=server_stage_classes(loaded), stage_cpu=cpu)
    emit(report.model_dump_json())
