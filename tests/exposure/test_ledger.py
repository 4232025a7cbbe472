"""The SQLite ledger: missing, locked, corrupt and killed ledgers, and sets kept for later matching."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from auditor import load_config
from auditor.core.errors import LedgerError
from auditor.exposure.fingerprint import SetSketch, compare, row_hashes, sketch
from auditor.exposure.holdout import split_sketches
from auditor.exposure.ledger import LEDGER_VERSION, Evaluation, SqliteLedger
from auditor.manifest.table import load_manifest
from tests.conftest import write_config, write_table

AT = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


def a_sketch(n: int = 10, prefix: str = "s") -> SetSketch:
    return sketch(row_hashes(pa.array([f"{prefix}{i}" for i in range(n)]), "ids"), "ids")


def an_evaluation(split: str = "test", **metrics: float) -> Evaluation:
    return Evaluation(at=AT, split=split, source="audit.yaml", metrics=metrics, note="n", who="w")


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reading_a_missing_ledger_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / ".split-auditor" / "ledger.sqlite"
    assert SqliteLedger(path).sets() == []
    assert not (tmp_path / "nowhere").exists()


def test_records_come_back_with_their_sets_oldest_first(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "l" / "ledger.sqlite")
    s, other = a_sketch(), a_sketch(prefix="t")
    later = Evaluation(at=AT + dt.timedelta(days=1), split="exam", source="b.yaml", metrics={"acc": 0.5})
    first = ledger.record(s, later)
    second = ledger.record(s, an_evaluation(acc=0.913))
    ledger.record(other, an_evaluation("holdout"))
    found = {entry.sketch.digest: entry for entry in ledger.sets()}
    assert set(found) == {s.digest, other.digest}
    evaluations = found[s.digest].evaluations
    assert [e.id for e in evaluations] == [second, first]  # by time, not by insertion
    assert evaluations[0] == Evaluation(AT, "test", "audit.yaml", {"acc": 0.913}, "n", "w", second)
    assert found[s.digest].sketch.n_rows == 10 and (found[s.digest].sketch.hashes == s.hashes).all()


def test_a_locked_ledger_waits_then_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = SqliteLedger(path, busy_timeout_s=0.5)
    ledger.record(a_sketch(), an_evaluation())
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process's write in progress
        with pytest.raises(LedgerError) as caught:
            ledger.record(a_sketch(), an_evaluation())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    conn = ledger._open(create=False)  # SQLite itself waits: its busy_timeout is the ledger's (no clock read here)
    try:
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 500
    finally:
        conn.close()
    assert str(path) in str(caught.value) and "locked" in str(caught.value) and "0.5 s" in str(caught.value)
    assert len(ledger.sets()[0].evaluations) == 1  # once free, the ledger is as it was


def test_readers_are_not_blocked_by_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = SqliteLedger(path, busy_timeout_s=0.2)
    ledger.record(a_sketch(), an_evaluation())
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        assert len(ledger.sets()) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _sqlite_not_ledger(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute("INSERT INTO users VALUES ('x')")
    conn.commit()
    conn.close()


def _truncated(path: Path) -> None:
    ledger = SqliteLedger(path)
    for i in range(12):
        ledger.record(a_sketch(2000, prefix=f"p{i}_"), an_evaluation())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _damaged(path: Path) -> None:
    ledger = SqliteLedger(path)
    for i in range(12):
        ledger.record(a_sketch(2000, prefix=f"p{i}_"), an_evaluation())
    data = bytearray(path.read_bytes())
    data[8192:12288] = os.urandom(4096)  # a page in the middle
    path.write_bytes(bytes(data))


def _another_kind(path: Path) -> None:
    conn = sqlite3.connect(path)
    for table in ("sets", "evaluations", "ledger_meta"):
        conn.execute(f"CREATE TABLE {table} (key TEXT, value TEXT)")
    conn.execute("INSERT INTO ledger_meta VALUES ('kind', 'someone else''s tool')")
    conn.commit()
    conn.close()


CORRUPTIONS = {
    "same-tables-another-kind": _another_kind,
    "random-bytes": lambda p: p.write_bytes(os.urandom(8192)),
    "text": lambda p: p.write_text("version: 1\nmanifest: {}\n"),
    "sqlite-not-a-ledger": _sqlite_not_ledger,
    "truncated": _truncated,
    "damaged-page": _damaged,
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("action", ["read", "record"])
def test_a_corrupt_ledger_is_reported_and_left_as_it_is(tmp_path: Path, corruption: str, action: str) -> None:
    path = tmp_path / "ledger.sqlite"
    CORRUPTIONS[corruption](path)
    before = digest_of(path)
    ledger = SqliteLedger(path)
    with pytest.raises(LedgerError) as caught:
        if action == "read":
            ledger.sets()
        else:
            ledger.record(a_sketch(), an_evaluation())
    assert str(path) in str(caught.value)
    assert digest_of(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.sqlite"]  # no journal left behind either


def test_a_ledger_entry_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    SqliteLedger(path).record(a_sketch(), an_evaluation())
    conn = sqlite3.connect(path)
    conn.execute("UPDATE evaluations SET metrics = 'not json'")
    conn.commit()
    conn.close()
    with pytest.raises(LedgerError, match="cannot read"):
        SqliteLedger(path).sets()


CHILD = textwrap.dedent(
    """
    import datetime as dt, sys
    import pyarrow as pa
    from auditor.exposure.fingerprint import row_hashes, sketch
    from auditor.exposure.ledger import LEDGER_VERSION, Evaluation, SqliteLedger
    ledger = SqliteLedger(__import__("pathlib").Path(sys.argv[1]))
    for i in range(100000):
        s = sketch(row_hashes(pa.array([f"set{i % 7}_{j}" for j in range(50)]), "ids"), "ids")
        at = dt.datetime.now(dt.UTC)
        entry_id = ledger.record(s, Evaluation(at=at, split=f"t{i}", source="c", metrics={"i": float(i)}))
        print(entry_id, flush=True)
    """
)


def test_kill_9_while_recording_loses_no_acknowledged_record(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2]
    )
    assert child.stdout is not None
    acknowledged: list[int] = []
    for line in child.stdout:
        acknowledged.append(int(line))
        if len(acknowledged) == 200:
            os.kill(child.pid, signal.SIGKILL)  # mid-way: the next record is likely under way
            break
    acknowledged += [int(line) for line in child.stdout if line.strip().isdigit()]
    child.wait()
    assert child.returncode == -signal.SIGKILL
    stored = {e.id for entry in SqliteLedger(path).sets() for e in entry.evaluations}
    assert set(acknowledged) <= stored
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def test_a_set_recorded_outside_any_manifest_is_found_later_by_fingerprint(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "ledger.sqlite")
    ids = [f"frame_{i}" for i in range(400)]
    recorded = sketch(row_hashes(pa.array(ids[:397]), "ids"), "ids")  # a copy with 3 rows dropped
    ledger.record(recorded, an_evaluation("scratch_copy", acc=0.9))
    write_table(tmp_path / "m.csv", {"id": [*ids, "train_1"], "split": ["exam"] * 400 + ["train"]})
    loaded = load_config(
        write_config(tmp_path, {"version": 1, "manifest": {"path": "m.csv", "id": "id", "split": "split"}})
    )
    manifest = load_manifest(loaded)
    try:
        mine = split_sketches(manifest, loaded.config, loaded.base_dir, ["exam"])["exam"]
    finally:
        manifest.close()
    (entry,) = SqliteLedger(tmp_path / "ledger.sqlite").sets()
    overlap = compare(mine, entry.sketch)
    assert overlap.exact and overlap.a_in_b == pytest.approx(397 / 400) and overlap.b_in_a == 1.0
    assert entry.evaluations[0].split == "scratch_copy"


def a_content_sketch(n: int = 10, prefix: str = "c") -> SetSketch:
    return sketch(
        row_hashes(pa.array([hashlib.sha256(f"{prefix}{i}".encode()).hexdigest() for i in range(n)]), "content"),
        "content",
    )


def test_a_content_set_keeps_each_ids_sketch_it_was_recorded_with(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    content, ids, renamed = a_content_sketch(), a_sketch(), a_sketch(prefix="r")
    ledger = SqliteLedger(path)
    ledger.record(content, an_evaluation(), [ids])
    ledger.record(content, an_evaluation(), [ids])  # the same ids again: kept once
    ledger.record(content, an_evaluation(), [renamed])
    ledger.record(a_sketch(prefix="x"), an_evaluation())  # a set by ids has no ids beside it
    found = {entry.sketch.basis: entry for entry in ledger.sets()}
    assert len(found["content"].evaluations) == 3 and found["ids"].ids == ()
    assert sorted(s.digest for s in found["content"].ids) == sorted([ids.digest, renamed.digest])
    (kept,) = [s for s in found["content"].ids if s.digest == ids.digest]
    assert (kept.basis, kept.n_rows) == ("ids", 10) and (kept.hashes == ids.hashes).all()
    with pytest.raises(ValueError, match="by content"):
        ledger.record(a_sketch(), an_evaluation(), [ids])  # ids beside ids: not what the table means


def _version_1(path: Path) -> None:
    """A ledger as the version before ids were kept beside content wrote it: no set_ids, no version entry."""
    SqliteLedger(path).record(a_content_sketch(), an_evaluation(acc=0.5))
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE set_ids")
    conn.execute("DELETE FROM ledger_meta WHERE key = 'version'")
    conn.commit()
    conn.close()


def test_a_version_1_ledger_is_read_and_brought_to_version_2_by_its_next_record(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    _version_1(path)
    before = digest_of(path)
    (old,) = SqliteLedger(path).sets()
    assert (old.sketch.basis, len(old.evaluations), old.ids) == ("content", 1, ())
    assert digest_of(path) == before  # reading changes nothing
    SqliteLedger(path).record(a_content_sketch(), an_evaluation(), [a_sketch()])
    (entry,) = SqliteLedger(path).sets()
    assert len(entry.evaluations) == 2 and [s.digest for s in entry.ids] == [a_sketch().digest]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM ledger_meta WHERE key = 'version'").fetchone() == (str(LEDGER_VERSION),)
    finally:
        conn.close()


def test_a_ledger_of_a_newer_version_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    SqliteLedger(path).record(a_sketch(), an_evaluation())
    conn = sqlite3.connect(path)
    conn.execute("UPDATE ledger_meta SET value = ? WHERE key = 'version'", (str(LEDGER_VERSION + 1),))
    conn.commit()
    conn.close()
    before = digest_of(path)
    for action in (lambda: SqliteLedger(path).sets(), lambda: SqliteLedger(path).record(a_sketch(), an_evaluation())):
        with pytest.raises(LedgerError, match=f"newer split-auditor \\(ledger version {LEDGER_VERSION + 1}"):
            action()
    assert digest_of(path) == before
