"""Input paths stay inside the folders an audit may read, and only regular files are ever opened.

An audit reads what its config names; a `..`, an absolute path or a symlink must not turn it into a
reader of other files (whose bytes would then be hashed or quoted in a report). Devices, FIFOs and
sockets are refused before they are read: reading them blocks or never ends.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from io import BufferedReader
from pathlib import Path

ROOTS_HINT = (
    "every input path must resolve (symlinks followed) under the config's folder or a configured root; "
    "to allow another folder, add it to `roots:` in the config (relative to the config file) "
    "or pass `--root PATH` to `audit run` / `audit validate`"
)

# A manifest's format by its file name (a compression suffix may follow): a file that is one is not a config.
MANIFEST_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".zst", ".lz4")

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFileError(OSError):
    """A path that names a directory, device, FIFO or socket where a regular file is read."""


def manifest_format(path: Path) -> str | None:
    """The manifest format a file name says (csv, tsv, parquet, jsonl), None for any other name."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSED_SUFFIXES:
        suffixes = suffixes[:-1]
    return MANIFEST_FORMATS.get(suffixes[-1]) if suffixes else None


def is_within(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` (real: symlinks followed) lies under one of ``roots`` (real paths)."""
    return is_under(path.resolve(), roots)


def is_under(real: Path, roots: Sequence[Path]) -> bool:
    """Whether an already resolved path lies under one of ``roots``; string prefixes, for millions of files."""
    text = str(real)
    return any(text == str(root) or text.startswith(str(root).rstrip(os.sep) + os.sep) for root in roots)


def outside_message(written: str, path: Path, roots: Sequence[Path]) -> str:
    """Why ``written`` may not be read: where it resolves to, the allowed folders, and how to allow it."""
    allowed = ", ".join(str(r) for r in roots)
    try:
        shown = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as written, normalised, is what is outside
        shown = path
    return f"'{written}' resolves to {shown}, outside the folders an audit may read ({allowed}); {ROOTS_HINT}"


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or the same inode (a hard link, a bind mount)."""
    try:
        if a.resolve() == b.resolve():
            return True
        return os.path.samefile(a, b)
    except (OSError, RuntimeError, ValueError):  # one of them is not there (yet): no file is shared
        return False


def path_problem(exc: BaseException) -> str:
    """What an OSError (or the RuntimeError of a symlink loop while resolving) says of a path, in words."""
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "a loop of symbolic links (a link that leads back to itself)"
    if getattr(exc, "errno", None) == errno.ENAMETOOLONG:
        return "a name in the path is longer than the file system allows (usually 255 bytes)"
    return getattr(exc, "strerror", None) or str(exc)


def kind_of(mode: int) -> str | None:
    """What a file of this st_mode is when it is not a regular file (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_regular(path: Path) -> str | None:
    """Why ``path`` cannot be read as a regular file (None when it can), without opening it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "not found"
    except OSError as exc:
        return exc.strerror or str(exc)
    kind = kind_of(mode)
    return None if kind is None else f"is {kind}, not a regular file"


def open_regular(path: Path) -> BufferedReader:
    """Open ``path`` for reading bytes; NotRegularFileError for anything but a regular file.

    Opened non-blocking, so that a FIFO or device swapped in after a stat cannot hang the open or a read.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        kind = kind_of(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFileError(0, f"is {kind}, not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def work_tree(folder: Path) -> Path | None:
    """The root of the git work tree holding ``folder`` (the nearest folder with a `.git`, a directory or the file
    of a linked work tree or submodule), or None."""
    for candidate in (folder, *folder.parents):
        try:
            if (candidate / ".git").exists():
                return candidate
        except OSError:  # a folder that cannot be read holds no `.git` we can see: its parents may
            continue
    return None
