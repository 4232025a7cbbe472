"""Idempotent retries: a POST under /api sent with an ``Idempotency-Key`` is carried out once per token, resource
and key. A write keeps its answer in its own transaction, so a retry after a kill -9 or a lost answer gets that
answer again (same status and body) and never does the write twice."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

from fastapi.routing import APIRoute
from pydantic import BaseModel
from sqlalchemy import Connection, Engine, delete, insert, select
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from auditor.service import store
from auditor.service.db import reading, writing
from auditor.service.outage import RETRY_AFTER_S, OutageLog, outage_kind
from auditor.service.tables import idempotency_keys
from auditor.service.throttle import Throttle, client_of

log = logging.getLogger("auditor.service.idempotency")

HEADER = "Idempotency-Key"
KEY = re.compile(r"[\x21-\x7e]{1,200}")  # printable ASCII, as any header value can carry it
KEPT = dt.timedelta(hours=24)  # how long a first answer is replayed
MAX_ROUTE = 1000
SCOPE_KEY = "auditor.idempotency"  # where a first request's claim rides in the ASGI scope, for its route


@dataclass(frozen=True)
class Claim:
    """A first request with a key: the token, the resource it writes (``route``), the key and its body's digest."""

    token_id: int
    route: str
    key: str
    request_sha256: str


@dataclass(frozen=True)
class Stored:
    """A kept answer: replayed as it was, or refused when the key came with another body."""

    outcome: Literal["replay", "mismatch"]
    status: int = 0
    content_type: str = ""
    body: bytes = b""


class Taken(Exception):
    """Another request with the same key kept its answer first: this one's write is rolled back, its answer is
    that one's."""


def keep(conn: Connection, claim: Claim, status: int, content_type: str, body: bytes) -> None:
    """Keep ``claim``'s answer in the transaction of ``conn`` (the write's own): both are committed or neither.

    Taken when the key's answer is kept already (a concurrent request with it committed first)."""
    moment = store.now()
    conn.execute(delete(idempotency_keys).where(idempotency_keys.c.created_at < moment - KEPT))
    values = {
        "token_id": claim.token_id,
        "route": claim.route,
        "key": claim.key,
        "request_sha256": claim.request_sha256,
        "status": status,
        "content_type": content_type[:200],
        "body": body,
        "created_at": moment,
    }
    try:
        conn.execute(insert(idempotency_keys).values(**values))
    except IntegrityError:
        raise Taken(claim.key) from None


def kept(engine: Engine, claim: Claim) -> Stored | None:
    """The answer kept for ``claim``'s key (within KEPT), None when there is none: the request is carried out."""
    with reading(engine) as conn:
        row = conn.execute(
            select(idempotency_keys).where(
                idempotency_keys.c.token_id == claim.token_id,
                idempotency_keys.c.route == claim.route,
                idempotency_keys.c.key == claim.key,
                idempotency_keys.c.created_at >= store.now() - KEPT,
            )
        ).first()
    if row is None:
        return None
    if row.request_sha256 != claim.request_sha256:
        return Stored("mismatch")
    return Stored("replay", row.status, row.content_type or "", bytes(row.body or b""))


def keep_refusal(engine: Engine, claim: Claim, status: int, content_type: str, body: bytes) -> None:
    """Keep a 4xx answer (the request wrote nothing) after it was sent; a key kept meanwhile is left as it is."""
    try:
        with writing(engine) as conn:
            keep(conn, claim, status, content_type, body)
    except Taken:
        pass


def claim_of(request: Request) -> Claim | None:
    """The claim of a first request with a key (None without one): the route keeps its answer with its write."""
    claim = request.scope.get(SCOPE_KEY)
    return claim if isinstance(claim, Claim) else None


class Answer:
    """The answer to a write, made inside the write's transaction and kept there when the request has a key.

    ``replay``: what a retry gets instead of the answer, for an answer that must not be stored (a new token)."""

    def __init__(self, claim: Claim | None, status: int) -> None:
        self.claim, self.status, self.body = claim, status, b""

    def keep(self, conn: Connection, model: BaseModel | None, *, replay: tuple[int, str] | None = None) -> None:
        self.body = b"" if model is None else model.model_dump_json().encode()
        if self.claim is None:
            return
        if replay is None:
            keep(conn, self.claim, self.status, "application/json" if self.body else "", self.body)
        else:
            status, detail = replay
            keep(conn, self.claim, status, "application/json", json.dumps({"detail": detail}).encode())

    def response(self) -> Response:
        if not self.body:
            return Response(status_code=self.status)
        return Response(self.body, status_code=self.status, media_type="application/json")


def resource(routes: Iterable[BaseRoute], scope: Scope) -> str | None:
    """The POST route ``scope`` reaches, with its path values as the store compares them (a project's name
    case-folded, an id as a number): ``/api/projects/IDK/runs/01/reviews`` and ``/api/projects/idk/runs/1/reviews``
    are one resource. None for a path no API route takes (the app answers it, nothing is kept)."""
    if not str(scope.get("path", "")).startswith("/api/"):
        return None
    for route in routes:
        if not isinstance(route, APIRoute):
            continue
        match, child = route.matches(scope)
        if match is not Match.FULL:
            continue
        numbers = {f.name for f in route.dependant.path_params if f.field_info.annotation is int}
        values: dict[str, str] = {}
        for name, value in dict(child.get("path_params") or {}).items():
            text = str(value)
            if name == "project":
                text = store.name_key(text)
            elif name in numbers and text.isascii() and text.isdigit():
                text = str(int(text))
            values[name] = text
        return "POST " + route.path_format.format(**values)
    return None


