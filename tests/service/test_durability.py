"""kill -9 of the server: an interrupted run ends failed (never passed), every acknowledged review survives."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests import forked
from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer

SLOW_CONFIG = """\
version: 1
manifest:
  path: manifest.csv
  id: id
  split: split
splits:
  train: [train]
  holdout: [test]
keys:
  content_path: file
stages:
  duplicate_content: {cache_dir: none}
"""


@pytest.fixture
def slow_root(tmp_path: Path) -> Path:
    """A data root whose audit takes minutes: one content file is a sparse 64 GiB of zeros to hash."""
    root = tmp_path / "root"
    (root / "slow").mkdir(parents=True)
    with open(root / "slow" / "big.bin", "wb") as fh:
        fh.truncate(64 << 30)
    (root / "slow" / "small.bin").write_bytes(b"x")
    (root / "slow" / "manifest.csv").write_text("id,split,file\na,train,small.bin\nb,test,big.bin\n")
    return root


def _job_children(server_pid: int) -> list[int]:
    """The audit processes the server started (their parent is the server; each in a session of its own)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == server_pid and b"auditor.numeric.child" in cmdline:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for a reaper."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _until(predicate, timeout: float):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := predicate()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


def test_a_run_killed_mid_way_is_failed_after_restart(tmp_path: Path, database: str | None, slow_root: Path) -> None:
    server = LiveServer(tmp_path / "service", database=database, roots={"data": slow_root}).start()
    token = server.admin_token
    try:
        with server.client(token) as c:
            c.post("/api/projects", json={"name": "demo"})
            made = c.post("/api/projects/demo/runs", json={"config": SLOW_CONFIG, "data_root": "data", "base": "slow"})
            assert made.status_code == 201, made.text
            path = f"/api/projects/demo/runs/{made.json()['id']}"
            assert _until(lambda: c.get(path).json()["state"] == "running", 30)
        assert server.process is not None
        children = _until(lambda: _job_children(server.process.pid), 30)  # type: ignore[union-attr]
        assert children, "the server started no audit process"
        server.kill9()
        # The audit process dies with the server (parent-death signal): no orphan keeps hashing.
        assert _until(lambda: not any(_running(pid) for pid in children), 60), "an audit process outlived the server"
    finally:
        server.stop()
    restarted = LiveServer(server.data_dir, database=database, roots={"data": slow_root}).start()
    try:
        with restarted.client(token) as c:
            run = _until(lambda: (r := c.get(path).json())["state"] != "running" and r, 60)
            assert run and run["state"] == "failed", run
            assert "server stopped" in run["error"] and run["exit_code"] == 2
            # Recognised by its dead worker at start, not by a heartbeat gone stale (which says nothing of it).
            assert "which has ended: marked failed" in restarted.text, restarted.text
            assert c.get(f"{path}/gate").json()["approved"] is False
    finally:
        restarted.stop()


def test_a_run_stopped_gracefully_is_queued_again(tmp_path: Path, slow_root: Path) -> None:
    """SIGTERM (a deploy, a restart): the run had decided nothing, so it waits for the next start."""
    server = LiveServer(tmp_path / "service", roots={"data": slow_root}).start()
    token = server.admin_token
    try:
        with server.client(token) as c:
            c.post("/api/projects", json={"name": "demo"})
            made = c.post("/api/projects/demo/runs", json={"config": SLOW_CONFIG, "data_root": "data", "base": "slow"})
            path = f"/api/projects/demo/runs/{made.json()['id']}"
            assert _until(lambda: c.get(path).json()["state"] == "running", 30)
    finally:
        server.stop()  # SIGTERM, then a wait
    assert server.process is not None and server.process.returncode is not None
    idle = LiveServer(server.data_dir, roots={"data": slow_root}, extra=["--workers", "0"]).start()
    try:
        with idle.client(token) as c:
            run = c.get(path).json()
            assert run["state"] == "queued" and "queued again" in run["progress"], run
    finally:
        idle.stop()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    out = tmp_path_factory.mktemp("report")
    config = str(SAMPLES / "video_frames" / "audit.yaml")
    forked.run(
        [sys.executable, "-m", "auditor.cli", "run", config, "--out", str(out), "--format", "json", "-q"],
        cwd=REPO,
        check=False,
    )
    return json.loads((out / "report.json").read_text())  # type: ignore[no-any-return]


def test_kill9_during_review_writes_loses_no_acknowledged_review(
    tmp_path: Path,
    database: str | None,
    report: dict,  # type: ignore[type-arg]
) -> None:
    server = LiveServer(tmp_path / "service", database=database).start()
    token = server.admin_token
    acknowledged: list[int] = []
    lock = threading.Lock()
    try:
        with server.client(token) as c:
            c.post("/api/projects", json={"name": "demo"})
            run_id = c.post("/api/projects/demo/runs", json={"report": report}).json()["id"]
        reviews = f"/api/projects/demo/runs/{run_id}/reviews"

        def post_reviews(n: int) -> None:
            with server.client(token) as c:
                for i in range(10_000):
                    try:
                        done = c.post(reviews, json={"action": "comment", "comment": f"writer {n} #{i}"})
                    except httpx.HTTPError:
                        return  # the server is gone: this write was never acknowledged
                    if done.status_code == 201:
                        with lock:
                            acknowledged.append(done.json()["id"])

        writers = [threading.Thread(target=post_reviews, args=(n,)) for n in range(4)]
        for w in writers:
            w.start()
        assert _until(lambda: len(acknowledged) >= 60, 60)
        server.kill9()  # while the four writers are mid-request
        for w in writers:
            w.join(30)
    finally:
        server.stop()
    if database is None:
        with sqlite3.connect(server.data_dir / "service.sqlite") as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    restarted = LiveServer(server.data_dir, database=database).start()
    try:
        with restarted.client(token) as c:
            stored = {r["id"] for r in c.get(reviews).json()}
    finally:
        restarted.stop()
    assert set(acknowledged) <= stored, f"lost acknowledged reviews: {sorted(set(acknowledged) - stored)}"
