"""A short terminal summary with rich: stage table, then each finding in one or two lines."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from auditor.core.findings import Report, Severity
from auditor.render.common import (
    ACCEPTED_MARK,
    ALLOWED_HOLDOUT_LABEL,
    MARK,
    allowed_holdout_pairs,
    cell,
    displayed,
    found_text,
    headline,
    input_errors,
    manifest_line,
    plain,
    user_output_line,
)
from auditor.render.diff import about, baseline_line, baseline_tag

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}
STATUS = {"passed": "green", "failed": "red", "skipped": "dim", "error": "bold magenta"}


# The width given to rich for output that is not a terminal: wide enough that no line is ever wrapped or cut.
UNWRAPPED_WIDTH = 1_000_000


def render_terminal(report: Report, *, color: bool = False, width: int | None = 100, verbose: bool = False) -> str:
    """Render for a terminal; with color=False the text is plain (logs, CI, tests). ``width=None`` wraps
    nothing: a log or a pipe gets each line whole (a path, a digest), for grep and for copying."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width or UNWRAPPED_WIDTH,
        force_terminal=color,
        color_system="standard" if color else None,
        highlight=False,
        soft_wrap=width is None,
    )
    m = manifest_line(report)
    if m:
        console.print(Text("manifest: ", style="bold") + Text(m))
    exempt = allowed_holdout_pairs(report)
    if exempt:
        console.print(Text(f"{ALLOWED_HOLDOUT_LABEL}: ", style="bold yellow") + Text(", ".join(exempt)))
    table = RichTable(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("stage", "status", "findings", "note"):
        table.add_column(col, overflow="fold")
    for r in report.stages:
        if r.not_applicable and not verbose:
            continue
        # A skip reason is shown whole: it says what to add to the config.
        note = _first_line(r.error.type + ": " + r.error.message) if r.error else (r.skip_reason or "")
        # Text, not str: a note like "e.g. [writer]" is data, not rich markup.
        found = found_text(r.findings) if r.status in ("passed", "failed") else ""
        table.add_row(Text(r.stage), Text(r.status, style=STATUS[r.status]), found, Text(note))
    if table.row_count:
        console.print(table)
    unasked = [r for r in report.stages if r.not_applicable]
    if unasked and not verbose:
        console.print(Text(f"{len(unasked)} stage(s) do not apply to this config (-v shows why)", style="dim"))
    for f in sorted(report.findings, key=lambda f: (f.accepted, *f.sort_key())):
        if f.severity is Severity.INFO and not verbose and not f.accepted:
            continue
        mark = ACCEPTED_MARK if f.accepted else MARK[f.severity]
        head = Text(f"{mark} {baseline_tag(f)}{f.code} ", style="green" if f.accepted else STYLE[f.severity])
        head.append(f"[{f.stage}] ", style="bold")
        head.append(displayed(f.message))  # a value of the data can be megabytes long: the report keeps it whole
        if f.accepted:
            head.append(f" (accepted: {displayed(f.accept_reason or '')})", style="green")
        elif f.escalated is not None:
            head.append(f" (escalated beyond its acceptance: {displayed(f.escalated.text)})")
        console.print(head)
        for e in f.examples[:3]:
            console.print(Text("    e.g. " + displayed(cell(plain(e))), style="dim"))
    for r in report.stages:
        if r.error is not None and r.error.traceback:
            console.print(Text(f"stage {r.stage} crashed:", style="bold magenta"))
            console.print(Text(r.error.traceback.rstrip(), style="magenta"))
    # Stages that failed for the same reason (e.g. the user's code did not import) share one message.
    for names, message in input_errors(report):
        who = f"stage {names[0]}" if len(names) == 1 else f"stages {', '.join(names)}"
        console.print(Text(f"{who} could not run: {message}", style="bold magenta"))
    compared = baseline_line(report)
    if compared and report.baseline:
        console.print(Text(compared, style="bold"))
        for f in report.baseline.resolved:
            console.print(Text(f"    resolved: {about(f)}", style="green"))
    said = user_output_line(report)
    if said:  # what it printed stays out of this summary; where to find it does not
        console.print(Text(said, style="dim"))
    console.print(Text(headline(report), style="bold red" if report.exit_code else "bold green"))
    return out.getvalue()


def _first_line(text: str, limit: int = 60) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit and "\n" not in text else line[:limit].rstrip() + " …"
