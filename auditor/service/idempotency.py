"""Idempotent retries: a POST sent with an ``Idempotency-Key`` is carried out once per token and route; a repeat
gets the first answer again (same status and body), so a client that timed out may retry without a duplicate."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Literal

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from auditor.service import store
from auditor.service.context import SESSION_COOKIE
from auditor.service.db import reading, writing
from auditor.service.outage import RETRY_AFTER_S, OutageLog, outage_kind
from auditor.service.tables import idempotency_keys

log = logging.getLogger("auditor.service.idempotency")

HEADER = "Idempotency-Key"
KEY = re.compile(r"[\x21-\x7e]{1,200}")  # printable ASCII, as any header value can carry it
KEPT = dt.timedelta(hours=24)  # how long a first answer is replayed
# A first request still unanswered after this long died with its server: a retry then carries it out.
PENDING_STALE = dt.timedelta(seconds=60)
MAX_ROUTE = 1000


@dataclass(frozen=True)
class Stored:
    """What the database says about a key: carry the request out (``new``), or answer as given."""

    outcome: Literal["new", "replay", "busy", "mismatch"]
    status: int = 0
    content_type: str = ""
    body: bytes = b""


def begin(engine: Engine, token_id: int, route: str, key: str, request_sha256: str) -> Stored:
    """Claim ``key`` for a first request, or say what to answer: the stored answer, busy, or a different body."""
    moment = store.now()
    values = {"token_id": token_id, "route": route, "key": key, "request_sha256": request_sha256}
    try:
        with writing(engine) as conn:
            conn.execute(delete(idempotency_keys).where(idempotency_keys.c.created_at < moment - KEPT))
            conn.execute(insert(idempotency_keys).values(**values, created_at=moment))
        return Stored("new")
    except IntegrityError:
        pass  # the key was used before (or is being used right now)
    mine = (
        idempotency_keys.c.token_id == token_id,
        idempotency_keys.c.route == route,
        idempotency_keys.c.key == key,
    )
    with reading(engine) as conn:
        row = conn.execute(select(idempotency_keys).where(*mine)).first()
    if row is None:  # expired and removed meanwhile: claim it afresh
        return begin(engine, token_id, route, key, request_sha256)
    if row.request_sha256 != request_sha256:
        return Stored("mismatch")
    if row.status is not None:
        return Stored("replay", row.status, row.content_type or "application/json", bytes(row.body or b""))
    with writing(engine) as conn:  # a first request that never finished: take it over, once
        taken = conn.execute(
            update(idempotency_keys)
            .where(*mine, idempotency_keys.c.status.is_(None), idempotency_keys.c.created_at < moment - PENDING_STALE)
            .values(created_at=moment)
        )
    return Stored("new") if taken.rowcount == 1 else Stored("busy")


def finish(engine: Engine, token_id: int, route: str, key: str, status: int, content_type: str, body: bytes) -> None:
    """Keep the first request's answer for its repeats."""
    with writing(engine) as conn:
        conn.execute(
            update(idempotency_keys)
            .where(
                idempotency_keys.c.token_id == token_id,
                idempotency_keys.c.route == route,
                idempotency_keys.c.key == key,
            )
            .values(status=status, content_type=content_type, body=body)
        )


def release(engine: Engine, token_id: int, route: str, key: str) -> None:
    """Forget a key whose request failed on the server's side (5xx): nothing was done, a retry may do it."""
    with writing(engine) as conn:
        conn.execute(
            delete(idempotency_keys).where(
                idempotency_keys.c.token_id == token_id,
                idempotency_keys.c.route == route,
                idempotency_keys.c.key == key,
                idempotency_keys.c.status.is_(None),
            )
        )


def _token(headers: dict[bytes, bytes]) -> str:
    """The bearer token, else the pages' session cookie: the same token the route itself will check."""
    auth = headers.get(b"authorization", b"").decode("latin-1").strip()
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:  # a malformed cookie header: no session, the route answers 401 or redirects
        return ""
    morsel = cookie.get(SESSION_COOKIE)
    return morsel.value if morsel is not None else ""


