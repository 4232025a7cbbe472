"""Inline SVG figures for the HTML report, built from a Finding alone.

Each figure is bounded (at most a dozen splits, labels, rows or nodes, whatever the data's size), uses the
Okabe-Ito palette, never lets colour be the only cue (every mark is labelled or patterned), and carries a
text alternative (<title>, <desc>, aria-label). A finding whose evidence lacks what a figure needs gets none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup, escape

from auditor.core.findings import Finding, Severity, Table

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency, and in greyscale by label.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
ALERT = "#D55E00"  # vermillion: what is wrong
OK = "#009E73"  # bluish green: what is fine
INK = "#222222"
MUTED = "#767676"

MAX_SPLITS = 12  # matrix rows/columns
MAX_LABELS = 12  # label bars
SHIFT_POINTS = 10.0  # a label's share moved by this many percentage points from train is marked ▲
MAX_ROWS = 12  # fitted-statistic rows, entities on a timeline
MAX_NODES = 7  # samples in a drawn chain
MAX_CELLS = 12  # cells drawn along one tensor dimension
SLOT = 120  # width given to one drawn tensor
FONT = "font-family:system-ui,sans-serif;font-size:12px"
TRACK = 8  # stroke width of a timeline's track
TRACK_LANE = 22  # from the train track to the baseline of its label, in the lane below it


@dataclass(frozen=True)
class Figure:
    """One figure: its kind (for tests and CSS), a short title and the SVG markup (already escaped).

    ``table`` is the finding's table the figure draws in full: the page shows it as the figure's text, not twice.
    """

    kind: str
    title: str
    svg: Markup
    table: Table | None = None


def figures_for(finding: Finding, split_order: Sequence[str] = (), uid: str = "f") -> tuple[Figure, ...]:
    """The figures that show ``finding`` at a glance (none when its evidence does not fit one).

    ``split_order`` orders splits as the manifest does; ``uid`` keeps pattern ids unique within one page.
    """
    found: list[Figure | None] = []
    if finding.stage in ("group_overlap", "shared_upstream", "duplicate_content"):
        found.append(_overlap_matrix(finding, split_order, uid))
        if finding.stage == "shared_upstream":
            found.append(_chain_graph(finding, split_order))
    elif finding.stage == "temporal_order":
        found.append(_split_timeline(finding) if "newest_train" in finding.evidence else _entity_timeline(finding))
    elif finding.stage == "label_coverage":
        found.append(_label_bars(finding, split_order, uid))
    elif finding.stage == "fitted_statistics":
        found.append(_fit_grid(finding))
    elif finding.stage == "feature_leakage":
        found.append(_power_bars(finding, uid))
    elif finding.stage == "broadcast":
        found.append(_broadcast_shapes(finding))
    elif finding.stage == "nonfinite_trace":
        found.append(_first_nonfinite(finding, uid))
    elif finding.stage == "test_exposure":
        found.append(_exposure_timeline(finding))
    return tuple(f for f in found if f is not None)


# ----------------------------------------------------------------------------------------------- helpers


def _t(text: object) -> str:
    return str(escape(str(text)))


def _short(text: object, limit: int = 24) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _svg(kind: str, width: float, height: float, title: str, desc: str, body: str, defs: str = "") -> Figure:
    """Wrap ``body`` in an accessible, self-sizing <svg> element."""
    label = f"{title}. {desc}"
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="figure {kind}" role="img" aria-label="{_t(label)}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" style="{FONT}">'
        f"<title>{_t(title)}</title><desc>{_t(desc)}</desc>"
        + (f"<defs>{defs}</defs>" if defs else "")
        + body
        + "</svg>"
    )
    return Figure(kind=kind, title=title, svg=Markup(svg))


def _text(x: float, y: float, text: object, anchor: str = "start", weight: str = "normal", fill: str = INK) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{_t(text)}</text>'
    )


def _hatch(pid: str, color: str, kind: int) -> str:
    """A fill pattern per series (solid, diagonal, dots, cross): the second cue next to colour."""
    if kind % 4 == 0:
        return (
            f'<pattern id="{pid}" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" '
            f'height="6" fill="{color}"/></pattern>'
        )
    marks = {
        1: f'<path d="M0,6 L6,0" stroke="{color}" stroke-width="2"/>',
        2: f'<circle cx="3" cy="3" r="1.6" fill="{color}"/>',
        3: f'<path d="M0,3 H6 M3,0 V6" stroke="{color}" stroke-width="1.5"/>',
    }[kind % 4]
    return (
        f'<pattern id="{pid}" width="6" height="6" patternUnits="userSpaceOnUse">'
        f'<rect width="6" height="6" fill="#fff"/><rect width="6" height="6" fill="{color}" '
        f'fill-opacity=".25"/>{marks}</pattern>'
    )


def _order(names: Sequence[str], split_order: Sequence[str]) -> list[str]:
    rank = {s: i for i, s in enumerate(split_order)}
    return sorted(dict.fromkeys(names), key=lambda s: (rank.get(s, len(rank)), s))


def _percent(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    m = re.fullmatch(r"\s*(-?[0-9.]+)\s*%\s*", str(value))
    return float(m.group(1)) if m else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _more(shown: int, total: int, what: str) -> str:
    return f" (the first {shown} of {total} {what})" if total > shown else ""


# ---------------------------------------------------------------------- overlap: split x split heatmap


def _overlap_matrix(finding: Finding, split_order: Sequence[str], uid: str) -> Figure | None:
    table = next((t for t in finding.tables if t.columns[:3] == ("split", "split", "judged as")), None)
    if table is None:
        return None
    counts: dict[tuple[str, str], tuple[int, str]] = {}
    for row in table.rows:
        n = _number(row[3])
        if n is None:
            continue
        a, b = str(row[0]), str(row[1])
        counts[(a, b)] = counts[(b, a)] = (int(n), str(row[2]))
    if not counts:
        return None
    involved = _order([s for pair in counts for s in pair], split_order)
    everyone = _order([*split_order, *involved], split_order)
    # beyond the cap, keep the splits that share something (in the manifest's order)
    kept = set(everyone[:MAX_SPLITS]) if len(everyone) <= MAX_SPLITS else set(involved[:MAX_SPLITS])
    kept |= set([s for s in everyone if s not in kept][: MAX_SPLITS - len(kept)])
    splits = [s for s in everyone if s in kept]
    dropped = len(everyone) - len(splits)
    top = max(n for n, _ in counts.values()) or 1
    cw, ch, left, head = 76, 40, 96, 44
    w, h = max(left + cw * len(splits) + 10, 380), head + ch * len(splits) + 26
    what = (
        "linked groups"
        if finding.stage == "shared_upstream"
        else (
            "identical contents"
            if finding.stage == "duplicate_content"
            else "near copies"
            if finding.stage == "near_duplicates"
            else f"'{finding.evidence.get('key', 'group')}' values"
        )
    )
    hatch = f"{uid}-allowed"
    by = "fold by fold" if "per fold pair" in table.title else "split by split"  # cross-validation folds
    body = [_text(10, 14, f"{what} shared, {by}", weight="bold")]
    for j, s in enumerate(splits):
        body.append(_text(left + cw * j + cw / 2, head - 6, _short(s, 10), "middle", "bold"))
    cells = []
    for i, a in enumerate(splits):
        y = head + ch * i
        body.append(_text(left - 8, y + ch / 2 + 4, _short(a, 12), "end", "bold"))
        for j, b in enumerate(splits):
            x = left + cw * j
            if a == b:
                body.append(
                    f'<rect class="cell diagonal" x="{x}" y="{y}" width="{cw}" height="{ch}" fill="#f2f2f2" '
                    f'stroke="#fff"/>'
                )
                body.append(_text(x + cw / 2, y + ch / 2 + 4, "—", "middle", fill=MUTED))
                continue
            n, judged = counts.get((a, b), (0, ""))
            share = n / top
            fill = f"url(#{hatch})" if judged == "allowed" and n else (_blue(share) if n else "#ffffff")
            dark = share > 0.55 and judged != "allowed"
            body.append(
                f'<rect class="cell" x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" stroke="#999">'
                f"<title>{_t(f'{a} × {b}: {n} shared' + (f' ({judged})' if judged else ''))}</title></rect>"
            )
            body.append(
                _text(
                    x + cw / 2,
                    y + ch / 2 + (0 if judged == "allowed" and n else 4),
                    n,
                    "middle",
                    "bold",
                    "#fff" if dark else INK,
                )
            )
            if judged == "allowed" and n:
                body.append(_text(x + cw / 2, y + ch / 2 + 14, "allowed", "middle", fill=INK))
            cells.append(f"{a}–{b} {n}" if i < j and n else "")
    note = f"{dropped} more split(s) not drawn" if dropped else "darker: more shared; hatched: an allowed pair"
    body.append(_text(left, h - 8, note, fill=MUTED))
    desc = "Shared counts per split pair: " + (", ".join(c for c in cells if c) or "none") + "."
    figure = _svg("matrix", w, h, f"{what} shared between splits", desc, "".join(body), _hatch(hatch, PALETTE[1], 1))
    return replace(figure, table=_split_matrix_table(finding))


def _split_matrix_table(finding: Finding) -> Table | None:
    """The finding's split-by-split table (a blank corner, then one row per split), which the matrix draws."""
    for t in finding.tables:
        if t.columns and t.columns[0] == "" and [str(r[0]) for r in t.rows if r] == list(t.columns[1:]):
            return t
    return None


