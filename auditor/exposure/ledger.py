"""The ledger of evaluations on holdout sets: an append-only SQLite file that survives a kill -9."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from auditor.core.errors import LedgerError
from auditor.exposure.fingerprint import Basis, SetSketch

LEDGER_NAME = "ledger.sqlite"
BUSY_TIMEOUT_S = 10.0
# 1: sets and their evaluations (a ledger without a `version` entry). 2: a set recorded by content also keeps
# its rows' sample ids (table set_ids), so a config that later names only ids still recognises it. 3: content
# digests are hashed without an algorithm prefix (`sha256:9f86…` is `9f86…`); sets of earlier versions are read
# in both forms (see test_exposure). An older split-auditor refuses a version 3 ledger rather than miss its sets.
LEDGER_VERSION = 3
_SET_IDS = """
CREATE TABLE IF NOT EXISTS set_ids (
    digest TEXT NOT NULL,
    basis TEXT NOT NULL,
    ids_digest TEXT NOT NULL,
    n_rows INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (digest, basis, ids_digest),
    FOREIGN KEY (digest, basis) REFERENCES sets (digest, basis)
);
"""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sets (
    digest TEXT NOT NULL,
    basis TEXT NOT NULL,
    n_rows INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (digest, basis)
);
CREATE TABLE IF NOT EXISTS evaluations (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    digest TEXT NOT NULL,
    basis TEXT NOT NULL,
    split TEXT NOT NULL,
    source TEXT NOT NULL,
    metrics TEXT NOT NULL,
    note TEXT NOT NULL,
    who TEXT NOT NULL,
    FOREIGN KEY (digest, basis) REFERENCES sets (digest, basis)
);
CREATE TABLE IF NOT EXISTS ledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO ledger_meta (key, value) VALUES ('kind', 'split-auditor test-exposure ledger');
"""
_VERSION = f"INSERT OR REPLACE INTO ledger_meta (key, value) VALUES ('version', '{LEDGER_VERSION}');"
_KIND = "split-auditor test-exposure ledger"
_LEDGER_TABLES = {"sets", "evaluations", "ledger_meta"}


@dataclass(frozen=True)
class Evaluation:
    """One recorded look at a holdout set: when, under which name and where from, with what result."""

    at: dt.datetime
    split: str
    source: str  # the config or manifest the set was read from, as given
    metrics: Mapping[str, float] = field(default_factory=dict)
    note: str = ""
    who: str = ""
    id: int | None = None


@dataclass(frozen=True)
class LedgerSet:
    """A set the ledger knows, with every evaluation recorded on it, oldest first."""

    sketch: SetSketch
    evaluations: tuple[Evaluation, ...]
    # A set recorded by content: its rows by sample ids, as each config that recorded it had them. Empty for
    # sets recorded by ids, and for content sets recorded without ids or before ledger version 2.
    ids: tuple[SetSketch, ...] = ()


class Ledger(Protocol):
    """Where evaluations are kept: a local SQLite file, or the service's database."""

    def record(self, sketch: SetSketch, evaluation: Evaluation, ids: Sequence[SetSketch] = ()) -> int: ...

    def sets(self) -> list[LedgerSet]: ...


