"""SQLite as the service runs it: WAL, busy_timeout, synchronous=FULL, foreign keys, locks taken at BEGIN."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from auditor.service.db import SQLITE_BUSY_TIMEOUT_MS, make_engine, reading, sqlite_url, writing


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = make_engine(sqlite_url(tmp_path))
    with writing(made) as conn:
        conn.execute(text("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO counter (id, n) VALUES (1, 0)"))
    try:
        yield made
    finally:
        made.dispose()


def test_every_connection_is_wal_durable_and_waits_for_locks(engine: Engine) -> None:
    with reading(engine) as conn:
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "busy_timeout", "synchronous", "foreign_keys")
        }
    assert pragma == {
        "journal_mode": "wal",
        "busy_timeout": SQLITE_BUSY_TIMEOUT_MS,
        "synchronous": 2,
        "foreign_keys": 1,
    }


def _increment(engine: Engine, pause: float = 0.0, started: threading.Event | None = None) -> None:
    """Read the counter, then write it: the pattern that a deferred BEGIN turns into 'database is locked'."""
    with writing(engine) as conn:
        n = conn.execute(text("SELECT n FROM counter WHERE id = 1")).scalar_one()
        if started is not None:
            started.set()
        time.sleep(pause)
        conn.execute(text("UPDATE counter SET n = :n WHERE id = 1"), {"n": n + 1})


def _count(engine: Engine) -> int:
    with reading(engine) as conn:
        return int(conn.execute(text("SELECT n FROM counter WHERE id = 1")).scalar_one())


def test_a_writer_that_read_first_is_not_locked_out_by_a_second_writer(engine: Engine) -> None:
    started, errors = threading.Event(), []

    def first() -> None:
        try:
            _increment(engine, pause=0.3, started=started)
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    assert started.wait(60)  # a hang guard: the thread sets it as soon as it has read
    _increment(engine)  # waits for the first writer's lock instead of racing it
    thread.join(10)
    assert errors == [] and _count(engine) == 2


def test_racing_writers_lose_no_update_and_never_see_database_is_locked(engine: Engine) -> None:
    errors: list[Exception] = []
    gate = threading.Barrier(8)

    def writer() -> None:
        gate.wait()
        for _ in range(25):
            try:
                _increment(engine)
            except Exception as exc:  # collected: the assertion below names it
                errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and _count(engine) == 200


def test_an_open_read_transaction_does_not_block_a_writer(engine: Engine) -> None:
    done = threading.Event()
    with reading(engine) as reader:
        before = reader.execute(text("SELECT n FROM counter WHERE id = 1")).scalar_one()
        writer = threading.Thread(target=lambda: (_increment(engine), done.set()))
        writer.start()
        # With WAL the writer commits while this read is open; without it, it waits for the reader the whole
        # busy_timeout, then fails: either way the join ends (the bound only guards a hang), and only a commit
        # sets done.
        writer.join(SQLITE_BUSY_TIMEOUT_MS / 1000 + 60)
        assert done.is_set(), "the writer waited for a reader"
        # The reader keeps its snapshot while the writer commits.
        assert reader.execute(text("SELECT n FROM counter WHERE id = 1")).scalar_one() == before
    writer.join(5)
    assert _count(engine) == before + 1


def test_the_pool_serves_every_request_thread_at_once(engine: Engine) -> None:
    # 40: the server's request threads; a smaller pool makes the 41st request wait, then fail with a 500.
    connections = [engine.connect() for _ in range(40)]
    try:
        assert all(c.exec_driver_sql("SELECT 1").scalar() == 1 for c in connections)
    finally:
        for c in connections:
            c.close()
