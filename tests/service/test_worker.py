"""The queue: persisted in the database, claimed atomically, resumed after a restart, freed when a worker dies."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from auditor.core.processes import pid_namespace, start_ticks
from auditor.numeric.scratch import PREFIX
from auditor.service import store
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.submitted import DataRoots
from auditor.service.worker import ABANDONED, Worker, holder_gone, this_host, worker_name
from tests.service.conftest import SAMPLES
from tests.service.harness import LiveServer

HOST = this_host()


@pytest.fixture
def engine(tmp_path: Path, database: str | None) -> Iterator[Engine]:
    url = database or sqlite_url(tmp_path)
    upgrade(url)
    made = make_engine(url)
    try:
        yield made
    finally:
        made.dispose()


def _queue(engine: Engine, n: int) -> list[int]:
    project = store.create_project(engine, "demo", description="", created_by="test")
    return [
        store.enqueue_run(
            engine, project, data_root="samples", base="", config_text="x", config_sha256="0" * 64, submitted_by="t"
        ).id
        for _ in range(n)
    ]


def test_workers_racing_for_the_queue_never_take_the_same_run(engine: Engine) -> None:
    queued = _queue(engine, 40)
    taken: dict[str, list[int]] = {f"w{i}": [] for i in range(4)}
    gate = threading.Barrier(len(taken))

    def claim(name: str) -> None:
        gate.wait()
        while (claimed := store.claim_next(engine, name)) is not None:
            taken[name].append(claimed[0].id)

    threads = [threading.Thread(target=claim, args=(name,)) for name in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    every = [run_id for ids in taken.values() for run_id in ids]
    assert sorted(every) == queued  # each run once: none twice, none left
    assert store.running_holders(engine) == sorted(
        ((run_id, name) for name, ids in taken.items() for run_id in ids), key=lambda pair: pair[0]
    )


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_holder_is_gone_only_when_its_process_on_this_host_ended() -> None:
    me = worker_name(HOST, os.getpid())
    assert not holder_gone(me, HOST)
    assert holder_gone(worker_name(HOST, _dead_pid()), HOST)
    host, pid, _, nonce = me.rsplit(":", 3)
    assert holder_gone(f"{host}:{pid}:1:{nonce}", HOST)  # the id lives on in a process started later
    assert not holder_gone(worker_name("elsewhere", _dead_pid()), HOST)  # only its heartbeat can tell
    other_namespace = HOST.rsplit("@", 1)[0] + "@1"  # a container sharing the host name: its own process ids
    assert not holder_gone(worker_name(other_namespace, _dead_pid()), HOST)


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_recovery_fails_runs_of_dead_workers_of_this_host_only(engine: Engine) -> None:
    dead, alive, remote, waiting = _queue(engine, 4)
    store.claim_next(engine, worker_name(HOST, _dead_pid()))
    store.claim_next(engine, worker_name(HOST, os.getpid()))
    store.claim_next(engine, worker_name("elsewhere", _dead_pid()))
    assert Worker(engine, DataRoots({})).recover() == [dead]
    states = {r.id: (r.state, r.error) for r in store.list_runs(engine, "demo")}
    assert states == {
        dead: ("failed", ABANDONED),
        alive: ("running", None),
        remote: ("running", None),
        waiting: ("queued", None),
    }


def _wait_for(client, path: str, done, timeout: float = 60):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(path).json()
        if done(body) or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


@pytest.mark.slow  # three server starts and two audits per database; CI runs it
def test_queued_runs_wait_without_workers_and_complete_after_a_restart(tmp_path: Path, database: str | None) -> None:
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    body = {"config": config, "data_root": "samples", "base": "video_frames"}
    queue_only = LiveServer(
        tmp_path / "service", database=database, roots={"samples": SAMPLES}, extra=["--workers", "0"]
    ).start()
    token = queue_only.admin_token
    try:
        with queue_only.client(token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
            run_id = c.post("/api/projects/demo/runs", json=body).json()["id"]
            time.sleep(1.5)  # three poll intervals of a worker, were there one
            assert c.get(f"/api/projects/demo/runs/{run_id}").json()["state"] == "queued"
    finally:
        queue_only.stop()
    working = LiveServer(tmp_path / "service", database=database, roots={"samples": SAMPLES}).start()
    try:
        with working.client(token) as c:
            runs = _wait_for(
                c, "/api/projects/demo/runs", lambda rs: all(r["state"] not in ("queued", "running") for r in rs)
            )
            assert [(r["id"], r["state"]) for r in runs] == [(run_id, "completed")], runs
    finally:
        working.stop()


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_live_workers_run_is_not_abandoned_for_heartbeats_missed_in_an_outage(engine: Engine) -> None:
    """After a database outage longer than the staleness limit, a run of this host's live worker goes on; a run
    of a worker elsewhere that stopped reporting is still failed."""
    here, elsewhere = _queue(engine, 2)
    live_name = worker_name(HOST, os.getpid())
    store.claim_next(engine, live_name)
    store.claim_next(engine, worker_name("elsewhere", _dead_pid()))
    later = store.now() + dt.timedelta(seconds=60)
    assert store.fail_abandoned(engine, dt.timedelta(seconds=15), reason=ABANDONED, spare=[live_name], at=later) == [
        elsewhere
    ]
    assert store.get_run(engine, "demo", here).state == "running"


def test_a_killed_servers_temp_folder_is_removed_by_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 during an audit leaves its folder (the config inside); the next start removes it, and only it."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the servers' temp folder, seen by nothing else
    live_elsewhere = temp / f"{PREFIX}{pid_namespace()}-{os.getpid()}-{start_ticks(os.getpid())}-mine"
    live_elsewhere.mkdir()
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    body = {"config": config, "data_root": "samples", "base": "video_frames"}
    first = LiveServer(tmp_path / "service", roots={"samples": SAMPLES}).start()
    try:
        with first.client(first.admin_token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
            run_id = c.post("/api/projects/demo/runs", json=body).json()["id"]
            _wait_for(c, f"/api/projects/demo/runs/{run_id}", lambda r: r["state"] == "running")
            left = _wait_for_folder(temp, first)
    finally:
        first.kill9()
    assert left.is_dir()
    second = LiveServer(tmp_path / "service", roots={"samples": SAMPLES}, extra=["--workers", "0"]).start()
    second.stop()
    assert not left.exists()
    assert live_elsewhere.is_dir()  # a live process's folder stays
    assert "removed 1 temp folder(s) left by audits of ended processes" in second.text


def _wait_for_folder(temp: Path, server: LiveServer, timeout: float = 30) -> Path:
    assert server.process is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [p for p in temp.glob(f"{PREFIX}*-{server.process.pid}-*") if p.is_dir()]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no temp folder of server {server.process.pid} in {temp}")


def test_two_workers_audit_two_queued_runs_at_once(tmp_path: Path, database: str | None) -> None:
    """--workers 2: the second run starts while the first still runs, so one long audit cannot stall the queue."""
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    body = {"config": config, "data_root": "samples", "base": "video_frames"}
    live = LiveServer(
        tmp_path / "service", database=database, roots={"samples": SAMPLES}, extra=["--workers", "2"]
    ).start()
    try:
        with live.client(live.admin_token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
            ids = [c.post("/api/projects/demo/runs", json=body).json()["id"] for _ in range(2)]
            seen: list[dict[int, str]] = []
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                states = {r["id"]: r["state"] for r in c.get("/api/projects/demo/runs").json()}
                seen.append(states)
                if all(s in ("completed", "failed") for s in states.values()):
                    break
                time.sleep(0.05)
    finally:
        live.stop()
    assert any(all(states.get(i) == "running" for i in ids) for states in seen), seen
    assert seen[-1] == {i: "completed" for i in ids}


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_claim_whose_answer_was_lost_goes_back_to_the_queue(engine: Engine) -> None:
    """The claim committed but the worker never heard (the connection dropped): its next poll queues the run
    again instead of leaving it running under a live worker's name, which no staleness check would fail."""
    (run_id,) = _queue(engine, 1)
    worker = Worker(engine, DataRoots({}))
    assert store.claim_next(engine, worker.name) is not None
    assert worker.recover() == []
    run = store.get_run(engine, "demo", run_id)
    assert (run.state, run.progress) == ("queued", "queued again: claimed as the database went away")
