"""Running the user's code in a child process that the audit can always stop and never has to believe.

The child is a fresh interpreter (`python -m auditor.numeric.child`, never a fork of the auditor; with the pool
on Linux, a fork of a zygote that has imported torch and nothing of the user's, see pool.py) in its own
session, with the user's python_path first on sys.path, a time limit and an optional memory limit. It writes
what it found to a file the parent named, one JSON line per record and a closing line last; only the closing
line makes the result complete. Whatever the user's code does (os._exit, atexit handlers, threads, signals,
endless loops, prints), the parent reads the records, decides the verdict itself and kills the child's whole
process group before it returns. On Linux the child runs under the keeper (keeper.py), which kills every
process the code started, also those that left the group, before the parent sees it end; elsewhere a process
that leaves the child's session is out of reach.
"""

from __future__ import annotations

import json
import os
import pickle
import secrets
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from auditor.core.findings import CapturedOutput
from auditor.numeric import keeper
from auditor.numeric.pool import (
    REQUEST_FILE,
    PopenChild,
    child_command,
    child_env,
    current_pool,
    launch,
)
from auditor.numeric.scratch import private_dir

if TYPE_CHECKING:
    from auditor.numeric.forkserver import ForkedChild

# Where the keeper can hold the tree (a child subreaper). Elsewhere the child's process group is all there is.
USE_KEEPER = sys.platform.startswith("linux")

CAPTURE_BYTES = 64 * 1024  # per stream: the first and the last half are kept, the middle is cut
_GRACE_S = 2.0  # how long the output readers may lag behind a dead child (a detached grandchild keeps a pipe)
_KEEPER_GRACE_S = 10.0  # how long the keeper may take to kill the tree once asked, before its group is killed


@dataclass(frozen=True)
class ChildRequest:
    """What the parent hands to the child, pickled into a private temporary folder."""

    job: str  # 'module:function', called in the child as function(payload, emit)
    payload: Any
    sys_path: tuple[str, ...]  # the parent's import path, so the child imports what the parent would
    user_paths: tuple[str, ...]  # numeric.python_path, put first once the auditor's own modules are loaded
    preload: tuple[str, ...]  # modules imported before the memory limit applies (torch is large)
    memory_mb: int | None
    results: str
    token: str
    parent_pid: int


@dataclass(frozen=True)
class ChildOutcome:
    """What a finished child left: its records in order, whether it closed them, and why not."""

    records: tuple[str, ...]
    complete: bool
    reason: str | None  # set when not complete: how the process ended before its checks finished
    output: CapturedOutput


