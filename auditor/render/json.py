"""The report as JSON: the machine-readable record, validated by schemas/report.schema.json."""

from __future__ import annotations

from auditor.core.findings import Report


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"
