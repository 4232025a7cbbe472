"""`audit serve`: migrate the database, make the first admin token, start the queue worker and the HTTP server."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from auditor.core.errors import AuditError
from auditor.service import store
from auditor.service.app import MAX_BODY_BYTES, create_app
from auditor.service.context import ServiceContext
from auditor.service.db import DatabaseError, make_engine, sqlite_url, upgrade
from auditor.service.submitted import DataRoots
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
    workers: int = 1
    job_timeout_s: float = 3600.0
    job_memory_mb: int | None = None
    max_body_bytes: int = MAX_BODY_BYTES


def database_url(data_dir: Path, database: str | None) -> str:
    """The URL given, else SQLite in ``data_dir`` (created private to the user)."""
    if database:
        return database
    try:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"--data-dir {data_dir}: cannot create it: {exc.strerror or exc}") from None
    if not os.access(data_dir, os.W_OK):
        raise DatabaseError(f"--data-dir {data_dir}: not writable")
    return sqlite_url(data_dir)


def serve(options: ServeOptions) -> None:
    """Run until interrupted; every problem before the server listens is an AuditError (exit 2)."""
    import uvicorn

    roots = DataRoots.parse(options.roots)
    url = database_url(options.data_dir, options.database)
    upgrade(url)
    engine = make_engine(url)
    admin = store.ensure_admin(engine)
    address = f"http://{_url_host(options.host)}:{options.port}"
    public = options.public_url or address
    ctx = ServiceContext(engine=engine, roots=roots, public_url=public)
    app = create_app(ctx, max_body_bytes=options.max_body_bytes)
    settings = WorkerSettings(timeout_s=options.job_timeout_s, memory_mb=options.job_memory_mb)
    workers = [Worker(engine, roots, settings) for _ in range(max(0, options.workers))]
    config = uvicorn.Config(app, host=options.host, port=options.port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    print(f"split-auditor service on {address} (database: {_safe_url(url)})", flush=True)
    if admin is not None:
        print("the first admin token follows; it is shown only now and stored only as a hash:", flush=True)
        print(f"admin token: {admin}", flush=True)
    for name, path in sorted(roots.roots.items()):
        print(f"data root {name}: {path}", flush=True)
    for worker in workers:
        worker.start()
    try:
        server.run()
    finally:
        for worker in workers:
            worker.stop()
        engine.dispose()
    if not server.started:
        raise AuditError(f"the server could not listen on {options.host}:{options.port} (in use, or not allowed)")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _safe_url(url: str) -> str:
    """The database URL without its password, for the start-up line."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def main() -> None:  # pragma: no cover - `python -m auditor.service.server` for debugging
    serve(ServeOptions())
    sys.exit(0)
