"""Idempotency-Key on every POST, on both databases: a retry gets the first answer and makes no duplicate, even when
that answer was lost after the write committed; keys are scoped to the token and the resource; a new token is never
kept; the CLI's client sends one key across its own retries."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, func, select

from auditor.service import idempotency, store
from auditor.service.app import create_app
from auditor.service.auth import Role
from auditor.service.client import Client
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, reading, sqlite_url, upgrade
from auditor.service.tables import idempotency_keys, runs
from tests.service.test_authz import sample_report
from tests.service.test_faults import Down

RUNS = "/api/projects/p/runs"


@pytest.fixture
def engine(tmp_path: Path, database: str | None) -> Iterator[Engine]:
    url = database or sqlite_url(tmp_path)
    upgrade(url)
    made = make_engine(url)
    try:
        yield made
    finally:
        made.dispose()


@pytest.fixture
def tokens(engine: Engine) -> dict[str, str]:
    return {
        name: store.create_token(engine, name=name, role=Role.ADMIN, project=None, created_by="test")
        for name in ("a", "b")
    }


@pytest.fixture
def app(engine: Engine, tokens: dict[str, str]) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceContext(engine=engine))) as c:
        c.headers["Authorization"] = f"Bearer {tokens['a']}"
        assert c.post("/api/projects", json={"name": "p"}).status_code == 201
        yield c


def _runs(engine: Engine) -> int:
    with reading(engine) as conn:
        return int(conn.execute(select(func.count()).select_from(runs)).scalar_one())


def test_a_repeated_post_gets_the_first_answer_and_stores_one_run(app: TestClient, engine: Engine) -> None:
    body = {"report": sample_report()}
    first = app.post(RUNS, json=body, headers={"Idempotency-Key": "k1"})
    again = app.post(RUNS, json=body, headers={"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert again.headers["x-content-type-options"] == "nosniff"  # a replay is answered like any other
    assert _runs(engine) == 1
    other = app.post(RUNS, json=body, headers={"Idempotency-Key": "k2"})
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert _runs(engine) == 2


def test_without_a_key_each_post_is_carried_out(app: TestClient, engine: Engine) -> None:
    body = {"report": sample_report()}
    assert app.post(RUNS, json=body).json()["id"] != app.post(RUNS, json=body).json()["id"]
    assert _runs(engine) == 2


def test_a_repeat_gets_the_first_status_even_when_doing_it_again_would_answer_otherwise(app: TestClient) -> None:
    made = app.post("/api/projects", json={"name": "q"}, headers={"Idempotency-Key": "make-q"})
    again = app.post("/api/projects", json={"name": "q"}, headers={"Idempotency-Key": "make-q"})
    assert (made.status_code, again.status_code) == (201, 201) and again.json() == made.json()
    refused = app.post("/api/projects", json={"name": "q"})  # without the key: it exists already
    assert refused.status_code == 409
    bad = app.post("/api/projects", json={"name": "-"}, headers={"Idempotency-Key": "bad"})
    assert bad.status_code == 422
    assert app.post("/api/projects", json={"name": "-"}, headers={"Idempotency-Key": "bad"}).json() == bad.json()


def test_keys_are_scoped_to_the_token_and_the_route(app: TestClient, tokens: dict[str, str], engine: Engine) -> None:
    body = {"report": sample_report()}
    mine = app.post(RUNS, json=body, headers={"Idempotency-Key": "same"})
    theirs = app.post(RUNS, json=body, headers={"Idempotency-Key": "same", "Authorization": f"Bearer {tokens['b']}"})
    assert theirs.status_code == 201 and theirs.json()["id"] != mine.json()["id"]
    assert theirs.json()["submitted_by"] == "b"
    elsewhere = app.post("/api/projects", json={"name": "r"}, headers={"Idempotency-Key": "same"})
    assert elsewhere.status_code == 201 and elsewhere.json()["name"] == "r"
    assert _runs(engine) == 2


def test_a_key_given_with_another_body_is_refused(app: TestClient, engine: Engine) -> None:
    assert app.post("/api/projects", json={"name": "x"}, headers={"Idempotency-Key": "k"}).status_code == 201
    other = app.post("/api/projects", json={"name": "y"}, headers={"Idempotency-Key": "k"})
    assert other.status_code == 422 and "another request body" in other.json()["detail"]
    assert app.get("/api/projects/y").status_code == 404


@pytest.mark.parametrize("key", ["", " ", "x" * 201, "é"])
def test_a_malformed_key_is_422(app: TestClient, key: str) -> None:
    answer = app.post("/api/projects", json={"name": "z"}, headers={"Idempotency-Key": key.encode()})
    assert answer.status_code == 422 and "Idempotency-Key" in answer.json()["detail"]
    assert app.get("/api/projects/z").status_code == 404


def test_a_request_that_finds_its_key_kept_meanwhile_is_rolled_back_and_gets_that_answer(
    app: TestClient, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two requests with one key at once: the one that keeps its answer second rolls its write back and answers
    with the first one's answer (here the lookup before the write misses, as it does for a concurrent twin)."""
    body = {"report": sample_report()}
    first = app.post(RUNS, json=body, headers={"Idempotency-Key": "twin"})
    assert first.status_code == 201
    looked_up = idempotency.kept
    misses = iter([True])
    monkeypatch.setattr(idempotency, "kept", lambda e, c: None if next(misses, False) else looked_up(e, c))
    twin = app.post(RUNS, json=body, headers={"Idempotency-Key": "twin"})
    assert twin.status_code == 201 and twin.json() == first.json()
    assert twin.headers["idempotent-replayed"] == "true"
    assert _runs(engine) == 1


