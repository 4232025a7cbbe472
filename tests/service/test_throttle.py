"""Failed authentications per client: past a burst of wrong tokens a client waits (429) and none of its tokens is
checked meanwhile, by the API, the Idempotency-Key check and the sign-in page alike; memory stays bounded."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event

from auditor.service import store
from auditor.service.app import create_app
from auditor.service.auth import Role
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.throttle import Throttle, client_of

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def test_after_the_burst_each_failure_waits_one_refill() -> None:
    clock = [0.0]
    throttle = Throttle(burst=3, refill_s=6.0, clock=lambda: clock[0])
    for _ in range(3):
        assert throttle.wait("a") == 0
        throttle.failed("a")
    assert throttle.wait("a") == 6.0 and throttle.wait("b") == 0
    clock[0] += 3.0
    assert throttle.wait("a") == 3.0
    clock[0] += 3.0
    assert throttle.wait("a") == 0
    throttle.failed("a")
    assert throttle.wait("a") == 6.0


def test_the_clients_remembered_are_bounded_the_oldest_forgotten_first() -> None:
    throttle = Throttle(burst=1, max_clients=3)
    for client in "abcde":
        throttle.failed(client)
    assert len(throttle) == 3
    assert throttle.wait("a") == 0 and throttle.wait("e") > 0


def test_a_client_is_its_address_and_an_ipv6_one_its_64_network() -> None:
    assert client_of({"client": ("2001:db8::1", 1)}) == client_of({"client": ("2001:db8::ff:1", 2)}) == "2001:db8::/64"
    assert client_of({"client": ("2001:db8:0:1::1", 1)}) != "2001:db8::/64"
    assert client_of({"client": ("::ffff:192.0.2.7", 1)}) == client_of({"client": ("192.0.2.7", 9)}) == "192.0.2.7"
    assert client_of({"client": None}) == ""


@pytest.fixture
def engine(tmp_path: Path, database: str | None) -> Iterator[Engine]:
    url = database or sqlite_url(tmp_path)
    upgrade(url)
    made = make_engine(url)
    try:
        yield made
    finally:
        made.dispose()


def _lookups(engine: Engine) -> list[str]:
    """The token lookups ``engine`` makes from now on."""
    seen: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "FROM tokens" in statement:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    return seen


def test_wrong_tokens_past_the_burst_get_429_and_no_token_is_checked_meanwhile(engine: Engine) -> None:
    token = store.create_token(engine, name="admin", role=Role.ADMIN, project=None, created_by="test")
    app = create_app(ServiceContext(engine=engine, throttle=Throttle(burst=5)))
    right = {"Authorization": f"Bearer {token}"}
    with (
        TestClient(app, client=("198.51.100.7", 40000)) as guesser,
        TestClient(app, client=("198.51.100.8", 40000)) as other,
    ):
        for i in range(5):
            assert guesser.get("/api/me", headers={"Authorization": f"Bearer sa_guess{i}"}).status_code == 401
        refused = guesser.get("/api/me", headers={"Authorization": "Bearer sa_guess5"})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "too many failed authentications" in refused.json()["detail"]
        lookups = _lookups(engine)
        assert guesser.get("/api/me", headers=right).status_code == 429  # the right token too: none is checked
        keyed = guesser.post("/api/projects", json={"name": "p"}, headers={**right, "Idempotency-Key": "k"})
        assert keyed.status_code == 429
        page = guesser.get("/login")
        login = guesser.post("/login", data={"token": token, "csrf": CSRF.findall(page.text)[0], "next": "/"})
        assert login.status_code == 429 and "too many failed authentications" in login.text
        assert lookups == []
        assert other.get("/api/me", headers=right).status_code == 200  # another address is not held up


def test_wrong_tokens_on_the_sign_in_page_count_as_well(engine: Engine) -> None:
    token = store.create_token(engine, name="admin", role=Role.ADMIN, project=None, created_by="test")
    app = create_app(ServiceContext(engine=engine, throttle=Throttle(burst=3)))
    with TestClient(app, follow_redirects=False) as browser:
        nonce = CSRF.findall(browser.get("/login").text)[0]
        for i in range(3):
            bad = browser.post("/login", data={"token": f"sa_guess{i}", "csrf": nonce, "next": "/"})
            assert bad.status_code == 401
        held = browser.post("/login", data={"token": token, "csrf": nonce, "next": "/"})
        assert held.status_code == 429 and held.headers["retry-after"].isdigit()
        assert browser.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 429