class SqliteLedger:
    """A ledger in one SQLite file; created (with its folder) on the first record, never overwritten."""

    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s

    @contextlib.contextmanager
    def _connect(self, create: bool) -> Iterator[sqlite3.Connection | None]:
        if not self.path.exists() and not create:
            yield None  # nothing recorded yet: an empty ledger, and no file or folder is made for it
            return
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LedgerError(f"ledger {self.path}: cannot create its folder: {exc.strerror or exc}") from None
        try:
            conn = self._open(create)
        except sqlite3.Error as exc:
            raise LedgerError(f"ledger {self.path}: cannot open it: {exc}") from None
        try:
            self._check(conn, create)
            yield conn
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise LedgerError(
                    f"ledger {self.path} is locked by another process (waited {self.busy_timeout_s:g} s); "
                    "try again when it has finished"
                ) from None
            raise LedgerError(f"ledger {self.path}: {exc}; it was left as it is") from None
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"ledger {self.path} is not a readable ledger ({exc}); it was left as it is") from None
        finally:
            conn.close()

    def _open(self, create: bool) -> sqlite3.Connection:
        # Reading never creates the file, and writes nothing unless it is an intact ledger (see _check); it
        # opens read-write so that SQLite can remove its WAL side files on close, read-only if that is refused.
        # isolation_level=None: transactions are ours (BEGIN IMMEDIATE), not the module's implicit ones.
        modes = ["rwc"] if create else ["rw", "ro"]
        for mode in modes:
            try:
                uri = f"{self.path.resolve().as_uri()}?mode={mode}"
                return sqlite3.connect(uri, uri=True, timeout=self.busy_timeout_s, isolation_level=None)
            except sqlite3.OperationalError:
                if mode == modes[-1]:
                    raise
        raise AssertionError("unreachable")

    def _check(self, conn: sqlite3.Connection, create: bool) -> None:
        """Refuse a file that is not an intact ledger before anything is written to it; set up a new one."""
        # Check the pages before use: a truncated or damaged file must fail here, not half-way through a read.
        problems = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise LedgerError(f"ledger {self.path} is damaged ({'; '.join(problems[:3])}); it was left as it is")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            known = tables >= _LEDGER_TABLES
            kind = conn.execute("SELECT value FROM ledger_meta WHERE key = 'kind'").fetchone() if known else None
            if kind is None or kind[0] != _KIND:
                raise LedgerError(f"{self.path} is an SQLite file but not a split-auditor ledger; it was left as it is")
            version = _version(conn)
            if version > LEDGER_VERSION:
                # Its entries may keep what this version cannot compare: read as they are, a set could pass as fresh.
                raise LedgerError(
                    f"ledger {self.path} was written by a newer split-auditor (ledger version {version}; this one "
                    f"reads up to {LEDGER_VERSION}); upgrade split-auditor to use it. It was left as it is"
                )
        if create:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")  # an acknowledged record is on disk: kill -9 loses nothing
            if not tables:
                conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + _SET_IDS + _VERSION + "COMMIT;")  # two creators agree

    def record(self, sketch: SetSketch, evaluation: Evaluation, ids: Sequence[SetSketch] = ()) -> int:
        """Append one evaluation (and the set, the first time it is seen); returns the evaluation's id.

        ``ids``: a set recorded by content, by its sample ids too, so that a config naming only ids finds it.
        """
        if ids and (sketch.basis != "content" or any(i.basis != "ids" for i in ids)):
            raise ValueError("ids sketches go with a set recorded by content, and are by sample ids")
        with self._connect(create=True) as conn:
            assert conn is not None
            conn.execute("BEGIN IMMEDIATE")
            try:
                # A ledger of version 1 is brought to this version by its first write: the table is added.
                conn.execute(_SET_IDS)
                conn.execute(_VERSION)
                conn.execute(
                    "INSERT OR IGNORE INTO sets (digest, basis, n_rows, sketch, first_seen) VALUES (?, ?, ?, ?, ?)",
                    (sketch.digest, sketch.basis, sketch.n_rows, sketch.to_bytes(), _iso(evaluation.at)),
                )
                cursor = conn.execute(
                    "INSERT INTO evaluations (at, digest, basis, split, source, metrics, note, who) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        _iso(evaluation.at),
                        sketch.digest,
                        sketch.basis,
                        evaluation.split,
                        evaluation.source,
                        json.dumps(dict(evaluation.metrics), sort_keys=True, allow_nan=False),
                        evaluation.note,
                        evaluation.who,
                    ),
                )
                for other in ids:
                    # The same content may have been recorded under other ids (a renamed sample): each is kept.
                    conn.execute(
                        "INSERT OR IGNORE INTO set_ids (digest, basis, ids_digest, n_rows, sketch) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (sketch.digest, sketch.basis, other.digest, other.n_rows, other.to_bytes()),
                    )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return int(cursor.lastrowid or 0)

    def sets(self) -> list[LedgerSet]:
        """Every set with its evaluations, oldest evaluation first."""
        with self._connect(create=False) as conn:
            if conn is None:
                return []
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables:
                return []  # an empty file: a first record interrupted before the ledger was set up
            rows = conn.execute("SELECT digest, basis, n_rows, sketch FROM sets").fetchall()
            # A ledger of version 1 has no ids beside content sets: those are compared as they were recorded.
            companions = (
                conn.execute("SELECT digest, basis, ids_digest, n_rows, sketch FROM set_ids").fetchall()
                if "set_ids" in tables
                else []
            )
            evaluations = conn.execute(
                "SELECT id, at, digest, basis, split, source, metrics, note, who FROM evaluations ORDER BY at, id"
            ).fetchall()
        try:
            found: dict[tuple[str, str], tuple[SetSketch, list[Evaluation]]] = {}
            for digest, basis, n_rows, blob in rows:
                found[(digest, basis)] = (SetSketch.from_bytes(digest, n_rows, _basis(basis), blob), [])
            for row in evaluations:
                entry = found.get((row[2], row[3]))
                if entry is not None:
                    entry[1].append(_evaluation(row))
            ids: dict[tuple[str, str], list[SetSketch]] = {}
            for digest, basis, ids_digest, n_rows, blob in companions:
                ids.setdefault((digest, basis), []).append(SetSketch.from_bytes(ids_digest, n_rows, "ids", blob))
        except (ValueError, TypeError, AttributeError) as exc:
            raise LedgerError(
                f"ledger {self.path} holds an entry it cannot read ({exc}); it was left as it is"
            ) from None
        return [LedgerSet(s, tuple(e), tuple(ids.get(key, ()))) for key, (s, e) in found.items()]


def _version(conn: sqlite3.Connection) -> int:
    """The ledger's version: 1 for a ledger written before versions were kept."""
    row = conn.execute("SELECT value FROM ledger_meta WHERE key = 'version'").fetchone()
    try:
        return int(row[0]) if row is not None else 1
    except (TypeError, ValueError):
        raise sqlite3.DatabaseError(f"its version {row[0]!r} is not a number") from None


def _iso(at: dt.datetime) -> str:
    return (at if at.tzinfo else at.replace(tzinfo=dt.UTC)).astimezone(dt.UTC).isoformat(timespec="seconds")


def _basis(value: str) -> Basis:
    """The basis a stored set names (a ValueError for anything else)."""
    if value not in ("content", "ids"):
        raise ValueError(f"a set with basis {value!r}; expected content or ids")
    return "content" if value == "content" else "ids"


def _evaluation(row: tuple[Any, ...]) -> Evaluation:
    metrics = json.loads(row[6]) if row[6] else {}
    return Evaluation(
        at=dt.datetime.fromisoformat(row[1]),
        split=row[4],
        source=row[5],
        metrics={str(k): float(v) for k, v in metrics.items()},
        note=row[7],
        who=row[8],
        id=int(row[0]),
    )
