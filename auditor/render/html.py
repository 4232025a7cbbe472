"""The report as one self-contained HTML page (Jinja2, autoescaped: ids and values come from user data)."""

from __future__ import annotations

import re

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from auditor.core.findings import Report
from auditor.render.common import (
    ALLOWED_HOLDOUT_LABEL,
    USER_OUTPUT_LINES,
    allowed_holdout_pairs,
    cell,
    headline,
    manifest_line,
    user_output_line,
    user_output_tails,
)


def _inline_code(text: str) -> Markup:
    """Escape the text, then show `backticked` names as code, as the Markdown report does."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def render_html(report: Report) -> str:
    env = Environment(
        loader=PackageLoader("auditor.render", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["code"] = _inline_code
    template = env.get_template("report.html.j2")
    findings = sorted(report.findings, key=lambda f: (f.accepted, *f.sort_key()))
    return template.render(
        report=report,
        findings=findings,
        headline=headline(report),
        manifest=manifest_line(report),
        exempt=allowed_holdout_pairs(report),
        exempt_label=ALLOWED_HOLDOUT_LABEL,
        user_said=user_output_line(report),
        user_tails=user_output_tails(report),
        user_lines=USER_OUTPUT_LINES,
        cell=cell,
    )
