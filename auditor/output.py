"""Write report files atomically: every file goes to a temp name first, then all are renamed into place."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from auditor.errors import ReportWriteError


def check_writable(out_dir: Path) -> None:
    """Fail before the audit runs, not after, when the report directory cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=out_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ReportWriteError(
            f"cannot write the report directory {out_dir} ({exc.strerror or exc}); "
            "choose another with --out or report.out_dir"
        ) from None


def write_atomic(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Write {file name: text} into out_dir; on any failure no partial file is left behind."""
    check_writable(out_dir)
    staged: list[tuple[str, Path]] = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
            staged.append((name, Path(tmp)))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        written = []
        for name, tmp in staged:
            target = out_dir / name
            os.replace(tmp, target)
            written.append(target)
        return written
    except OSError as exc:
        for _, tmp in staged:
            tmp.unlink(missing_ok=True)
        raise ReportWriteError(f"cannot write the report into {out_dir}: {exc.strerror or exc}") from None
