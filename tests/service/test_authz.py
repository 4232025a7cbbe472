"""Who may do what, on every API route of a live server, on SQLite and PostgreSQL: tokens, roles, projects, binding."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from sqlalchemy import select

from auditor.exposure.fingerprint import row_hashes, sketch
from auditor.service import store
from auditor.service.auth import Role
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.exposure import encode_sketch
from auditor.service.tables import tokens
from tests import forked
from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer

A, B = "alpha", "beta"


@functools.cache
def _report_text() -> str:
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "auditor.cli", "run", str(SAMPLES / "video_frames" / "audit.yaml")]
        forked.run([*argv, "--out", folder, "--format", "json", "-q"], cwd=REPO, check=False)
        return (Path(folder) / "report.json").read_text()


def sample_report() -> dict[str, Any]:
    """A real report of the video-frames sample (it has error findings, so accept and override apply)."""
    data: dict[str, Any] = json.loads(_report_text())
    return data


def small_sketch() -> dict[str, Any]:
    """A holdout set of three sample ids, as a client posts it to the exposure ledger."""
    return encode_sketch(sketch(row_hashes(np.array(["a", "b", "c"], dtype=object), "ids"), "ids"))


def first_fingerprint(report: dict[str, Any]) -> str:
    fingerprint: str = next(f["fingerprint"] for s in report["stages"] for f in s["findings"])
    return fingerprint


@dataclass
class World:
    """One live server with projects alpha and beta, two runs each (the first approved), and tokens."""

    server: LiveServer
    url: str  # the database URL, to look behind the API
    report: dict[str, Any]
    runs: dict[str, list[int]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    tokens_at_start: int = 0
    clients: dict[str | None, httpx.Client] = field(default_factory=dict)

    def call(self, token: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        if token not in self.clients:
            self.clients[token] = self.server.client(token)
        return self.clients[token].request(method, path, **kwargs)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("authz")
    database = request.getfixturevalue("pg_cluster").new_database() if request.param == "postgresql" else None
    # Every route is tried with several wrong tokens from this one address: more than a client may send by default.
    live = LiveServer(tmp / "service", database=database, extra=["--auth-failures", "1000"]).start()
    try:
        url = database or sqlite_url(tmp / "service")
        engine = make_engine(url)
        w = World(live, url, sample_report())
        w.tokens_at_start = len(store.list_tokens(engine))
        admin = live.admin_token
        w.tokens["admin"] = admin or ""
        for project in (A, B):
            assert w.call(admin, "POST", "/api/projects", json={"name": project}).status_code == 201
            for _ in range(2):
                made = w.call(admin, "POST", f"/api/projects/{project}/runs", json={"report": w.report})
                assert made.status_code == 201, made.text
                w.runs.setdefault(project, []).append(made.json()["id"])
            first = w.runs[project][0]
            approve = {"action": "approve", "comment": "pilot", "override_reason": "known leaks"}
            assert w.call(admin, "POST", f"/api/projects/{project}/runs/{first}/reviews", json=approve).is_success
        for name, role, project in [
            ("submitter_a", "submitter", A),
            ("reviewer_a", "reviewer", A),
            ("admin_a", "admin", A),
            ("reviewer_b", "reviewer", B),
            ("revoked", "admin", None),
        ]:
            made = w.call(admin, "POST", "/api/tokens", json={"name": name, "role": role, "project": project})
            assert made.status_code == 201, made.text
            w.tokens[name] = made.json()["token"]
        (revoked,) = [t for t in store.list_tokens(engine) if t.name == "revoked"]
        store.revoke_token(engine, revoked.id)
        engine.dispose()
        yield w
        for client in w.clients.values():
            client.close()
    finally:
        live.stop()


def schema_routes(w: World) -> set[tuple[str, str]]:
    """Every (method, path) the live server's OpenAPI document lists."""
    doc = httpx.get(f"{w.server.url}/openapi.json", timeout=10).json()
    return {
        (m.upper(), p) for p, ops in doc["paths"].items() for m in ops if m in {"get", "post", "put", "patch", "delete"}
    }


