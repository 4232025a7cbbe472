"""The HTML report: verdict and fix-first list on top, a figure per finding where one helps, nothing loaded."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from auditor import run_audit
from auditor.core.findings import Finding, Report, Severity, StageResult, Table
from auditor.render.common import BIDI_CONTROLS
from auditor.render.figures import MAX_LABELS, MAX_ROWS, MAX_SPLITS, figures_for
from auditor.render.html import CSP, render_html
from auditor.render.json import render_json
from tests.conftest import SampleReports, with_stage_disabled, write_config, write_table


@pytest.fixture(scope="module")
def video(sample_report: SampleReports) -> Report:
    return sample_report("video_frames")


@pytest.fixture(scope="module")
def clinic(sample_report: SampleReports) -> Report:
    return sample_report("clinic")


def finding(stage: str, **kw: Any) -> Finding:
    base: dict[str, Any] = {"code": "X001", "stage": stage, "severity": Severity.ERROR, "title": "t", "message": "m"}
    return Finding(**(base | kw))


def with_findings(report: Report, *found: Finding) -> Report:
    stage = StageResult(stage="extra", status="failed", duration_s=0.0, findings=found)
    return report.model_copy(update={"stages": (stage,)})


def kinds(f: Finding) -> list[str]:
    return [fig.kind for fig in figures_for(f, ("train", "val", "test"))]


def test_the_page_starts_with_the_verdict_then_what_to_fix_first(video: Report) -> None:
    page = render_html(video)
    verdict, first, findings = page.index('class="verdict'), page.index("Fix first"), page.index("<h2>Findings")
    assert verdict < first < findings
    nav = page[first:findings]
    severities = re.findall(r'badge sev-(\w+)">', nav)
    assert severities == sorted(severities, key=["error", "warning"].index) and len(severities) == 5
    errors = [f for f in video.findings if f.severity.value == "error" and not f.accepted]
    assert severities.count("error") == min(len(errors), 5)  # errors first, then warnings, capped
    for anchor in re.findall(r'href="#([\w-]+)"', nav):
        assert f'id="{anchor}"' in page


def test_the_fix_first_list_tells_one_value_of_two_columns_apart(video: Report) -> None:
    """Writer x1 and source x1 are two findings: the list names each one's column beside the value."""
    page = render_html(
        with_findings(
            video,
            finding("group_overlap", code="GRP001", key="x1", evidence={"key": "writer"}),
            finding("group_overlap", code="GRP001", key="x1", evidence={"key": "source"}),
            finding("accept", code="ACC004", key="GRP001:x1", evidence={"key": "x1"}),
        )
    )
    nav = page[page.index("Fix first") : page.index("<h2>Findings")]
    assert "(writer x1)" in nav and "(source x1)" in nav and "(GRP001:x1)" in nav


def test_overlap_stages_draw_a_split_matrix_and_the_chain(video: Report) -> None:
    by_code = {f.code: f for f in video.findings}
    assert kinds(by_code["GRP003"]) == ["matrix"]
    assert kinds(by_code["DUP001"]) == ["matrix"]
    assert kinds(by_code["UPS001"]) == ["matrix", "chain"]
    chain = figures_for(by_code["UPS001"], ("train", "val", "test"))[1].svg
    # The shortest chain from the first test row to the lowest training row it reaches.
    assert chain.count('class="node"') == 3 and "f0019" in chain and "f0001" in chain and "person" in chain
    matrix = figures_for(by_code["UPS001"], ("train", "val", "test"))[0].svg
    assert matrix.count('class="cell"') == 6 and "allowed" in matrix


def test_a_long_key_name_fits_between_the_chain_nodes() -> None:
    steps = [
        {"id": "a1", "split": "test"},
        {"key": "near copy (file)", "value": "cluster 1"},
        {"id": "b2", "split": "train"},
    ]
    ups = finding("shared_upstream", code="UPS001", examples=({"chains": [{"steps": steps, "text": "t"}]},))
    chain = next(f for f in figures_for(ups, ("train", "test")) if f.kind == "chain").svg
    x = [float(v) for v in re.findall(r'class="node" x="([0-9.]+)"', chain)]
    width = float(re.search(r'class="node" x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"', chain).group(1))  # type: ignore[union-attr]
    assert x[1] - x[0] - width >= len("near copy (file)") * 7  # the bold key, about 7.5 px a character
    total = float(re.search(r'<svg[^>]* width="([0-9.]+)"', chain).group(1))  # type: ignore[union-attr]
    assert total >= x[-1] + width + 4  # the last node's border is not cut


