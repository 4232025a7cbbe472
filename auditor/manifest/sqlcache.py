"""One table in its own SQLite file, used as a cache: any failure of it is a miss and, at most, a note.

The file digest cache and the image hash cache share this discipline: a locked, read-only or full file is
not used this time; a damaged or foreign one is removed and rebuilt; a table of another layout is dropped.
A cache may cost time, never a wrong answer: the callers seal and check what they store.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


class SqliteCache:
    """The connection to one cache table, or None once given up; ``note`` says why when it is not as expected."""

    def __init__(self, file: Path | None, what: str, table: str, create: str, schema: int) -> None:
        self.db: sqlite3.Connection | None = None
        self.file = file
        self.note: str | None = None
        self._what, self._table, self._create, self._schema = what, table, create, schema
        if file is None:
            return
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open(file)
        except sqlite3.OperationalError as exc:  # locked, read-only, full: use no cache this time
            self.give_up(f"{what} {file} not used ({exc})")
        except sqlite3.DatabaseError as exc:  # not a database, or a damaged one: start afresh
            self.give_up(f"{what} {file} was unreadable ({exc}) and is rebuilt", remove=True)
            try:
                self.db = self._open(file)
            except (OSError, sqlite3.Error):
                self.give_up(f"{what} {file} was unreadable and could not be rebuilt")
        except OSError as exc:
            self.give_up(f"{what} {file} not used ({exc.strerror or exc})")

    def _open(self, file: Path) -> sqlite3.Connection:
        db = sqlite3.connect(file, timeout=5, check_same_thread=False)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            present = [row[1] for row in db.execute(f"PRAGMA table_info({self._table})")]
            probe = sqlite3.connect(":memory:")
            try:
                probe.execute(self._create)
                wanted = [row[1] for row in probe.execute(f"PRAGMA table_info({self._table})")]
            finally:
                probe.close()
            if version != self._schema or present != wanted:
                if present:
                    self.note = f"{self._what} {file} had another layout and is rebuilt"
                with db:
                    db.execute(f"DROP TABLE IF EXISTS {self._table}")
                    db.execute(self._create)
                    db.execute(f"PRAGMA user_version = {self._schema}")
        except BaseException:
            db.close()
            raise
        return db

    def give_up(self, note: str, remove: bool = False) -> None:
        self.note = note
        if self.db is not None:
            self.db.close()
            self.db = None
        if remove and self.file is not None:
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    Path(str(self.file) + suffix).unlink(missing_ok=True)

    def select(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of a query; none (and the cache given up) when the file fails."""
        if self.db is None:
            return []
        try:
            return list(self.db.execute(sql, params))
        except sqlite3.OperationalError as exc:
            self.give_up(f"{self._what} {self.file} not used ({exc})")
        except sqlite3.DatabaseError as exc:
            self.give_up(f"{self._what} {self.file} was damaged ({exc}) and is rebuilt next time", remove=True)
        return []

    def insert(self, rows: Iterable[Sequence[Any]], width: int) -> None:
        """Insert or replace rows of ``width`` values; a busy or read-only file only makes the next run slower."""
        if self.db is None:
            return
        try:
            with self.db:
                self.db.executemany(f"INSERT OR REPLACE INTO {self._table} VALUES ({', '.join('?' * width)})", rows)
        except sqlite3.OperationalError:
            pass
        except sqlite3.DatabaseError as exc:
            self.give_up(f"{self._what} {self.file} was damaged ({exc}) and is rebuilt next time", remove=True)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
