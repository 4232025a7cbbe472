"""Children started ahead of their audit (opt-in): each has imported torch and waits for its one request.

A warm child is in the state a cold child (UserProcess) reaches after its imports, under the same keeper and
session, only ready earlier: it waits for `request.pickle` to appear in its private folder, and from then on
runs exactly as a cold child does. It serves one audit and is never reused. On Linux the warm children are
forks of a zygote (zygote.py) that imported torch once and never runs the user's code, so a child costs a fork,
not an interpreter and its imports; elsewhere each is a fresh interpreter started early. A child is handed out
only to a request made from the same process with the same interpreter, import path and environment it was
started with, whose preload includes the warm modules; any other request starts a cold child. Turn it on with
``AUDIT_NUMERIC_POOL=N`` (N children kept waiting) or warm_pool(N); the default is off.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.core.errors import ConfigError
from auditor.numeric.scratch import private_dir

if TYPE_CHECKING:
    from auditor.numeric.forkserver import ForkedChild, ForkServer

CHILD_MODULE = "auditor.numeric.child"
KEEPER_MODULE = "auditor.numeric.keeper"
WARM_FLAG = "--warm"  # `python -m auditor.numeric.child --warm FOLDER`: import, then wait for FOLDER/request.pickle
WARM_FILE = "warm.pickle"
REQUEST_FILE = "request.pickle"
POOL_ENV = "AUDIT_NUMERIC_POOL"
WARM_MODULES = ("torch", "auditor.numeric.program")
# What torch imports by itself the first time an optimizer is built (torch._dynamo, a second of CPU): a zygote
# imports it once for all its forks. The user's code sees only what torch would have imported anyway.
ZYGOTE_MODULES = (*WARM_MODULES, "torch._dynamo")
MAX_ZYGOTES = 2
# Where the keeper can hold the tree (a child subreaper). Elsewhere the child's process group is all there is.
USE_KEEPER = sys.platform.startswith("linux")


def child_command(*child_args: str, keeper: bool = USE_KEEPER) -> list[str]:
    """The command that starts the child (under the keeper where there is one), as a fresh interpreter."""
    command = [sys.executable, "-P", "-m", CHILD_MODULE, *child_args]
    if keeper:
        command = [sys.executable, "-P", "-m", KEEPER_MODULE, str(os.getpid()), *command]
    return command


def child_env() -> dict[str, str]:
    """The child's environment: the auditor's, unbuffered, so what the code printed before os._exit is kept."""
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


class PopenChild:
    """A child this process started: its pid, output pipes, end and status, as UserProcess asks for them."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.process, self.pid, self.stdout, self.stderr = process, process.pid, process.stdout, process.stderr

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def ended(self) -> bool:
        """Whether it has ended, leaving it a zombie (its group id reserved) where waitid allows."""
        if not hasattr(os, "waitid"):
            return self.process.poll() is not None  # poll() reaps
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def wait_ended(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout``) for the end, leaving a zombie where waitid allows; whether it ended."""
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while not self.ended():
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.01)
            return True
        if not hasattr(os, "waitid"):
            self.process.wait()
            return True
        # WNOWAIT: the child stays a zombie, so its process group id cannot be reused before the group is killed.
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        return True

    def poll(self) -> int | None:
        return self.process.poll()

    def reap(self) -> int:
        return self.process.wait()

    def signal(self, signum: int) -> None:
        if self.process.returncode is None:  # once reaped, its id may belong to another process
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signum)

    def kill_group(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
                os.killpg(self.pid, signal.SIGKILL)


def launch(command: list[str], env: dict[str, str]) -> PopenChild:
    return PopenChild(
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: one signal ends it and everything it started
            env=env,
        )
    )


@dataclass(frozen=True)
class WarmChild:
    """A started child waiting in ``folder`` for its request; ``key`` says what it was started with."""

    folder: Path
    process: PopenChild | ForkedChild
    key: tuple[object, ...]


# Variables that change on their own and say nothing the user's code may depend on: pytest renames the test
# running in every phase, so with it in the key no warm child would ever fit in a test run.
_VOLATILE_ENV = frozenset({"PYTEST_CURRENT_TEST"})


def _key(env: dict[str, str], keeper: bool) -> tuple[object, ...]:
    fixed = tuple(sorted((k, v) for k, v in env.items() if k not in _VOLATILE_ENV))
    return (os.getpid(), sys.executable, tuple(sys.path), fixed, keeper)


class ChildPool:
    """Up to ``size`` warm children of this process; take() hands one out and starts its replacement."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._waiting: list[WarmChild] = []
        self._lock = threading.Lock()
        self._zygotes: dict[tuple[object, ...], ForkServer] = {}  # by the key each was started with

    def take(self, preload: tuple[str, ...], keeper: bool = USE_KEEPER) -> WarmChild | None:
        """A waiting child started as a cold one would be now (one is started for the request when none waits,
        as the zygote forks at once), or None (then the caller starts a cold one)."""
        if not set(WARM_MODULES) <= set(preload) or keeper != USE_KEEPER:
            return None  # a request that does not preload torch must not find it imported
        env = child_env()
        key = _key(env, keeper)
        with self._lock:
            waiting, self._waiting = self._waiting, []
        found = None
        for child in waiting:
            if found is None and child.key == key and child.process.poll() is None:
                found = child
            else:
                discard(child)
        self.fill(env)
        if found is None:
            with self._lock:
                fits = [c for c in self._waiting if c.key == key and c.process.poll() is None]
                if fits:
                    found = fits[0]
                    self._waiting.remove(found)
            self.fill(env)
        return found

    def fill(self, env: dict[str, str] | None = None) -> None:
        """Start children until ``size`` wait."""
        env = child_env() if env is None else env
        with self._lock:
            while len(self._waiting) < self.size:
                self._waiting.append(self._start_warm(env))

    def close(self) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, []
            zygotes, self._zygotes = list(self._zygotes.values()), {}
        for child in waiting:
            discard(child)
        for zygote in zygotes:
            zygote.close()

    def zygote(self) -> ForkServer | None:
        """The zygote for this process's environment now, if one runs."""
        return self._zygotes.get(_key(child_env(), USE_KEEPER))

    def _start_warm(self, env: dict[str, str]) -> WarmChild:
        folder = private_dir()
        (folder / WARM_FILE).write_bytes(pickle.dumps((tuple(sys.path), WARM_MODULES, os.getpid())))
        (folder / "results.jsonl").touch()
        key = _key(env, USE_KEEPER)
        process: PopenChild | ForkedChild | None = None
        if USE_KEEPER:
            from auditor.numeric.forkserver import ForkServerError

            with contextlib.suppress(ForkServerError):
                process = self._server(env, key).fork(folder)
        if process is None:  # no zygote here, or it failed: a fresh interpreter, started early
            process = launch(child_command(WARM_FLAG, str(folder)), env)
        return WarmChild(folder=folder, process=process, key=key)

    def _server(self, env: dict[str, str], key: tuple[object, ...]) -> ForkServer:
        """The zygote for ``key``, started (again) when there is none for it or it has ended; the oldest other
        one is ended beyond MAX_ZYGOTES (an environment changed for a while and back keeps the first)."""
        from auditor.numeric.forkserver import ForkServer

        server = self._zygotes.get(key)
        if server is not None and not server.alive():
            server.close()
            del self._zygotes[key]
            server = None
        if server is None:
            while len(self._zygotes) >= MAX_ZYGOTES:
                self._zygotes.pop(next(iter(self._zygotes))).close()
            server = self._zygotes[key] = ForkServer(env, ZYGOTE_MODULES)
        return server


