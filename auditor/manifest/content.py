"""sha256 of the files a manifest points to: streamed, on both cores, cached by what stat says of each file.

The cache is a small SQLite file, so a second audit of an unchanged data set reads no file bytes. An entry
is trusted only when the file's device, inode, size, mtime and ctime all match (ctime cannot be set back
by `touch -r` or os.utime) and the file had not changed for a while when the entry was made: a file changed
within the timestamps' resolution of that moment could change again unseen, so it is hashed anyway (git's
"racy" rule). A stale, foreign or corrupt cache costs time, never a wrong digest.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.core.errors import StageInputError
from auditor.core.paths import kind_of, open_regular, path_problem
from auditor.manifest.sqlcache import SqliteCache

if TYPE_CHECKING:
    import numpy as np
    from rich.progress import Progress

    from auditor.core.splits import SplitRoles
    from auditor.manifest.table import Manifest

_BLOCK = 1 << 20
_PROGRESS_BYTES = 256 << 20  # show a progress bar only when there is this much to read
CACHE_FILE = "content-sha256.sqlite"
_SCHEMA = 2  # PRAGMA user_version of the cache; any other value means the cache is rebuilt
_COLUMNS = ("path", "dev", "ino", "size", "mtime_ns", "ctime_ns", "observed_ns", "sha256", "seal")
# Coarse file-system clocks (FAT: 2 s) and clock skew between a file server and this machine: a file
# whose mtime or ctime is this close to the moment it was looked at may change without its stat changing.
RACY_NS = 2_000_000_000
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _now_ns() -> int:
    """Wall-clock time, comparable with file timestamps (a function so tests can move time forward)."""
    return time.time_ns()


@dataclass(frozen=True)
class Digests:
    """sha256 hex per input path (None where the file could not be read) and why each failure happened."""

    digests: list[str | None]
    failures: dict[str, str]  # path -> reason
    read_bytes: int  # bytes hashed now (0 when everything came from the cache)
    cache_note: str | None = None  # why the cache was rebuilt or not used, if it was not as expected


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
    try:
        return (base_dir / Path(option).expanduser()).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop (RuntimeError before 3.13), a name too long
        raise StageInputError(
            f"cache_dir {option!r}: {path_problem(exc)}; expected a folder for the digest cache"
        ) from None


class _Stopped(Exception):
    """The hashing was abandoned (the run was interrupted): the digest is incomplete and never used."""


def sha256_file(path: Path, stop: threading.Event | None = None, block: int = _BLOCK) -> str:
    """sha256 of a regular file's bytes, streamed through one buffer; _Stopped once ``stop`` is set."""
    h = hashlib.sha256()
    view = memoryview(bytearray(block))  # refilled in place: a fresh block per read costs page faults
    with open_regular(path) as fh:  # a FIFO or device swapped in after the stat is refused, not read
        while n := fh.readinto(view):
            if stop is not None and stop.is_set():
                raise _Stopped(str(path))
            h.update(view[:n])  # hashlib releases the GIL on large blocks, so two threads use two cores
    return h.hexdigest()


@dataclass(frozen=True)
class _Entry:
    """One cache row: what stat said of the file when it was hashed, when that was, and the digest."""

    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    observed_ns: int  # the clock just before the file was stat'ed and read
    sha256: str

    @classmethod
    def of(cls, path: str, st: os.stat_result, observed_ns: int, sha256: str) -> _Entry:
        return cls(path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, observed_ns, sha256)

    def seal(self) -> str:
        """A checksum of the row, so a flipped byte in the cache file is a miss, not a wrong digest."""
        fields = (self.path, self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns, self.observed_ns)
        text = "\x1f".join(str(v) for v in (*fields, self.sha256))
        return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    def row(self) -> tuple[str | int, ...]:
        return (
            self.path,
            self.dev,
            self.ino,
            self.size,
            self.mtime_ns,
            self.ctime_ns,
            self.observed_ns,
            self.sha256,
            self.seal(),
        )

    def vouches_for(self, st: os.stat_result) -> bool:
        """Whether this entry's digest is the file's: the same stat, and not changed near the observation."""
        same = (self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns) == (
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
            st.st_ctime_ns,
        )
        settled = max(st.st_mtime_ns, st.st_ctime_ns) < self.observed_ns - RACY_NS
        return same and settled and _HEX64.fullmatch(self.sha256) is not None


