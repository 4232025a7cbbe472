"""Write report files atomically: every file goes to a temp name first, then all are renamed into place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from auditor.core.errors import ReportWriteError


def check_writable(out_dir: Path) -> None:
    """Fail before the audit runs, not after, when the report directory cannot be written.

    Nothing is created here: a config that turns out to be wrong must leave no empty report directory.
    """
    probe = out_dir
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    problem = None
    if probe.exists() and not probe.is_dir():
        problem = f"{probe} is a file, not a directory"
    elif not os.access(probe, os.W_OK | os.X_OK):
        problem = f"no permission to write in {probe}"
    if problem:
        raise ReportWriteError(
            f"cannot write the report directory {out_dir}: {problem}; choose another with --out or report.out_dir"
        )


def _make_dir(out_dir: Path) -> None:
    check_writable(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportWriteError(f"cannot write the report directory {out_dir}: {exc.strerror or exc}") from None


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def remove_stale(out_dir: Path, names: Iterable[str]) -> None:
    """Delete earlier report files of ours that this run does not rewrite, so none contradicts it."""
    for name in names:
        with contextlib.suppress(OSError):
            (out_dir / name).unlink(missing_ok=True)


def write_atomic(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Write {file name: text} into out_dir; on any failure no partial file is left behind."""
    _make_dir(out_dir)
    staged: list[tuple[str, Path]] = []
    try:
        for name, text in files.items():
            fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
            staged.append((name, Path(tmp_name)))
            # mkstemp creates 0600 files; a report is for sharing, so use the usual mode under the umask.
            os.chmod(tmp_name, 0o666 & ~_umask())
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        written = []
        for name, staged_path in staged:
            target = out_dir / name
            os.replace(staged_path, target)
            written.append(target)
        return written
    except OSError as exc:
        for _, leftover in staged:
            leftover.unlink(missing_ok=True)
        raise ReportWriteError(f"cannot write the report into {out_dir}: {exc.strerror or exc}") from None
