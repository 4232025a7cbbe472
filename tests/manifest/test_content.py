from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from auditor.manifest import content
from auditor.manifest.content import CACHE_FILE, hash_files

OLD = 1_600_000_000  # a file time long before the cache entries the tests write


def _later(monkeypatch: pytest.MonkeyPatch, seconds: float = 10.0) -> None:
    """Hash as if the audit ran ``seconds`` after the files last changed (their timestamps settled)."""
    real = time.time_ns
    monkeypatch.setattr(content, "_now_ns", lambda: real() + int(seconds * 1e9))


def _old_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.utime(path, (OLD, OLD))
    return path


def _overwrite_keeping_mtime(path: Path, data: bytes, *, replace: bool) -> None:
    """Put ``data`` in ``path`` and set its mtime back, as `cp` then `touch -r` would."""
    before = path.stat()
    if replace:  # a new inode under the same name
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return
    deadline = time.monotonic() + 2.0
    while True:  # same inode: wait until the kernel's coarse ctime has moved on
        path.write_bytes(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if path.stat().st_ctime_ns != before.st_ctime_ns or time.monotonic() > deadline:
            return
        time.sleep(0.005)


def test_settled_file_is_read_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _later(monkeypatch)
    f = _old_file(tmp_path / "a.bin", b"x" * 1000)
    first = hash_files([f], tmp_path / "cache")
    again = hash_files([f], tmp_path / "cache")
    assert first.read_bytes == 1000 and again.read_bytes == 0 and again.digests == first.digests


@pytest.mark.parametrize("replace", [False, True], ids=["same-inode", "new-inode"])
def test_overwrite_with_restored_mtime_is_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: bool
) -> None:
    _later(monkeypatch)
    f = _old_file(tmp_path / "test.bin", b"test sample!")
    first = hash_files([f], tmp_path / "cache")
    mtime = f.stat().st_mtime_ns
    _overwrite_keeping_mtime(f, b"train sample", replace=replace)  # same size, same mtime
    assert f.stat().st_mtime_ns == mtime and f.stat().st_size == 12
    second = hash_files([f], tmp_path / "cache")
    assert second.read_bytes == 12 and second.digests != first.digests
    assert second.digests == hash_files([f], None).digests


def test_file_changed_just_before_the_entry_is_not_trusted(tmp_path: Path) -> None:
    # No clock shift: the file changed within RACY_NS of the moment it was hashed, so the entry is racy.
    f = tmp_path / "fresh.bin"
    f.write_bytes(b"abc")
    hash_files([f], tmp_path / "cache")
    assert hash_files([f], tmp_path / "cache").read_bytes == 3


def test_racy_entry_is_rewritten_and_trusted_once_settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "fresh.bin"
    f.write_bytes(b"abc")
    hash_files([f], tmp_path / "cache")  # racy: written with the real clock
    _later(monkeypatch)
    assert hash_files([f], tmp_path / "cache").read_bytes == 3  # still racy, hashed and rewritten
    assert hash_files([f], tmp_path / "cache").read_bytes == 0


def _cache_with_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, str]:
    _later(monkeypatch)
    f = _old_file(tmp_path / "a.bin", b"payload")
    digest = hash_files([f], tmp_path / "cache").digests[0]
    assert digest is not None
    return f, tmp_path / "cache" / CACHE_FILE, digest


def test_old_cache_layout_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _later(monkeypatch)
    f = _old_file(tmp_path / "a.bin", b"payload")
    (tmp_path / "cache").mkdir()
    st = f.stat()
    with sqlite3.connect(tmp_path / "cache" / CACHE_FILE) as db:  # the layout keyed by path, size and mtime
        db.execute("CREATE TABLE digest (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT)")
        db.execute("INSERT INTO digest VALUES (?, ?, ?, ?)", (str(f), st.st_size, st.st_mtime_ns, "0" * 64))
    db.close()
    result = hash_files([f], tmp_path / "cache")
    assert result.digests == hash_files([f], None).digests and result.read_bytes == 7
    assert result.cache_note is not None and "rebuilt" in result.cache_note
    assert hash_files([f], tmp_path / "cache").read_bytes == 0


def test_file_that_is_not_a_database_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, db_file, digest = _cache_with_entry(tmp_path, monkeypatch)
    db_file.write_bytes(b"not a database " * 400)
    result = hash_files([f], tmp_path / "cache")
    assert result.digests == [digest] and result.read_bytes == 7
    assert result.cache_note is not None and "rebuilt" in result.cache_note
    assert hash_files([f], tmp_path / "cache").read_bytes == 0


def test_damaged_pages_never_give_a_wrong_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, db_file, digest = _cache_with_entry(tmp_path, monkeypatch)
    raw = bytearray(db_file.read_bytes())
    at = raw.index(digest.encode())
    raw[at : at + 8] = b"deadbeef"  # a flipped run of bytes inside the stored digest
    db_file.write_bytes(bytes(raw))
    result = hash_files([f], tmp_path / "cache")
    assert result.digests == [digest] and result.read_bytes == 7


def test_garbage_after_the_header_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, db_file, digest = _cache_with_entry(tmp_path, monkeypatch)
    raw = bytearray(db_file.read_bytes())
    raw[100:] = b"\xff" * (len(raw) - 100)  # every page after the header overwritten
    db_file.write_bytes(bytes(raw))
    assert hash_files([f], tmp_path / "cache").digests == [digest]
    assert hash_files([f], tmp_path / "cache").digests == [digest]


def test_unusable_cache_directory_is_no_cache(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    f = tmp_path / "a.bin"
    f.write_bytes(b"abc")
    result = hash_files([f], tmp_path / "file" / "cache")  # a cache "directory" under a regular file
    assert result.digests == hash_files([f], None).digests and result.cache_note is not None
