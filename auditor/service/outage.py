"""A database that cannot answer now (down, read-only, full): told apart from bugs, answered 503, logged once."""

from __future__ import annotations

import logging
import threading
import time
from typing import Literal

from sqlalchemy import exc as sa_exc

log = logging.getLogger("auditor.service.database")

Kind = Literal["unavailable", "read-only", "full"]
# Seconds a client should wait before it tries again: a restart takes seconds, freeing a disk takes a person.
RETRY_AFTER_S: dict[Kind, int] = {"unavailable": 5, "read-only": 30, "full": 30}
# An outage is over once this long passes without a database error; the next error starts a new one.
QUIET_S = 10.0
# SQLSTATEs of PostgreSQL that say the server cannot take the request now, not that the request is wrong.
READ_ONLY_STATES = {"25006"}  # read_only_sql_transaction (a hot standby, default_transaction_read_only)
FULL_STATES = {"53100", "53200", "53300"}  # disk_full, out_of_memory, too_many_connections (as full)


def outage_kind(error: BaseException) -> Kind | None:
    """What keeps the database from answering (unavailable, read-only, full), or None for any other error."""
    if isinstance(error, sa_exc.TimeoutError):  # no pooled connection came free in time
        return "unavailable"
    if not isinstance(error, sa_exc.DBAPIError):
        return None
    state = str(getattr(error.orig, "sqlstate", "") or "")
    text = str(error.orig).lower()
    if state in READ_ONLY_STATES or "readonly" in text or "read-only" in text:
        return "read-only"
    if state in FULL_STATES or "disk is full" in text or "no space left" in text:
        return "full"
    if isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError)) or error.connection_invalidated:
        return "unavailable"
    return None


def first_line(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    return lines[0] if lines else type(cause).__name__


class OutageLog:
    """One log line when an outage starts (or changes kind), none for each request it refuses meanwhile."""

    def __init__(self, quiet_s: float = QUIET_S) -> None:
        self.quiet_s = quiet_s
        self._lock = threading.Lock()
        self._kind: Kind | None = None
        self._last = -float("inf")
        self.refused = 0  # requests refused since the outage began

    def recent(self) -> Kind | None:
        """The kind of an outage seen within the quiet period, else None."""
        with self._lock:
            return self._kind if time.monotonic() - self._last <= self.quiet_s else None

    def written(self) -> None:
        """A write went through: whatever kept the database from taking writes is over."""
        with self._lock:
            if self._kind is None:
                return
            ended, self._kind, self._last, self.refused = self._kind, None, -float("inf"), 0
        log.info("database %s no more: a write went through", ended)

    def failed(self, kind: Kind, error: BaseException, where: str) -> None:
        moment = time.monotonic()
        with self._lock:
            new = kind != self._kind or moment - self._last > self.quiet_s
            self._kind, self._last = kind, moment
            self.refused = 1 if new else self.refused + 1
        if new:
            log.warning("database %s (%s): %s; answering 503 until it answers", kind, where, first_line(error))
