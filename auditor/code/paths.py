"""Paths the walk can spell: `Path("data")`, `os.path.join(root, "a.csv")`, `root.expanduser()`. A path held in a
name is then known as its text, so a file written at one path and read back at it is one file."""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

from auditor.code.values import Value

# Callables whose result is their string arguments joined as one path (one argument: that path itself).
_JOINING = frozenset(
    {
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PosixPath",
        "pathlib.PurePosixPath",
        "os.path.join",
        "posixpath.join",
    }
)
# Callables that leave a path naming the same file (as far as a read and a write of it by the same spelling go).
_SAME_FILE = frozenset({"os.path.expanduser", "os.path.abspath", "os.path.normpath", "os.path.realpath", "os.fspath"})
_SAME_FILE_METHODS = frozenset({"expanduser", "resolve", "absolute"})


def _texts(values: list[Value]) -> list[str] | None:
    texts = [v.const for v in values]
    return [t for t in texts if isinstance(t, str)] if all(isinstance(t, str) for t in texts) else None


def path_called(qualname: str, args: list[Value], kwargs: dict[str, Value]) -> str | None:
    """The path a call of a path maker returns, when every part of it is a known string; None otherwise."""
    if kwargs or not args:
        return None
    texts = _texts(args)
    if texts is None:
        return None
    if qualname in _JOINING:
        return posixpath.join(*texts)
    if qualname in _SAME_FILE and len(texts) == 1:
        return texts[0]
    return None


def path_method(receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value]) -> str | None:
    """The path a method of a known path returns (`root.expanduser()`, `root.joinpath("a.csv")`,
    `p.with_suffix(".csv")`); None for any other method or an argument not known."""
    base = receiver.const
    if not isinstance(base, str) or kwargs or receiver.data is not None or receiver.objects:
        return None
    texts = _texts(args)
    return None if texts is None else method_path(base, name, texts)


def method_path(base: str, name: str, texts: list[str]) -> str | None:
    """The path method ``name`` of path ``base`` returns given the strings ``texts``; None for another method."""
    if name in _SAME_FILE_METHODS and not texts:
        return base
    if name == "joinpath" and texts:
        return posixpath.join(base, *texts)
    if name in ("with_suffix", "with_name") and len(texts) == 1:
        try:
            return str(getattr(PurePosixPath(base), name)(texts[0]))
        except ValueError:  # a suffix without its dot, a name with a slash: the program fails there
            return None
    return None
