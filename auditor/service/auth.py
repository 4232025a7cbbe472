"""API tokens: random secrets stored as hashes, roles in an order, access limited to one project or all."""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass


class Role(enum.StrEnum):
    """What a token may do; each role may do everything the roles before it may."""

    SUBMITTER = "submitter"
    REVIEWER = "reviewer"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Role):
            return NotImplemented
        return self.rank >= other.rank


TOKEN_PREFIX = "sa_"


def new_token() -> str:
    """A fresh secret: 256 random bits, prefixed so a leaked one is recognisable in logs and scanners."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The stored form: a token has 256 bits of entropy, so one sha256 round cannot be reversed."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def shown_once(token_id: int, name: str) -> str:
    """What a retry of a token's creation is told: the token exists and, kept only as a hash, cannot be shown."""
    return (
        f"token {token_id} ({name!r}) was created by the first request with this Idempotency-Key; a token is shown "
        f"only in that answer and stored only as a hash, so it cannot be shown again: if that answer was lost, "
        f"revoke token {token_id} (POST /api/tokens/{token_id}/revoke) and create another"
    )


def same_hash(stored: str, token: str) -> bool:
    """Compare in constant time, so response timing does not reveal how much of a guess was right."""
    return hmac.compare_digest(stored.encode(), token_hash(token).encode())


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a token's name, role and the project it is limited to (None: all)."""

    token_id: int
    name: str
    role: Role
    project: str | None

    def may_see(self, project: str) -> bool:
        # Case-folded as the store compares names: `Demo` is the project `demo`.
        return self.project is None or self.project.casefold() == project.casefold()

    def may(self, role: Role, project: str | None) -> bool:
        """At least ``role``, and (for a project route) access to ``project``."""
        return self.role >= role and (project is None or self.may_see(project))
