"""`audit` processes for the tests, forked from one interpreter that has imported the auditor already.

A fork is a real process: its own pid, pipes, working folder, environment, session, signals and exit status,
and it runs the same entry point a fresh `python -m auditor.cli` runs. Only the imports are done before, once
per test process, instead of the second a fresh interpreter spends on them (a live server imports FastAPI,
SQLAlchemy and uvicorn too). What a fresh start alone shows (what is imported, how long it takes, a signal
while it imports) stays with fresh interpreters: tests/test_startup.py, tests/numeric/test_isolation.py and the
tests that pass interpreter options. ``AUDITOR_TESTS_COLD=1`` starts every process fresh, to compare.

The template (``python -m tests.forked FD``) answers requests on a socket: each carries a status socket and
the child's stdin, stdout and stderr; it forks, reports the pid on the status socket and, once the child has
ended, its exit code. The child stays a zombie until the test closes the status socket, so its pid is never
reused while the test may still signal it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import io
import os
import pickle
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[1]
COLD_ENV = "AUDITOR_TESTS_COLD"
MESSAGE_BYTES = 1 << 20
# What `audit run` and `audit serve` import on their way: done once in the template, never per process.
WARM_MODULES = (
    "auditor.cli.app",
    "auditor.cli.run",
    "auditor.cli.review",
    "auditor.cli.service",
    "auditor.pipeline.runner",
    "auditor.manifest.table",
    "auditor.render.html",
    "auditor.service.app",
    "pandas",
    "pyarrow.parquet",
    "pyarrow.compute",
    "auditor.service.db",
    "auditor.service.server",
    "auditor.manifest.components",
    "auditor.similarity.nearcopies",
    "auditor.similarity.perceptual",
    "auditor.similarity.featurerows",
    "auditor.numeric.isolation",
    "alembic.command",
    "alembic.runtime.migration",
    "psycopg",
    "sqlalchemy.dialects.postgresql",
    "scipy.fft",
    "scipy.special",
    "scipy.sparse.csgraph",
    "PIL.Image",
    "uvicorn",
    "httpx",
)
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class _Request:
    argv: list[str]  # sys.argv of the child: argv[0] is the script or the module's file
    entry: str  # "module": runpy's `-m auditor.cli`; "script": the `audit` console script
    cwd: str
    env: dict[str, str]
    new_session: bool


# -- the test side -----------------------------------------------------------------------------------------------


def forkable(argv: Sequence[str]) -> str | None:
    """How ``argv`` runs in a fork ("module" or "script"), or None when it needs a fresh interpreter."""
    if os.environ.get(COLD_ENV) or not sys.platform.startswith("linux") or not argv:
        return None
    if list(argv[:3]) == [sys.executable, "-m", "auditor.cli"]:
        return "module"
    script = _script()
    if script is not None and str(argv[0]) in (script, "audit"):
        return "script"
    return None


def _script() -> str | None:
    """The `audit` console script of this interpreter's environment."""
    return shutil.which("audit", path=str(Path(sys.executable).parent))