def test_temporal_and_label_findings_draw_timelines_and_bars(video: Report) -> None:
    by_code = {f.code: f for f in video.findings}
    assert kinds(by_code["TMP001"]) == kinds(by_code["TMP002"]) == ["timeline"]
    assert "cam-B" in figures_for(by_code["TMP002"])[0].svg
    bars = figures_for(by_code["LAB002"], ("train", "val", "test"), "u")[0].svg
    assert bars.count('class="shifted"') == 4 and "▲ jumping" in bars  # every listed label moved ≥ 10 points


def test_fitted_statistics_marks_the_row_set_the_artifact_matches(clinic: Report) -> None:
    leak = next(f for f in clinic.findings if f.code == "FIT001")
    svg = figures_for(leak)[0].svg
    assert svg.count('class="match"') == 1
    assert re.search(r"all rows</text>.*✓ matches", svg)
    # Each set's size under its name, and each set's count where the artifact has a count (it was n/a).
    for name, rows in (("train", 168), ("train+val", 204), ("train+test", 204), ("all rows", 240)):
        assert re.search(rf">{re.escape(name)}</text>[^<]*<text[^>]*>{rows} rows</text>", svg), name
    assert "n/a" not in svg and re.search(r">glucose · count = 240</text>.*?>158</text>", svg)


def test_numeric_findings_draw_shapes_and_the_first_nan() -> None:
    brd = finding("broadcast", evidence={"op": "sub", "left": [8, 1], "right": [8], "result": [8, 8]})
    nan = finding(
        "nonfinite_trace",
        evidence={
            "op": "log",
            "module": "logfeat",
            "at": "src/m.py:11",
            "input_shapes": [[8, 4]],
            "output_shape": [8, 4],
            "non_finite": 4,
        },
    )
    shapes = figures_for(brd)[0].svg
    assert shapes.count('class="tensor"') == 3 and "(8, 8)" in shapes and "read as (1, 8)" in shapes
    first = figures_for(nan, uid="n")[0].svg
    assert 'class="op"' in first and "m.py:11" in first and "4 non-finite" in first


def test_every_figure_has_a_text_alternative(video: Report) -> None:
    page = render_html(video)
    svgs = re.findall(r"<svg.*?</svg>", page, flags=re.S)
    assert len(svgs) >= 8
    for svg in svgs:
        assert 'role="img"' in svg and 'aria-label="' in svg
        assert re.search(r"<title>[^<]+</title><desc>[^<]+</desc>", svg)


def test_the_page_loads_nothing(video: Report) -> None:
    page = render_html(video)
    assert f'content="{escape(CSP)}"' in page
    # The only sources are the thumbnails of near copies, inline: nothing is fetched.
    assert set(re.findall(r'\bsrc="(data:image/png;base64,)', page)) == {"data:image/png;base64,"}
    assert len(re.findall(r"\bsrc=", page)) == len(re.findall(r'\bsrc="data:image/png;base64,', page))
    assert set(re.findall(r'href="([^"]*)"', page)) <= {f"#finding-{i}" for i in range(1, 40)}
    assert set(re.findall(r"https?://[^\s\"'<]+", page)) == {"http://www.w3.org/2000/svg"}
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # pattern ids of many figures do not collide


def test_examples_are_tables_not_json(video: Report) -> None:
    page = render_html(video)
    assert '{"group"' not in page and "&#34;group&#34;" not in page
    assert "<td>p3</td><td>val</td><td>3</td><td>f0016 … f0018</td>" in page
    assert "<td>f0016</td><td>val</td><td>video_id = v04</td>" in page


def test_stages_that_ran_come_first_and_skipped_ones_fold_into_one_line(video: Report) -> None:
    page = render_html(video)
    skipped = [r.stage for r in video.stages if r.status == "skipped"]
    assert f"{len(skipped)} stage(s) skipped: {', '.join(skipped)}</summary>" in page
    table = page[page.index("<h2>Stages") : page.index("skipped-stages")]
    assert not any(f"<td>{s}</td>" in table for s in skipped)