class Idempotent:
    """ASGI middleware: a POST with an Idempotency-Key runs once per (token, route, key); repeats are replayed.

    The key is scoped to the token that sent it, so one client's keys never answer another's requests, and a
    key given with a different body is refused (422) rather than answered with another request's result."""

    def __init__(self, app: ASGIApp, engine: Engine, outages: OutageLog) -> None:
        self.app, self.engine, self.outages = app, engine, outages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw = headers.get(HEADER.lower().encode())
        if raw is None:
            await self.app(scope, receive, send)
            return
        key = raw.decode("latin-1").strip()
        if not KEY.fullmatch(key):
            await _answer(send, 422, {"detail": f"{HEADER}: expected 1 to 200 printable ASCII characters"})
            return
        route = f"POST {scope['path']}"
        if len(route) > MAX_ROUTE or "\x00" in route:
            await self.app(scope, receive, send)  # no route is that long or holds a NUL: the app refuses it
            return
        body, receive = await _read_body(receive)
        try:
            who = await run_in_threadpool(store.authenticate, self.engine, _token(headers))
            if who is None:  # no valid token: the route answers 401; nothing is kept for anonymous callers
                await self.app(scope, receive, send)
                return
            assert who.token_id is not None
            scope_key = (who.token_id, route, key)
            stored = await run_in_threadpool(begin, self.engine, *scope_key, hashlib.sha256(body).hexdigest())
        except Exception as exc:
            kind = outage_kind(exc)
            if kind is None:
                raise
            self.outages.failed(kind, exc, route)
            wait = RETRY_AFTER_S[kind]
            await _answer(
                send, 503, {"detail": f"the database is {kind}: try again in {wait} s", "database": kind}, wait
            )
            return
        if stored.outcome == "mismatch":
            await _answer(send, 422, {"detail": f"{HEADER} {key!r} was used with another request body"})
        elif stored.outcome == "busy":
            await _answer(send, 409, {"detail": f"the request with {HEADER} {key!r} is still being carried out"}, 1)
        elif stored.outcome == "replay":
            await _send(send, stored.status, stored.content_type, stored.body, replayed=True)
        else:
            await self._first(scope, receive, send, scope_key)

    async def _first(self, scope: Scope, receive: Receive, send: Send, scope_key: tuple[int, str, str]) -> None:
        """Carry the request out, passing the answer on as it goes, and keep it (or forget the key on a 5xx)."""
        status, content_type, chunks = 500, "", []

        async def keep(message: Message) -> None:
            nonlocal status, content_type
            if message["type"] == "http.response.start":
                status = message["status"]
                content_type = dict(message.get("headers") or []).get(b"content-type", b"").decode("latin-1")
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, keep)
        finally:
            try:
                if status < 500:
                    body = b"".join(chunks)
                    await run_in_threadpool(finish, self.engine, *scope_key, status, content_type[:200], body)
                else:
                    await run_in_threadpool(release, self.engine, *scope_key)
            except Exception as exc:  # the answer went out; only a later retry of it may be carried out again
                log.warning("%s: the answer to %s %r could not be kept: %s", scope_key[1], HEADER, scope_key[2], exc)


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a receive that hands it on to the app (then waits for the disconnect)."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body, given = b"".join(chunks), False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


async def _answer(send: Send, status: int, payload: dict[str, str], retry_after: int | None = None) -> None:
    await _send(send, status, "application/json", json.dumps(payload).encode(), retry_after=retry_after)


async def _send(
    send: Send, status: int, content_type: str, body: bytes, *, replayed: bool = False, retry_after: int | None = None
) -> None:
    headers = [(b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(body)).encode())]
    if replayed:
        headers.append((b"idempotent-replayed", b"true"))
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
