"""The auditor's side of the zygote (zygote.py): start it, have it fork a warm child, follow the child's keeper.

A forked keeper is the zygote's child, not ours, so what Popen and waitid give for a cold child comes from the
zygote here: the keeper's pid, its exit status once it ends (it stays a zombie, its group id reserved, until
reap()), and an end of the control socket meaning the zygote is gone (its keepers, told by the kernel, kill
their trees). ForkedChild answers as PopenChild does, so UserProcess treats both alike.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from auditor.numeric.pool import WARM_FILE
from auditor.numeric.scratch import private_dir

ZYGOTE_MODULE = "auditor.numeric.zygote"
_FORK_WAIT_S = 120.0  # the first fork waits for the zygote's imports (torch), on a loaded machine too
_KEEPER_GRACE_S = 10.0  # how long an orphaned keeper may take to kill its tree
_GONE = -int(signal.SIGKILL)  # the status of a keeper whose zygote ended: it was killed with its tree


class ForkServerError(RuntimeError):
    """The zygote could not fork a child (it is gone or did not answer): start a cold child instead."""


class ForkedChild:
    """A keeper the zygote forked, as UserProcess sees a child: pid, output pipes, end, status, signals."""

    def __init__(self, server: ForkServer, pid: int, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self.server, self.pid, self.stdout, self.stderr = server, pid, stdout, stderr
        self.returncode: int | None = None
        self._ended = threading.Event()
        self._reaped = False
        self._gone = False  # the zygote ended first: the pid is no longer held for us
        try:  # it sees the keeper end even when the zygote, its parent, is gone
            self._pidfd: int | None = os.pidfd_open(pid)
        except OSError:
            self._pidfd = None

    def ended(self) -> bool:
        return self._ended.is_set()

    def wait_ended(self, timeout: float | None = None) -> bool:
        return self._ended.wait(timeout)

    def poll(self) -> int | None:
        """Its status once ended; a child of a zygote that has ended counts as ended (the kernel stops its keeper)."""
        if self.returncode is None and not self.server.alive():
            return _GONE
        return self.returncode

    def reap(self) -> int:
        """Wait for the end and let the zygote reap the zombie; the exit status (negative: the signal)."""
        self._ended.wait()
        if not self._reaped:
            self._reaped = True
            if not self._gone:
                self.server.send(f"reap {self.pid}")
        assert self.returncode is not None
        return self.returncode

    def signal(self, signum: int) -> None:
        if not (self._reaped or self._gone):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signum)

    def kill_group(self) -> None:
        if not (self._reaped or self._gone):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def _end(self, status: int, gone: bool = False) -> None:
        if not self._ended.is_set():
            self.returncode, self._gone = status, gone
            self._ended.set()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None

    def _orphaned(self) -> None:
        """The zygote is gone: the kernel told the keeper to stop; it is ended once it has killed its tree."""
        if self._pidfd is not None and not self._ended.is_set():
            with contextlib.suppress(OSError, ValueError):
                select.select([self._pidfd], [], [], _KEEPER_GRACE_S)
        self._end(_GONE, gone=True)


class ForkServer:
    """One zygote of this process, started with ``env`` and the current import path."""

    def __init__(self, env: dict[str, str], preload: tuple[str, ...]) -> None:
        self.folder = private_dir()
        (self.folder / WARM_FILE).write_bytes(pickle.dumps((tuple(sys.path), preload, os.getpid())))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-m", ZYGOTE_MODULE, str(self.folder), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a signal to our group (Ctrl-C) reaches the keepers through us
                env=env,
            )
        finally:
            theirs.close()
        self._control = ours
        self._send_lock = threading.Lock()
        self._forks: queue.Queue[int | None] = queue.Queue()
        self._children: dict[int, ForkedChild] = {}
        self._early: dict[int, int] = {}  # statuses that came before their pid was handed out
        self._lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="audit-zygote-reader", daemon=True)
        self._reader.start()

    def alive(self) -> bool:
        return not self._closed and self.process.poll() is None

    def send(self, message: str, fds: tuple[int, ...] = ()) -> None:
        with self._send_lock:
            try:
                socket.send_fds(self._control, [message.encode()], list(fds))
            except OSError as exc:
                raise ForkServerError(f"the zygote does not take requests: {exc}") from exc

    def fork(self, folder: Path) -> ForkedChild:
        """A keeper and its child waiting in ``folder`` (which holds WARM_FILE); ForkServerError if none."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            with self._send_lock:  # one fork at a time: the pids come back in the order asked
                try:
                    socket.send_fds(self._control, [f"fork {folder}".encode()], [out_w, err_w])
                except OSError as exc:
                    raise ForkServerError(f"the zygote does not take requests: {exc}") from exc
                try:
                    pid = self._forks.get(timeout=_FORK_WAIT_S)
                except queue.Empty:
                    pid = None
            if pid is None:
                raise ForkServerError("the zygote did not fork a child")
        except BaseException:
            for fd in (out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w):
                os.close(fd)
        streams = (open(out_r, "rb", buffering=0), open(err_r, "rb", buffering=0))  # noqa: SIM115 - kept by the child
        child = ForkedChild(self, pid, *streams)
        with self._lock:
            self._children[pid] = child
            early = self._early.pop(pid, None)
        if early is not None:
            child._end(early)
        return child

    def close(self) -> None:
        """End the zygote: its keepers are told to stop and kill their trees."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self._reader.join(5)
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)

    def _read(self) -> None:
        try:
            while True:
                data = self._control.recv(4096)
                if not data:
                    break
                verb, *rest = data.decode().split()
                if verb == "pid":
                    self._forks.put(int(rest[0]))
                elif verb == "exit":
                    pid, status = int(rest[0]), int(rest[1])
                    with self._lock:
                        child = self._children.get(pid)
                        if child is None:
                            self._early[pid] = status
                    if child is not None:
                        child._end(status)
        except OSError:
            pass
        finally:
            self._closed = True
            self._forks.put(None)
            with self._lock:
                children = list(self._children.values())
            for child in children:  # their keepers got SIGTERM from the kernel; their pids are not ours to signal
                child._orphaned()
