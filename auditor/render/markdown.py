"""The report as Markdown, written to be pasted into a pull-request review."""

from __future__ import annotations

import re

from auditor.core.findings import Finding, Report, Table
from auditor.render.common import (
    ACCEPTED_MARK,
    ALLOWED_HOLDOUT_LABEL,
    MARK,
    USER_OUTPUT_LINES,
    allowed_holdout_pairs,
    cell,
    headline,
    manifest_parts,
    plain,
    user_output_line,
    user_output_tails,
)
from auditor.render.diff import about, baseline_line, baseline_tag


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(table: Table) -> list[str]:
    lines = [
        f"*{table.title}*",
        "",
        "| " + " | ".join(_esc(c) or " " for c in table.columns) + " |",
        "|" + "---|" * len(table.columns),
    ]
    lines += ["| " + " | ".join(_esc(cell(v)) for v in row) + " |" for row in table.rows]
    return [*lines, ""]


def _finding(f: Finding) -> list[str]:
    state = " (accepted)" if f.accepted else ""
    lines = [
        f"#### {ACCEPTED_MARK if f.accepted else MARK[f.severity]} {baseline_tag(f)}{f.severity.value} {f.code} · "
        f"{f.stage} — "
        f"{f.title}{state}",
        "",
        f.message,
        "",
    ]
    if f.accepted:
        lines += [f"> Accepted: {f.accept_reason}", ""]
    elif f.escalated is not None:
        lines += [f"> **Escalated beyond its acceptance** ({f.accept_reason}): {f.escalated.text}", ""]
    for t in f.tables:
        lines += _table(t)
    if f.examples:
        lines += ["Examples:", ""]
        lines += [f"- `{cell(plain(e))}`" for e in f.examples]
        lines.append("")
    if f.remediation:
        lines += [f"**Fix:** {f.remediation}", ""]
    return lines


def render_markdown(report: Report) -> str:
    lines = ["## split-auditor report", "", f"**{headline(report)}**", ""]
    if report.config_path:
        lines.append(f"- config: `{report.config_path}` (sha256 {(report.config_sha256 or '')[:12]})")
    m = manifest_parts(report)
    if m:
        lines.append(f"- manifest: `{m[0]}` — {m[1]}")
    exempt = allowed_holdout_pairs(report)
    if exempt:
        lines.append(f"- **{ALLOWED_HOLDOUT_LABEL}:** " + ", ".join(exempt))
    lines.append(f"- split-auditor {report.tool_version}, {report.generated_at}")
    compared = baseline_line(report)
    if compared and report.baseline:
        lines.append(f"- {_esc(compared)}")
        lines += [f"  - resolved: {_esc(about(f))}" for f in report.baseline.resolved]
    lines.append("")
    lines += ["| stage | status | findings | note |", "|---|---|---|---|"]
    for r in report.stages:
        if r.status == "skipped":
            continue
        note = f"{r.error.type}: {r.error.message}" if r.error else ""
        lines.append(f"| {r.stage} | {r.status} | {len(r.findings)} | {_esc(note)} |")
    lines.append("")
    skipped = [r for r in report.stages if r.status == "skipped"]
    if skipped:
        lines += ["<details><summary>" + f"{len(skipped)} stage(s) skipped</summary>", ""]
        lines += [f"- {r.stage}: {r.skip_reason}" for r in skipped]
        lines += ["", "</details>", ""]
    findings = sorted(report.findings, key=lambda f: (f.accepted, *f.sort_key()))
    if findings:
        lines += ["### Findings", ""]
        for f in findings:
            lines += _finding(f)
    errored = [r for r in report.stages if r.error]
    if errored:
        lines += ["### Stage errors", ""]
        for r in errored:
            assert r.error is not None
            lines += [f"**{r.stage}**: {r.error.type}: {r.error.message}", ""]
            if r.error.traceback:
                lines += ["```", r.error.traceback.rstrip(), "```", ""]
    said = user_output_line(report)
    if said:
        lines += [f"<details><summary>Output of the user's code: {_esc(said)}</summary>", ""]
        for name, tail in user_output_tails(report):
            fence = "`" * max(3, _longest_backtick_run(tail) + 1)  # the output cannot close its own block
            lines += [f"{name}, last {USER_OUTPUT_LINES} lines:", "", fence, tail, fence, ""]
        lines += ["</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
