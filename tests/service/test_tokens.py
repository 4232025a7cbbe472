"""Tokens over the API of a live server, on SQLite and PostgreSQL: listed without secrets, revoked at once,
managed only by an admin of every project, and never down to no admin at all."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from auditor.service import store
from auditor.service.auth import Role
from auditor.service.db import open_database, sqlite_url
from tests.service.harness import LiveServer, PgCluster


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server per backend for the module, with a project `demo` holding nothing yet."""
    database = None
    if request.param == "postgresql":
        cluster: PgCluster = request.getfixturevalue("pg_cluster")
        database = cluster.new_database()
    data_dir: Path = tmp_path_factory.mktemp("tokens") / "service"
    server = LiveServer(data_dir, database=database, extra=["--workers", "0"]).start()
    try:
        with server.client(server.admin_token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
        yield server
    finally:
        server.stop()


def make(live: LiveServer, name: str, role: str, project: str | None = None) -> str:
    with live.client(live.admin_token) as c:
        made = c.post("/api/tokens", json={"name": name, "role": role, "project": project})
    assert made.status_code == 201, made.text
    return str(made.json()["token"])


def listed(live: LiveServer, token: str | None = None) -> list[dict[str, object]]:
    with live.client(token or live.admin_token) as c:
        answer = c.get("/api/tokens")
    assert answer.status_code == 200, answer.text
    return list(answer.json())


def token_id(live: LiveServer, name: str) -> int:
    (found,) = [t for t in listed(live) if t["name"] == name]
    return int(str(found["id"]))


def revoke(live: LiveServer, tid: int, token: str | None = None) -> httpx.Response:
    with live.client(token or live.admin_token) as c:
        return c.post(f"/api/tokens/{tid}/revoke")


def api_routes(live: LiveServer) -> list[tuple[str, str]]:
    """Every API route of the schema, its path parameters filled with values that would exist."""
    doc = httpx.get(f"{live.url}/openapi.json", timeout=10).json()
    fill = {"{project}": "demo", "{run_id}": "1", "{token_id}": "1"}
    routes = []
    for template, ops in doc["paths"].items():
        path = template
        for key, value in fill.items():
            path = path.replace(key, value)
        routes += [(m.upper(), path) for m in ops if m in {"get", "post", "put", "patch", "delete"}]
    assert "{" not in "".join(p for _, p in routes)
    return routes


def test_tokens_are_listed_with_their_holders_never_with_the_secret(live: LiveServer) -> None:
    secret = make(live, "Ada Lovelace", "reviewer", "demo")
    row = next(t for t in listed(live) if t["name"] == "Ada Lovelace")
    assert set(row) == {"id", "name", "role", "project", "created_at", "created_by"}
    assert (row["role"], row["project"], row["created_by"]) == ("reviewer", "demo", "admin")
    with live.client(live.admin_token) as c:
        text = c.get("/api/tokens").text
    assert secret not in text and str(live.admin_token) not in text


def test_a_revoked_token_gets_401_at_once_on_every_route(live: LiveServer) -> None:
    secret = make(live, "Grace Hopper", "reviewer", None)
    with live.client(secret) as c:
        assert c.get("/api/me").json()["name"] == "Grace Hopper"
    tid = token_id(live, "Grace Hopper")
    assert revoke(live, tid).status_code == 204
    with live.client(secret) as c:
        for method, path in api_routes(live):
            answer = c.request(method, path, json={})
            assert answer.status_code == 401, (method, path, answer.status_code, answer.text)
    assert all(t["id"] != tid for t in listed(live))
    again = revoke(live, tid)
    assert again.status_code == 404 and "no such active token" in again.json()["detail"]
    assert revoke(live, 987654).status_code == 404


def test_only_an_admin_of_every_project_manages_tokens(live: LiveServer) -> None:
    admin_id = token_id(live, "admin")
    for name, role, project in (("Rita Reviewer", "reviewer", None), ("Pat Projectadmin", "admin", "demo")):
        secret = make(live, name, role, project)
        with live.client(secret) as c:
            assert c.get("/api/tokens").status_code == 403
            assert c.post(f"/api/tokens/{admin_id}/revoke").status_code == 403
    assert any(t["id"] == admin_id for t in listed(live))


def test_the_last_admin_token_of_every_project_cannot_be_revoked(
    live: LiveServer, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """On a server and database of its own: it revokes the first admin token, which the other tests use."""
    database = request.getfixturevalue("pg_cluster").new_database() if live.database else None
    server = LiveServer(tmp_path / "service", database=database, extra=["--workers", "0"]).start()
    try:
        first = token_id(server, "admin")
        make(server, "Project Admin", "admin", "demo")  # an admin of one project cannot make tokens: not counted
        refused = revoke(server, first)
        assert refused.status_code == 409, refused.text
        assert "create another admin token first" in refused.json()["detail"]
        second = make(server, "Second Admin", "admin")
        assert revoke(server, first).status_code == 204  # the old one goes, the new one carries on
        with server.client(server.admin_token) as c:
            assert c.get("/api/me").status_code == 401
        (mine,) = [t for t in listed(server, second) if t["name"] == "Second Admin"]
        assert revoke(server, int(str(mine["id"])), second).status_code == 409  # not even by itself
    finally:
        server.stop()


def race_two_admins(url: str) -> list[str]:
    """Two admin tokens, each revoked by its own thread at the same moment: what each revocation got."""
    engine = open_database(url)
    try:
        for name in ("a", "b"):
            store.create_token(engine, name=name, role=Role.ADMIN, project=None, created_by="test")
        ids = [t.id for t in store.list_tokens(engine)]
        outcomes: list[str] = []
        start = threading.Barrier(len(ids))

        def revoke_one(token_id: int) -> None:
            start.wait()
            try:
                store.revoke_token(engine, token_id)
                outcomes.append("revoked")
            except store.Conflict:
                outcomes.append("refused")

        threads = [threading.Thread(target=revoke_one, args=(i,)) for i in ids]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert len(store.list_tokens(engine)) == 1
        return sorted(outcomes)
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_admins_revoking_each_other_at_once_leave_one(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Both revocations check the last-admin rule in their own transaction: one wins, the other is refused."""
    for round_ in range(5):
        if backend == "postgresql":
            url = request.getfixturevalue("pg_cluster").new_database()
        else:
            (tmp_path / str(round_)).mkdir()
            url = sqlite_url(tmp_path / str(round_))
        assert race_two_admins(url) == ["refused", "revoked"]
