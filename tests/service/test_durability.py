"""kill -9 of the server: an interrupted run ends failed (never passed), every acknowledged review survives, and an
upload cut after its commit is stored once when retried with its Idempotency-Key."""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from auditor.service.db import make_engine, reading, sqlite_url
from auditor.service.tables import runs
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


def _padded(report: dict, copies: int) -> dict:  # type: ignore[type-arg]
    """``report`` with one finding repeated ``copies`` times: a report long enough to take a while to store and
    read back, so a kill lands between its commit and its answer as often as not."""
    padded = json.loads(json.dumps(report))
    findings = next(s["findings"] for s in padded["stages"] if s["findings"])
    findings.extend([dict(findings[0]) for _ in range(copies)])
    return padded  # type: ignore[no-any-return]


def _post(server: LiveServer, token: str | None, upload: dict, key: dict[str, str]) -> None:  # type: ignore[type-arg]
    """Send ``upload``; the answer is not waited for (the server is killed meanwhile)."""
    with contextlib.suppress(httpx.HTTPError), server.client(token) as c:
        c.post("/api/projects/demo/runs", json=upload, headers=key)


def _more_runs(engine: Engine, than: int) -> bool:
    return len(_run_ids(engine)) > than


def _run_ids(engine: Engine) -> list[int]:
    with reading(engine) as conn:
        return [int(i) for i in conn.execute(select(runs.c.id).order_by(runs.c.id)).scalars()]


def test_an_upload_cut_by_kill9_after_its_commit_is_stored_once_when_retried_with_its_key(
    tmp_path: Path,
    database: str | None,
    report: dict,  # type: ignore[type-arg]
) -> None:
    """kill -9 the moment the run is committed, before or while its answer goes out; the retry with the same
    Idempotency-Key after the restart gets that run, and no second one is made. Three cuts, each bounded."""
    data_dir = tmp_path / "service"
    server = LiveServer(data_dir, database=database).start()
    token = server.admin_token
    observer = make_engine(database or sqlite_url(data_dir))
    upload = {"report": _padded(report, 1000)}
    try:
        with server.client(token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
        for cut in range(3):
            key = {"Idempotency-Key": f"cut-{cut}"}
            before = _run_ids(observer)

            sending = threading.Thread(target=_post, args=(server, token, upload, key))
            sending.start()
            committed = _until(functools.partial(_more_runs, observer, len(before)), 60)
            server.kill9()
            sending.join(30)
            assert committed, f"cut {cut}: the run was never committed"
            server = LiveServer(data_dir, database=database).start()
            with server.client(token) as c:
                retried = c.post("/api/projects/demo/runs", json=upload, headers=key)
            assert retried.status_code == 201, (cut, retried.status_code, retried.text)
            after = _run_ids(observer)
            assert len(after) == len(before) + 1, f"cut {cut}: {len(after) - len(before)} runs made by one upload"
            assert retried.json()["id"] == after[-1]
    finally:
        server.stop()
        observer.dispose()
