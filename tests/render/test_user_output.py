"""The user's captured output: named in the terminal summary, shown briefly and safely in Markdown and HTML."""

from __future__ import annotations

from auditor.core.findings import CapturedOutput, Report, StageResult
from auditor.render.html import render_html
from auditor.render.markdown import render_markdown
from auditor.render.terminal import render_terminal
from tests.conftest import report_of


def report(output: CapturedOutput | None) -> Report:
    return report_of((StageResult(stage="batch_inspect", status="passed", duration_s=0.1),), user_output=output)


PRINTED = CapturedOutput(
    stdout="".join(f"line {i}\n" for i in range(30)) + "```\n<script>alert(1)</script>\n",
    stderr="warning: slow\n",
    stdout_bytes=999,
    stderr_bytes=14,
)


def test_terminal_names_the_output_without_showing_it() -> None:
    text = render_terminal(report(PRINTED), width=200)
    assert "the user's code wrote 999 byte(s) to stdout and 14 to stderr" in text
    assert "line 29" not in text and "warning: slow" not in text


def test_markdown_shows_the_last_lines_in_a_block_the_output_cannot_close() -> None:
    md = render_markdown(report(PRINTED))
    assert "line 29" in md and "line 5\n" not in md and "warning: slow" in md
    assert "\n````\n" in md  # a longer fence than the ``` the code printed


def test_html_escapes_the_output() -> None:
    page = render_html(report(PRINTED))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert "warning: slow" in page


def test_nothing_printed_nothing_shown() -> None:
    for output in (None, CapturedOutput()):
        r = report(output)
        assert "user's code" not in render_terminal(r) + render_markdown(r) + render_html(r)