class _Cache:
    """The SQLite digest cache: path -> the file's stat and sha256, sealed; a failure of it is a miss."""

    def __init__(self, directory: Path | None) -> None:
        create = (
            "CREATE TABLE digest (path TEXT PRIMARY KEY, dev INTEGER, ino INTEGER, size INTEGER, "
            "mtime_ns INTEGER, ctime_ns INTEGER, observed_ns INTEGER, sha256 TEXT, seal TEXT)"
        )
        file = directory / CACHE_FILE if directory is not None else None
        self.table = SqliteCache(file, "digest cache", "digest", create, _SCHEMA)

    @property
    def note(self) -> str | None:
        return self.table.note

    def get(self, path: str, st: os.stat_result) -> str | None:
        """The cached digest of ``path`` when the entry vouches for the file as ``st`` describes it."""
        rows = self.table.select(f"SELECT {', '.join(_COLUMNS)} FROM digest WHERE path = ?", (path,))
        if not rows:
            return None
        row = rows[0]
        try:
            entry = _Entry(*row[:-1])
            trusted = isinstance(row[-1], str) and entry.seal() == row[-1] and entry.vouches_for(st)
        except (TypeError, ValueError):
            return None
        return entry.sha256 if trusted else None

    def put(self, entries: list[_Entry]) -> None:
        if entries:
            self.table.insert([e.row() for e in entries], len(_COLUMNS))

    def close(self) -> None:
        self.table.close()


def hash_files(
    paths: Sequence[Path], cache_dir: Path | None, workers: int = 2, stop: threading.Event | None = None
) -> Digests:
    """Digest every path; a missing, unreadable or empty file is reported, never raised. Once ``stop`` is set the
    files being read are abandoned (_Stopped): an interrupted audit must not wait for a 60 GB read."""
    cache = _Cache(cache_dir)
    digests: list[str | None] = [None] * len(paths)
    failures: dict[str, str] = {}
    todo: list[tuple[int, Path, os.stat_result]] = []
    # Taken before any stat: an entry claims no more than "the file was like this at or after this moment".
    observed = _now_ns()
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
            kind = kind_of(st.st_mode)
            if kind is not None:
                failures[str(path)] = f"{kind}, not a regular file"
                continue
            if st.st_size == 0:
                # Zero bytes hold no sample: empty placeholders in two splits are not a copy of each other,
                # nor is one with two labels a conflict. Listed as unusable instead, as near_duplicates lists it.
                failures[str(path)] = "empty file"
                continue
            cached = cache.get(str(path), st)
            if cached is not None:
                digests[i] = cached
            else:
                todo.append((i, path, st))
        total = sum(st.st_size for _, _, st in todo)
        fresh: list[_Entry] = []
        with _progress(total) as progress:
            task = progress.add_task("hashing content", total=total)

            stop = stop or threading.Event()

            def work(item: tuple[int, Path, os.stat_result]) -> tuple[int, str | None, str | None]:
                i, path, st = item
                try:
                    return i, sha256_file(path, stop), None
                except OSError as exc:
                    return i, None, exc.strerror or str(exc)
                finally:
                    progress.advance(task, st.st_size)

            pool = ThreadPoolExecutor(max_workers=workers)
            try:
                for (i, path, st), (_, digest, error) in zip(todo, pool.map(work, todo), strict=True):
                    if digest is None:
                        failures[str(path)] = error or "unreadable"
                    else:
                        digests[i] = digest
                        fresh.append(_Entry.of(str(path), st, observed, digest))
            except BaseException:
                # Interrupted (a signal raised in this thread): stop the files being hashed at their next
                # block instead of waiting for the rest of a many-gigabyte read.
                stop.set()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
        cache.put(fresh)
    finally:
        cache.close()
    return Digests(digests, failures, total, cache.note)


