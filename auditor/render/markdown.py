"""The report as Markdown, written to be pasted into a pull-request review or a CI job summary.

Those render raw HTML, so every text that may hold a value from the data (a message, a cell, an example, a
reason) is escaped: outside `code spans` each Markdown or HTML character is backslash-escaped, and a value
set as code gets a fence longer than any run of backticks in it.
"""

from __future__ import annotations

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
from auditor.render.common import longest_backtick_run as _longest_backtick_run
from auditor.render.common import md_code as _code
from auditor.render.common import md_escape as _esc
from auditor.render.diff import about, baseline_line, baseline_tag


def _table(table: Table) -> list[str]:
    lines = [
        f"*{_esc(table.title)}*",
        "",
        "| " + " | ".join(_esc(c, in_table=True) or " " for c in table.columns) + " |",
        "|" + "---|" * len(table.columns),
    ]
    lines += ["| " + " | ".join(_esc(cell(v), in_table=True) for v in row) + " |" for row in table.rows]
    return [*lines, ""]


def _finding(f: Finding) -> list[str]:
    state = " (accepted)" if f.accepted else ""
    tag = baseline_tag(f, _esc)  # its reason may hold values from the data
    lines = [
        f"#### {ACCEPTED_MARK if f.accepted else MARK[f.severity]} {tag}{f.severity.value} {f.code} · "
        f"{_esc(f.stage)} — "
        f"{_esc(f.title)}{state}",
        "",
        _esc(f.message),
        "",
    ]
    if f.accepted:
        lines += [f"> Accepted: {_esc(f.accept_reason or '')}", ""]
    elif f.escalated is not None:
        lines += [
            f"> **Escalated beyond its acceptance** ({_esc(f.accept_reason or '')}): {_esc(f.escalated.text)}",
            "",
        ]
    for t in f.tables:
        lines += _table(t)
    if f.examples:
        lines += ["Examples:", ""]
        lines += [f"- {_code(cell(plain(e)))}" for e in f.examples]
        lines.append("")
    if f.remediation:
        lines += [f"**Fix:** {_esc(f.remediation)}", ""]
    return lines


def render_markdown(report: Report) -> str:
    lines = ["## split-auditor report", "", f"**{headline(report)}**", ""]
    if report.config_path:
        lines.append(f"- config: {_code(report.config_path)} (sha256 {(report.config_sha256 or '')[:12]})")
    m = manifest_parts(report)
    if m:
        lines.append(f"- manifest: {_code(m[0])} — {_esc(m[1])}")
    exempt = allowed_holdout_pairs(report)
    if exempt:
        lines.append(f"- **{ALLOWED_HOLDOUT_LABEL}:** " + _esc(", ".join(exempt)))
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
        stage, note = _esc(r.stage, in_table=True), _esc(note, in_table=True)
        lines.append(f"| {stage} | {r.status} | {len(r.findings)} | {note} |")
    lines.append("")
    skipped = [r for r in report.stages if r.status == "skipped"]
    if skipped:
        lines += ["<details><summary>" + f"{len(skipped)} stage(s) skipped</summary>", ""]
        lines += [f"- {_esc(r.stage)}: {_esc(r.skip_reason or '')}" for r in skipped]
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
            lines += [f"**{_esc(r.stage)}**: {_esc(r.error.type)}: {_esc(r.error.message)}", ""]
            if r.error.traceback:
                fence = "`" * max(3, _longest_backtick_run(r.error.traceback) + 1)
                lines += [fence, r.error.traceback.rstrip(), fence, ""]
    said = user_output_line(report)
    if said:
        lines += [f"<details><summary>Output of the user's code: {said}</summary>", ""]  # counts, no data
        for name, tail in user_output_tails(report):
            fence = "`" * max(3, _longest_backtick_run(tail) + 1)  # the output cannot close its own block
            lines += [f"{name}, last {USER_OUTPUT_LINES} lines:", "", fence, tail, fence, ""]
        lines += ["</details>", ""]
    return "\n".join(lines).rstrip() + "\n"
