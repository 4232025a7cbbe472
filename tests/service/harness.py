"""Live servers and throwaway PostgreSQL clusters for the service tests: real processes on loopback only."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests import forked

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_bin(name: str) -> str | None:
    """A PostgreSQL server program from PATH or Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@dataclass
class PgCluster:
    """A PostgreSQL cluster in a temp folder, on a free loopback port, trusting local connections."""

    folder: Path
    port: int
    _as_user: list[str] = field(default_factory=list)
    _count: int = 0

    @classmethod
    def start(cls) -> PgCluster:
        initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError("PostgreSQL's initdb/pg_ctl are not installed (Debian package `postgresql`)")
        folder = Path(tempfile.mkdtemp(prefix="audit-pg-"))
        as_user: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root: run it as the package's `postgres` user
            user = pwd.getpwnam("postgres")
            os.chown(folder, user.pw_uid, user.pw_gid)
            as_user = ["runuser", "-u", "postgres", "--"]
        cluster = cls(folder, free_port(), as_user)
        data = folder / "data"
        cluster._run([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        for attempt in range(3):  # the free port may be taken by another test process before the server binds it
            try:
                cluster.resume()
                return cluster
            except RuntimeError:
                if attempt == 2:
                    raise
                cluster.port = free_port()
        raise AssertionError("unreachable")

    def _pg_ctl(self, *args: str) -> None:
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl is not None
        self._run([pg_ctl, "-D", str(self.folder / "data"), *args])

    def halt(self) -> None:
        """Stop the server at once, as a crash would (no checkpoint, clients cut off); resume() starts it again."""
        self._pg_ctl("-m", "immediate", "-w", "stop")

    def resume(self) -> None:
        """Start the server on its port (again)."""
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=on"
        self._pg_ctl("-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60", "start")

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run([*self._as_user, *argv], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {done.stdout}\n{done.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL: each test starts from nothing."""
        import psycopg

        self._count += 1
        name = f"audit_{os.getpid()}_{self._count}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.halt()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class LiveServer:
    """`audit serve` as a child process on a free loopback port; its output is collected as it runs."""

    data_dir: Path
    database: str | None = None
    roots: dict[str, Path] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)
    port: int = 0
    process: subprocess.Popen[str] | forked.ForkedProcess | None = None
    output: list[str] = field(default_factory=list)
    admin_token: str | None = None
    fresh: bool = False  # a fresh interpreter, not a fork of the tests' warm template (tests/forked.py)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        # Port 0 unless a test needs a given one: the server binds a free port itself and names it, so a port
        # picked here and taken by another test's server meanwhile can never answer for this one.
        wanted = self.port
        argv = [
            sys.executable,
            "-m",
            "auditor.cli",
            "serve",
            "--port",
            str(wanted),
            "--data-dir",
            str(self.data_dir),
        ]
        if self.database:
            argv += ["--database", self.database]
        for name, path in self.roots.items():
            argv += ["--data-root", f"{name}={path}"]
        argv += self.extra
        self.output = []
        start = subprocess.Popen if self.fresh else forked.popen
        self.process = start(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=REPO,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        threading.Thread(target=self._collect, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                time.sleep(0.2)
                raise RuntimeError(f"audit serve exited {self.process.returncode}:\n{self.text}")
            self.port = self._bound_port() or 0
            if self.port and (not wanted or self.port == wanted):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                        break
            time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError(f"audit serve did not answer within {START_TIMEOUT_S} s:\n{self.text}")
        for line in self.output:
            if line.startswith("admin token: "):
                self.admin_token = line.split(": ", 1)[1].strip()
        return self

    def _bound_port(self) -> int | None:
        """The port the server says it listens on, once it has said so."""
        for line in list(self.output):
            found = re.match(r"split-auditor service on http://[^ ]*:(\d+) ", line)
            if found:
                return int(found.group(1))
        return None

    def _collect(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.output)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL of the whole group after a grace period."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(30)  # a graceful stop ends the running audit first; a loaded machine is slow
        except subprocess.TimeoutExpired:
            self.kill9()

    def kill9(self) -> None:
        """kill -9 of the server and everything it started: no handler, no cleanup runs."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


@contextlib.contextmanager
def live_server(data_dir: Path, **kwargs: object) -> Iterator[LiveServer]:
    server = LiveServer(data_dir, **kwargs).start()  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.stop()


def run_cli(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """`audit ARGS` in this process (the command's own code, without a second interpreter's start-up);
    SPLIT_AUDITOR_TOKEN set only when ``token`` is given."""
    from typer.testing import CliRunner

    from auditor.cli import app

    result = CliRunner().invoke(app, list(args), env={"SPLIT_AUDITOR_TOKEN": token})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)
