"""The service under faults: a database that goes away, turns read-only or fills up; the queue worker lives on,
requests get 503 with Retry-After (not a 500 with a traceback), and /healthz says what is wrong."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event
from sqlalchemy import exc as sa_exc

from auditor.service import store
from auditor.service.app import create_app
from auditor.service.auth import Role
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.outage import outage_kind
from auditor.service.submitted import DataRoots
from auditor.service.worker import Worker
from tests.service.conftest import SAMPLES
from tests.service.harness import LiveServer, PgCluster

CONFIG = (SAMPLES / "video_frames" / "audit.yaml").read_text()


class Down:
    """The database refusing every statement of one engine while switched on, with the driver's own error (what
    a server that went away or a failing disk raises); the statements it refused are kept."""

    def __init__(self, engine: Engine) -> None:
        self.on = threading.Event()
        self.refused: list[str] = []
        self._error = engine.dialect.dbapi.OperationalError  # type: ignore[union-attr]
        event.listen(engine, "before_cursor_execute", self._check)

    def _check(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # SQLite's BEGIN passes, so the statement the transaction was for is the one refused (and recorded).
        if self.on.is_set() and not statement.startswith("BEGIN"):
            self.refused.append(statement)
            raise self._error("server closed the connection unexpectedly")


@pytest.fixture
def url(tmp_path: Path, database: str | None) -> str:
    made = database or sqlite_url(tmp_path)
    upgrade(made)
    return made


@pytest.fixture
def engines(url: str) -> Iterator[tuple[Engine, Engine]]:
    """Two engines on one database: the service's (faults are injected there) and the test's own, unharmed."""
    service, observer = make_engine(url), make_engine(url)
    try:
        yield service, observer
    finally:
        service.dispose()
        observer.dispose()


def until(check: Callable[[], Any], timeout: float = 60.0, what: str = "the condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.1)


def _enqueue(engine: Engine, project: store.Project) -> int:
    return store.enqueue_run(
        engine,
        project,
        data_root="samples",
        base="video_frames",
        config_text=CONFIG,
        config_sha256="0" * 64,
        submitted_by="test",
    ).id


def _state(engine: Engine, run_id: int) -> str:
    return store.get_run(engine, "demo", run_id).state


def test_the_worker_outlives_a_database_outage_and_stores_the_verdict_once_it_answers(
    engines: tuple[Engine, Engine],
) -> None:
    service, observer = engines
    project = store.create_project(observer, "demo", description="", created_by="test")
    first = _enqueue(observer, project)
    down = Down(service)
    worker = Worker(service, DataRoots({"samples": SAMPLES}))
    worker.start()
    try:
        until(lambda: _state(observer, first) == "running", what="the claim")
        down.on.set()
        # Down until the audit has finished and its report was refused: the write the outage must not lose.
        until(lambda: any("report_json" in s for s in down.refused), what="the refused report")
        time.sleep(1.0)
        assert worker.alive and _state(observer, first) == "running"
        down.on.clear()
        until(lambda: _state(observer, first) == "completed", what="storing the verdict after the outage")
        second = _enqueue(observer, project)  # the queue is served again
        until(lambda: _state(observer, second) == "completed", what="the next run")
        assert worker.alive
    finally:
        down.on.clear()
        worker.stop()
    assert store.get_run(observer, "demo", first).exit_code is not None


def test_healthz_is_503_saying_which_when_the_database_does_not_answer_or_a_worker_died(
    engines: tuple[Engine, Engine],
) -> None:
    service, _ = engines
    down = Down(service)
    alive, dead = Worker(service, DataRoots({})), Worker(service, DataRoots({}))
    alive.start()
    dead.start()
    dead.stop()
    try:
        with TestClient(create_app(ServiceContext(engine=service, workers=(alive,)))) as c:
            assert c.get("/healthz").json() == {"ok": True, "database": "ok", "workers": 1, "dead": []}
            down.on.set()
            answer = c.get("/healthz")
            assert (answer.status_code, answer.json()["database"]) == (503, "unavailable")
            down.on.clear()
            assert c.get("/healthz").status_code == 200
        with TestClient(create_app(ServiceContext(engine=service, workers=(alive, dead)))) as c:
            answer = c.get("/healthz")
            assert answer.status_code == 503
            assert answer.json() == {"ok": False, "database": "ok", "workers": 2, "dead": [dead.name]}
    finally:
        down.on.clear()
        alive.stop()


def _fault(engine: Engine, kind: str) -> Callable[..., None]:
    """A real read-only or full database: each new connection of ``engine`` made so by the database itself (until
    the returned listener is removed; the connections made meanwhile stay so, as a file opened read-only does)."""
    sqlite = engine.dialect.name == "sqlite"
    if kind == "full" and not sqlite:
        pytest.skip("a full disk is made on SQLite only (its page limit); PostgreSQL's 53100 is classified alike")
    setting = {
        ("read-only", True): "PRAGMA query_only = 1",
        ("full", True): None,
        ("read-only", False): "SET default_transaction_read_only = on",
    }[(kind, sqlite)]

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        cursor = dbapi_connection.cursor()
        if setting is not None:
            cursor.execute(setting)
        else:  # the file may not grow by one page: SQLite answers SQLITE_FULL, "database or disk is full"
            pages = cursor.execute("PRAGMA page_count").fetchone()[0]
            cursor.execute(f"PRAGMA max_page_count = {pages}")
        cursor.close()
        if not sqlite:
            dbapi_connection.commit()

    engine.dispose()  # the pooled connections were made before: from now on each one has the fault
    return _connect


@pytest.mark.parametrize("kind", ["unavailable", "read-only", "full"])
def test_a_database_that_cannot_answer_is_a_503_with_retry_after_and_one_log_line(
    engines: tuple[Engine, Engine], kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    service, observer = engines
    token = store.create_token(observer, name="admin", role=Role.ADMIN, project=None, created_by="test")
    big = "x" * 2000
    with TestClient(create_app(ServiceContext(engine=service))) as c:
        c.headers["Authorization"] = f"Bearer {token}"
        assert c.post("/api/projects", json={"name": "before"}).status_code == 201
        down = Down(service)
        if kind == "unavailable":
            down.on.set()
        else:
            _fault(service, kind)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="auditor.service.database"):
            answers = [c.post("/api/projects", json={"name": f"p{i}", "description": big}) for i in range(12)]
        if kind == "full":  # the first rows may still fit in the file's last page
            stored = [a for a in answers if a.status_code == 201]
            assert len(stored) <= 2
            answers = answers[len(stored) :]
        for answer in answers:
            assert answer.status_code == 503, answer.text
            assert answer.headers["retry-after"].isdigit()
            assert answer.json()["database"] == kind
            assert "Traceback" not in answer.text
        lines = [r for r in caplog.records if r.name == "auditor.service.database"]
        assert len(lines) == 1, [r.getMessage() for r in lines]
        assert kind in lines[0].getMessage()
        assert c.get("/api/projects").status_code == (503 if kind == "unavailable" else 200)  # reads still work
        health = c.get("/healthz")  # a read-only or full database answers reads: the refused writes tell
        assert (health.status_code, health.json()["database"]) == (503, kind)
        if kind == "unavailable":
            down.on.clear()
            assert c.get("/healthz").status_code == 200  # answering again: healthy at once
    admin = store.authenticate(observer, token)
    assert admin is not None
    assert len(store.list_projects(observer, admin)) <= 3  # "before", and on a full file what still fitted


def test_a_database_writable_again_takes_writes_at_once_and_healthz_says_so(engines: tuple[Engine, Engine]) -> None:
    """The connections opened while the database was read-only would refuse every write after it is writable again
    (a file opened read-only stays so): the first write they refuse drops them, and the next writes go through."""
    service, observer = engines
    token = store.create_token(observer, name="admin", role=Role.ADMIN, project=None, created_by="test")
    with TestClient(create_app(ServiceContext(engine=service))) as c:
        c.headers["Authorization"] = f"Bearer {token}"
        read_only = _fault(service, "read-only")
        refused = [c.post("/api/projects", json={"name": f"during-{i}"}) for i in range(6)]
        assert {a.status_code for a in refused} == {503}
        assert c.get("/healthz").json()["database"] == "read-only"
        event.remove(service, "connect", read_only)  # writable again
        tries = 0
        while c.post("/api/projects", json={"name": f"after-{tries}"}).status_code != 201:
            tries += 1
            assert tries < 3, "writes are still refused after the database is writable again"
        health = c.get("/healthz")
        assert (health.status_code, health.json()["database"]) == (200, "ok")
        answers = [c.post("/api/projects", json={"name": f"then-{i}"}).status_code for i in range(20)]
        assert answers == [201] * 20


def test_a_programming_error_is_still_a_500_not_an_outage(engines: tuple[Engine, Engine]) -> None:
    """Only a database that cannot answer is a 503: a bad statement stays a 500, so it is seen and fixed."""
    service, observer = engines
    token = store.create_token(observer, name="admin", role=Role.ADMIN, project=None, created_by="test")

    @event.listens_for(service, "before_cursor_execute")
    def _bug(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO PROJECTS"):
            raise service.dialect.dbapi.ProgrammingError("syntax error at or near INSERT")  # type: ignore[union-attr]

    with TestClient(create_app(ServiceContext(engine=service)), raise_server_exceptions=False) as c:
        answer = c.post("/api/projects", json={"name": "p"}, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 500


@pytest.mark.slow  # a real database outage and restart: tens of seconds; CI runs it
@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_postgresql_stopped_during_an_audit_then_started_again(
    tmp_path: Path, database: str, pg_cluster: PgCluster
) -> None:
    """`pg_ctl -m immediate stop` while a server-side audit runs: 503s with Retry-After on a kept-alive
    connection, /healthz 503, a few log lines and no traceback; once it is back the run completes, the queue goes on."""
    live = LiveServer(tmp_path / "service", database=database, roots={"samples": SAMPLES}).start()
    body = {"config": CONFIG, "data_root": "samples", "base": "video_frames"}
    try:
        with live.client(live.admin_token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
            first = c.post("/api/projects/demo/runs", json=body).json()["id"]
            until(lambda: c.get(f"/api/projects/demo/runs/{first}").json()["state"] == "running", what="the claim")
            pg_cluster.halt()
            try:
                answers = [c.get(f"/api/projects/demo/runs/{first}") for _ in range(20)]
                health = httpx.get(f"{live.url}/healthz", timeout=10)
                time.sleep(3.0)  # the audit (about a second) ends meanwhile: its verdict waits for the database
            finally:
                pg_cluster.resume()
            for answer in answers:
                assert answer.status_code == 503, answer.text
                assert answer.headers["retry-after"] == "5"
                assert answer.headers.get("connection") != "close"
                assert answer.json()["database"] == "unavailable"
            assert health.status_code == 503 and health.json()["database"] == "unavailable"
            done = until(
                lambda: (
                    (r := c.get(f"/api/projects/demo/runs/{first}")).status_code == 200
                    and r.json()["state"] not in ("queued", "running")
                    and r.json()
                ),
                what="the run ending after the outage",
            )
            assert done["state"] == "completed", done
            second = c.post("/api/projects/demo/runs", json=body).json()["id"]
            until(lambda: c.get(f"/api/projects/demo/runs/{second}").json()["state"] == "completed", what="next run")
            assert httpx.get(f"{live.url}/healthz", timeout=10).status_code == 200
    finally:
        live.stop()
    assert "Traceback" not in live.text and "Exception in thread" not in live.text, live.text
    outage_lines = [line for line in live.text.splitlines() if "unavailable" in line]
    assert 1 <= len(outage_lines) <= 3, outage_lines  # the requests' outage and the worker's, not one a request


def test_postgresql_errors_are_classified_by_their_sqlstate() -> None:
    """PostgreSQL's own error classes (what psycopg raises) by SQLSTATE: a full disk and a read-only server
    are outages of their kind; a constraint or a syntax error is not an outage at all."""
    import psycopg.errors as pg

    def wrapped(error: Exception, kind: type[sa_exc.DBAPIError]) -> sa_exc.DBAPIError:
        return kind("INSERT …", {}, error)

    assert outage_kind(wrapped(pg.DiskFull("could not extend file"), sa_exc.OperationalError)) == "full"
    assert outage_kind(wrapped(pg.ReadOnlySqlTransaction("cannot execute INSERT"), sa_exc.InternalError)) == (
        "read-only"
    )
    assert outage_kind(wrapped(pg.AdminShutdown("terminating connection"), sa_exc.OperationalError)) == "unavailable"
    assert outage_kind(wrapped(pg.UniqueViolation("duplicate key"), sa_exc.IntegrityError)) is None
    assert outage_kind(wrapped(pg.SyntaxError("syntax error"), sa_exc.ProgrammingError)) is None
    assert outage_kind(ValueError("not a database error")) is None