def test_figures_stay_bounded_whatever_the_data(video: Report) -> None:
    splits = [f"s{i:04d}" for i in range(1000)]
    pairs = tuple((splits[0], s, "train-holdout", i + 1, 1, 1) for i, s in enumerate(splits[1:]))
    overlap = finding(
        "group_overlap",
        tables=(Table(title="p", columns=("split", "split", "judged as", "shared", "a", "b"), rows=pairs),),
    )
    labels = finding(
        "label_coverage",
        tables=(
            Table(
                title="l", columns=("label", "train", "test"), rows=tuple((f"l{i}", "1%", "2%") for i in range(5000))
            ),
        ),
    )
    matrix = figures_for(overlap, splits)[0].svg
    assert matrix.count('class="cell"') == (MAX_SPLITS - 1) * MAX_SPLITS and "988 more split(s) not drawn" in matrix
    assert figures_for(labels, uid="b")[0].svg.count('class="bar"') == 2 * MAX_LABELS
    page = render_html(with_findings(video, overlap, labels))
    assert sum(len(svg) for svg in re.findall(r"<svg.*?</svg>", page, flags=re.S)) < 60_000


def test_user_values_in_figures_are_escaped() -> None:
    evil = "<script>alert(1)</script>"
    f = finding(
        "label_coverage", tables=(Table(title="l", columns=("label", "train", "test"), rows=((evil, "1%", "50%"),)),)
    )
    svg = str(figures_for(f)[0].svg)
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_evidence_without_what_a_figure_needs_gets_none() -> None:
    assert figures_for(finding("broadcast", evidence={"left": "8x1"})) == ()
    assert figures_for(finding("temporal_order", evidence={"newest_train": "not a time", "splits": {}})) == ()
    assert (
        figures_for(
            finding("label_coverage", tables=(Table(title="l", columns=("label", "a", "b"), rows=(("x", "n/a", 1),)),))
        )
        == ()
    )


def test_a_report_shows_itself_as_its_html_in_a_notebook(video: Report) -> None:
    assert video._repr_html_() == render_html(video)


def _section(page: str, code: str) -> str:
    """The HTML of the first finding section whose heading names ``code``."""
    sections = re.findall(r'<section class="finding.*?</section>', page, re.S)
    return next(s for s in sections if re.search(rf"<h3[^>]*>.*?{code} · ", s))


def test_each_split_matrix_is_shown_once_as_its_figure_with_the_table_as_its_text(video: Report) -> None:
    page = render_html(video)
    checked = 0
    for f in video.findings:
        drawn = [fig for fig in figures_for(f, ("train", "val", "test")) if fig.table is not None]
        section = _section(page, f.code) if f.code in ("UPS001", "GRP003") else None
        for fig in drawn:
            assert fig.table in f.tables
        if section is None:
            continue
        matrix = next(t for t in f.tables if "split by split" in t.title)
        # Once: inside the figure, folded under its own summary; the per-pair table (more columns) stays shown.
        assert section.count(f"<caption>{escape(matrix.title)}</caption>") == 1
        folded = re.search(
            r"<figure><svg.*?</svg>.*?<details class=\"as-table\">(.*?)</details></figure>", section, re.S
        )
        assert folded and f"<caption>{escape(matrix.title)}</caption>" in folded.group(1)
        pair = next(t for t in f.tables if t.columns[:3] == ("split", "split", "judged as"))
        assert section.count(f"<caption>{escape(pair.title)}</caption>") == 1
        assert f"<caption>{escape(pair.title)}</caption>" not in folded.group(1)
        checked += 1
    assert checked == 2


def test_a_split_matrix_without_a_figure_is_shown_as_a_table(video: Report) -> None:
    # No per-pair table to draw from: no figure, so the matrix table is the only view and is shown plainly.
    matrix = Table(
        title="ids shared, split by split", columns=("", "train", "test"), rows=(("train", "—", 1), ("test", 1, "—"))
    )
    f = finding("group_overlap", tables=(matrix,))
    assert figures_for(f) == ()
    section = _section(render_html(with_findings(video, f)), "X001")
    assert section.count("<caption>ids shared, split by split</caption>") == 1 and "as-table" not in section