def discard(child: WarmChild) -> None:
    """Kill a waiting child's whole group and remove its folder."""
    import shutil

    child.process.kill_group()
    with contextlib.suppress(OSError):
        if child.process.wait_ended(5):
            child.process.reap()
    for stream in (child.process.stdout, child.process.stderr):
        stream.close()
    shutil.rmtree(child.folder, ignore_errors=True)


_pool: ChildPool | None = None
_configured = False


def warm_pool(size: int) -> None:
    """Keep ``size`` warm children for this process from now on (0 turns the pool off)."""
    global _pool, _configured
    _configured = True
    if _pool is not None:
        _pool.close()
    _pool = ChildPool(size) if size > 0 else None  # filled on first use: a process that never audits starts none


def current_pool() -> ChildPool | None:
    """The pool, if one is configured (by warm_pool or, on first use, AUDIT_NUMERIC_POOL)."""
    global _configured
    if not _configured:
        raw = os.environ.get(POOL_ENV, "").strip()
        _configured = True
        if raw:
            if not raw.isdigit():
                raise ConfigError(f"{POOL_ENV}={raw!r}: expected a whole number of children (0 turns it off)")
            warm_pool(int(raw))
    return _pool


@atexit.register
def _close_at_exit() -> None:
    if _pool is not None:
        _pool.close()
