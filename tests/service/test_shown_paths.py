"""The team sees the submitter's files relative to the config's folder, never the folders of the submitter's machine."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from auditor import run_audit
from auditor.render import FILE_RENDERERS
from auditor.service import client as service_client
from auditor.service.db import make_engine, sqlite_url
from auditor.service.store import get_report_json
from tests.service.conftest import SAMPLES
from tests.service.harness import LiveServer, live_server, run_cli

CONFIG = SAMPLES / "video_frames" / "audit.yaml"
FOLDER = str(CONFIG.parent.resolve())
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
# A path of this machine in a page or a report: the checkout's folder, or any quoted absolute path.
LOCAL = re.compile(rf"{re.escape(str(SAMPLES.parent.resolve()))}|[\"'>(]/(?:home|work|tmp|Users|root)/")


def local_report() -> dict:  # type: ignore[type-arg]
    """report.json of the sample as `audit run` writes it on the submitter's machine (absolute paths)."""
    data = json.loads(FILE_RENDERERS["json"][0](run_audit(CONFIG)))
    assert data["config_path"] == str(CONFIG.resolve()) and FOLDER in json.dumps(data)
    return data


@contextlib.contextmanager
def signed_in(server: LiveServer) -> Iterator[httpx.Client]:
    """A browser-like client holding the admin's session cookie."""
    with httpx.Client(base_url=server.url, timeout=30) as c:
        page = c.get("/login")
        c.post("/login", data={"token": server.admin_token, "csrf": CSRF.findall(page.text)[0], "next": "/"})
        yield c


def test_an_uploaded_report_is_stored_and_shown_without_the_submitters_folders(server: LiveServer) -> None:
    with server.client(server.admin_token) as api:
        assert api.post("/api/projects", json={"name": "demo"}).status_code == 201
        made = api.post("/api/projects/demo/runs", json={"report": local_report()})  # as an older client sends it
        assert made.status_code == 201, made.text
        run = made.json()["id"]
        shown = api.get(f"/api/projects/demo/runs/{run}/report?format=json").json()
    engine = make_engine(server.database or sqlite_url(server.data_dir))
    try:
        stored = get_report_json(engine, "demo", run)
    finally:
        engine.dispose()
    assert stored is not None and not LOCAL.search(stored)
    for report in (json.loads(stored), shown):
        assert report["config_path"] == "audit.yaml" and report["manifest"]["paths"] == ["manifest.csv"]
    allow = next(f for s in shown["stages"] for f in s["findings"] if f["code"] == "SPL009")
    assert (
        "splits.allow[0] (audit.yaml:10:11)" in allow["message"] and allow["evidence"]["config"] == "audit.yaml:10:11"
    )
    with signed_in(server) as c:
        page = c.get(f"/projects/demo/runs/{run}").text
        html = c.get(f"/projects/demo/runs/{run}/report.html").text
    assert not LOCAL.search(page) and not LOCAL.search(html)
    assert "config: <code>audit.yaml</code>" in html and "manifest: <code>manifest.csv" in html


def test_submit_uploads_the_report_with_paths_relative_to_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict] = []  # type: ignore[type-arg]
    upload = service_client.Client.submit_report

    def record(self: service_client.Client, project: str, report_json: str, config_text: str | None) -> dict:  # type: ignore[type-arg]
        sent.append(json.loads(report_json))
        return upload(self, project, report_json, config_text)

    monkeypatch.setattr(service_client.Client, "submit_report", record)
    with live_server(tmp_path / "service") as server:
        done = run_cli(
            "run",
            str(CONFIG),
            "--submit",
            server.url,
            "--project",
            "demo",
            "--out",
            str(tmp_path / "out"),
            token=server.admin_token,
        )
    assert done.returncode == 1, done.stderr
    (report,) = sent
    assert report["config_path"] == "audit.yaml" and not LOCAL.search(json.dumps(report))
    # The submitter's own report.json still says where the files are on this machine.
    assert json.loads((tmp_path / "out" / "report.json").read_text())["config_path"] == str(CONFIG.resolve())