def _blue(share: float) -> str:
    """White to Okabe-Ito blue, by share of the largest count (a single hue reads in greyscale too)."""
    share = 0.15 + 0.85 * max(0.0, min(1.0, share))
    r, g, b = (round(255 + (c - 255) * share) for c in (0x00, 0x72, 0xB2))
    return f"#{r:02x}{g:02x}{b:02x}"


# ------------------------------------------------------------------------- shared_upstream: the chain


def step_value(step: dict[str, Any]) -> str:
    """A chain step's value as the rows on either side write it: `W1 / w1` when they spell it differently."""
    spellings = step.get("spellings")
    if isinstance(spellings, list) and spellings:
        return " / ".join(str(s) for s in spellings)
    return str(step.get("value"))


def first_chain(finding: Finding) -> dict[str, Any]:
    """The chain the figure draws: the first chain of the first example that has any ({} when none)."""
    chains = next((e.get("chains") for e in finding.examples if isinstance(e.get("chains"), list)), None)
    return chains[0] if chains and isinstance(chains[0], dict) else {}


def _chain_graph(finding: Finding, split_order: Sequence[str]) -> Figure | None:
    first = first_chain(finding)
    steps = first.get("steps")
    if not isinstance(steps, list):
        return None
    nodes = [s for s in steps if isinstance(s, dict) and "id" in s]
    edges = [s for s in steps if isinstance(s, dict) and "key" in s]
    if len(nodes) < 2:
        return None
    total = len(nodes)
    nodes, edges = nodes[:MAX_NODES], edges[: MAX_NODES - 1]
    colour = {
        s: PALETTE[i % len(PALETTE)] for i, s in enumerate(_order([str(n.get("split")) for n in nodes], split_order))
    }
    nw, nh = 104, 44
    # The space between two nodes holds the edge's key and value (bold, about 7.5 px a character).
    longest = max((len(_short(v, 16)) for e in edges for v in (e.get("key"), step_value(e))), default=0)
    gap = nw + max(66, round(longest * 7.5) + 16)
    w, h = max(20 + gap * (len(nodes) - 1) + nw + 20 + (50 if total > len(nodes) else 0), 560), 118
    body = []
    for i, e in enumerate(edges):
        x1, x2 = 20 + gap * i + nw, 20 + gap * (i + 1)
        body.append(f'<line class="edge" x1="{x1}" y1="62" x2="{x2}" y2="62" stroke="{INK}" stroke-width="2"/>')
        body.append(_text((x1 + x2) / 2, 54, _short(e.get("key"), 16), "middle", "bold"))
        body.append(_text((x1 + x2) / 2, 80, _short(step_value(e), 16), "middle"))
    for i, n in enumerate(nodes):
        x, split = 20 + gap * i, str(n.get("split"))
        body.append(
            f'<rect class="node" x="{x}" y="40" width="{nw}" height="{nh}" rx="8" fill="#fff" '
            f'stroke="{colour[split]}" stroke-width="4"/>'
        )
        body.append(_text(x + nw / 2, 58, _short(n.get("id"), 14), "middle", "bold"))
        body.append(_text(x + nw / 2, 76, split, "middle", fill=INK))
    if total > len(nodes):
        body.append(_text(w - 40, 66, f"+{total - len(nodes)}", "middle", fill=MUTED))
    body.insert(0, _text(20, 18, "node border and text: the split; edge: the key and value they share"))
    text = first.get("text") if isinstance(first.get("text"), str) else ""
    desc = f"A chain of {total} linked samples" + (f": {text}" if text else "") + "."
    return _svg("chain", w, h, "example chain of linked samples", desc, "".join(body))


