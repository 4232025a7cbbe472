"""Browser sessions on both databases: the cookie holds a secret of its own, never the API token; signing out,
expiry and revoking the token end the session at once."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, update

from auditor.service import store
from auditor.service.app import create_app
from auditor.service.auth import Role
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, sqlite_url, upgrade, writing
from auditor.service.sessions import session_principal
from auditor.service.tables import sessions
from auditor.service.ui import SESSION_COOKIE

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


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
def app(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceContext(engine=engine)), follow_redirects=False) as c:
        yield c


def sign_in(app: TestClient, token: str) -> str:
    """Sign in through the page's form as a browser does; the session cookie's value."""
    page = app.get("/login")
    done = app.post("/login", data={"token": token, "csrf": CSRF.findall(page.text)[0], "next": "/"})
    assert done.status_code == 303, done.text
    return str(app.cookies[SESSION_COOKIE])


def test_the_session_cookie_is_not_the_token_and_opens_nothing_in_the_api(app: TestClient, engine: Engine) -> None:
    token = store.create_token(engine, name="rev", role=Role.REVIEWER, project=None, created_by="test")
    cookie = sign_in(app, token)
    assert cookie != token and token not in cookie
    assert app.get("/").status_code == 200
    assert app.get("/api/me", headers={"Authorization": f"Bearer {cookie}"}).status_code == 401
    app.cookies.clear()
    app.cookies.set(SESSION_COOKIE, token)  # the token itself in the cookie is no session
    assert app.get("/").status_code == 303


def test_revoking_the_token_ends_its_sessions(app: TestClient, engine: Engine) -> None:
    admin = store.create_token(engine, name="admin", role=Role.ADMIN, project=None, created_by="test")
    token = store.create_token(engine, name="rev", role=Role.REVIEWER, project=None, created_by="test")
    sign_in(app, token)
    assert app.get("/").status_code == 200
    who = store.authenticate(engine, token)
    assert who is not None
    revoked = app.post(f"/api/tokens/{who.token_id}/revoke", headers={"Authorization": f"Bearer {admin}"})
    assert revoked.status_code == 204
    gone = app.get("/")
    assert gone.status_code == 303 and gone.headers["location"].startswith("/login")


def test_signing_out_ends_the_session_for_every_copy_of_its_cookie(app: TestClient, engine: Engine) -> None:
    token = store.create_token(engine, name="rev", role=Role.REVIEWER, project=None, created_by="test")
    cookie = sign_in(app, token)
    page = app.get("/")
    out = app.post("/logout", data={"csrf": CSRF.findall(page.text)[0]}, headers={"Origin": "http://testserver"})
    assert out.status_code == 303
    assert session_principal(engine, cookie) is None
    app.cookies.set(SESSION_COOKIE, cookie)  # a copy kept from before
    assert app.get("/").status_code == 303


def test_a_session_ends_when_it_expires(app: TestClient, engine: Engine) -> None:
    token = store.create_token(engine, name="rev", role=Role.REVIEWER, project=None, created_by="test")
    cookie = sign_in(app, token)
    assert session_principal(engine, cookie) is not None
    with writing(engine) as conn:
        conn.execute(update(sessions).values(expires_at=store.now() - dt.timedelta(seconds=1)))
    assert session_principal(engine, cookie) is None
    assert app.get("/").status_code == 303
