"""The private temp folders of user-code children, named for the process that owns them, so a later start can
remove the folders of owners that were killed (kill -9 runs no clean-up) and never those of a live one."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from auditor.core.processes import has_ended, pid_namespace, start_ticks

PREFIX = "audit-user-code-"
# audit-user-code-<pid namespace>-<pid>-<start ticks>-<random>; "x" as ticks where /proc cannot say.
OWNED = re.compile(rf"^{PREFIX}(?P<ns>\d+)-(?P<pid>\d+)-(?P<ticks>\d+|x)-[^/]+$")


def private_dir() -> Path:
    """A new folder only this user may enter (mode 0700), named for this process."""
    pid = os.getpid()
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{pid_namespace()}-{pid}-{start_ticks(pid) or 'x'}-"))


def remove_orphans(folder: Path | None = None) -> list[Path]:
    """Remove the folders under ``folder`` (the temp folder) whose owner has ended; returns those removed.

    Left alone: a live owner's, another user's, another PID namespace's (a container sharing /tmp), and any
    folder whose name does not say its owner."""
    base = Path(folder or tempfile.gettempdir())
    removed = []
    namespace, me = pid_namespace(), os.geteuid()
    try:
        candidates = sorted(base.glob(f"{PREFIX}*"))
    except OSError:
        return []
    for path in candidates:
        found = OWNED.match(path.name)
        if found is None or found["ns"] != namespace:
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if not path.is_dir() or path.is_symlink() or info.st_uid != me:
            continue
        ticks = None if found["ticks"] == "x" else found["ticks"]
        if has_ended(int(found["pid"]), ticks):
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                removed.append(path)
    return removed
