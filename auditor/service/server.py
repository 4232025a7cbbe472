"""`audit serve`: migrate the database, make the first admin token, start the queue worker and the HTTP server."""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from auditor.core.errors import AuditError
from auditor.numeric.scratch import remove_orphans
from auditor.service import store
from auditor.service.app import MAX_BODY_BYTES, create_app
from auditor.service.context import ServiceContext
from auditor.service.db import database_url, driver_error, open_database, safe_url
from auditor.service.submitted import DataRoots
from auditor.service.throttle import BURST, Throttle
from auditor.service.worker import Worker, WorkerSettings

DEFAULT_DATA_DIR = Path(".split-auditor")


@dataclass(frozen=True)
class ServeOptions:
    data_dir: Path = DEFAULT_DATA_DIR
    database: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    roots: list[str] = field(default_factory=list)
    public_url: str | None = None
    workers: int = 2  # two: one long audit does not hold up the queue behind it
    job_timeout_s: float = 3600.0
    job_memory_mb: int | None = None
    stage_cpu_s: float = 900.0
    max_body_bytes: int = MAX_BODY_BYTES
    auth_failures: int = BURST


class ListenError(AuditError):
    """The server cannot listen on the address it was given."""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` before anything else starts, so an address in use is a clean error."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ListenError(f"--host {host!r}: not an address this machine knows ({exc.strerror})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for TIME_WAIT
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        why = "another process listens there" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise ListenError(f"cannot listen on {_url_host(host)}:{port}: {why}") from None
    sock.set_inheritable(False)
    return sock


def serve(options: ServeOptions) -> None:
    """Run until interrupted; every problem before the server listens is an AuditError (exit 2)."""
    import uvicorn

    roots = DataRoots.parse(options.roots)
    url = database_url(options.data_dir, options.database)
    sock = listen(options.host, options.port)
    try:
        engine = open_database(url)
    except BaseException:
        sock.close()
        raise
    try:
        admin = store.ensure_admin(engine)
    except SQLAlchemyError as exc:
        sock.close()
        engine.dispose()
        raise driver_error(url, exc) from None
    port = sock.getsockname()[1]
    address = f"http://{_url_host(options.host)}:{port}"
    public = options.public_url or address
    settings = WorkerSettings(
        timeout_s=options.job_timeout_s, memory_mb=options.job_memory_mb, stage_cpu_s=options.stage_cpu_s
    )
    workers = [Worker(engine, roots, settings) for _ in range(max(0, options.workers))]
    ctx = ServiceContext(
        engine=engine,
        roots=roots,
        public_url=public,
        workers=tuple(workers),
        throttle=Throttle(burst=options.auth_failures),
    )
    app = create_app(ctx, max_body_bytes=options.max_body_bytes)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    print(f"split-auditor service on {address} (database: {safe_url(url)})", flush=True)
    if admin is not None:
        print("the first admin token follows; it is shown only now and stored only as a hash:", flush=True)
        print(f"admin token: {admin}", flush=True)
    for name, path in sorted(roots.roots.items()):
        print(f"data root {name}: {path}", flush=True)
    left = remove_orphans()  # the config copies of audits whose server was killed (kill -9 cleans nothing up)
    if left:
        print(f"removed {len(left)} temp folder(s) left by audits of ended processes", flush=True)
    for worker in workers:
        worker.start()
    try:
        with _signals_end_the_server():
            server.run(sockets=[sock])
    finally:
        for worker in workers:
            worker.stop()  # a run in progress goes back to the queue: a graceful stop decides nothing
        engine.dispose()
        with contextlib.suppress(OSError):
            sock.close()
    if not server.started:
        raise ListenError(f"the server could not start on {address}")


@contextlib.contextmanager
def _signals_end_the_server() -> Iterator[None]:
    """uvicorn shuts down on SIGTERM/SIGINT and then raises the signal again for the previous handler; with
    the defaults that kills the process before the workers are stopped, so the previous handler here only
    notes it and `serve` returns normally."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [s for s in (signal.SIGTERM, signal.SIGINT) if signal.getsignal(s) is not signal.SIG_IGN]
    previous = {s: signal.signal(s, lambda signum, frame: None) for s in wanted}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def main() -> None:  # pragma: no cover - `python -m auditor.service.server` for debugging
    serve(ServeOptions())
    sys.exit(0)
