"""Browser sessions of the reviewers' pages: the cookie holds a random secret of its own, never the API token; the
database keeps its hash and the token it stands for, so signing out, the session's expiry or the token's
revocation ends it on every server process at once."""

from __future__ import annotations

import datetime as dt
import secrets

from sqlalchemy import Engine, delete, insert, select

from auditor.service.auth import Principal, Role, token_hash
from auditor.service.db import reading, writing
from auditor.service.store import now
from auditor.service.tables import sessions, tokens

LIFETIME = dt.timedelta(hours=12)  # a session ends this long after sign-in, whatever it did meanwhile
MAX_SECRET = 200


def open_session(engine: Engine, token_id: int) -> str:
    """A new session of the token ``token_id``; returns its secret (the cookie's value), kept only as a hash."""
    secret = "ss_" + secrets.token_urlsafe(32)
    moment = now()
    with writing(engine) as conn:
        conn.execute(delete(sessions).where(sessions.c.expires_at <= moment))
        conn.execute(
            insert(sessions).values(
                secret_hash=token_hash(secret), token_id=token_id, created_at=moment, expires_at=moment + LIFETIME
            )
        )
    return secret


def session_principal(engine: Engine, secret: str) -> Principal | None:
    """Who the session ``secret`` acts as: None when it is unknown, ended, expired or its token was revoked."""
    if not secret or len(secret) > MAX_SECRET:
        return None
    with reading(engine) as conn:
        row = conn.execute(
            select(tokens.c.id, tokens.c.name, tokens.c.role, tokens.c.project)
            .join(sessions, sessions.c.token_id == tokens.c.id)
            .where(
                sessions.c.secret_hash == token_hash(secret),
                sessions.c.expires_at > now(),
                tokens.c.revoked_at.is_(None),
            )
        ).first()
    if row is None:
        return None
    return Principal(token_id=row.id, name=row.name, role=Role(row.role), project=row.project)


def end_session(engine: Engine, secret: str) -> None:
    """Sign out: the session's secret opens nothing any more, wherever it was copied to."""
    if secret and len(secret) <= MAX_SECRET:
        with writing(engine) as conn:
            conn.execute(delete(sessions).where(sessions.c.secret_hash == token_hash(secret)))