def test_a_key_is_tied_to_the_resource_not_to_how_its_path_is_spelt(app: TestClient, engine: Engine) -> None:
    """`/projects/P` and `/projects/p` are one project, `runs/01` and `runs/1` one run: one key, one write."""
    body = {"report": sample_report()}
    made = app.post(RUNS, json=body, headers={"Idempotency-Key": "spelt"})
    again = app.post(RUNS.replace("/p/", "/P/"), json=body, headers={"Idempotency-Key": "spelt"})
    assert made.status_code == again.status_code == 201 and again.json()["id"] == made.json()["id"]
    assert again.headers["idempotent-replayed"] == "true" and _runs(engine) == 1
    run = made.json()["id"]
    comment = {"action": "comment", "comment": "seen"}
    first = app.post(f"/api/projects/p/runs/{run}/reviews", json=comment, headers={"Idempotency-Key": "c"})
    second = app.post(f"/api/projects/P/runs/0{run}/reviews", json=comment, headers={"Idempotency-Key": "c"})
    assert first.status_code == second.status_code == 201 and second.json()["id"] == first.json()["id"]
    assert len(app.get(f"/api/projects/p/runs/{run}/reviews").json()) == 1


def test_an_upload_whose_answer_is_lost_after_its_commit_is_replayed_not_made_again(
    app: TestClient, engine: Engine
) -> None:
    """The database goes away right after the run's transaction commits (the answer is lost: a 503, or a client
    that sees nothing): the retry with the key gets the run that was stored, and stores no second one."""
    down = Down(engine)
    inserted = threading.Event()

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO RUNS"):
            inserted.set()

    def committed(conn: Any) -> None:
        if inserted.is_set():
            down.on.set()  # the COMMIT itself goes through; every statement after it fails

    event.listen(engine, "before_cursor_execute", note)
    event.listen(engine, "commit", committed)
    body = {"report": sample_report()}
    try:
        first = app.post(RUNS, json=body, headers={"Idempotency-Key": "lost"})
    finally:
        down.on.clear()
        event.remove(engine, "before_cursor_execute", note)
        event.remove(engine, "commit", committed)
    assert _runs(engine) == 1
    again = app.post(RUNS, json=body, headers={"Idempotency-Key": "lost"})
    assert again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true" and _runs(engine) == 1
    if first.status_code == 201:
        assert again.json() == first.json()


def test_a_token_made_with_a_key_is_never_stored_and_its_retry_names_it_without_showing_it(
    app: TestClient, engine: Engine
) -> None:
    body = {"name": "ci", "role": "submitter", "project": "p"}
    made = app.post("/api/tokens", json=body, headers={"Idempotency-Key": "new-token"})
    assert made.status_code == 201
    token = made.json()["token"]
    with reading(engine) as conn:
        kept = [bytes(b) for b in conn.execute(select(idempotency_keys.c.body)).scalars()]
    assert kept and not any(token.encode() in b for b in kept), "the new token is kept in plain text"
    token_id = made.json()["id"]
    again = app.post("/api/tokens", json=body, headers={"Idempotency-Key": "new-token"})
    assert again.status_code == 409 and again.headers["idempotent-replayed"] == "true"
    detail = again.json()["detail"]
    assert f"token {token_id} ('ci')" in detail and "cannot be shown again" in detail and token not in detail
    assert app.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["name"] == "ci"
    assert len([t for t in store.list_tokens(engine) if t.name == "ci"]) == 1


def test_a_key_whose_request_failed_on_the_server_may_be_retried(app: TestClient, engine: Engine) -> None:
    """A 503 in an outage keeps nothing: the retry after it is carried out, not answered 503 again."""
    down = Down(engine)
    down.on.set()
    try:
        failed = app.post("/api/projects", json={"name": "s"}, headers={"Idempotency-Key": "k"})
    finally:
        down.on.clear()
    assert failed.status_code == 503 and failed.headers["retry-after"]
    done = app.post("/api/projects", json={"name": "s"}, headers={"Idempotency-Key": "k"})
    assert done.status_code == 201
    with reading(engine) as conn:
        assert conn.execute(select(idempotency_keys.c.status)).scalars().all() == [201]


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A server that answers the first POST 503 (Retry-After: 0) and the next 201, noting each key it got."""

    keys: list[str | None] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        _Flaky.keys.append(self.headers.get("Idempotency-Key"))
        first = len(_Flaky.keys) % 2 == 1
        payload = b'{"detail": "the database is unavailable"}' if first else b'{"id": 1, "url": "u"}'
        self.send_response(503 if first else 201)
        if first:
            self.send_header("Retry-After", "0")
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_clients_upload_sends_one_key_across_its_retries_and_a_new_one_per_upload(database: None) -> None:
    _Flaky.keys = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Client(f"http://127.0.0.1:{server.server_address[1]}", "t")
        report = json.dumps(sample_report())
        assert client.submit_report("p", report, None)["id"] == 1
        assert client.submit_report("p", report, None)["id"] == 1
    finally:
        server.shutdown()
        server.server_close()
    first, retry, second, second_retry = _Flaky.keys
    assert first is not None and first == retry and second == second_retry and first != second
