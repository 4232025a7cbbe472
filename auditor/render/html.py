"""The report as one self-contained HTML page (Jinja2, autoescaped: ids and values come from user data).

The page loads nothing: a Content-Security-Policy forbids every request, styles are inline and figures are
inline SVG (auditor.render.figures), so it opens the same from a file, an e-mail attachment or a notebook.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from auditor.core.findings import Finding, Report, Severity, Table
from auditor.core.portable import config_folder, shown_path
from auditor.render.common import (
    ALLOWED_HOLDOUT_LABEL,
    USER_OUTPUT_LINES,
    allowed_holdout_pairs,
    capped,
    cell,
    displayed,
    found_text,
    headline,
    manifest_line,
    plain,
    user_output_line,
    user_output_tails,
)
from auditor.render.diff import about, baseline_line, baseline_tag
from auditor.render.figures import Figure, figures_for, first_chain, step_value
from auditor.render.previews import Preview, previews_for

FIX_FIRST = 5  # findings listed under "fix first"
EXAMPLES_SHOWN = 5
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


@dataclass(frozen=True)
class ExampleTable:
    """Examples of a finding as rows (e.g. key value, split, rows, ids) rather than JSON strings."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Section:
    """One finding as the page shows it: its anchor, its figures and its examples."""

    anchor: str
    finding: Finding
    figures: tuple[Figure, ...]
    examples: tuple[ExampleTable, ...]
    previews: tuple[Preview, ...] = ()
    drawn: tuple[ExampleTable | None, ...] = ()  # per figure, the examples it draws (shown under it, not again)

    @property
    def tables(self) -> tuple[Table, ...]:
        """The finding's tables that no figure draws (a drawn one is shown once, as its figure's text)."""
        drawn = [fig.table for fig in self.figures if fig.table is not None]
        return tuple(t for t in self.finding.tables if t not in drawn)


def _inline_code(text: str) -> Markup:
    """Escape the text, then show `backticked` names as code, as the Markdown report does."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(_shown(text)))))


def _shown(value: Any) -> Any:
    """What a ``{{ }}`` prints: a text from the report as ``displayed`` makes it (visible bidi controls, capped
    runs); markup the renderer made (figures, previews) as it is."""
    return displayed(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def _flat(value: Any) -> str:
    """A nested value as short text: ``{"a": 1}`` -> ``a: 1``; lists joined with commas."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_flat(v) for v in value)
    text = cell(value)
    return text[:12] + "…" if re.fullmatch(r"[0-9a-f]{40,}", text) else capped(text)  # digests: a prefix is enough


def example_tables(finding: Finding) -> tuple[ExampleTable, ...]:
    """The finding's examples as small tables: one row per split for per-split examples, else one per example."""
    examples = [plain(e) for e in finding.examples[:EXAMPLES_SHOWN]]
    tables: list[ExampleTable] = []
    per_split = [e for e in examples if isinstance(e.get("splits"), dict)]
    if per_split:
        rows: list[tuple[str, ...]] = []
        with_ids = any(isinstance(info, dict) for e in per_split for info in e["splits"].values())
        for e in per_split:
            subject = ", ".join(_flat(v) for k, v in e.items() if k not in ("splits", "chains", "chain_text"))
            for split, info in e["splits"].items():
                if isinstance(info, dict):
                    ids = info.get("first_and_last_ids") or info.get("ids") or ()
                    rows.append((subject, str(split), cell(info.get("rows", "")), " … ".join(map(str, ids))))
                else:
                    rows.append((subject, str(split), cell(info), "")[: 4 if with_ids else 3])
        key = str(finding.evidence.get("key") or next(iter(per_split[0]), "value"))
        if with_ids:
            tables.append(ExampleTable((key, "split", "rows", "ids (first … last)"), tuple(rows)))
        else:  # rows per split of a linked component: no ids to show
            key = "linked rows" if key == "rows" else key
            tables.append(ExampleTable((key, "split", "rows in split"), tuple(rows)))
        for e in per_split:
            for chain in e.get("chains") or ():
                steps = [s for s in chain.get("steps", ()) if isinstance(s, dict)]
                chain_rows = []
                for i, s in enumerate(steps):
                    if "id" in s:
                        link = steps[i + 1] if i + 1 < len(steps) and "key" in steps[i + 1] else {}
                        via = f"{link['key']} = {step_value(link)}" if link else ""
                        chain_rows.append((str(s["id"]), str(s.get("split", "")), via))
                tables.append(ExampleTable(("id", "split", "linked to the next by"), tuple(chain_rows)))
    rest = [e for e in examples if not isinstance(e.get("splits"), dict)]
    if rest:
        columns = tuple(dict.fromkeys(k for e in rest for k in e))
        tables.append(ExampleTable(columns, tuple(tuple(_flat(e.get(c, "")) for c in columns) for e in rest)))
    return tuple(tables)