class UserProcess:
    """One child process running ``job`` on ``payload``; use as a context manager so it never outlives the block."""

    def __init__(
        self,
        job: str,
        payload: Any,
        *,
        user_paths: tuple[str, ...] = (),
        timeout_s: float,
        memory_mb: int | None = None,
        preload: tuple[str, ...] = (),
        subject: str = "the user's code",
        limit_name: str = "numeric.timeout_s",
    ) -> None:
        self.job, self.payload, self.user_paths = job, payload, user_paths
        # How reasons name what ran and the setting that limits it (the service runs no user code).
        self.subject, self.limit_name = subject, limit_name
        self.timeout_s, self.memory_mb, self.preload = timeout_s, memory_mb, preload
        self._dir: Path | None = None
        self._proc: PopenChild | ForkedChild | None = None
        self._captures: tuple[_Capture, _Capture] | None = None
        self._watchdog: threading.Thread | None = None
        self._done = threading.Event()  # ends the watchdog's wait
        self._watchdog_failure: str | None = None
        self._timed_out = False
        self._reaped = False
        self._lock = threading.Lock()  # the watchdog and the joining thread both signal the group

    def __enter__(self) -> UserProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> None:
        """Start the child (or hand the request to a warm one, when the pool is on); it runs until join()."""
        pool = current_pool()
        warm = pool.take(self.preload, USE_KEEPER) if pool is not None else None
        # mode 0700, named for this process: a later start removes it if we are killed
        self._dir = warm.folder if warm is not None else private_dir()
        results = self._dir / "results.jsonl"
        results.touch()
        self._token = secrets.token_hex(16)
        request = ChildRequest(
            job=self.job,
            payload=self.payload,
            sys_path=tuple(sys.path),
            user_paths=self.user_paths,
            preload=self.preload,
            memory_mb=self.memory_mb,
            results=str(results),
            token=self._token,
            parent_pid=os.getpid(),
        )
        request_path = self._dir / REQUEST_FILE
        staged = self._dir / "request.pickle.part"
        staged.write_bytes(pickle.dumps(request))
        os.replace(staged, request_path)  # whole or absent: a warm child starts reading once it appears
        if warm is not None:
            self._proc = warm.process
        else:
            self._proc = launch(child_command(str(request_path), keeper=USE_KEEPER), child_env())
        self._captures = (_Capture(self._proc.stdout), _Capture(self._proc.stderr))
        self._watchdog = threading.Thread(target=self._watch, name="audit-user-code-watchdog", daemon=True)
        self._watchdog.start()

    def join(self) -> ChildOutcome:
        """Wait for the child (at most until its time limit), kill what is left of its group, read its records."""
        if self._proc is None or self._dir is None or self._captures is None:
            raise RuntimeError("join() before start()")
        try:
            self._wait_for_exit()
        finally:
            self._stop()
        status = self._proc.returncode
        assert status is not None  # _stop() has reaped it
        records, complete, failure = _read_results(self._dir / "results.jsonl", self._token)
        for capture in self._captures:
            capture.join(_GRACE_S)
        output = CapturedOutput(
            stdout=self._captures[0].text(),
            stderr=self._captures[1].text(),
            stdout_bytes=self._captures[0].total,
            stderr_bytes=self._captures[1].total,
        )
        if self._watchdog_failure is not None:  # the time limit was not enforced: nothing the child wrote counts
            complete = False
        reason = None if complete else self._reason(status, failure)
        return ChildOutcome(records=records, complete=complete, reason=reason, output=output)

    def kill(self) -> None:
        """Kill the child and all it started now, from any thread; a join() in progress then returns, incomplete."""
        if self._proc is not None:
            self._end_tree()

    def close(self) -> None:
        """Kill the child's group if it still runs and remove the temporary folder; safe to call twice."""
        try:
            if self._proc is not None:
                self._stop()
        finally:
            if self._dir is not None:
                shutil.rmtree(self._dir, ignore_errors=True)
                self._dir = None

    def _wait_for_exit(self) -> None:
        assert self._proc is not None
        self._proc.wait_ended()
        with self._lock:
            if not hasattr(os, "waitid"):
                self._reaped = True  # wait_ended() has reaped it

    def _stop(self) -> None:
        """Stop the watchdog; end the tree (the keeper kills all below it), then kill the whole group: what is
        left of it if the keeper itself was killed, or everything where there is no keeper."""
        assert self._proc is not None
        self._done.set()
        if USE_KEEPER:
            self._end_tree()
            self._wait_unreaped(_KEEPER_GRACE_S)
        self._kill_group()
        with self._lock:
            if not self._reaped:
                self._proc.reap()
                self._reaped = True

    def _wait_unreaped(self, timeout: float) -> None:
        """Wait up to ``timeout`` for the child to end, leaving it a zombie so its group id stays reserved."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._reaped or self._exited():
                    return
            time.sleep(0.01)

    def _watch(self) -> None:
        """The time limit; if it cannot be kept, the child is killed at once and its result does not count."""
        try:
            if self._done.wait(self.timeout_s):
                return
            with self._lock:
                if self._reaped or self._exited():
                    return  # it ended by itself; how is for join() to say
                self._timed_out = True
        except BaseException as exc:  # an impossible timeout, a failing clock: no limit is kept, so no result
            self._watchdog_failure = f"{type(exc).__name__}: {exc}"
        self._end_tree()
        if USE_KEEPER and not self._done.wait(_KEEPER_GRACE_S):
            self._kill_group()  # a keeper that does not end when asked: its group, at least, is killed

    def _end_tree(self) -> None:
        """Ask the keeper to kill the tree (it exits once it has), or kill the group where there is none."""
        assert self._proc is not None
        if not USE_KEEPER:
            self._kill_group()
            return
        with self._lock:
            if not self._reaped:
                self._proc.signal(signal.SIGTERM)

    def _exited(self) -> bool:
        assert self._proc is not None
        ended = self._proc.ended()
        if ended and not hasattr(os, "waitid"):
            self._reaped = True  # poll() reaps
        return ended

    def _kill_group(self) -> None:
        assert self._proc is not None
        with self._lock:
            if self._reaped:
                return  # its id may belong to another process by now
            self._proc.kill_group()

    def _reason(self, status: int, failure: str | None) -> str:
        if self._watchdog_failure is not None:
            return (
                f"the time limit on {self.subject} ({self.limit_name} = {self.timeout_s:g} s) could not be kept "
                f"({self._watchdog_failure}), so its process was killed and its results were not used"
            )
        if USE_KEEPER and status == keeper.EXIT_SETUP and failure is None:
            return f"the process that runs {self.subject} could not take charge of the processes it may start"
        if self._timed_out:
            return (
                f"{self.subject} was still running after {self.timeout_s:g} s ({self.limit_name}), so its process "
                "was killed before the checks finished"
            )
        if failure is not None:
            return f"the process running {self.subject} failed before the checks finished: {failure}"
        if status < 0:
            number = -status
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = "unknown signal"
            why = ""
            if number == signal.SIGKILL:
                why = f" (by {self.subject}, the system's out-of-memory killer or another process)"
            return (
                f"the process running {self.subject} was killed by signal {number} ({name}){why} before the checks "
                "finished"
            )
        return (
            f"{self.subject} ended its process with exit status {status} (os._exit({status}), or a crash) "
            "before the checks finished"
        )


def _read_results(path: Path, token: str) -> tuple[tuple[str, ...], bool, str | None]:
    """The records before the first line that is not one, whether a closing line with ``token`` ends them, and
    the child's own failure message if it wrote one."""
    records: list[str] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return (), False, None
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:  # a line cut short by a kill
            break
        if not isinstance(item, dict):
            break
        if isinstance(item.get("record"), str):
            records.append(item["record"])
            continue
        if "end" in item:
            return tuple(records), item.get("token") == token and item.get("end") == len(records), None
        if "failed" in item:
            return tuple(records), False, str(item["failed"])
        break
    return tuple(records), False, None


class _Capture:
    """Drains one of the child's output pipes in a thread, keeping its first and last CAPTURE_BYTES/2 bytes."""

    _HALF = CAPTURE_BYTES // 2

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        fd = self._stream.fileno()
        try:
            while chunk := os.read(fd, 65536):
                with self._lock:
                    self.total += len(chunk)
                    room = self._HALF - len(self._head)
                    if room > 0:
                        self._head += chunk[:room]
                        chunk = chunk[room:]
                    if chunk:
                        self._tail += chunk
                        del self._tail[: -self._HALF]
        except OSError:
            pass
        finally:
            self._stream.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        with self._lock:
            head, tail, total = bytes(self._head), bytes(self._tail), self.total
        cut = total - len(head) - len(tail)
        if cut <= 0:
            return (head + tail).decode("utf-8", errors="replace")
        return (
            head.decode("utf-8", errors="replace")
            + f"\n[... {cut} bytes cut: {total} written, the first and last {self._HALF} kept ...]\n"
            + tail.decode("utf-8", errors="replace")
        )
