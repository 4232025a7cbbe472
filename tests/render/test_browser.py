"""Each sample's report.html in headless Chromium: every figure is drawn and the page requests nothing.

Skipped where no Chromium is installed (Debian's `chromium` package provides it). Screenshots go to
bench/data/screenshots/ (git-ignored) for a reviewer to look at; AUDITOR_SCREENSHOTS=1 also rewrites the
README's docs/report.png.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from auditor import run_audit
from auditor.core.portable import portable
from auditor.render.html import render_html
from tests.conftest import REPO
from tests.render.test_html import hostile_report

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
SHOTS = REPO / "bench" / "data" / "screenshots"
README_SHOT = REPO / "docs" / "report.png"  # rewritten with AUDITOR_SCREENSHOTS=1
NUMERIC = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the numeric samples need torch")

SAMPLES = [
    pytest.param("handwriting", {"matrix", "bars"}, id="handwriting"),
    pytest.param("video_frames", {"matrix", "chain", "timeline", "bars"}, id="video_frames"),
    pytest.param("clinic", {"fit", "bars"}, id="clinic"),
    pytest.param("numeric/regression/buggy", {"shapes", "nonfinite"}, id="regression", marks=NUMERIC),
    pytest.param("numeric/language_model/buggy", set(), id="language_model", marks=NUMERIC),
]

# Run in the page without the CSP (which rightly forbids scripts): writes each figure's drawn size into the DOM.
MEASURE = """<script>
for (const svg of document.querySelectorAll("svg.figure")) {
  const box = svg.getBoundingClientRect(), inner = svg.getBBox();
  svg.setAttribute("data-drawn", [box.width, box.height, inner.width, inner.height].map(Math.round).join(" "));
  // A timeline's newest-train label as drawn: its room to the nearest holdout track (stroke included), and
  // whether it lies inside the figure.
  const label = svg.querySelector("text.newest");
  if (label) {
    const l = label.getBBox(), view = svg.viewBox.baseVal;
    const gaps = [...svg.querySelectorAll("line.track.holdout")].map(track => {
      const t = track.getBBox(), half = Number(track.getAttribute("stroke-width")) / 2;
      const dx = Math.max(t.x - (l.x + l.width), l.x - (t.x + t.width), 0);
      const dy = Math.max(t.y - half - (l.y + l.height), l.y - (t.y + half), 0);
      return Math.max(dx, dy);
    });
    const inside = l.x >= 0 && l.y >= 0 && l.x + l.width <= view.width && l.y + l.height <= view.height;
    svg.setAttribute("data-label", Math.floor(Math.min(...gaps)) + " " + inside);
  }
}
window.addEventListener("load", () => {
  for (const img of document.querySelectorAll("img")) img.setAttribute("data-decoded", String(img.naturalWidth));
});
</script>"""


def chromium(*args: str, profile: Path) -> str:
    cmd = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
        f"--user-data-dir={profile}", *args,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


class Elements(HTMLParser):
    """Every element of the dumped DOM as (tag, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(dom: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(dom)
    return parser.found


@pytest.mark.parametrize(("sample", "expected"), SAMPLES)
def test_every_figure_renders_and_nothing_is_requested(sample: str, expected: set[str], tmp_path: Path) -> None:
    page = render_html(run_audit(REPO / "sample_data" / sample / "audit.yaml"))
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")

    # The page as Chromium parsed it, less the CSP (which rightly forbids the measuring script): each figure's
    # drawn size lands in the DOM; no element may point outside the page.
    measured = tmp_path / "measured.html"
    measured.write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", MEASURE + "</body>")
    )
    tags = elements(chromium("--dump-dom", measured.as_uri(), profile=tmp_path / "profile"))
    assert re.search(r'<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;', page)
    assert [t for t, _ in tags if t in ("link", "iframe", "object", "embed")] == []
    assert len([t for t, _ in tags if t == "script"]) == 1  # the measuring one
    assert [a["href"] for t, a in tags if a.get("href") and not str(a["href"]).startswith("#")] == []
    # Only thumbnails of near copies carry a source, and it is inline data, never a request.
    images = [a for t, a in tags if t == "img"]
    assert [a for t, a in tags if "src" in a and t != "img"] == []
    assert all(str(a["src"]).startswith("data:image/png;base64,") for a in images)
    assert all(int(str(a["data-decoded"])) > 0 for a in images)  # each thumbnail decodes to a picture
    assert bool(images) == (sample == "video_frames")
    drawn = [a for t, a in tags if t == "svg"]
    kinds = {k for a in drawn for k in str(a.get("class", "")).split() if k != "figure"}
    assert kinds == expected
    assert len(drawn) == page.count("<svg ")
    for a in drawn:
        width, height, inner_w, inner_h = map(int, str(a["data-drawn"]).split())
        assert width > 100 and height > 40 and inner_w > 50 and inner_h > 20, a.get("aria-label")
    labelled = [str(a["data-label"]).split() for _, a in tags if a.get("data-label")]
    assert len(labelled) == (sample == "video_frames")  # the split timeline of TMP001
    for gap, inside in labelled:
        assert int(gap) >= 6 and inside == "true"  # the label clears the holdout tracks and is not cut off

    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{sample.replace('/', '_')}.png"
    chromium("--window-size=1100,2400", f"--screenshot={shot}", report.as_uri(), profile=tmp_path / "profile")
    assert shot.stat().st_size > 10_000
    if sample == "video_frames" and os.environ.get("AUDITOR_SCREENSHOTS") == "1":
        # The README's picture: the page as the team sees it on the server (paths relative to the config).
        shared = tmp_path / "shared.html"
        shared.write_text(render_html(portable(run_audit(REPO / "sample_data" / sample / "audit.yaml"))))
        chromium("--window-size=900,1500", f"--screenshot={README_SHOT}", shared.as_uri(), profile=tmp_path / "p2")


def test_the_infos_fold_and_paths_read_from_the_configs_folder(tmp_path: Path) -> None:
    """The video-frames page in Chromium: the infos are one closed line after the problems (the page was 8,642 px
    tall, a third of it infos), a click opens them, and the config's folder is named once."""
    sync_api = pytest.importorskip("playwright.sync_api")
    report = run_audit(REPO / "sample_data" / "video_frames" / "audit.yaml")
    infos = [f for f in report.findings if f.severity.value == "info"]
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(page_file.as_uri())
            folded = page.evaluate("document.documentElement.scrollHeight")
            summary = page.locator("details.infos > summary")
            sync_api.expect(summary).to_be_visible()
            sync_api.expect(summary).to_contain_text(f"{len(infos)} info finding(s)")
            assert page.locator("section.finding.info").count() == len(infos)
            assert all(not s.is_visible() for s in page.locator("section.finding.info").all())
            assert all(s.is_visible() for s in page.locator("section.finding.error, section.finding.warning").all())
            meta = page.locator("ul.meta").inner_text()
            assert "manifest: manifest.csv — 28 rows" in meta and "val–test (audit.yaml:10:11)" in meta
            assert page.locator("body").inner_text().count(str(report.config_path).rsplit("/", 1)[0]) == 1
            page.screenshot(path=str(SHOTS / "video_frames_folded.png"), full_page=True)

            summary.click()
            assert all(s.is_visible() for s in page.locator("section.finding.info").all())
            opened = page.evaluate("document.documentElement.scrollHeight")
            assert folded < 0.75 * opened, (folded, opened)
            page.screenshot(path=str(SHOTS / "video_frames_infos_open.png"), full_page=True)
        finally:
            browser.close()


WIDTH = """<script>
window.addEventListener("load", () => {
  document.body.setAttribute("data-wide", String(document.documentElement.scrollWidth > window.innerWidth));
});
</script>"""


def test_a_hostile_value_neither_reorders_text_nor_widens_the_page(tmp_path: Path) -> None:
    page = render_html(hostile_report(tmp_path))
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    measured = tmp_path / "measured.html"
    measured.write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", WIDTH + "</body>")
    )
    dom = chromium("--window-size=1100,1500", "--dump-dom", measured.as_uri(), profile=tmp_path / "profile")
    assert 'data-wide="false"' in dom and "abc\\u202egnp.exe" in dom
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "hostile-values.png"
    chromium("--window-size=1100,1500", f"--screenshot={shot}", report.as_uri(), profile=tmp_path / "profile")
    assert shot.stat().st_size > 0
