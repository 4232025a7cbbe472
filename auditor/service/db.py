"""Database engines for the service: SQLite (WAL, durable, immediate write locks) or PostgreSQL by URL."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from auditor.core.errors import AuditError
from auditor.service.outage import outage_kind

SQLITE_BUSY_TIMEOUT_MS = 30_000
# Connections kept open, and opened beyond them at peaks: 40 in all, one per request thread of the server.
POOL_SIZE, POOL_OVERFLOW = 10, 30
PG_CONNECT_TIMEOUT_S = 10


class DatabaseError(AuditError):
    """The service database could not be opened, migrated or written."""


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite+pysqlite:///{(data_dir / 'service.sqlite').resolve()}"


def refuse_read_only(url: str) -> None:
    """DatabaseError when ``url`` is a SQLite file that cannot be written: a server on it would fail every write.

    The mode is read as well as access(2): root may write a 0444 file, but a file made read-only was meant so."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return  # make_engine says what is wrong with it
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    path = Path(parsed.database)
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # not there yet: it is created in a folder already checked to be writable
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise DatabaseError(
            f"database {path}: the file is read-only (mode {mode & 0o777:04o}); the service writes to it: "
            "make it writable (chmod u+w) or give another --data-dir"
        )


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, busy_timeout, synchronous=FULL and BEGIN IMMEDIATE for writes."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseError(f"--database {url!r}: not a database URL ({exc})") from None
    if parsed.get_backend_name() == "sqlite":
        # As many connections as the server has request threads (anyio's default 40): a request then never
        # waits for a pooled connection, only, on a write, for SQLite's single write lock.
        engine = create_engine(
            parsed,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=POOL_SIZE,
            max_overflow=POOL_OVERFLOW,
        )
        _configure_sqlite(engine)
        _reopen_read_only(engine)
        return engine
    if parsed.get_backend_name() != "postgresql":
        raise DatabaseError(f"--database {parsed.render_as_string()!r}: expected sqlite:/// or postgresql+psycopg://")
    # A connect timeout: a server that went away without refusing (a lost host) must not hold a request forever.
    engine = create_engine(
        parsed,
        pool_pre_ping=True,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S},
    )
    _reopen_read_only(engine)
    return engine


def _reopen_read_only(engine: Engine) -> None:
    """A connection opened while the database was read-only stays read-only after it is writable again (SQLite
    opened the file read-only; a PostgreSQL session keeps its default_transaction_read_only): a write it refuses
    counts as a lost connection, so the pool drops it and the ones opened before it, and opens fresh ones."""

    @event.listens_for(engine, "handle_error")
    def _read_only(context: ExceptionContext) -> None:
        error = context.sqlalchemy_exception
        if error is not None and outage_kind(error) == "read-only":
            context.is_disconnect = True


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        # Let SQLAlchemy's begin event decide how a transaction starts (pysqlite's own BEGIN is deferred).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        # FULL: a commit is on disk before it is acknowledged, so a kill -9 loses no acknowledged write.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # A write takes the lock at BEGIN: two writers then queue on busy_timeout instead of one failing
        # with "database is locked" when a deferred read transaction tries to upgrade.
        immediate = conn.get_execution_options().get("immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


@contextlib.contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A write transaction: BEGIN IMMEDIATE on SQLite, committed on success, rolled back on any error."""
    with engine.connect() as conn:
        conn.execution_options(immediate=True)
        with conn.begin():
            yield conn


@contextlib.contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A read transaction: one consistent snapshot, never holding the write lock."""
    with engine.connect() as conn, conn.begin():
        yield conn


def upgrade(url: str) -> str:
    """Bring the database at ``url`` to the newest schema with Alembic; returns the revision now in place."""
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
        with engine.connect() as conn:
            return str(MigrationContext.configure(conn).get_current_revision())
    finally:
        engine.dispose()


def database_url(data_dir: Path, database: str | None) -> str:
    """The URL given, else SQLite in ``data_dir`` (created private to the user)."""
    if database:
        return database
    try:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise DatabaseError(f"--data-dir {data_dir}: a file is in the way; expected a folder") from None
    except OSError as exc:
        raise DatabaseError(f"--data-dir {data_dir}: cannot create it: {exc.strerror or exc}") from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise DatabaseError(f"--data-dir {data_dir}: not writable")
    return sqlite_url(data_dir)


def driver_error(url: str, exc: Exception) -> DatabaseError:
    """A driver's error as one line naming the database (its password hidden), never a traceback."""
    cause = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    return DatabaseError(f"database {safe_url(url)}: {lines[0] if lines else type(cause).__name__}")


def migrate(url: str) -> str:
    """Bring the database to this version's schema; returns the revision. DatabaseError for any failure."""
    try:
        return upgrade(url)
    except AuditError:
        raise
    except (SQLAlchemyError, OSError) as exc:
        raise driver_error(url, exc) from None


def open_database(url: str) -> Engine:
    """The migrated database's engine; DatabaseError (one line) when it cannot be reached, written or migrated."""
    refuse_read_only(url)
    migrate(url)
    engine = make_engine(url)
    try:
        with engine.connect():
            pass
    except (SQLAlchemyError, OSError) as exc:
        engine.dispose()
        raise driver_error(url, exc) from None
    return engine


def safe_url(url: str) -> str:
    """The database URL without its password, for messages and the start-up line."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        return "(a URL that does not parse)"