def _bearer(headers: MutableMapping[bytes, bytes]) -> str:
    """The bearer token, as the API's routes read it (they take no cookie)."""
    auth = headers.get(b"authorization", b"").decode("latin-1").strip()
    return auth[7:].strip() if auth[:7].lower() == "bearer " else ""


class Idempotent:
    """ASGI middleware: a POST under /api with an Idempotency-Key runs once per (token, resource, key); a repeat
    gets the kept answer. The key is scoped to the token that sent it, so one client's keys never answer another's
    requests, and a key given with a different body is refused (422) rather than answered with another request's
    result. The answer of a write is kept by the route, in the write's transaction (Answer); a refusal (4xx)
    wrote nothing and is kept after it is sent; a 5xx keeps nothing."""

    def __init__(
        self, app: ASGIApp, engine: Engine, outages: OutageLog, routes: Iterable[BaseRoute], throttle: Throttle
    ) -> None:
        self.app, self.engine, self.outages, self.routes, self.throttle = app, engine, outages, routes, throttle

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
        route = resource(self.routes, scope) if "\x00" not in str(scope.get("path", "")) else None
        if route is None or len(route) > MAX_ROUTE:
            await self.app(scope, receive, send)  # no route takes it: the app refuses it, nothing is kept
            return
        body, receive = await _read_body(receive)
        token = _bearer(headers)
        if not token or self.throttle.wait(client_of(scope)) > 0:
            await self.app(scope, receive, send)  # the route answers 401 or 429; nothing is kept for them
            return
        claim = stored = None
        try:
            who = await run_in_threadpool(store.authenticate, self.engine, token)
            if who is not None:
                claim = Claim(who.token_id, route, key, hashlib.sha256(body).hexdigest())
                stored = await run_in_threadpool(kept, self.engine, claim)
        except Exception as exc:
            if not await self._outage(exc, send, route):
                raise
            return
        if claim is None:  # not a valid token: the route answers 401, and it is counted there
            await self.app(scope, receive, send)
        elif stored is None:
            await self._first(scope, receive, send, claim)
        else:
            await self._stored(send, stored, key)

    async def _first(self, scope: Scope, receive: Receive, send: Send, claim: Claim) -> None:
        """Carry the request out, passing the answer on as it goes; keep a refusal after it is sent."""
        status, content_type, chunks = 500, "", []

        async def watch(message: Message) -> None:
            nonlocal status, content_type
            if message["type"] == "http.response.start":
                status = message["status"]
                content_type = dict(message.get("headers") or []).get(b"content-type", b"").decode("latin-1")
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        scope[SCOPE_KEY] = claim
        try:
            await self.app(scope, receive, watch)
        except Taken:
            # Sent at the same time as the request that kept the key first: its write was rolled back.
            try:
                stored = await run_in_threadpool(kept, self.engine, claim)
            except Exception as exc:
                if not await self._outage(exc, send, claim.route):
                    raise
                return
            if stored is None:
                await _answer(send, 409, {"detail": f"{HEADER} {claim.key!r} is in use: try again"}, 1)
            else:
                await self._stored(send, stored, claim.key)
            return
        if 400 <= status < 500:
            try:
                await run_in_threadpool(keep_refusal, self.engine, claim, status, content_type, b"".join(chunks))
            except Exception as exc:  # the refusal went out and wrote nothing: a retry is refused again
                log.warning("%s: the refusal of %s %r could not be kept: %s", claim.route, HEADER, claim.key, exc)

    async def _stored(self, send: Send, stored: Stored, key: str) -> None:
        if stored.outcome == "mismatch":
            await _answer(send, 422, {"detail": f"{HEADER} {key!r} was used with another request body"})
        else:
            await _send(send, stored.status, stored.content_type, stored.body, replayed=True)

    async def _outage(self, exc: Exception, send: Send, route: str) -> bool:
        """Answer 503 for a database that cannot answer now; False for any other error (a bug: raised on)."""
        kind = outage_kind(exc)
        if kind is None:
            return False
        self.outages.failed(kind, exc, route)
        wait = RETRY_AFTER_S[kind]
        await _answer(send, 503, {"detail": f"the database is {kind}: try again in {wait} s", "database": kind}, wait)
        return True


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


async def _answer(send: Send, status: int, payload: dict[str, Any], retry_after: int | None = None) -> None:
    await _send(send, status, "application/json", json.dumps(payload).encode(), retry_after=retry_after)


async def _send(
    send: Send, status: int, content_type: str, body: bytes, *, replayed: bool = False, retry_after: int | None = None
) -> None:
    headers = [] if status in (204, 304) else [(b"content-length", str(len(body)).encode())]
    if content_type:
        headers.append((b"content-type", content_type.encode("latin-1")))
    if replayed:
        headers.append((b"idempotent-replayed", b"true"))
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