# How to call each route so that it succeeds for a token that may: (world, project, run, earlier run) -> request.
Example = Callable[[World, str, int, int], dict[str, Any]]
EXAMPLES: dict[tuple[str, str], Example] = {
    ("GET", "/api/me"): lambda w, p, r, r0: {},
    ("GET", "/api/projects"): lambda w, p, r, r0: {},
    ("POST", "/api/projects"): lambda w, p, r, r0: {"json": {"name": f"{p}-new"}},
    ("GET", "/api/projects/{project}"): lambda w, p, r, r0: {},
    ("GET", "/api/projects/{project}/runs"): lambda w, p, r, r0: {},
    ("POST", "/api/projects/{project}/runs"): lambda w, p, r, r0: {"json": {"report": w.report}},
    ("GET", "/api/projects/{project}/runs/{run_id}"): lambda w, p, r, r0: {},
    ("GET", "/api/projects/{project}/runs/{run_id}/report"): lambda w, p, r, r0: {"params": {"format": "markdown"}},
    ("GET", "/api/projects/{project}/runs/{run_id}/diff"): lambda w, p, r, r0: {"params": {"against": r0}},
    ("POST", "/api/projects/{project}/runs/{run_id}/reviews"): lambda w, p, r, r0: {
        "json": {"action": "comment", "comment": "looked at it"}
    },
    ("GET", "/api/projects/{project}/runs/{run_id}/reviews"): lambda w, p, r, r0: {},
    ("GET", "/api/projects/{project}/runs/{run_id}/gate"): lambda w, p, r, r0: {},
    ("GET", "/api/projects/{project}/trail"): lambda w, p, r, r0: {},
    ("POST", "/api/projects/{project}/evaluations"): lambda w, p, r, r0: {
        "json": {"sketch": small_sketch(), "evaluation": {"split": "test", "metrics": {"acc": 0.9}}}
    },
    ("GET", "/api/projects/{project}/exposure"): lambda w, p, r, r0: {},
    ("POST", "/api/tokens"): lambda w, p, r, r0: {"json": {"name": "more", "role": "submitter", "project": p}},
    ("GET", "/api/tokens"): lambda w, p, r, r0: {},
    ("POST", "/api/tokens/{token_id}/revoke"): lambda w, p, r, r0: {},
}


def request(
    w: World, token: str | None, route: tuple[str, str], project: str, run: int, earlier: int
) -> httpx.Response:
    method, template = route
    path = template.replace("{project}", project).replace("{run_id}", str(run))
    return w.call(token, method, path, **EXAMPLES[route](w, project, run, earlier))


def project_routes(w: World) -> list[tuple[str, str]]:
    return sorted(r for r in schema_routes(w) if "{project}" in r[1])


def test_every_route_in_the_schema_is_exercised(world: World) -> None:
    routes = schema_routes(world)
    assert routes == set(EXAMPLES), f"routes without an authorization example: {sorted(routes - set(EXAMPLES))}"
    assert any("{run_id}" in p for _, p in routes)


def test_a_project_token_may_use_every_route_of_its_own_project(world: World) -> None:
    runs = world.runs[A]
    for route in project_routes(world):
        answer = request(world, world.tokens["submitter_a"], route, A, runs[1], runs[0])
        assert answer.is_success, (route, answer.status_code, answer.text)


def test_another_projects_resources_are_404_for_a_project_token(world: World) -> None:
    runs = world.runs[B]
    for token in ("submitter_a", "reviewer_a", "admin_a"):
        for route in project_routes(world):
            answer = request(world, world.tokens[token], route, B, runs[1], runs[0])
            assert answer.status_code == 404, (token, route, answer.status_code, answer.text)
            # The same answer as for a project that does not exist: nothing is learnt about beta.
            missing = request(world, world.tokens[token], route, "gamma", runs[1], runs[0])
            assert missing.status_code == 404
            assert answer.json()["detail"].replace(B, "?") == missing.json()["detail"].replace("gamma", "?")


def test_a_run_of_another_project_is_404_under_a_projects_path(world: World) -> None:
    own, theirs = world.runs[A], world.runs[B]
    for token in ("submitter_a", "admin"):
        for route in project_routes(world):
            if "{run_id}" not in route[1]:
                continue
            answer = request(world, world.tokens[token], route, A, theirs[1], own[0])
            assert answer.status_code == 404, (token, route, answer.status_code, answer.text)
        # Compared against beta's run from alpha's path: also not found.
        diff = world.call(
            world.tokens[token], "GET", f"/api/projects/{A}/runs/{own[1]}/diff", params={"against": theirs[0]}
        )
        assert diff.status_code == 404, diff.text


def test_a_project_token_lists_and_creates_only_its_project(world: World) -> None:
    token = world.tokens["submitter_a"]
    assert [p["name"] for p in world.call(token, "GET", "/api/projects").json()] == [A]
    taken = world.call(token, "POST", "/api/projects", json={"name": B})
    assert taken.status_code == 404, taken.text  # not 409: that would say beta exists
    trail = world.call(world.tokens["reviewer_b"], "GET", f"/api/projects/{B}/trail").json()
    assert trail and {r["run_id"] for r in trail} <= set(world.runs[B])