# ------------------------------------------------------------------------------ temporal_order: timelines


def _when(value: Any) -> float | None:
    """Seconds since the epoch of an ISO time (or a plain number), None if neither."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return _number(value)
    return _number(value)


def _axis(lo: float, hi: float) -> tuple[float, float]:
    pad = (hi - lo) * 0.06 or 1.0
    return lo - pad, hi + pad


def _split_timeline(finding: Finding) -> Figure | None:
    newest = _when(finding.evidence.get("newest_train"))
    splits = finding.evidence.get("splits")
    if newest is None or not isinstance(splits, dict):
        return None
    timed = [(str(s), v, _when(v.get("oldest"))) for s, v in splits.items() if isinstance(v, dict)][:MAX_ROWS]
    rows = [(s, v, t) for s, v, t in timed if t is not None]
    if not rows:
        return None
    lo, hi = _axis(min([newest, *(t for _, _, t in rows)]), max([newest, *(t for _, _, t in rows)]))
    left, width = 110, 520
    total_w = left + width + 30

    def x(t: float) -> float:
        return left + (t - lo) / (hi - lo) * width

    # The newest-train label has a lane of its own between the train track and the first holdout track, so it
    # can never sit on a track, and it runs away from the nearer edge so it is never cut off.
    train_y, lane, first_y, step = 50, TRACK_LANE, 50 + TRACK_LANE + 34, 34
    h = first_y + step * len(rows) + 26
    oldest = min(t for _, _, t in rows)
    body = [
        f'<rect class="overlap" x="{x(oldest):.1f}" y="34" width="{x(newest) - x(oldest):.1f}" '
        f'height="{h - 60}" fill="{ALERT}" fill-opacity=".12"/>',
        _text(x(oldest) + 4, 30, "overlap: holdout older than training", fill=ALERT),
    ]
    body.append(_text(left - 8, train_y + 4, "train", "end", "bold"))
    body.append(
        f'<line class="track train" x1="{left}" y1="{train_y}" x2="{x(newest):.1f}" y2="{train_y}" '
        f'stroke="{PALETTE[0]}" stroke-width="{TRACK}" stroke-dasharray="2 3"/>'
    )
    body.append(f'<circle class="mark" cx="{x(newest):.1f}" cy="{train_y}" r="6" fill="{PALETTE[0]}"/>')
    label = f"newest train {_date(finding.evidence['newest_train'])}"
    rightward = x(newest) < left + width / 2
    body.append(
        _text(
            x(newest) - 6 if rightward else x(newest) + 6, train_y + lane, label, "start" if rightward else "end"
        ).replace("<text ", '<text class="newest" ', 1)
    )
    for i, (s, v, t) in enumerate(rows):
        y = first_y + step * i
        body.append(_text(left - 8, y + 4, _short(s, 14), "end", "bold"))
        body.append(
            f'<line class="track holdout" x1="{x(t):.1f}" y1="{y}" x2="{left + width}" y2="{y}" '
            f'stroke="{PALETTE[1]}" stroke-width="{TRACK}" stroke-dasharray="2 3"/>'
        )
        body.append(f'<rect class="mark" x="{x(t) - 6:.1f}" y="{y - 6}" width="12" height="12" fill="{ALERT}"/>')
        body.append(
            _text(
                x(t) + 10,
                y + 18,
                f"oldest {_date(v.get('oldest'))}: {v.get('rows')} of {v.get('of')} rows older",
                fill=INK,
            )
        )
    desc = f"Newest training sample {finding.evidence['newest_train']}; " + "; ".join(
        f"{s}: {v.get('rows')} of {v.get('of')} rows, oldest {v.get('oldest')}" for s, v, _ in rows
    )
    figure = _svg("timeline", total_w, h, "holdout time ranges against training", desc, "".join(body))
    table = next((t for t in finding.tables if t.columns[:3] == ("split", "rows", "of")), None)
    return replace(figure, table=table)


def _date(value: Any) -> str:
    return str(value)[:16].replace("T", " ")


def _entity_timeline(finding: Finding) -> Figure | None:
    timed = [
        (e, _when(e.get("holdout_time")), _when(e.get("newest_train_time")))
        for e in finding.examples
        if "holdout_time" in e and "newest_train_time" in e
    ]
    rows = [(e, a, b) for e, a, b in timed if a is not None and b is not None][:MAX_ROWS]
    if not rows:
        return None
    times = [t for _, a, b in rows for t in (a, b)]
    lo, hi = _axis(min(times), max(times))
    left, width = 130, 480

    def x(t: float) -> float:
        return left + (t - lo) / (hi - lo) * width

    body = [
        f'<rect x="{left}" y="10" width="12" height="12" fill="{ALERT}"/>',
        _text(left + 18, 20, "holdout sample"),
        f'<circle cx="{left + 146}" cy="16" r="6" fill="{PALETTE[0]}"/>',
        _text(left + 158, 20, "the entity's newest training sample"),
    ]
    for i, (e, a, b) in enumerate(rows):
        y = 52 + 40 * i
        body.append(_text(left - 8, y + 4, _short(e.get("entity"), 16), "end", "bold"))
        body.append(f'<line x1="{x(a):.1f}" y1="{y}" x2="{x(b):.1f}" y2="{y}" stroke="{ALERT}" stroke-width="2"/>')
        body.append(f'<rect class="mark" x="{x(a) - 6:.1f}" y="{y - 6}" width="12" height="12" fill="{ALERT}"/>')
        body.append(f'<circle class="mark" cx="{x(b):.1f}" cy="{y}" r="6" fill="{PALETTE[0]}"/>')
        body.append(_text(x(a), y + 20, f"{_short(e.get('holdout_id'), 12)} {_date(e.get('holdout_time'))}", "start"))
        body.append(_text(x(b), y + 20, _date(e.get("newest_train_time")), "end"))
    desc = "; ".join(
        f"{e.get('entity')}: holdout {e.get('holdout_id')} at {e.get('holdout_time')}, newest training sample at "
        f"{e.get('newest_train_time')}"
        for e, _, _ in rows
    )
    return _svg(
        "timeline",
        left + width + 60,
        40 + 40 * len(rows) + 16,
        "holdout samples older than their entity's training",
        desc,
        "".join(body),
    )


# -------------------------------------------------------------------------- label_coverage: share bars


def _label_bars(finding: Finding, split_order: Sequence[str], uid: str) -> Figure | None:
    table = next((t for t in finding.tables if t.columns and t.columns[0] == "label" and len(t.columns) > 2), None)
    if table is None:
        return None
    series = [c.removesuffix(" share") for c in table.columns[1:]]
    rows = []
    for row in table.rows[:MAX_LABELS]:
        maybe = [_percent(v) for v in row[1:]]
        shares = [v for v in maybe if v is not None]
        if len(shares) != len(maybe):
            return None
        rows.append((str(row[0]), shares))
    if not rows:
        return None
    # ▲ means "shifted from train by 10 points or more, or unseen in train", and only where the finding reports
    # such a shift: an info finding that lists every split's shares judged nothing, so it marks nothing.
    unseen = {str(e.get("label")) for e in finding.examples if "label" in e}
    judged = finding.severity is not Severity.INFO and series[0] == "train"
    shifted = (
        {label for label, s in rows if max(abs(v - s[0]) for v in s[1:]) >= SHIFT_POINTS or label in unseen}
        if judged
        else set()
    )
    bar, gap, left, width = 12, 12, 140, 360
    block = bar * len(series) + gap
    legend_h = 24
    h = legend_h + 12 + block * len(rows) + 8
    defs = "".join(_hatch(f"{uid}-s{i}", PALETTE[i % len(PALETTE)], i) for i in range(len(series)))
    body = []
    for i, s in enumerate(series):
        lx = left + 100 * i
        body.append(
            f'<rect x="{lx}" y="6" width="14" height="12" fill="url(#{uid}-s{i})" '
            f'stroke="{PALETTE[i % len(PALETTE)]}"/>'
        )
        body.append(_text(lx + 18, 16, _short(s, 12)))
    for r, (label, shares) in enumerate(rows):
        y0 = legend_h + 12 + block * r
        if label in shifted:
            body.append(
                f'<rect class="shifted" x="2" y="{y0 - 3}" width="{left + width + 60}" '
                f'height="{bar * len(series) + 6}" fill="{ALERT}" fill-opacity=".08"/>'
            )
        body.append(
            _text(
                left - 8,
                y0 + bar * len(series) / 2 + 4,
                ("▲ " if label in shifted else "") + _short(label, 18),
                "end",
                "bold" if label in shifted else "normal",
                ALERT if label in shifted else INK,
            )
        )
        for i, share in enumerate(shares):
            y = y0 + bar * i
            bw = max(width * share / 100.0, 0.5)
            body.append(
                f'<rect class="bar" x="{left}" y="{y}" width="{bw:.1f}" height="{bar - 2}" '
                f'fill="url(#{uid}-s{i})" stroke="{PALETTE[i % len(PALETTE)]}"/>'
            )
            body.append(
                f'<text x="{left + bw + 4:.1f}" y="{y + bar - 3}" font-size="10" fill="{INK}">{share:.1f}%</text>'
            )
    more = _more(len(rows), len(table.rows), "labels")
    desc = (
        "Share of each label per split"
        + more
        + ". "
        + "; ".join(
            f"{label}: "
            + ", ".join(f"{s} {v:.1f}%" for s, v in zip(series, shares, strict=True))
            + (" (shifted)" if label in shifted else "")
            for label, shares in rows
        )
    )
    title = "label shares per split" + (
        " (▲: shifted from train by 10 points or more, or unseen in train)" if judged else ""
    )
    return replace(_svg("bars", left + width + 70, h, title, desc, "".join(body), defs), table=table)


# ------------------------------------------------------------------- fitted_statistics: which rows match


def _fit_grid(finding: Finding) -> Figure | None:
    table = next((t for t in finding.tables if t.columns[:3] == ("column", "statistic", "artifact")), None)
    if table is None or len(table.columns) < 4:
        return None
    sets = [c.removesuffix(" (claimed)") for c in table.columns[3:]]
    claimed = [c.endswith(" (claimed)") for c in table.columns[3:]]
    matches = {str(s) for s in finding.evidence.get("reproduces_from", ()) or ()}
    sizes = finding.evidence.get("rows_per_set")
    sizes = sizes if isinstance(sizes, dict) else {}
    rows = table.rows[:MAX_ROWS]
    left, cw, ch, head = 190, 96, 26, 62 if sizes else 48
    w, h = max(left + cw * len(sets) + 10, 620), head + ch * len(rows) + 30
    body = [
        _text(left - 8, head - 36 if sizes else head - 22, "artifact", "end", "bold"),
        _text(left - 8, head - 8, "column · stat", "end", fill=MUTED),
    ]
    for j, s in enumerate(sets):
        x = left + cw * j
        if s in matches:
            body.append(
                f'<rect class="match" x="{x + 1}" y="4" width="{cw - 2}" height="{head + ch * len(rows) - 2}" '
                f'fill="none" stroke="{OK}" stroke-width="3" rx="4"/>'
            )
        name_y = head - 36 if sizes else head - 22
        body.append(_text(x + cw / 2, name_y, _short(s, 13), "middle", "bold"))
        if isinstance(sizes.get(s), int):
            body.append(_text(x + cw / 2, name_y + 14, f"{sizes[s]:,} rows", "middle", fill=MUTED))
        body.append(
            _text(
                x + cw / 2,
                head - 8,
                "✓ matches" if s in matches else ("claimed" if claimed[j] else ""),
                "middle",
                "bold" if s in matches else "normal",
                OK if s in matches else MUTED,
            )
        )
    for i, row in enumerate(rows):
        y = head + ch * i
        art = _number(row[2])
        values = [_number(v) for v in row[3:]]
        diffs = [v - art if art is not None and v is not None else None for v in values]
        top = max((abs(d) for d in diffs if d is not None), default=0.0) or 1.0
        body.append(_text(left - 8, y + 17, f"{_short(row[0], 14)} · {row[1]} = {_fmt(art)}", "end"))
        for j, d in enumerate(diffs):
            x = left + cw * j
            body.append(f'<rect x="{x + 4}" y="{y + 3}" width="{cw - 8}" height="{ch - 6}" fill="#f6f6f6"/>')
            if d is None:
                body.append(_text(x + cw / 2, y + 17, "n/a", "middle", fill=MUTED))
                continue
            exact = abs(d) <= 1e-6 * max(1.0, abs(art or 0.0))
            bw = 0 if exact else max(2.0, (cw - 8) * abs(d) / top)
            body.append(
                f'<rect class="deviation" x="{x + 4}" y="{y + 3}" width="{bw:.1f}" height="{ch - 6}" '
                f'fill="{MUTED}" fill-opacity=".35"/>'
            )
            # A count is shown as itself: how many values or rows the set holds is what tells the sets apart.
            shown = f"{values[j]:,.0f}" if row[1] == "count" and values[j] is not None else f"{d:+.3g}"
            body.append(
                _text(
                    x + cw / 2,
                    y + 17,
                    "= artifact" if exact else shown,
                    "middle",
                    "bold" if exact else "normal",
                    OK if exact else INK,
                )
            )
    more = _more(len(rows), len(table.rows), "rows")
    body.append(
        _text(
            8,
            h - 8,
            "cells: value on that row set minus the artifact's, a count as itself (bar: size of the gap)" + more,
            fill=MUTED,
        )
    )
    desc = (
        f"The artifact's values against the values each row set gives ({', '.join(sets)}); "
        f"it matches {', '.join(sorted(matches)) or 'none of them'}."
    )
    return _svg("fit", w, h, "which rows the artifact was fitted on", desc, "".join(body))


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


# ------------------------------------------------------------------ feature_leakage: power per feature

_FLAG_TEXT = {"proxy": "▲ proxy", "identifier": "◆ identifier", "split": "● encodes the split"}


def _power_bars(finding: Finding, uid: str) -> Figure | None:
    """Each column's holdout skill (0 chance, 1 perfect) as a bar, its out-of-fold training skill as a tick;
    proxies and the other flagged columns are named beside their bar, not only coloured."""
    table = next((t for t in finding.tables if t.columns[:1] == ("column",) and "holdout skill" in t.columns), None)
    if table is None or "train skill" not in table.columns or "flag" not in table.columns:
        return None
    at = {c: i for i, c in enumerate(table.columns)}
    rows = []
    for row in table.rows[:MAX_ROWS]:
        skill, train = _number(row[at["holdout skill"]]), _number(row[at["train skill"]])
        rows.append((str(row[0]), skill, train, str(row[at["flag"]] or "")))
    if not rows:
        return None
    bar, left, width, top = 18, 170, 320, 30
    lo = min([0.0, *(max(v, -1.0) for _, v, t, _ in rows for v in (v, t) if v is not None)])
    span = 1.0 - lo

    def x(v: float) -> float:
        return left + width * (max(v, lo) - lo) / span

    more = _more(len(rows), len(table.rows), "columns")
    h = top + bar * len(rows) + 34 + (16 if more else 0)  # the note of rows left out has a line of its own
    defs = _hatch(f"{uid}-id", PALETTE[0], 1)
    body = [
        f'<line x1="{x(0):.1f}" y1="{top - 6}" x2="{x(0):.1f}" y2="{top + bar * len(rows)}" stroke="{MUTED}" '
        'stroke-dasharray="3,3"/>',
        _text(x(0), top - 10, "chance", "middle", fill=MUTED),
        _text(x(1), top - 10, "perfect", "middle", fill=MUTED),
    ]
    for i, (name, skill, train, flag) in enumerate(rows):
        y = top + bar * i
        color = ALERT if flag == "proxy" else PALETTE[0]
        fill = f"url(#{uid}-id)" if flag == "identifier" else color
        body.append(_text(left - 8, y + 13, _short(name, 22), "end", "bold" if flag else "normal", color))
        if skill is not None:
            x0, x1 = sorted((x(0), x(skill)))
            body.append(
                f'<rect class="bar{" proxy" if flag == "proxy" else ""}" x="{x0:.1f}" y="{y + 3}" '
                f'width="{max(x1 - x0, 0.5):.1f}" height="{bar - 6}" fill="{fill}" stroke="{color}"/>'
            )
        if train is not None:
            body.append(
                f'<line class="train" x1="{x(train):.1f}" y1="{y + 1}" x2="{x(train):.1f}" y2="{y + bar - 1}" '
                f'stroke="{INK}" stroke-width="2"/>'
            )
        label = f"{_fmt(skill)}" + (f"  {_FLAG_TEXT.get(flag, flag)}" if flag else "")
        body.append(_text(left + width + 8, y + 13, label, "start", "bold" if flag else "normal", color))
    legend_y = h - 26 if more else h - 10
    body.append(
        _text(left, legend_y, "bar: skill on the holdout; tick: skill on the training rows (out of fold)", fill=MUTED)
    )
    if more:
        body.append(_text(left, h - 10, more.strip(), fill=MUTED))
    flagged = [f"{n} ({f})" for n, _, _, f in rows if f]
    desc = (
        "Skill of each column alone on the holdout, 0 at chance and 1 when perfect"
        + more
        + ". "
        + "; ".join(f"{n}: {_fmt(v)}" for n, v, _, _ in rows)
        + (". Flagged: " + ", ".join(flagged) if flagged else ". Nothing flagged")
        + "."
    )
    title = "predictive power of each column alone (▲ proxy)"
    return replace(_svg("power", left + width + 170, h, title, desc, "".join(body), defs), table=table)


# ------------------------------------------------------------------------------------ numeric: shapes


def _shape(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, list | tuple) and all(isinstance(d, int) and not isinstance(d, bool) for d in value):
        return tuple(value)
    return None


def _tensor(
    x: float, y: float, shape: tuple[int, ...], fill: str, label: str, pattern: str = ""
) -> tuple[str, float, float]:
    """A tensor drawn as its last two dimensions' grid of cells (capped), with its shape written below."""
    rows, cols = (1, shape[0]) if len(shape) == 1 else ((shape[-2], shape[-1]) if shape else (1, 1))
    r, c, cell = min(rows, MAX_CELLS), min(cols, MAX_CELLS), 10
    x += max(0.0, (SLOT - c * cell) / 2)  # centred in its slot, so the labels below fit
    out = [
        f'<rect class="tensor" x="{x}" y="{y}" width="{c * cell}" height="{r * cell}" fill="{pattern or fill}" '
        f'stroke="{INK}"/>'
    ]
    out += [
        f'<line x1="{x + k * cell}" y1="{y}" x2="{x + k * cell}" y2="{y + r * cell}" stroke="#fff" stroke-width="1"/>'
        for k in range(1, c)
    ]
    out += [
        f'<line x1="{x}" y1="{y + k * cell}" x2="{x + c * cell}" y2="{y + k * cell}" stroke="#fff" stroke-width="1"/>'
        for k in range(1, r)
    ]
    dims = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    out.append(_text(x + c * cell / 2, y + r * cell + 16, dims, "middle", "bold"))
    out.append(_text(x + c * cell / 2, y + r * cell + 30, label, "middle", fill=MUTED))
    if len(shape) == 1:
        out.append(_text(x + c * cell / 2, y + r * cell + 44, f"read as (1, {shape[0]})", "middle", fill=MUTED))
    return "".join(out), SLOT, r * cell


