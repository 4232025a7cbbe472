"""The ASGI application: the JSON API, the reviewers' pages, body limits and security headers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import Connection, event
from sqlalchemy import exc as sa_exc
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from auditor.core.version import __version__
from auditor.service.api import build_router
from auditor.service.context import ServiceContext
from auditor.service.idempotency import Idempotent
from auditor.service.outage import RETRY_AFTER_S, outage_kind

MAX_BODY_BYTES = 32 * 1024 * 1024


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413, whether it declares its length or streams."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        # Read the whole body before the app runs: the framework turns an error raised while it reads the
        # body into a 400, so a streamed body over the limit is refused here, where it is seen, as 413.
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to answer
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: the disconnect the app may wait for
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = f'{{"detail":"request body larger than {self.limit} bytes"}}'.encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


MAX_PROBLEMS = 20


def validation_problems(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Where and what, without echoing the input: a 20 MB field must not come back in the error."""
    problems = []
    for error in list(errors)[:MAX_PROBLEMS]:
        msg = str(error.get("msg", ""))
        if error.get("type") == "string_pattern_mismatch" and tuple(error.get("loc", ()))[-1:] in (
            ("name",),
            ("project",),
        ):
            msg = "expected letters, digits, '.', '_' and '-' (at most 100, starting with a letter or digit)"
        problems.append({"loc": list(error.get("loc", ())), "msg": msg[:500], "type": str(error.get("type", ""))})
    return problems


SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "SAMEORIGIN",
}


def create_app(ctx: ServiceContext, *, max_body_bytes: int = MAX_BODY_BYTES) -> Any:
    """The service as an ASGI app (FastAPI inside a body limit); OpenAPI at /openapi.json, docs at /docs.

    The docs are our own server-rendered page (ui.py), not FastAPI's, which load scripts from a CDN.
    """
    from auditor.service.ui import build_ui

    app = FastAPI(
        title="split-auditor",
        version=__version__,
        description="Audit history, review and sign-off of dataset splits before an experiment starts.",
        docs_url=None,
        redoc_url=None,
    )
    app.state.ctx = ctx

    @event.listens_for(ctx.engine, "commit")
    def _written(conn: Connection) -> None:
        # A write transaction (db.writing marks it) committing: /healthz need not wait out the quiet period.
        if conn.get_execution_options().get("immediate"):
            ctx.outages.written()

    api = build_router()
    app.include_router(api)
    app.include_router(build_ui())

    # Inside the headers below, so a replayed answer carries them too.
    app.add_middleware(Idempotent, engine=ctx.engine, outages=ctx.outages, routes=api.routes, throttle=ctx.throttle)

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(sa_exc.DBAPIError)
    @app.exception_handler(sa_exc.TimeoutError)
    async def database_down(request: Request, exc: Exception) -> JSONResponse:
        # A handled answer, not a 500 from the server's last resort: the connection stays open for the retry.
        kind = outage_kind(exc)
        if kind is None:
            raise exc  # a bug, not an outage: the 500 with its traceback is what it deserves
        ctx.outages.failed(kind, exc, f"{request.method} {request.url.path}")
        wait = RETRY_AFTER_S[kind]
        return JSONResponse(
            {
                "detail": f"the database is {kind}: try again in {wait} s (with the same Idempotency-Key)",
                "database": kind,
            },
            status_code=503,
            headers={"retry-after": str(wait)},
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_problems(exc.errors())}, status_code=422)

    return BodyLimit(app, max_body_bytes)
