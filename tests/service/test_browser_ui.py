"""The review in a real browser: headless Chromium signs in, accepts a finding, approves, and sees a diff.

Set AUDITOR_SCREENSHOTS=1 to rewrite the README's screenshots under docs/screenshots/.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import forked
from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO / "docs" / "screenshots"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (Debian package chromium)")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path / "service").start()
    try:
        yield server
    finally:
        server.stop()


def submit(server: LiveServer, config: Path, out: Path) -> str:
    """`audit run --submit` as a user runs it; the run page's URL it prints."""
    assert server.admin_token
    argv = [sys.executable, "-m", "auditor.cli", "run", str(config), "--out", str(out)]
    argv += ["--submit", server.url, "--project", "demo", "--token", server.admin_token]
    done = forked.run(
        argv,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r"^run: (\S+)$", done.stdout, re.MULTILINE)
    assert done.returncode == 1 and found, done.stdout + done.stderr  # 1: the sample has findings
    return found.group(1)


def test_review_in_a_browser(live: LiveServer, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    shots = os.environ.get("AUDITOR_SCREENSHOTS") == "1"
    if shots:
        SHOTS.mkdir(parents=True, exist_ok=True)
    first = submit(live, SAMPLES / "video_frames" / "audit.yaml", tmp_path / "out1")
    assert first == f"{live.url}/projects/demo/runs/1"

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(first)
            assert "/login?next=" in page.url
            page.fill("input[name=token]", live.admin_token or "")
            page.click("form[action='/login'] button")
            page.wait_for_url(first)
            sync_api.expect(page.locator("h1")).to_have_text("Run #1")
            report = page.frame_locator("iframe.report")
            sync_api.expect(report.locator("svg").first).to_be_visible()

            # Accept one finding with a reason.
            option = page.locator("select[name=fingerprint] option", has_text="DUP001")
            fingerprint = option.get_attribute("value")
            assert fingerprint and re.fullmatch(r"[0-9a-f]{16}", fingerprint)
            accept = page.locator("form", has=page.locator("input[name=action][value=accept]"))
            accept.locator("select").select_option(fingerprint)
            accept.locator("textarea[name=comment]").fill("one frame stored twice under two names; dropped upstream")
            accept.locator("button").click()
            history = page.locator("#history")
            sync_api.expect(history).to_contain_text(fingerprint)
            sync_api.expect(history).to_contain_text("dropped upstream")

            # Approve: refused without an override while errors remain, then approved with one.
            approve = page.locator("form", has=page.locator("input[name=action][value=approve]"))
            approve.locator("button").click()
            sync_api.expect(page.locator(".problem")).to_contain_text("unaccepted error finding(s)")
            approve = page.locator("form", has=page.locator("input[name=action][value=approve]"))
            approve.locator("textarea[name=comment]").fill("pilot on the first cameras")
            approve.locator("textarea[name=override_reason]").fill("the remaining leaks are fixed in the next export")
            approve.locator("button").click()
            sync_api.expect(page.locator(".problem")).to_have_count(0)
            sync_api.expect(history.locator("li").first).to_contain_text("approve")
            sync_api.expect(history).to_contain_text("override: the remaining leaks are fixed in the next export")
            sync_api.expect(page.locator("dl.facts")).to_contain_text("approved")
            # Approved: no second Approve form, but who approved it and when; changes may still be requested.
            sync_api.expect(page.locator("input[name=action][value=approve]")).to_have_count(0)
            sync_api.expect(page.locator("#approved")).to_contain_text("Approved by admin on")
            sync_api.expect(page.locator("input[name=action][value=request_changes]")).to_have_count(1)
            # Side by side on a wide screen; stacked (history under the review panel) on a narrow one.
            review_box, history_box = page.locator("#review").bounding_box(), history.bounding_box()
            assert review_box and history_box and abs(review_box["y"] - history_box["y"]) < 1
            page.set_viewport_size({"width": 420, "height": 900})
            review_box, history_box = page.locator("#review").bounding_box(), history.bounding_box()
            assert review_box and history_box
            assert history_box["y"] >= review_box["y"] + review_box["height"] and history_box["width"] > 300
            page.set_viewport_size({"width": 1280, "height": 900})
            if shots:
                history.screenshot(path=str(SHOTS / "history.png"))
                page.goto(first)  # from the top: the run's facts above the review panel
                page.screenshot(path=str(SHOTS / "run-review.png"))

            # A second run of a changed config: its page shows what changed since the approved run.
            changed = tmp_path / "video_frames"
            shutil.copytree(SAMPLES / "video_frames", changed)
            config = changed / "audit.yaml"
            config.write_text(re.sub(r"^\s*allow:.*\n", "", config.read_text(), flags=re.MULTILINE))
            second = submit(live, config, tmp_path / "out2")
            assert second == f"{live.url}/projects/demo/runs/2"
            page.goto(second)
            diff = page.locator("#diff")
            sync_api.expect(diff).to_contain_text("Compared with run #1")
            sync_api.expect(diff).to_contain_text("2 new, 3 resolved, 14 persisting")
            sync_api.expect(diff.locator("h3", has_text="New")).to_contain_text("New (2)")
            sync_api.expect(diff).to_contain_text("GRP002")
            sync_api.expect(diff.locator("li", has_text="DUP001")).to_contain_text("accepted")  # stays accepted
            diff_box, review_box = diff.bounding_box(), page.locator("#review").bounding_box()
            assert diff_box and review_box and diff_box["y"] + diff_box["height"] <= review_box["y"]  # diff first
            if shots:
                diff.screenshot(path=str(SHOTS / "diff.png"))

            page.goto(f"{live.url}/projects/demo")
            rows = page.locator("table.runs tbody tr")
            sync_api.expect(rows).to_have_count(2)
            sync_api.expect(rows.first).to_contain_text("#2")
            sync_api.expect(rows.nth(1)).to_contain_text("approved")
            sync_api.expect(rows.nth(1)).to_contain_text("1 accepted")
            if shots:
                page.locator("main").screenshot(path=str(SHOTS / "project.png"))
        finally:
            browser.close()