def _broadcast_shapes(finding: Finding) -> Figure | None:
    ev = finding.evidence
    left, right, result = _shape(ev.get("left")), _shape(ev.get("right")), _shape(ev.get("result"))
    if left is None or right is None or result is None:
        return None
    body, x = [], 20.0
    parts = [
        (left, PALETTE[0], "left operand", ""),
        (right, PALETTE[1], "right operand", ""),
        (result, ALERT, "result", ""),
    ]
    signs = [_t(ev.get("op", "op")), "→"]
    heights = []
    for i, (shape, fill, label, pattern) in enumerate(parts):
        svg, w, hgt = _tensor(x, 40, shape, fill, label, pattern)
        body.append(svg)
        heights.append(hgt)
        x += w + 10
        if i < 2:
            body.append(f'<text x="{x:.1f}" y="60" font-size="16" font-weight="bold" fill="{INK}">{signs[i]}</text>')
            x += 50
    n = math.prod(result)
    body.insert(
        0,
        _text(20, 20, f"{math.prod(left)} and {math.prod(right)} elements broadcast to {n}", weight="bold", fill=ALERT),
    )
    desc = f"{ev.get('op')}: {left} with {right} gives {result}, {n} elements; larger than either operand."
    return _svg(
        "shapes", max(x + 10, 480), 40 + max(heights) + 58, "broadcasting operands and result", desc, "".join(body)
    )


