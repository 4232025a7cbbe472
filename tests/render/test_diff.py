"""The diff renderers and the baseline marks in the terminal and Markdown reports."""

from __future__ import annotations

import json
import re

from markdown_it import MarkdownIt

from auditor.core.diff import diff_reports, mark_baseline
from auditor.core.findings import Severity
from auditor.render.diff import render_diff_html, render_diff_json, render_diff_markdown, render_diff_text
from auditor.render.html import render_html
from auditor.render.markdown import render_markdown
from auditor.render.terminal import render_terminal
from tests.core.test_diff import grp, nan, report

OLD = report(("group_overlap", "failed", (grp(groups=5),)), ("nonfinite_trace", "failed", (nan(),)))
NEW = report(
    ("group_overlap", "failed", (grp(groups=3), grp(writer="<site>", severity=Severity.WARNING))),
    ("nonfinite_trace", "passed", ()),
)


def test_text_and_markdown_show_new_resolved_and_changed_counts() -> None:
    d = diff_reports(OLD, NEW, old_path="old.json", new_path="new.json")
    for text, site in ((render_diff_text(d), "<site>"), (render_diff_markdown(d), "\\<site\\>")):
        assert "New" in text and f"GRP001 group_overlap {site}" in text
        assert "Resolved" in text and "NAN001 nonfinite_trace logfeat" in text
        assert "groups 5 → 3" in text
        assert "1 new, 1 resolved, 1 persisting — exit 0" in text


def test_an_accepted_finding_says_who_accepted_it_and_why() -> None:
    reason = "writer-b calibrates every split (accepted by ana on 2024-05-02)"
    later = report(("group_overlap", "passed", (grp(groups=5, accepted=True, accept_reason=reason),)))
    d = diff_reports(OLD, later)
    for text in (render_diff_text(d), render_diff_markdown(d), render_diff_html(d)):
        assert f"accepted: {reason}" in text


def test_markdown_escapes_values_from_the_data() -> None:
    """A pull request renders the diff's Markdown: a value from the data is shown, never rendered as HTML."""
    evil = "<img src=x onerror=alert(1)>"
    old = report(("group_overlap", "failed", (grp(writer="te\"st'<b>"),)))
    new = report(("group_overlap", "failed", (grp(writer="te\"st'<b>"), grp(writer=evil))))
    md = render_diff_markdown(diff_reports(old, new, old_path="old.json", new_path="new.json"))
    assert re.search(r"(?<!\\)<", md) is None  # every < of a value escaped
    assert "\\<img src=x onerror=alert(1)\\>" in md and "te\"st'\\<b\\>" in md
    # Rendered, each reads as written.
    html = MarkdownIt().render(md)
    assert "<img" not in html and "<b>" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    # Plain text is not Markdown: shown as written.
    assert evil in render_diff_text(diff_reports(old, new))


def test_json_holds_every_finding_with_its_fingerprint() -> None:
    data = json.loads(render_diff_json(diff_reports(OLD, NEW)))
    assert data["resolved"][0]["fingerprint"] == nan().fingerprint
    assert data["persisting"][0]["changes"][0] == {"field": "groups", "old": 5, "new": 3}
    assert data["exit_code"] == 0


def test_html_is_self_contained_and_escapes_values() -> None:
    page = render_diff_html(diff_reports(OLD, NEW))
    assert "&lt;site&gt;" in page and "<site>" not in page
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")
    assert "groups 5 → 3" in page


def test_reports_mark_new_and_persisting_findings_and_list_resolved_ones() -> None:
    marked = mark_baseline(NEW, OLD, path="approved.json", new_only=True)
    terminal = render_terminal(marked, width=200)
    assert "[persisting] GRP001" in terminal and "[new] GRP001" in terminal
    assert "baseline approved.json" in terminal and "the exit code counts only new" in terminal
    assert "resolved: NAN001" in terminal
    markdown = render_markdown(marked)
    assert "[persisting] error GRP001" in markdown and "[new] warning GRP001" in markdown
    assert "  - resolved: NAN001" in markdown
    assert "[new]" not in render_markdown(NEW) and "baseline" not in render_terminal(NEW, width=200)
    page = render_html(marked)
    assert "[persisting] GRP001" in page and "[new] GRP001" in page
    assert "resolved: NAN001" in page and "baseline approved.json" in page
    assert "[new]" not in render_html(NEW)


def test_reports_say_why_a_finding_is_escalated() -> None:
    """The terminal and Markdown lines of an escalated finding give its reason; a value in it is escaped."""
    old = report(("group_overlap", "passed", (grp(severity=Severity.WARNING, accepted=True, accept_reason="<b>ok"),)))
    new = report(("group_overlap", "failed", (grp(groups=5),)))
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    why = "severity warning → error; groups 3 → 5; pairs.train|test.groups 3 → 5; no longer accepted (was: <b>ok)"
    assert f"[escalated: {why}] GRP001" in render_terminal(marked, width=300)
    escaped = why.replace("|", "\\|").replace("<", "\\<").replace(">", "\\>")
    assert f"[escalated: {escaped}] error GRP001" in render_markdown(marked)
    assert "<b>ok" not in render_markdown(marked)
    assert "(was: &lt;b&gt;ok)] GRP001" in render_html(marked)
    rose = mark_baseline(
        report(("group_overlap", "failed", (grp(),))),
        report(("group_overlap", "passed", (grp(severity=Severity.WARNING),))),
        path="approved.json",
        new_only=True,
    )
    assert "[escalated: severity warning → error] GRP001" in render_terminal(rose, width=300)
    # Persisting and new findings keep their short marks.
    same = mark_baseline(new, new, path="approved.json", new_only=True)
    assert "[persisting] GRP001" in render_terminal(same, width=300) and "[escalated" not in render_markdown(same)