@pytest.mark.parametrize("token", [None, "empty", "sa_not-a-token", "revoked", "one-off", "basic"])
def test_every_route_needs_a_valid_token(world: World, token: str | None) -> None:
    admin = world.tokens["admin"]
    headers: dict[str, str] = {}
    if token == "one-off":  # the admin token with its last character changed
        headers = {"Authorization": f"Bearer {admin[:-1]}{'A' if admin[-1] != 'A' else 'B'}"}
    elif token == "empty":
        headers = {"Authorization": "Bearer"}
    elif token == "basic":  # the right secret under another scheme
        headers = {"Authorization": f"Basic {admin}"}
    elif token is not None:
        headers = {"Authorization": f"Bearer {world.tokens.get(token, token)}"}
    runs = world.runs[A]
    with httpx.Client(base_url=world.server.url, headers=headers, timeout=30) as c:
        for route in sorted(schema_routes(world)):
            method, template = route
            path = template.replace("{project}", A).replace("{run_id}", str(runs[1]))
            answer = c.request(method, path, **EXAMPLES[route](world, A, runs[1], runs[0]))
            assert answer.status_code == 401, (token, route, answer.status_code, answer.text)
            assert answer.headers["www-authenticate"] == "Bearer"
    assert httpx.get(f"{world.server.url}/healthz", headers=headers, timeout=10).status_code == 200


def test_only_a_reviewer_approves_or_accepts(world: World) -> None:
    run = world.runs[A][1]
    path = f"/api/projects/{A}/runs/{run}/reviews"
    fingerprint = first_fingerprint(world.report)
    accept = {"action": "accept", "fingerprint": fingerprint, "comment": "calibration data, by design"}
    approve = {"action": "approve", "comment": "fine", "override_reason": "pilot study"}
    changes = {"action": "request_changes", "comment": "drop person 3"}
    for body in (accept, approve, changes):
        refused = world.call(world.tokens["submitter_a"], "POST", path, json=body)
        assert refused.status_code == 403, refused.text
        assert "reviewer" in refused.json()["detail"]
    for body in (accept, approve):
        done = world.call(world.tokens["reviewer_a"], "POST", path, json=body)
        assert done.status_code == 201, done.text
        assert done.json()["actor"] == "reviewer_a"
    # beta's reviewer cannot review alpha.
    assert world.call(world.tokens["reviewer_b"], "POST", path, json=approve).status_code == 404


def test_only_an_admin_of_every_project_creates_tokens(world: World) -> None:
    body = {"name": "ci", "role": "submitter", "project": A}
    for token in ("submitter_a", "reviewer_a", "admin_a", "reviewer_b"):
        answer = world.call(world.tokens[token], "POST", "/api/tokens", json=body)
        assert answer.status_code == 403, (token, answer.text)
    made = world.call(world.tokens["admin"], "POST", "/api/tokens", json=body)
    assert made.status_code == 201
    with world.server.client(made.json()["token"]) as c:
        assert c.get("/api/me").json() == {"name": "ci", "role": "submitter", "project": A}


def test_a_fresh_server_has_one_admin_token_printed_once(world: World) -> None:
    assert world.tokens_at_start == 1
    printed = [line for line in world.server.output if line.startswith("admin token: ")]
    assert len(printed) == 1
    assert re.fullmatch(r"admin token: sa_[A-Za-z0-9_-]{43}", printed[0])


def test_the_database_holds_only_token_hashes(world: World) -> None:
    engine = make_engine(world.url)
    try:
        with engine.connect() as conn:
            stored = [row.token_hash for row in conn.execute(select(tokens))]
            rows = [" ".join(map(str, row)) for row in conn.execute(select(tokens))]
    finally:
        engine.dispose()
    secrets = {t for name, t in world.tokens.items()}
    assert {hashlib.sha256(t.encode()).hexdigest() for t in secrets} <= set(stored)
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in stored)
    assert not any(t in row for t in secrets for row in rows)
    if world.server.database is None:  # the SQLite file and its journal never see a token
        files = [p for p in world.server.data_dir.iterdir() if p.name.startswith("service.sqlite")]
        raw = b"".join(p.read_bytes() for p in files)
        assert files and not any(t.encode() in raw for t in secrets)


def test_the_server_listens_on_loopback_only(world: World) -> None:
    port = world.server.port
    assert f"split-auditor service on http://127.0.0.1:{port} " in world.server.text + " "
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.rsplit(":", 1)
            if state == "0A" and int(port_hex, 16) == port:  # 0A: LISTEN
                listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, little-endian; not 0.0.0.0 or ::
    # Another loopback address and the machine's own addresses do not answer.
    others = {"127.0.0.2"} | {
        info[4][0]
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        if not info[4][0].startswith("127.")
    }
    for address in others:
        with socket.socket() as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect((address, port))


def test_tokens_are_looked_up_by_hash_and_compared_in_constant_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = sqlite_url(tmp_path)
    upgrade(url)
    engine = make_engine(url)
    token = store.create_token(engine, name="ci", role=Role.SUBMITTER, project=None, created_by="test")
    import auditor.service.auth as auth

    compared: list[tuple[bytes, bytes]] = []
    real = auth.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    who = store.authenticate(engine, token)
    assert who is not None and who.name == "ci"
    assert compared and all(token.encode() not in pair for pair in compared)  # hashes are compared, not tokens
    assert store.authenticate(engine, token[:-1] + ("x" if token[-1] != "x" else "y")) is None
    assert store.authenticate(engine, token + " ") is None
    engine.dispose()