def _first_nonfinite(finding: Finding, uid: str) -> Figure | None:
    ev = finding.evidence
    inputs = [s for s in (_shape(v) for v in ev.get("input_shapes", ()) or ()) if s is not None][:3]
    output = _shape(ev.get("output_shape"))
    if output is None or "op" not in ev:
        return None
    body, x, heights = [], 20.0, []
    for shape in inputs:
        svg, w, hgt = _tensor(x, 40, shape, OK, "finite input")
        body.append(svg)
        heights.append(hgt)
        x += w + 10
    op_w = 150
    body.append(
        f'<rect class="op" x="{x}" y="40" width="{op_w}" height="44" rx="6" fill="#fff" stroke="{ALERT}" '
        f'stroke-width="3"/>'
    )
    body.append(_text(x + op_w / 2, 58, f"{_short(ev.get('op'), 18)}", "middle", "bold"))
    body.append(_text(x + op_w / 2, 76, _short(ev.get("module") or "", 20), "middle", fill=MUTED))
    body.append(_text(x + op_w / 2, 102, _short(str(ev.get("at") or "").rsplit("/", 1)[-1], 24), "middle", fill=MUTED))
    x += op_w + 16
    body.append(f'<text x="{x:.1f}" y="66" font-size="16" font-weight="bold" fill="{INK}">→</text>')
    x += 30
    pattern = f"url(#{uid}-nan)"
    svg, w, hgt = _tensor(x, 40, output, ALERT, f"{ev.get('non_finite', '?')} non-finite", pattern)
    body.append(svg)
    heights.append(hgt)
    x += w + 10
    body.insert(
        0,
        _text(20, 20, "the first op whose output is NaN or inf while its inputs are finite", weight="bold", fill=ALERT),
    )
    desc = (
        f"{ev.get('op')} in {ev.get('module')} at {ev.get('at')}: inputs {inputs} finite, output {output} with "
        f"{ev.get('non_finite')} non-finite values."
    )
    defs = _hatch(f"{uid}-nan", ALERT, 3)
    return _svg(
        "nonfinite",
        max(x + 10, 520),
        40 + max(max(heights), 64) + 44,
        "where the first NaN or inf appears",
        desc,
        "".join(body),
        defs,
    )


