"""A Diff of two reports as text, Markdown, JSON and HTML, and the brief baseline marks of a report.

Each renderer is a pure function of a frozen value; the CLI decides where the text goes.
"""

from __future__ import annotations

from collections.abc import Callable

from jinja2 import Environment, select_autoescape

from auditor.core.diff import Diff, Persisting, change_text, scope_text
from auditor.core.findings import SUBJECT_FIELDS, BaselineValues, Finding, Report, Severity
from auditor.core.scope import SHOWN, Growth, unlisted_text
from auditor.render.common import MARK, cell, md_code, md_escape

DiffRenderer = Callable[[Diff], str]
VERDICT = {0: "nothing new fails", 1: "new findings at or above fail_on", 2: "the new report could not audit"}
# Exit 1 from persisting findings alone: escalated, or an acceptance that no longer holds.
GROWN_VERDICT = "findings escalated or no longer accepted, at or above fail_on"
BASELINE_TAG = {"new": "new", "persisting": "persisting", "escalated": "escalated"}


def about(f: Finding) -> str:
    """A finding in one line: code, stage, what it is about and its title."""
    subject = f.key or ", ".join(cell(f.evidence[n]) for n in SUBJECT_FIELDS if n in f.evidence)
    return f"{f.code} {f.stage}" + (f" {subject}" if subject else "") + f" — {f.title}"


def _accepted_text(f: Finding) -> str:
    """Who accepted a finding and why (the review's words, or the config's `accept:` reason); empty if no one."""
    return f"accepted: {f.accept_reason}" if f.accepted and f.accept_reason else "accepted" if f.accepted else ""


def _persisting_text(p: Persisting) -> str:
    parts = [change_text(p.changes)] if p.changes else []
    if p.finding.accepted:
        parts.append(_accepted_text(p.finding))
    elif p.no_longer_accepted:
        parts.append("no longer accepted" + (f" (was: {p.old_accept_reason})" if p.old_accept_reason else ""))
    if p.scope_growth is not None and p.scope_growth.values_differ:
        parts.insert(0, scope_text(p.scope_growth))
    if p.finding.severity != p.old_severity:
        parts.insert(0, f"severity {p.old_severity.value} → {p.finding.severity.value}")
    return "; ".join(parts)


def headline(diff: Diff) -> str:
    escalated = sum(p.escalated for p in diff.persisting)
    lapsed = sum(p.no_longer_accepted for p in diff.persisting)
    grown = ", ".join(
        [*([f"{escalated} escalated"] if escalated else []), *([f"{lapsed} no longer accepted"] if lapsed else [])]
    )
    counts = (
        f"{len(diff.new_findings)} new, {len(diff.resolved)} resolved, {len(diff.persisting)} persisting"
        + (f" ({grown})" if grown else "")
        + (f", {len(diff.unchecked)} not checked again" if diff.unchecked else "")
    )
    new_fails = bool({id(f) for f in diff.new_findings} & {id(f) for f in diff.failing})
    verdict = GROWN_VERDICT if diff.exit_code == 1 and not new_fails else VERDICT.get(diff.exit_code, "?")
    return f"{counts} — exit {diff.exit_code} ({verdict}, fail_on: {diff.fail_on})"


def _sections(diff: Diff) -> list[tuple[str, list[tuple[str, str]]]]:
    """(heading, [(finding line, detail)]) per non-empty section, most urgent first."""
    failing = {id(f) for f in diff.failing}
    new = [
        (f"{MARK[f.severity]} {about(f)}", "fails" if id(f) in failing else _accepted_text(f))
        for f in diff.new_findings
    ]
    kept = [(f"{MARK[p.finding.severity]} {about(p.finding)}", _persisting_text(p)) for p in diff.persisting]
    sections = [
        ("New", new),
        ("Resolved", [(f"{MARK[f.severity]} {about(f)}", "") for f in diff.resolved]),
        ("Persisting", kept),
        (
            "Not checked again (their stage did not run)",
            [(f"{MARK[f.severity]} {about(f)}", "") for f in diff.unchecked],
        ),
    ]
    return [(h, rows) for h, rows in sections if rows]


def render_diff_text(diff: Diff) -> str:
    """Plain text for a terminal or a log."""
    lines = [
        f"old: {diff.old.path or '?'} ({diff.old.generated_at})",
        f"new: {diff.new.path or '?'} ({diff.new.generated_at})",
    ]
    lines += [f"note: {n}" for n in diff.notes]
    for heading, rows in _sections(diff):
        lines.append(f"{heading}:")
        lines += [f"  {line}" + (f" ({detail})" if detail else "") for line, detail in rows]
    lines.append(headline(diff))
    return "\n".join(lines) + "\n"