CHAIN_COLUMNS = ("id", "split", "linked to the next by")
TIMELINE_COLUMNS = {"entity", "holdout_id", "holdout_time", "newest_train_time"}


def _drawn_examples(finding: Finding, fig: Figure, tables: tuple[ExampleTable, ...]) -> ExampleTable | None:
    """The example table ``fig`` draws in full: the chain of a chain figure, the samples of an entity timeline."""
    if fig.kind == "chain":
        ids = [str(s["id"]) for s in first_chain(finding).get("steps", ()) if isinstance(s, dict) and "id" in s]
        return next((t for t in tables if t.columns == CHAIN_COLUMNS and [r[0] for r in t.rows] == ids), None)
    if fig.kind == "timeline" and "newest_train" not in finding.evidence:
        return next((t for t in tables if set(t.columns) == TIMELINE_COLUMNS), None)
    return None


def _section(anchor: str, finding: Finding, split_order: tuple[str, ...], uid: str) -> Section:
    figures, examples = figures_for(finding, split_order, uid=uid), example_tables(finding)
    drawn = tuple(_drawn_examples(finding, fig, examples) for fig in figures)
    shown = tuple(t for t in examples if t not in drawn)
    return Section(anchor, finding, figures, shown, previews_for(finding), drawn)


def subject_label(finding: Finding) -> str:
    """What a finding is about, for a list of titles: its key, with the key column it is a value of (two columns
    can hold the same value: writer `x1` and source `x1` are two findings)."""
    if finding.key is None:
        return ""
    column = finding.evidence.get("key")
    if finding.stage != "accept" and isinstance(column, str) and column != finding.key:
        return f"{column} {finding.key}"
    return finding.key


def fix_first(sections: list[Section]) -> list[Section]:
    """The few findings to fix first: unaccepted errors, then warnings, in report order."""
    live = [s for s in sections if not s.finding.accepted and s.finding.severity is not Severity.INFO]
    return sorted(live, key=lambda s: -s.finding.severity.rank)[:FIX_FIRST]


def folded(section: Section) -> bool:
    """Whether a finding is folded away under the infos: an info nobody had to accept (a fact, not a problem)."""
    return section.finding.severity is Severity.INFO and not section.finding.accepted


def render_html(report: Report) -> str:
    env = Environment(
        loader=PackageLoader("auditor.render", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        finalize=_shown,
    )
    # Paths are shown relative to the config's folder: the page reads the same on another machine.
    folder = config_folder(report)
    env.filters["here"] = lambda text: text if isinstance(text, Markup) else shown_path(str(text), folder, elide=False)
    env.filters["code"] = _inline_code
    env.filters["baseline_tag"] = baseline_tag
    env.filters["subject"] = subject_label
    template = env.get_template("report.html.j2")
    findings = sorted(report.findings, key=lambda f: (f.accepted, *f.sort_key()))
    split_order = tuple(report.manifest.rows_per_split) if report.manifest else ()
    sections = [_section(f"finding-{i + 1}", f, split_order, f"fig{i + 1}") for i, f in enumerate(findings)]
    infos = [s for s in sections if folded(s)]
    # A skipped stage the config asked for is a row with its reason; the ones given nothing to check fold away.
    ran = [r for r in report.stages if not (r.status == "skipped" and r.not_applicable)]
    skipped = [r for r in report.stages if r.status == "skipped" and r.not_applicable]
    return template.render(
        report=report,
        csp=CSP,
        sections=[s for s in sections if not folded(s)],
        infos=infos,
        info_codes=", ".join(
            f"{code} ×{n}" if n > 1 else code for code, n in sorted(Counter(s.finding.code for s in infos).items())
        ),
        config_name=shown_path(report.config_path, folder, elide=False) if report.config_path else None,
        config_folder=folder,
        first=fix_first(sections),
        ran=ran,
        skipped=skipped,
        headline=headline(report),
        manifest=manifest_line(report, relative_to=folder or None),
        exempt=allowed_holdout_pairs(report),
        exempt_label=ALLOWED_HOLDOUT_LABEL,
        compared=baseline_line(report),
        resolved=[about(f) for f in report.baseline.resolved] if report.baseline else [],
        user_said=user_output_line(report),
        user_tails=user_output_tails(report),
        user_lines=USER_OUTPUT_LINES,
        cell=cell,
        found_text=found_text,
        chain_columns=CHAIN_COLUMNS,
    )
