"""Small helpers the text renderers share: headline wording and value formatting."""

from __future__ import annotations

import json
import re
from typing import Any

from auditor.core.findings import Finding, Report, Severity
from auditor.core.portable import shown_path

MARK = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "·"}
ACCEPTED_MARK = "✓"
VERDICT = {0: "passed", 1: "failed: findings at or above fail_on", 2: "could not audit"}


def headline(report: Report) -> str:
    s = report.summary
    parts = [f"{s.errors} error(s)", f"{s.warnings} warning(s)", f"{s.infos} info"]
    if s.accepted:
        parts.append(f"{s.accepted} accepted")
    if s.stages_errored:
        parts.append(f"{s.stages_errored} stage(s) could not run")
    elif not (s.stages_passed or s.stages_failed):
        parts.append("no stage ran (every selected stage was skipped)")
    verdict = VERDICT.get(report.exit_code, "?")
    return f"{', '.join(parts)} — exit {report.exit_code} ({verdict}, fail_on: {report.fail_on})"


def input_errors(report: Report) -> list[tuple[list[str], str]]:
    """Why stages could not run (not crashes), once per reason: (the stages, the message)."""
    same: dict[str, list[str]] = {}
    for r in report.stages:
        if r.error is not None and not r.error.traceback:
            same.setdefault(r.error.message, []).append(r.stage)
    return [(names, message) for message, names in same.items()]


PREVIEW = "preview"  # an example's thumbnails or marked texts: the HTML page shows them, text formats do not


def plain(example: dict[str, Any]) -> dict[str, Any]:
    """An example without its preview (thumbnails and long texts do not belong in a table or a terminal)."""
    return {k: v for k, v in example.items() if k != PREVIEW}


def cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def manifest_line(report: Report, relative_to: str | None = None) -> str | None:
    """The manifest in one line: where (relative to the folder ``relative_to`` when given), rows, digest."""
    m = report.manifest
    if m is None:
        return None
    splits = ", ".join(f"{k} {v}" for k, v in m.rows_per_split.items())
    more = len(m.paths) - 1
    if m.source is not None:  # rows given in code: there is no file to name
        where = f"a {m.source} in memory"
    else:
        first = shown_path(m.paths[0], relative_to, elide=False) if relative_to else m.paths[0]
        where = first if not more else f"{first} (+{more} file{'s' if more > 1 else ''})"
    return f"{where} — {m.rows} rows ({splits}); sha256 {m.sha256[:12]}"


def manifest_parts(report: Report) -> tuple[str, str] | None:
    """The manifest's path(s) and, apart, its counts and digest (so the path can be set as code)."""
    line = manifest_line(report)
    if line is None:
        return None
    where, _, rest = line.partition(" — ")
    return where, rest


ALLOWED_HOLDOUT_LABEL = "splits.allow exempts holdout pair(s)"


def allowed_holdout_pairs(report: Report) -> list[str]:
    """Holdout pairs that splits.allow exempts (split_integrity's SPL009), e.g. train and test with the config line.

    Shown in every report header: an exemption turns a leak into an evaluation into info, so a reviewer
    must see it without reading the findings.
    """
    shown = []
    for f in report.findings:
        pair = f.evidence.get("pair") if f.code == "SPL009" else None
        if isinstance(pair, list) and len(pair) == 2:
            where = f.evidence.get("config")
            shown.append(f"{pair[0]}–{pair[1]}" + (f" ({where})" if where else ""))
    return list(dict.fromkeys(shown))


USER_OUTPUT_LINES = 20  # of each stream of the user's code, in the markdown and html reports


def user_output_line(report: Report) -> str | None:
    """How much the user's code printed while it was checked; None when it printed nothing or did not run."""
    out = report.user_output
    if out is None or not (out.stdout_bytes or out.stderr_bytes):
        return None
    return (
        f"the user's code wrote {out.stdout_bytes} byte(s) to stdout and {out.stderr_bytes} to stderr "
        "(kept in report.json as user_output)"
    )


def user_output_tails(report: Report, lines: int = USER_OUTPUT_LINES) -> list[tuple[str, str]]:
    """(stream, its last ``lines`` lines) for each stream the user's code wrote to."""
    out = report.user_output
    if out is None:
        return []
    texts = (("stdout", out.stdout), ("stderr", out.stderr))
    return [(name, "\n".join(text.rstrip().splitlines()[-lines:])) for name, text in texts if text.strip()]


def found_text(findings: tuple[Finding, ...]) -> str:
    """A stage's findings by severity, e.g. "2 errors, 1 info", accepted ones apart; "none" for none."""
    live = [f for f in findings if not f.accepted]
    parts = [
        f"{n} {name}{'s' if n > 1 and name != 'info' else ''}"
        for severity, name in ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "info"))
        if (n := sum(f.severity is severity for f in live))
    ]
    accepted = len(findings) - len(live)
    if accepted:
        parts.append(f"{accepted} accepted")
    return ", ".join(parts) or "none"


# Unicode bidirectional controls: shown raw, U+202E makes `abc\u202egnp.exe` read as "abcexe.png".
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
SHOWN_CHARS = 200  # of one value on a page; report.json keeps it whole


def capped(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters with its length said, so one value cannot make a page scroll sideways."""
    return text if len(text) <= limit else f"{text[:limit]} … ({len(text):,} characters)"


def displayed(text: str) -> str:
    """``text`` as a page shows it: bidi controls written visibly (``\\u202e``) and every run of more than
    SHOWN_CHARS characters without a space capped."""
    text = re.sub(rf"\S{{{SHOWN_CHARS + 1},}}", lambda m: capped(m.group()), text)
    return BIDI_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_SPAN = re.compile(r"(`[^`]+`)")
# `_` is left as written: GitHub's Markdown does not emphasise inside words, and file names (churn_model.ipynb)
# stay as they read; what could render (a tag, an image link, a new table column) is escaped.
_ACTIVE = re.compile(r"([\\`*\[\]<>&|~#!])")


def md_escape(text: str, *, in_table: bool = False) -> str:
    """Text for a paragraph (or a table cell, ``in_table``): one line, its `code spans` kept, every other Markdown
    or HTML character escaped, so `<img onerror=…>` in a value is shown, never rendered (in a cell, | in spans too);
    as ``displayed``, long runs capped and bidi controls written visibly."""
    parts = _SPAN.split(" ".join(displayed(str(text)).splitlines()))
    shown = [part if i % 2 else _ACTIVE.sub(r"\\\1", part) for i, part in enumerate(parts)]
    return "".join(part.replace("|", "\\|") if i % 2 and in_table else part for i, part in enumerate(shown))


def longest_backtick_run(text: str) -> int:
    """The longest run of backticks in ``text``: a code fence around it must be longer."""
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def md_code(text: str) -> str:
    """``text`` as one code span whatever backticks it holds (a longer fence, padded)."""
    line = " ".join(displayed(str(text)).splitlines())
    if "`" not in line:
        return f"`{line}`"
    fence = "`" * (longest_backtick_run(line) + 1)
    return f"{fence} {line} {fence}"
