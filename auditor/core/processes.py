"""Which process is which over time: a process id with its start time names one process, never a later one."""

from __future__ import annotations

import os
from pathlib import Path


def start_ticks(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, Linux), or None where /proc cannot say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        # The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
        return stat[stat.rindex(")") + 2 :].split()[19]
    except (OSError, ValueError, IndexError):
        return None


def pid_namespace() -> str:
    """This process's PID namespace (an inode number), "-" where unknown: ids compare only within one."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "-"


def has_ended(pid: int, started: str | None) -> bool:
    """True when process ``pid`` (started at ``started`` ticks, if known) has ended: the id unused, or reused."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # a process of another user holds the id: compare start times
    if started is None:
        return False
    now_started = start_ticks(pid)
    return now_started is not None and now_started != started
