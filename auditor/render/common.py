"""Small helpers the text renderers share: headline wording and value formatting."""

from __future__ import annotations

import json
from typing import Any

from auditor.findings import Report, Severity

MARK = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "·"}
VERDICT = {0: "clean", 1: "findings at or above fail_on", 2: "could not audit"}


def headline(report: Report) -> str:
    s = report.summary
    parts = [f"{s.errors} error(s)", f"{s.warnings} warning(s)", f"{s.infos} info"]
    if s.accepted:
        parts.append(f"{s.accepted} accepted")
    if s.stages_errored:
        parts.append(f"{s.stages_errored} stage(s) crashed")
    verdict = VERDICT.get(report.exit_code, "?")
    return f"{', '.join(parts)} — exit {report.exit_code} ({verdict}, fail_on: {report.fail_on})"


def cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def manifest_line(report: Report) -> str | None:
    m = report.manifest
    if m is None:
        return None
    splits = ", ".join(f"{k} {v}" for k, v in m.rows_per_split.items())
    where = m.paths[0] if len(m.paths) == 1 else f"{m.paths[0]} (+{len(m.paths) - 1} files)"
    return f"{where} — {m.rows} rows ({splits}); sha256 {m.sha256[:12]}"