def test_label_bars_and_the_split_timeline_fold_the_table_they_draw(video: Report, clinic: Report) -> None:
    for report, code in ((video, "LAB002"), (video, "TMP001"), (clinic, "LAB000")):
        f = next(f for f in report.findings if f.code == code)
        section = _section(render_html(report), code)
        (table,) = f.tables
        assert section.count(f"<caption>{escape(table.title)}</caption>") == 1
        assert re.search(r'<details class="as-table"><summary>[^<]+</summary>\s*<table><caption>', section)
    # A fitted-statistics grid draws the differences, its table the values: both are shown.
    fit = next(f for f in clinic.findings if f.code == "FIT001")
    section = _section(render_html(clinic), "FIT001")
    assert "as-table" not in section and f"<caption>{escape(fit.tables[0].title)}</caption>" in section


TEXT_ASCENT, TEXT_DESCENT, CHAR_W = 12.0, 4.0, 7.5  # a generous box for 12 px sans-serif text


def _text_box(svg: str, cls: str) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) of the text of class ``cls``, from its anchor, baseline and length."""
    m = re.search(rf'<text class="{cls}" x="([0-9.]+)" y="([0-9.]+)" text-anchor="(\w+)"[^>]*>([^<]*)</text>', svg)
    assert m, cls
    x, y, width = float(m.group(1)), float(m.group(2)), len(m.group(4)) * CHAR_W
    x0 = {"start": x, "middle": x - width / 2, "end": x - width}[m.group(3)]
    return x0, y - TEXT_ASCENT, x0 + width, y + TEXT_DESCENT


def _holdout_tracks(svg: str) -> list[tuple[float, float, float, float]]:
    boxes = []
    for x1, y1, x2, width in re.findall(
        r'<line class="track holdout" x1="([0-9.]+)" y1="([0-9.]+)" x2="([0-9.]+)" y2="[0-9.]+"'
        r'[^>]* stroke-width="([0-9.]+)"',
        svg,
    ):
        half = float(width) / 2 + 6  # the track and the square marking its oldest row
        boxes.append((float(x1) - 6, float(y1) - half, float(x2), float(y1) + half))
    return boxes


CLEARANCE = 6.0  # free space around a label: text flush against a track reads as lying on it


def _apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    c = CLEARANCE
    return a[2] + c <= b[0] or b[2] + c <= a[0] or a[3] + c <= b[1] or b[3] + c <= a[1]


@pytest.mark.parametrize("newest", ["2024-03-06T11:00:04+00:00", "2024-01-16T00:00:00+00:00"])
def test_the_newest_train_label_never_touches_a_holdout_track(newest: str) -> None:
    splits = {
        "test": {"rows": 4, "of": 10, "oldest": "2024-01-15T08:00:00+00:00"},
        "val": {"rows": 1, "of": 3, "oldest": "2024-03-01T00:00:00+00:00"},
    }
    f = finding("temporal_order", code="TMP001", evidence={"newest_train": newest, "splits": splits})
    svg = str(figures_for(f)[0].svg)
    label = _text_box(svg, "newest")
    tracks = _holdout_tracks(svg)
    assert len(tracks) == 2 and all(_apart(label, t) for t in tracks)
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg).groups())  # type: ignore[union-attr]
    assert label[0] >= 0 and label[1] >= 0 and label[2] <= width and label[3] <= height  # not cut off either


def test_the_sample_timeline_label_stays_off_the_test_track(video: Report) -> None:
    svg = str(figures_for(next(f for f in video.findings if f.code == "TMP001"))[0].svg)
    label, (track,) = _text_box(svg, "newest"), _holdout_tracks(svg)
    assert _apart(label, track)


def test_markers_only_on_labels_a_finding_reports_as_shifted(video: Report, clinic: Report) -> None:
    for report in (video, clinic):
        info = next(f for f in report.findings if f.code == "LAB000")
        (fig,) = figures_for(info, ("train", "val", "test"), "i")
        assert "▲" not in fig.svg and 'class="shifted"' not in fig.svg and "▲" not in fig.title
    # A warning marks a label that moved from train by 10 points, not one where two holdout splits differ.
    table = Table(
        title="t",
        columns=("label", "train share", "val share", "test share"),
        rows=(("a", "50.0%", "35.0%", "50.0%"), ("b", "50.0%", "45.0%", "55.0%")),
    )
    warned = finding("label_coverage", code="LAB002", severity=Severity.WARNING, tables=(table,))
    svg = str(figures_for(warned, uid="w")[0].svg)
    assert svg.count('class="shifted"') == 1 and "▲ a" in svg and "▲ b" not in svg


def test_a_drawn_chain_and_entity_timeline_fold_the_samples_they_draw(video: Report) -> None:
    page = render_html(video)
    ups = _section(page, "UPS001")
    chain = re.search(r'<svg[^>]*class="figure chain".*?</svg>.*?<details class="as-table">(.*?)</details>', ups, re.S)
    assert chain and "<td>f0019</td><td>test</td><td>person = p3</td>" in chain.group(1)
    assert ups.count("<td>f0019</td><td>test</td><td>person = p3</td>") == 1  # the drawn chain, once
    assert ups.count("<td>f0016</td><td>val</td><td>video_id = v04</td>") == 1  # a chain not drawn stays listed
    assert "video_id = v04" not in chain.group(1)
    tmp = _section(page, "TMP002")
    assert tmp.count("<td>cam-B</td>") == 1 and re.search(
        r'<details class="as-table">.*<td>cam-B</td>.*</details>', tmp, re.S
    )


def _power_table(n: int = 3) -> Table:
    rows = [("refund", "feature", "numeric", 0.995, 0.99, 0.98, "proxy"), ("sid", "the id column", "its digits", 0.7,
            0.4, 0.38, "identifier"), ("tenure", "feature", "numeric", 0.66, 0.32, 0.3, "")]  # fmt: skip
    rows += [(f"f{i}", "feature", "numeric", 0.5, 0.0, None, "") for i in range(n - 3)]
    columns = ("column", "role", "read as", "holdout ROC AUC", "holdout skill", "train skill", "flag")
    return Table(title="each column alone", columns=columns, rows=tuple(rows[:n]))


def test_feature_leakage_draws_each_columns_power_and_names_the_proxy() -> None:
    info = finding("feature_leakage", code="FLK000", severity=Severity.INFO, tables=(_power_table(),))
    (fig,) = figures_for(info, uid="p")
    assert fig.kind == "power" and fig.table == info.tables[0]
    svg = str(fig.svg)
    assert svg.count('class="bar') == 3 and svg.count('class="bar proxy"') == 1
    assert "▲ proxy" in svg and "◆ identifier" in svg  # named, not only coloured
    assert "<desc>" in svg and "Flagged: refund (proxy), sid (identifier)" in svg
    assert svg.count('class="train"') == 3


def test_feature_leakage_power_bars_stay_bounded_and_need_the_score_table() -> None:
    many = finding("feature_leakage", code="FLK000", severity=Severity.INFO, tables=(_power_table(40),))
    svg = str(figures_for(many)[0].svg)
    assert svg.count('class="bar') == MAX_ROWS and f"the first {MAX_ROWS} of 40 columns" in svg
    assert figures_for(finding("feature_leakage", code="FLK001")) == ()


def _infos(page: str) -> str:
    folded = re.search(r'<details class="infos"><summary>([^<]*)</summary>(.*?)</details>\s*<h2>Stages', page, re.S)
    assert folded, "no folded infos"
    return folded.group(0)


def test_info_findings_fold_under_one_summary_after_the_problems(video: Report) -> None:
    page = render_html(video)
    infos = [f for f in video.findings if f.severity is Severity.INFO]
    folded = _infos(page)
    assert f"{len(infos)} info finding(s), facts for the record rather than problems: EXP000 ×2, GRP003," in folded
    shown = page[page.index("<h2>Findings") : page.index('<details class="infos">')]
    # Every info is a section inside the fold, every error and warning one outside it, in the same order.
    assert re.findall(r'<section class="finding info"', folded) and 'badge">error' not in folded
    assert len(re.findall(r'<section class="finding info"', folded)) == len(infos)
    assert not re.findall(r'<section class="finding info"', shown)
    problems = [f for f in video.findings if f.severity is not Severity.INFO]
    assert len(re.findall(r'<section class="finding (?:error|warning)', shown)) == len(problems)


def test_an_accepted_info_and_a_report_of_infos_alone(video: Report) -> None:
    infos = [f for f in video.findings if f.severity is Severity.INFO]
    accepted = infos[0].model_copy(update={"accepted": True, "accept_reason": "reviewed"})
    assert "<p>No errors or warnings.</p>" in render_html(with_findings(video, *infos))
    page = render_html(with_findings(video, accepted, *infos[1:]))
    # An acceptance is a reviewer's decision: it stays in view, the rest of the infos fold.
    assert "No errors or warnings." not in page and "No findings." not in page
    assert f"{len(infos) - 1} info finding(s)" in _infos(page)
    assert "<em>Accepted: reviewed</em>" not in _infos(page) and "<em>Accepted: reviewed</em>" in page
    none = render_html(with_findings(video))
    assert "<p>No findings.</p>" in none and '<details class="infos">' not in none


def test_paths_are_shown_relative_to_the_configs_folder(video: Report) -> None:
    assert video.config_path is not None
    folder = video.config_path.rsplit("/", 1)[0]
    page = render_html(video)
    # The folder is named once, where the config is; below it every path reads from there.
    assert page.count(folder) == 2  # the config's full path as a tooltip, and the folder itself
    assert f'config: <code title="{video.config_path}">audit.yaml</code> in <code>{folder}</code>' in page
    assert "the paths below are relative to its folder" in page
    assert "manifest: <code>manifest.csv — 28 rows" in page
    assert "val–test (audit.yaml:10:11)" in page
    moved = finding(
        "x",
        message=f"read {folder}/frames/f0001.jpg and /elsewhere/f.jpg",
        remediation=f"delete {folder}/frames/f0001.jpg",
    )
    shown = render_html(with_findings(video, moved))
    # A path outside the folder is kept whole: on a page for reading, what it names matters more than privacy.
    assert "read frames/f0001.jpg and /elsewhere/f.jpg" in shown and "delete frames/f0001.jpg" in shown


def test_the_stage_table_counts_by_severity_and_gives_a_skipped_stages_reason(video: Report) -> None:
    page = render_html(with_stage_disabled(video, "temporal_order"))
    table = page[page.index("<h2>Stages") : page.index("skipped-stages")]
    row = r'<td>temporal_order</td><td class="skipped">skipped</td>\s*<td></td><td>0.000</td>\s*<td>disabled in the'
    assert re.search(row + r" config \(stages.temporal_order.enabled: false\)</td>", table)
    assert re.search(r"<td>duplicate_content</td>.*?\s*<td>2 errors</td>", table)
    assert re.search(r"<td>split_integrity</td>.*?\s*<td>1 warning, 1 info</td>", table)


LONG = "L" * 20_000
RTL = "abc\u202egnp.exe"  # shown raw, it reads "abcexe.png"


def hostile_report(folder: Path) -> Report:
    """A report whose shared groups are a 20,000-character value and one hiding its extension behind U+202E."""
    write_table(
        folder / "m.csv",
        {"id": ["a", "b", "c", "d"], "writer": [LONG, LONG, RTL, RTL], "split": ["train", "test"] * 2},
    )
    return run_audit(
        write_config(
            folder, {"manifest": {"path": "m.csv", "id": "id", "split": "split"}, "keys": {"groups": ["writer"]}}
        )
    )


def test_bidi_controls_are_shown_visibly_and_long_values_capped(tmp_path: Path) -> None:
    report = hostile_report(tmp_path)
    page = render_html(report)
    assert not BIDI_CONTROLS.search(page) and page.count("abc\\u202egnp.exe") >= 2  # message and examples
    assert "L" * 201 not in page and page.count(f"{'L' * 200} … (20,000 characters)") >= 2
    assert LONG in report.findings[0].examples[0]["group"] and LONG in render_json(report)  # kept whole


def test_service_pages_show_report_values_as_the_report_does() -> None:
    from auditor.service.ui import TEMPLATES

    shown = TEMPLATES.filters["shown"](f"{RTL} {LONG}")
    assert "\u202e" not in shown and "abc\\u202egnp.exe" in shown and shown.endswith("… (20,000 characters)")
    about = TEMPLATES.filters["about"](finding("group_overlap", code="GRP001", key=RTL))
    assert "\u202e" not in about


def test_the_terminal_and_markdown_cap_long_values_and_show_bidi_controls_as_the_page_does(tmp_path: Path) -> None:
    """A 20,000-character group value was printed whole in the message and in each example: a 5 MB value made a
    5 MB console line and Markdown file. Only report.json keeps it whole."""
    from auditor.render import render_markdown, render_terminal

    report = hostile_report(tmp_path)
    for text in (render_terminal(report, color=False, width=200), render_markdown(report)):
        assert "L" * 201 not in text and len(re.findall(r"L{190}\s…\s\(20,0\d\d characters\)", text)) >= 2
        assert "\u202e" not in text and "abc\\u202egnp.exe" in text
