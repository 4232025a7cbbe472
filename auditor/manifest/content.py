"""sha256 of the files a manifest points to: streamed, on both cores, cached by path, size and mtime.

The cache is a small SQLite file, so a second audit of an unchanged data set reads no file bytes.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

_BLOCK = 1 << 20
_PROGRESS_BYTES = 256 << 20  # show a progress bar only when there is this much to read


@dataclass(frozen=True)
class Digests:
    """sha256 hex per input path (None where the file could not be read) and why each failure happened."""

    digests: list[str | None]
    failures: dict[str, str]  # path -> reason
    read_bytes: int  # bytes hashed now (0 when everything came from the cache)


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "split-auditor"


def cache_dir_from(option: str | None, base_dir: Path) -> Path | None:
    """The digest cache a stage option names: default location, 'none' (no cache), or a path (relative
    to the config's directory, like every path in the config)."""
    if option is None:
        return default_cache_dir()
    if option.strip().lower() == "none":
        return None
    return (base_dir / Path(option).expanduser()).resolve()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            h.update(block)  # hashlib releases the GIL on large blocks, so two threads use two cores
    return h.hexdigest()


class _Cache:
    def __init__(self, directory: Path | None) -> None:
        self.db: sqlite3.Connection | None = None
        if directory is None:
            return
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(directory / "content-sha256.sqlite", check_same_thread=False)
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS digest (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT)"
            )
        except (OSError, sqlite3.Error):
            self.db = None  # an unusable cache only costs time, never the audit

    def get(self, path: str, size: int, mtime_ns: int) -> str | None:
        if self.db is None:
            return None
        row = self.db.execute("SELECT size, mtime_ns, sha256 FROM digest WHERE path = ?", (path,)).fetchone()
        return row[2] if row and row[0] == size and row[1] == mtime_ns else None

    def put(self, entries: list[tuple[str, int, int, str]]) -> None:
        if self.db is None or not entries:
            return
        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO digest VALUES (?, ?, ?, ?)", entries)
        except sqlite3.Error:
            pass

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


def hash_files(paths: Sequence[Path], cache_dir: Path | None, workers: int = 2) -> Digests:
    """Digest every path; a missing or unreadable file is reported, never raised."""
    cache = _Cache(cache_dir)
    digests: list[str | None] = [None] * len(paths)
    failures: dict[str, str] = {}
    todo: list[tuple[int, Path, int, int]] = []
    try:
        for i, path in enumerate(paths):
            try:
                st = path.stat()
            except FileNotFoundError:
                failures[str(path)] = "file not found"
                continue
            except OSError as exc:
                failures[str(path)] = exc.strerror or str(exc)
                continue
            if not path.is_file():
                failures[str(path)] = "not a regular file"
                continue
            cached = cache.get(str(path), st.st_size, st.st_mtime_ns)
            if cached is not None:
                digests[i] = cached
            else:
                todo.append((i, path, st.st_size, st.st_mtime_ns))
        total = sum(size for _, _, size, _ in todo)
        fresh: list[tuple[str, int, int, str]] = []
        with _progress(total) as progress:
            task = progress.add_task("hashing content", total=total)

            def work(item: tuple[int, Path, int, int]) -> tuple[int, str | None, str | None]:
                i, path, size, _ = item
                try:
                    return i, _sha256(path), None
                except OSError as exc:
                    return i, None, exc.strerror or str(exc)
                finally:
                    progress.advance(task, size)

            with ThreadPoolExecutor(max_workers=workers) as pool:
                for (i, path, size, mtime), (_, digest, error) in zip(todo, pool.map(work, todo), strict=True):
                    if digest is None:
                        failures[str(path)] = error or "unreadable"
                    else:
                        digests[i] = digest
                        fresh.append((str(path), size, mtime, digest))
        cache.put(fresh)
    finally:
        cache.close()
    return Digests(digests, failures, total)


def _progress(total: int) -> Progress:
    show = total >= _PROGRESS_BYTES and sys.stderr.isatty()
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not show,
    )