def _progress(total: int) -> Progress:
    from rich.console import Console  # here: only an audit that hashes content files shows this bar
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

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


def none_read(column: str, paths: Sequence[str], failures: Mapping[str, str]) -> None:
    """Refuse to audit the content of a column none of whose files could be read (paths relative to the wrong
    folder, a volume not mounted): warnings about unread files beside a pass would be a pass on nothing."""
    if paths and len(failures) >= len(set(paths)):
        first, why = sorted(failures.items())[0]
        raise StageInputError(
            f"none of the {len(set(paths))} file(s) named in '{column}' could be read, e.g. {first} ({why}); "
            "expected paths relative to the manifest file"
        )


_SIDE_EXAMPLES = 3  # unread files a message names per side


def refuse_unread_side(
    manifest: Manifest, roles: SplitRoles, column: str, unread: np.ndarray, failures: Mapping[str, str]
) -> None:
    """Refuse to audit the content of a column when every file one side of the split names could not be read:
    the training splits, one holdout split, or one fold's training or holdout rows. Nothing of that side was
    compared across the split, so unread files beside a pass would be a pass on nothing (all of a holdout
    moved away). ``unread`` is per row: its file could not be read (or decoded); rows naming no file are not
    counted on either side, and a side with some files read stays the caller's warning."""
    import numpy as np

    key = manifest.key(column)
    codes = np.asarray(key.codes)
    split = np.asarray(manifest.split.codes)
    names = manifest.split_names
    named = (codes >= 0) & (split >= 0)
    named_per = np.bincount(split[named], minlength=len(names))
    read_per = np.bincount(split[named & ~np.asarray(unread, dtype=bool)], minlength=len(names))
    seen: set[tuple[int, ...]] = set()
    parts = []
    for label, members in _sides(roles, names):
        chosen = tuple(int(i) for i in np.flatnonzero(members))
        if not chosen or chosen in seen:
            continue
        seen.add(chosen)
        if named_per[list(chosen)].sum() == 0 or read_per[list(chosen)].sum() > 0:
            continue
        files = np.unique(codes[named & np.isin(split, chosen)])
        shown = []
        for name in key.labels(files[:_SIDE_EXAMPLES]):
            path = str((manifest.content_base / name).resolve())
            shown.append(f"{path} ({failures.get(path, 'could not be decoded')})")
        parts.append(
            f"{label}: none of its {len(files)} file(s) named in '{column}' could be read, e.g. " + ", ".join(shown)
        )
    if parts:
        raise StageInputError(
            "; ".join(parts) + ". Nothing of that side was compared across the split, so the stage gives no verdict; "
            "restore the files or fix their paths (relative to the manifest file)"
        )


def _sides(roles: SplitRoles, names: list[str]) -> list[tuple[str, np.ndarray]]:
    """Each side a cross-split comparison needs, as (how a message names it, a mask over ``names``)."""
    import numpy as np

    if roles.folds is not None:
        layout = roles.folds
        holdout, train = layout.matrices(names)
        out = []
        for f, fold in enumerate(layout.folds):
            if layout.is_fixed(f):
                out.append((f"holdout split {fold!r}", holdout[:, f]))
                out.append((f"the training rows judged against {fold!r}", train[:, f]))
            else:
                out.append((f"the holdout rows of fold {fold!r}", holdout[:, f]))
                out.append((f"the training rows of fold {fold!r}", train[:, f]))
        return out
    role = [roles.role(n) for n in names]
    train_names = [n for n, r in zip(names, role, strict=True) if r == "train"]
    out = [
        (
            f"training split(s) {', '.join(repr(n) for n in train_names)}",
            np.array([r == "train" for r in role], dtype=bool),
        )
    ]
    for i, (n, r) in enumerate(zip(names, role, strict=True)):
        if r == "holdout":
            out.append((f"holdout split {n!r}", np.arange(len(names)) == i))
    return out
