"""What every request of the service needs: the database, the data roots, and who is asking."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from fastapi import HTTPException, Request
from sqlalchemy import Engine

from auditor.service import store
from auditor.service.auth import Principal
from auditor.service.submitted import DataRoots

SESSION_COOKIE = "split_auditor_token"


@dataclass(frozen=True)
class ServiceContext:
    engine: Engine
    roots: DataRoots = field(default_factory=lambda: DataRoots({}))
    public_url: str = ""  # how clients reach the server; run links are built from it

    def run_url(self, project: str, run_id: int) -> str:
        return f"{self.public_url.rstrip('/')}/projects/{quote(project, safe='')}/runs/{run_id}"


def context(request: Request) -> ServiceContext:
    ctx: ServiceContext = request.app.state.ctx
    return ctx


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def principal(request: Request) -> Principal:
    """The token's principal from `Authorization: Bearer`; 401 without a valid token (never anonymous)."""
    token = bearer(request)
    who = store.authenticate(context(request).engine, token) if token else None
    if who is None:
        raise HTTPException(
            status_code=401,
            detail="a valid token is needed: `Authorization: Bearer <token>`",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return who