def render_diff_markdown(diff: Diff) -> str:
    """Markdown for a pull-request review, which renders raw HTML: every value from the data is escaped."""
    lines = ["## split-auditor diff", "", f"**{headline(diff)}**", ""]
    lines += [
        f"- old: {md_code(diff.old.path or '?')} ({md_escape(diff.old.generated_at)})",
        f"- new: {md_code(diff.new.path or '?')} ({md_escape(diff.new.generated_at)})",
    ]
    lines += [f"- **note:** {md_escape(n)}" for n in diff.notes]
    lines.append("")
    for heading, rows in _sections(diff):
        lines += [f"### {heading} ({len(rows)})", ""]
        lines += [f"- {md_escape(line)}" + (f" — *{md_escape(detail)}*" if detail else "") for line, detail in rows]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render_diff_json(diff: Diff) -> str:
    """The Diff as JSON, with each finding whole (fingerprint included)."""
    return diff.model_dump_json(indent=2) + "\n"


_HTML = Environment(autoescape=select_autoescape(default=True, default_for_string=True)).from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>split-auditor diff</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#1b1b1b}
h1{font-size:1.4em} .head{font-weight:600;padding:.5em .8em;border-left:4px solid {{ colour }}}
li{margin:.2em 0} .detail{color:#555;font-style:italic} code{font-size:.9em}
</style></head><body>
<h1>split-auditor diff</h1>
<p class="head">{{ headline }}</p>
<ul><li>old: <code>{{ diff.old.path or "?" }}</code> ({{ diff.old.generated_at }})</li>
<li>new: <code>{{ diff.new.path or "?" }}</code> ({{ diff.new.generated_at }})</li>
{% for n in diff.notes %}<li><strong>note:</strong> {{ n }}</li>{% endfor %}</ul>
{% for heading, rows in sections %}<h2>{{ heading }} ({{ rows|length }})</h2><ul>
{% for line, detail in rows %}<li>{{ line }}{% if detail %} <span class="detail">— {{ detail }}</span>{% endif %}</li>
{% endfor %}</ul>
{% endfor %}</body></html>
"""
)


def render_diff_html(diff: Diff) -> str:
    """A self-contained HTML page (no script, no external resource)."""
    colour = {0: "#1a7f37", 1: "#cf222e"}.get(diff.exit_code, "#8250df")
    return _HTML.render(diff=diff, headline=headline(diff), sections=_sections(diff), colour=colour)


# format name -> (renderer, file name inside the output directory)
DIFF_RENDERERS: dict[str, tuple[DiffRenderer, str]] = {
    "json": (render_diff_json, "diff.json"),
    "markdown": (render_diff_markdown, "diff.md"),
    "html": (render_diff_html, "diff.html"),
}


def baseline_line(report: Report) -> str | None:
    """One line on the baseline a report was compared with; None without one."""
    b = report.baseline
    if b is None:
        return None
    parts = [f"{b.new} new", f"{b.persisting} persisting"]
    if b.escalated:
        # info findings (split sizes whose counts rose) are escalated too, but count toward no exit code
        info = sum(1 for f in report.findings if f.baseline == "escalated" and f.severity is Severity.INFO)
        parts.append(f"{b.escalated} escalated" + (f" ({info} of them info)" if info else ""))
    parts.append(f"{len(b.resolved)} resolved")
    if b.unchecked:
        parts.append(f"{len(b.unchecked)} not checked again")
    scope = "; the exit code counts only new and escalated findings" if b.new_only else ""
    values = "".join(_new_values_text(v) for v in b.new_values)
    return f"baseline {b.path} ({b.generated_at}): {', '.join(parts)}{scope}{values}"


def _new_values_text(v: BaselineValues) -> str:
    """A finding's values beyond its baseline's for baseline_line: those named, else how its set changed."""
    if (v.uncompared is not None or v.compared is not None) and not v.values:  # too many to list by name
        growth = Growth(unlisted=v.unlisted, uncompared=v.uncompared, compared=v.compared)
        return f"; {v.code} {unlisted_text(growth)}"
    return (
        f"; {v.code} new values: "
        + (", ".join(v.values[:SHOWN]) + (f" and {len(v.values) - SHOWN} more" if len(v.values) > SHOWN else ""))
        + (f"{' and ' if v.values else ''}{v.unlisted} unlisted" if v.unlisted else "")
    )


def baseline_tag(f: Finding, escape: Callable[[str], str] = str) -> str:
    """`[new] `, `[persisting] ` or `[escalated: why] ` before a finding, or nothing without a baseline; ``escape``
    is applied to the reason (it may hold values from the data and the text of an `accept:` reason)."""
    if not f.baseline:
        return ""
    why = f": {escape(f.baseline_reason)}" if f.baseline == "escalated" and f.baseline_reason else ""
    return f"[{BASELINE_TAG[f.baseline]}{why}] "