def _exposure_timeline(finding: Finding) -> Figure | None:
    """Each recorded evaluation of a holdout set (and its copies) as a mark on a time line, one line a name."""
    if not finding.tables:
        return None
    marks = [(_when(row[0]), str(row[1]), str(row[2])) for row in finding.tables[0].rows if row]
    timed = [(t, name, relation) for t, name, relation in marks if t is not None]
    if not timed:
        return None
    names = list(dict.fromkeys(name for _, name, _ in timed))[:MAX_ROWS]
    lo, hi = _axis(min(t for t, _, _ in timed), max(t for t, _, _ in timed))
    left, width = 130, 500

    def x(t: float) -> float:
        return left + (t - lo) / (hi - lo) * width

    h = 50 + 30 * len(names)
    body = []
    for i, name in enumerate(names):
        y = 40 + 30 * i
        body.append(_text(left - 8, y + 4, _short(name, 16), "end", "bold"))
        body.append(f'<line x1="{left}" y1="{y}" x2="{left + width}" y2="{y}" stroke="#cccccc" stroke-width="1"/>')
        for t, n, relation in timed:
            if n == name:
                color = PALETTE[1] if relation == "this set" else ALERT
                body.append(f'<circle class="mark" cx="{x(t):.1f}" cy="{y}" r="5" fill="{color}" fill-opacity=".8"/>')
    first, last = min(t for t, _, _ in timed), max(t for t, _, _ in timed)
    body.append(_text(left, h - 6, _date(datetime.fromtimestamp(first, UTC).isoformat()), "start", fill=MUTED))
    body.append(_text(left + width, h - 6, _date(datetime.fromtimestamp(last, UTC).isoformat()), "end", fill=MUTED))
    k = finding.evidence.get("evaluations", len(timed))
    title = f"{k} evaluation(s) recorded on '{finding.evidence.get('split', '')}' and its copies"
    desc = "; ".join(f"{name}: {sum(1 for _, n, _ in timed if n == name)}" for name in names)
    return _svg("timeline", left + width + 30, h, title, desc, "".join(body))