class ForkedProcess:
    """A forked `audit` child with the part of subprocess.Popen's interface the tests use."""

    def __init__(
        self,
        args: list[str],
        pid: int,
        status: socket.socket,
        stdin: IO[Any] | None,
        stdout: IO[Any] | None,
        stderr: IO[Any] | None,
    ) -> None:
        self.args, self.pid, self._status = args, pid, status
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        return self._wait(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._wait(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def _wait(self, timeout: float | None) -> int | None:
        with self._lock:
            if self.returncode is not None:
                return self.returncode
            self._status.settimeout(timeout)
            try:
                message = self._status.recv(64)
            except (TimeoutError, BlockingIOError):
                return None
            # The template's own end (no message) is the child's too: it dies with the template.
            self.returncode = int(message) if message else -signal.SIGKILL
            self._status.close()  # the template reaps the child now: its pid is free again
            return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        read: dict[str, Any] = {}
        threads = []
        for name in ("stdout", "stderr"):
            stream = getattr(self, name)
            if stream is not None and stream.closed:  # closed by the caller: nothing more is read, as Popen says
                read[name] = b"" if "b" in stream.mode else ""
            elif stream is not None:
                thread = threading.Thread(target=lambda s=stream, n=name: read.__setitem__(n, s.read()), daemon=True)
                thread.start()
                threads.append(thread)
        if self.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                if input:
                    self.stdin.write(input)
                self.stdin.close()
        self.wait(timeout)
        for thread in threads:
            thread.join(timeout)
            if thread.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        for name in ("stdout", "stderr"):
            stream = getattr(self, name)
            if stream is not None:
                stream.close()
        return read.get("stdout"), read.get("stderr")

    def __enter__(self) -> ForkedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.wait()


class _Template:
    """The warm interpreter of this test process, started on first use and again if it has died."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()

    def fork(self, request: _Request, fds: list[int]) -> tuple[int, socket.socket]:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start()
            assert self._control is not None
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                socket.send_fds(self._control, [pickle.dumps(request)], [theirs.fileno(), *fds])
            finally:
                theirs.close()
        message = mine.recv(64)
        if not message.startswith(b"pid "):
            mine.close()
            raise RuntimeError(f"the test template could not fork: {message!r}")
        return int(message.split()[1]), mine

    def _start(self) -> None:
        self.close()
        control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.forked", str(theirs.fileno())],
            cwd=REPO,
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
        )
        theirs.close()
        self._control = control
        ready = control.recv(64)
        if ready != b"ready":
            raise RuntimeError(f"the test template did not start: {ready!r}")

    def close(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(5)
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._process = None


_TEMPLATE: list[_Template] = []  # one per test process, made on first use


def _template() -> _Template:
    if not _TEMPLATE:
        _TEMPLATE.append(_Template())
        atexit.register(_TEMPLATE[0].close)
    return _TEMPLATE[0]


def popen(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | IO[Any] | None = None,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    text: bool = False,
    start_new_session: bool = False,
) -> ForkedProcess | subprocess.Popen[Any]:
    """subprocess.Popen for an `audit` command: a fork of the template where one can run it, else Popen."""
    args = [os.fspath(a) for a in argv]
    entry = forkable(args)
    if entry is None:
        return subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            text=text,
            start_new_session=start_new_session,
        )
    if entry == "module":
        child_argv = [str(REPO / "auditor" / "cli" / "__main__.py"), *args[3:]]
    else:
        child_argv = [str(_script()), *args[1:]]
    opened: list[int] = []  # our ends of the pipes
    given: list[int] = []  # the child's ends, closed here once passed

    def end(spec: int | IO[Any] | None, fd: int, reading: bool) -> int:
        if spec is None:
            return fd
        if spec == subprocess.DEVNULL:
            devnull = os.open(os.devnull, os.O_RDONLY if reading else os.O_WRONLY)
            given.append(devnull)
            return devnull
        if spec == subprocess.PIPE:
            r, w = os.pipe()
            ours, theirs = (w, r) if reading else (r, w)
            opened.append(ours)
            given.append(theirs)
            return theirs
        return spec if isinstance(spec, int) else spec.fileno()

    in_fd = end(stdin, 0, True)
    out_fd = end(stdout, 1, False)
    err_fd = out_fd if stderr == subprocess.STDOUT else end(stderr, 2, False)
    ends = [in_fd, out_fd, err_fd]
    request = _Request(
        child_argv, entry, os.fspath(cwd or os.getcwd()), dict(os.environ if env is None else env), start_new_session
    )
    try:
        pid, status = _template().fork(request, ends)
    finally:
        for fd in given:
            os.close(fd)

    def stream(spec: int | IO[Any] | None, mode: str) -> IO[Any] | None:
        if spec != subprocess.PIPE:
            return None
        fd = opened.pop(0)
        return open(fd, mode, encoding="utf-8") if text else open(fd, mode + "b")

    child_in = stream(stdin, "w")
    child_out = stream(stdout, "r")
    child_err = stream(stderr, "r") if stderr != subprocess.STDOUT else None
    return ForkedProcess(args, pid, status, child_in, child_out, child_err)


def run(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    capture_output: bool = False,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    text: bool = False,
    input: Any = None,
    timeout: float | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """subprocess.run for an `audit` command, forked where it can be."""
    if capture_output:
        stdout = stderr = subprocess.PIPE
    process = popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=text,
    )
    try:
        out, err = process.communicate(input, timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    code = process.returncode
    assert code is not None
    done = subprocess.CompletedProcess([os.fspath(a) for a in argv], code, out, err)
    if check:
        done.check_returncode()
    return done


# -- the template side -------------------------------------------------------------------------------------------


def _serve(control: socket.socket) -> tuple[_Request, list[int]] | None:
    """Fork for each request until the test process closes the socket; in a child, return its request."""
    woken_r, woken_w = os.pipe()
    os.set_blocking(woken_w, False)
    signal.set_wakeup_fd(woken_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: dict[int, socket.socket] = {}  # pid -> its status socket
    ended: set[int] = set()
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, "control")
    selector.register(woken_r, selectors.EVENT_READ, "woken")

    def report_ended() -> None:
        for pid, status in children.items():
            if pid in ended:
                continue
            found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if found is not None:
                ended.add(pid)
                code = found.si_status if found.si_code == os.CLD_EXITED else -found.si_status
                with contextlib.suppress(OSError):
                    status.send(str(code).encode())

    while True:
        for key, _ in selector.select():
            if key.data == "woken":
                with contextlib.suppress(BlockingIOError):
                    os.read(woken_r, 4096)
                report_ended()
            elif key.data == "control":
                message, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 4)
                if not message:
                    for pid in children:  # the test process has gone: so do the children it left
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    return None
                request: _Request = pickle.loads(message)
                status = socket.socket(fileno=fds[0])
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    for other in children.values():
                        other.close()
                    for fd in (control.fileno(), woken_r, woken_w):
                        os.close(fd)
                    status.close()
                    signal.set_wakeup_fd(-1)
                    return request, fds[1:]
                for fd in fds[1:]:
                    os.close(fd)
                children[pid] = status
                selector.register(status, selectors.EVENT_READ, pid)
                status.send(f"pid {pid}".encode())
                report_ended()  # one that ended before it was listed sent no signal this loop saw
            else:  # a status socket closed: the test has its code, the zombie can go
                pid = key.data
                selector.unregister(key.fileobj)
                children.pop(pid).close()
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
                ended.discard(pid)


def _become(request: _Request, fds: list[int]) -> None:
    """Turn this fork into the process a fresh interpreter would be for ``request``."""
    import tempfile

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if request.new_session:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    unbuffered = bool(request.env.get("PYTHONUNBUFFERED"))
    encoding = request.env.get("PYTHONIOENCODING", "utf-8").partition(":")[0] or "utf-8"

    def text_stream(fd: int, writing: bool, errors: str) -> io.TextIOWrapper:
        raw = io.FileIO(fd, "w" if writing else "r", closefd=False)
        if writing and unbuffered:
            return io.TextIOWrapper(raw, encoding=encoding, errors=errors, write_through=True)
        buffered = io.BufferedWriter(raw) if writing else io.BufferedReader(raw)
        return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=fd == 2)

    for name, fd, writing, errors in (
        ("stdin", 0, False, "strict"),
        ("stdout", 1, True, "strict"),
        ("stderr", 2, True, "backslashreplace"),
    ):
        stream = text_stream(fd, writing, errors)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    sys.dont_write_bytecode = bool(request.env.get("PYTHONDONTWRITEBYTECODE"))
    tempfile.tempdir = None  # found again from this environment's TMPDIR
    sys.argv = list(request.argv)
    sys.path[0] = request.cwd if request.entry == "module" else str(Path(request.argv[0]).parent)
    from auditor.cli import signals

    # What importing auditor.cli does in a fresh `audit`: the template imported it as another program.
    if signals.started_as_command():
        signals.install(signals.end_at_once)


def main() -> None:
    import importlib

    control = socket.socket(fileno=int(sys.argv[1]))
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    # The audits forked here are those a terminal starts, whose Ctrl-C the tests send: a test run started in the
    # background (a shell's `&`) ignores SIGINT, which every child would inherit and the audit keep on purpose.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from importlib.metadata import entry_points

    stages = [entry.module for entry in entry_points(group="auditor.stages")]
    for module in [*WARM_MODULES, *stages]:
        with contextlib.suppress(ImportError):  # an optional extra that is not installed: imported by none
            importlib.import_module(module)
    control.send(b"ready")
    found = _serve(control)
    if found is None:
        return
    request, fds = found
    _become(request, fds)
    if request.entry == "module":
        import runpy

        runpy.run_module("auditor.cli", run_name="__main__", alter_sys=True)
    else:
        import runpy

        runpy.run_path(request.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
