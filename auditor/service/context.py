"""What every request of the service needs: the database, the data roots, and who is asking."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Protocol
from urllib.parse import quote

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import ValidationError
from sqlalchemy import Engine

from auditor.core.errors import AuditError
from auditor.core.findings import Report
from auditor.core.portable import portable
from auditor.pipeline.registry import discover
from auditor.service import store
from auditor.service.auth import Principal
from auditor.service.outage import OutageLog
from auditor.service.submitted import DataRoots
from auditor.service.throttle import Throttle, client_of


class UnreadableReport(AuditError):
    """A stored report that does not read back as a report (one stored before uploads were read back)."""


def read_report(text: str) -> Report:
    """A stored report as every page reads it; UnreadableReport saying where it fails (never the text)."""
    try:
        return portable(Report.model_validate_json(text))  # a report stored before uploads were made portable
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UnreadableReport(f"{where + ': ' if where else ''}{first['msg']}") from None


class ReportCache:
    """Parsed reports of completed runs by run id: a stored report never changes, and parsing a large one
    for every page of a run list would cost more than reading it."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[int, Report] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run_id: int, load: Callable[[], str | None]) -> Report | None:
        with self._lock:
            if run_id in self._items:
                self._items.move_to_end(run_id)
                return self._items[run_id]
        text = load()
        if text is None:
            return None  # not finished yet: nothing to keep
        report = read_report(text)
        with self._lock:
            self._items[run_id] = report
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return report


class QueueWorker(Protocol):
    """What the health check asks of a queue worker."""

    name: str

    @property
    def alive(self) -> bool: ...


@dataclass(frozen=True)
class ServiceContext:
    engine: Engine
    roots: DataRoots = field(default_factory=lambda: DataRoots({}))
    public_url: str = ""  # how clients reach the server; run links are built from it
    reports: ReportCache = field(default_factory=ReportCache, compare=False)
    # The stages installed here, by name (not imported): a report that lacks one of them is a partial audit.
    stages: tuple[str, ...] = field(default_factory=lambda: tuple(p.name for p in discover()))
    # The queue workers of this process: /healthz is unhealthy when one of them has died.
    workers: tuple[QueueWorker, ...] = ()
    outages: OutageLog = field(default_factory=OutageLog, compare=False)
    # Failed authentications per client address: a token cannot be guessed at the server's speed.
    throttle: Throttle = field(default_factory=Throttle, compare=False)

    def run_url(self, project: str, run_id: int) -> str:
        return f"{self.public_url.rstrip('/')}/projects/{quote(project, safe='')}/runs/{run_id}"


def context(request: Request) -> ServiceContext:
    ctx: ServiceContext = request.app.state.ctx
    return ctx


# Declared as a security scheme, so the OpenAPI schema (and /docs) says every API route needs a bearer token.
# auto_error=False: a missing or malformed header gets this service's own 401, not FastAPI's 403.
BEARER = HTTPBearer(auto_error=False, description="a token from `audit token create` or `POST /api/tokens`")


def too_many(wait: float) -> HTTPException:
    """429 for a client that failed to authenticate too often: its tokens are not even checked until it waits."""
    seconds = max(1, math.ceil(wait))
    return HTTPException(
        status_code=429,
        detail=f"too many failed authentications from this address: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def authenticate(request: Request, token: str) -> Principal | None:
    """The principal of ``token`` as the client of ``request`` presents it; a wrong token counts against the
    client (429 once it has failed too often, before the token is looked at)."""
    ctx = context(request)
    client = client_of(request.scope)
    wait = ctx.throttle.wait(client)
    if wait > 0:
        raise too_many(wait)
    who = store.authenticate(ctx.engine, token) if token else None
    if who is None and token:
        ctx.throttle.failed(client)
    return who


def principal(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
) -> Principal:
    """The token's principal from `Authorization: Bearer`; 401 without a valid token (never anonymous)."""
    token = credentials.credentials.strip() if credentials is not None else ""
    who = authenticate(request, token)
    if who is None:
        raise HTTPException(
            status_code=401,
            detail="a valid token is needed: `Authorization: Bearer <token>`",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return who
