"""The API end to end against a live server, on SQLite and PostgreSQL: submit, read, review, gate."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer


def _report(tmp_path) -> dict:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "auditor.cli",
            "run",
            str(SAMPLES / "video_frames" / "audit.yaml"),
            "--out",
            str(out),
            "--format",
            "json",
            "-q",
        ],
        cwd=REPO,
        check=False,
    )
    return json.loads((out / "report.json").read_text())


def test_first_start_prints_an_admin_token_once(server: LiveServer) -> None:
    assert server.admin_token and server.admin_token.startswith("sa_")
    server.stop()
    # Started from a fresh interpreter, as a user starts it: the other servers are forks of a warm one.
    again = LiveServer(server.data_dir, database=server.database, fresh=True).start()
    try:
        assert again.admin_token is None
        with again.client(server.admin_token) as c:
            assert c.get("/api/me").json()["role"] == "admin"
    finally:
        again.stop()


def test_upload_review_and_gate(server: LiveServer, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with server.client(server.admin_token) as c:
        assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
        made = c.post("/api/projects/demo/runs", json={"report": _report(tmp_path)})
        assert made.status_code == 201, made.text
        run = made.json()
        assert run["state"] == "completed" and run["review"]["state"] == "unreviewed"
        gate = c.get(f"/api/projects/demo/runs/{run['id']}/gate").json()
        assert gate["approved"] is False
        refused = c.post(f"/api/projects/demo/runs/{run['id']}/reviews", json={"action": "approve", "comment": "ok"})
        assert refused.status_code == 422 and "override_reason" in refused.json()["detail"]
        ok = c.post(
            f"/api/projects/demo/runs/{run['id']}/reviews",
            json={"action": "approve", "comment": "known leaks", "override_reason": "pilot study"},
        )
        assert ok.status_code == 201, ok.text
        assert c.get(f"/api/projects/demo/runs/{run['id']}/gate").json()["approved"] is True


def test_server_side_run_completes(server: LiveServer) -> None:
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    with server.client(server.admin_token) as c:
        c.post("/api/projects", json={"name": "demo"})
        made = c.post(
            "/api/projects/demo/runs", json={"config": config, "data_root": "samples", "base": "video_frames"}
        )
        assert made.status_code == 201, made.text
        run_id = made.json()["id"]
        deadline = time.monotonic() + 60
        state = "queued"
        while time.monotonic() < deadline and state in ("queued", "running"):
            time.sleep(0.3)
            state = c.get(f"/api/projects/demo/runs/{run_id}").json()["state"]
        assert state == "completed", c.get(f"/api/projects/demo/runs/{run_id}").json()
        report = c.get(f"/api/projects/demo/runs/{run_id}/report").json()
        assert report["manifest"]["rows"] == 28
        # A full audit: the stages that run the user's code are skipped for want of a `numeric` section, not
        # left out (they made it "partial: 10 stages not run").
        assert c.get(f"/api/projects/demo/runs/{run_id}").json()["not_run"] == []
        numeric = {r["stage"]: r for r in report["stages"] if r["skip_reason"] == "no `numeric` section in the config"}
        assert {"broadcast", "train_step"} <= set(numeric) and all(r["status"] == "skipped" for r in numeric.values())
        # SARIF names the files relative to the config's folder, as `audit run` does, never the data root's name.
        sarif = c.get(f"/api/projects/demo/runs/{run_id}/report?format=sarif").json()
        places = [
            loc["physicalLocation"]["artifactLocation"]
            for r in sarif["runs"][0]["results"]
            for loc in (*r["locations"], *r.get("relatedLocations", ()))
        ]
        assert {"uri": "manifest.csv", "uriBaseId": "CONFIGDIR"} in places
        assert all(place.get("uriBaseId") == "CONFIGDIR" and "%3C" not in place["uri"] for place in places)
