"""The process between the auditor and the user's code (Linux): it holds the whole tree the code starts.

`python -m auditor.numeric.keeper PARENT_PID COMMAND...` runs COMMAND (the child that imports the user's
code) as a child subreaper (`PR_SET_CHILD_SUBREAPER`): a process the code starts stays below the keeper even
when it leaves its session or process group (`setsid`, `Popen(start_new_session=True)`, a double fork),
because an orphan of the tree becomes the keeper's child instead of init's. When the child ends, or the
auditor sends SIGTERM (its time limit, an interrupt) or dies, the keeper kills every process below it and reaps
them, and only then exits, as the child did (the same exit status, or the same signal): once the auditor
has seen the keeper end, nothing the user's code started is alive. Standard library only; no user code
runs in it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
EXIT_SETUP = 71  # the keeper could not take charge of the tree, so it ran nothing
KEEPER_PID_ENV = "AUDIT_KEEPER_PID"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Stop(Exception):
    """The auditor asked for the tree to end."""


class _Flag:
    """A stop request, raised as _Stop only while the keeper waits (elsewhere it is only noted)."""

    requested = False
    waiting = False


def main(argv: list[str] | None = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else argv
    parent, command = int(args[0]), args[1:]
    # When the auditor dies (even by SIGKILL) the kernel sends SIGTERM: the tree is killed as on any stop. And
    # every orphan of the tree becomes this process's child. Without both, run nothing.
    if not take_charge(parent):
        os._exit(EXIT_SETUP)
    exit_as(supervise(command))


def take_charge(parent: int) -> bool:
    """Become the keeper of what this process starts: stop handlers, a SIGTERM when ``parent`` dies, and every
    orphan of the tree as our child. False when the kernel refuses (then nothing may run)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for signum in STOP_SIGNALS:
        signal.signal(signum, _on_stop)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0 or os.getppid() != parent:
        return False
    return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def supervise(command: list[str]) -> int:
    """Run ``command`` and watch() it: its wait status once all below the keeper is killed."""
    try:
        env = {**os.environ, KEEPER_PID_ENV: str(os.getpid())}  # the parent the child checks it still has
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, env=env)
    except OSError:
        kill_descendants()
        return EXIT_SETUP
    return watch(child.pid)


def watch(child: int) -> int:
    """Wait for the child ``child``, reaping every orphan meanwhile, then kill all that is left; the child's wait
    status (negative: the signal that killed it)."""
    status = -int(signal.SIGKILL)  # stopped before the child ended: it is killed with the rest
    try:
        while not _Flag.requested:
            _Flag.waiting = True
            try:
                if _Flag.requested:  # asked just before the flag was set
                    raise _Stop
                pid, raw = os.waitpid(-1, 0)  # orphans of the tree are reaped here too: none stays a zombie
            finally:
                _Flag.waiting = False
            if pid == child:
                status = os.waitstatus_to_exitcode(raw)
                break
    except (_Stop, ChildProcessError):
        pass
    except OSError:
        status = EXIT_SETUP
    kill_descendants()
    return status


def kill_descendants() -> None:
    """Kill every process below this one until none is left (an orphan of a killed one becomes our child)."""
    me = os.getpid()
    while True:
        for pid in _descendants(me):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
            while os.waitpid(-1, os.WNOHANG)[0]:  # reap all that have ended before reading /proc again
                pass
        except ChildProcessError:
            return


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, from the parent ids in /proc."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        kids = children.get(todo.pop(), [])
        found.extend(kids)
        todo.extend(kids)
    return found


def _parents() -> Iterator[tuple[int, int]]:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            # The command name (field 2) may hold spaces and parentheses: the parent id follows its closing one.
            yield int(entry.name), int(stat[stat.rindex(")") + 2 :].split()[1])


def exit_as(status: int) -> NoReturn:
    """End as the child ended: the same exit status, or killed by the same signal."""
    if status < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(-status, signal.SIG_DFL)
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), -status)
        os._exit(128 - status)
    os._exit(status)


def _on_stop(signum: int, frame: object) -> None:
    _Flag.requested = True
    if _Flag.waiting:
        raise _Stop


if __name__ == "__main__":
    main()
