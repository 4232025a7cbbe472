"""Near copies side by side in the HTML report: thumbnails and marked passages, never forged markup."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from auditor import run_audit
from auditor.core.findings import Finding, Report, Severity
from auditor.render.markdown import render_markdown
from auditor.render.previews import MAX_URI, previews_for
from tests.conftest import REPO
from tests.render.test_html import finding, with_findings

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()


def pair(preview: dict[str, Any]) -> Finding:
    example = {
        "holdout": "t1",
        "holdout_split": "test",
        "near": "t0",
        "near_split": "train",
        "similarity": 0.9,
        "measure": "resemblance",
        "preview": preview,
    }
    return finding("near_duplicates", code="NDP001", examples=(example,))


def test_two_texts_show_their_shared_passages_marked_and_escaped() -> None:
    f = pair(
        {
            "kind": "texts",
            "holdout": {"text": "a <b> shared part", "marks": [[6, 17]], "start": 0, "length": 17},
            "near": {"text": "the shared part", "marks": [[4, 15]], "start": 10, "length": 40},
        }
    )
    (shown,) = previews_for(f)
    assert str(shown.holdout) == "a &lt;b&gt; <mark>shared part</mark>"
    assert str(shown.near) == "…the <mark>shared part</mark>…"
    assert (shown.holdout_label, shown.near_label) == ("test t1", "train t0")


def test_two_images_show_as_thumbnails() -> None:
    (shown,) = previews_for(pair({"kind": "images", "holdout": PNG, "near": PNG}))
    assert str(shown.holdout).startswith('<img src="data:image/png;base64,')


def test_a_forged_preview_is_left_out() -> None:
    bad = [
        {"kind": "images", "holdout": "javascript:alert(1)", "near": PNG},
        {"kind": "images", "holdout": 'data:image/png;base64,AAAA" onerror="x', "near": PNG},
        {"kind": "images", "holdout": PNG + "A" * MAX_URI, "near": PNG},
        {"kind": "texts", "holdout": {"text": "abc", "marks": [[2, 9]]}, "near": {"text": "abc", "marks": []}},
        {"kind": "texts", "holdout": {"text": "abc", "marks": [[2, 3], [0, 1]]}, "near": {"text": "a", "marks": []}},
        {"kind": "svg", "holdout": PNG, "near": PNG},
    ]
    for preview in bad:
        assert previews_for(pair(preview)) == (), preview


@pytest.fixture(scope="module")
def base() -> Report:
    return run_audit(REPO / "sample_data" / "video_frames" / "audit.yaml", only=["split_integrity"])


def test_the_page_shows_the_pair_and_the_text_formats_leave_thumbnails_out(base: Report) -> None:
    from auditor.render.html import render_html

    report = with_findings(base, pair({"kind": "images", "holdout": PNG, "near": PNG}))
    page = render_html(report)
    assert page.count(f'<img src="{PNG}"') == 2
    assert "base64" not in render_markdown(report)
    assert Severity.ERROR.value in page
