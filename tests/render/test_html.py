"""The HTML report: verdict and fix-first list on top, a figure per finding where one helps, nothing loaded."""

from __future__ import annotations

import re
from typing import Any

import pytest
from markupsafe import escape

from auditor import run_audit
from auditor.core.findings import Finding, Report, Severity, StageResult, Table
from auditor.render.figures import MAX_LABELS, MAX_SPLITS, figures_for
from auditor.render.html import CSP, render_html
from tests.conftest import REPO


@pytest.fixture(scope="module")
def video() -> Report:
    return run_audit(REPO / "sample_data" / "video_frames" / "audit.yaml")


@pytest.fixture(scope="module")
def clinic() -> Report:
    return run_audit(REPO / "sample_data" / "clinic" / "audit.yaml")


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
