"""The queue worker: takes queued server-side runs from the database and audits each in a child process."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import secrets
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from sqlalchemy import Engine

from auditor.core.errors import AuditError
from auditor.core.findings import Report
from auditor.core.portable import portable
from auditor.numeric.isolation import UserProcess
from auditor.service import store
from auditor.service.submitted import DataRoots

log = logging.getLogger("auditor.service.worker")

HEARTBEAT_S = 2.0
# A run whose worker has not reported for this long is failed: its process died (kill -9, a lost machine).
STALE_AFTER = dt.timedelta(seconds=15)
ABANDONED = (
    "the server stopped while this run was running (killed or restarted); no verdict was reached, submit it again"
)


def _start_ticks(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, Linux), or None where /proc cannot say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        # The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
        return stat[stat.rindex(")") + 2 :].split()[19]
    except (OSError, ValueError, IndexError):
        return None


def this_host() -> str:
    """The host name and PID namespace: process ids compare only within one (containers share host names)."""
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = "-"
    return f"{socket.gethostname()[:50]}@{namespace}"


def worker_name(host: str, pid: int) -> str:
    """``host:pid:start:nonce``: enough for a later server on this host to tell whether the holder still lives."""
    return f"{host}:{pid}:{_start_ticks(pid) or '-'}:{secrets.token_hex(4)}"


def holder_gone(worker: str, host: str) -> bool:
    """True when ``worker`` names a process of ``host`` that has ended (its id unused, or reused by another)."""
    parts = worker.rsplit(":", 3)
    if len(parts) != 4 or parts[0] != host or not parts[1].isdigit():
        return False  # another host's worker: only its heartbeat going stale can tell
    pid, started = int(parts[1]), parts[2]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # a process of another user holds the id: compare start times
    if started == "-":
        return False
    now_started = _start_ticks(pid)
    return now_started is not None and now_started != started


@dataclass(frozen=True)
class WorkerSettings:
    poll_s: float = 0.5
    timeout_s: float = 3600.0
    memory_mb: int | None = None
    stage_cpu_s: float | None = 900.0  # CPU seconds one stage may use (`audit serve --stage-cpu`)


class Worker:
    """A thread that runs queued audits one at a time; any number of these may share one database."""

    def __init__(self, engine: Engine, roots: DataRoots, settings: WorkerSettings | None = None) -> None:
        self.engine, self.roots = engine, roots
        self.settings = settings or WorkerSettings()
        self.host = this_host()
        self.name = worker_name(self.host, os.getpid())
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._current: UserProcess | None = None
        self._guard = threading.Lock()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="audit-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop taking runs and kill the audit in progress; its run goes back to the queue, never left running."""
        with self._guard:  # a run being started either sees the flag or is registered to be killed here
            self._stop.set()
            current = self._current
        if current is not None:
            current.kill()
        if self._thread is not None:
            self._thread.join(timeout)

    def recover(self) -> list[int]:
        """Fail the running runs whose worker on this host is dead: a kill -9 must not wait for a stale heartbeat."""
        failed = []
        for run_id, holder in store.running_holders(self.engine):
            dead = holder != self.name and holder_gone(holder, self.host)
            # fail_run with the holder's name: a run another worker took over meanwhile is left alone.
            if dead and store.fail_run(self.engine, run_id, ABANDONED, worker=holder):
                log.warning("run %s was left running by %s, which has ended: marked failed", run_id, holder)
                failed.append(run_id)
        return failed

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.recover()
                store.fail_abandoned(self.engine, STALE_AFTER, reason=ABANDONED)
                claimed = store.claim_next(self.engine, self.name)
            except Exception:  # a database hiccup must not end the worker; the next poll tries again
                log.exception("worker could not read the queue")
                claimed = None
            if claimed is None:
                self._stop.wait(self.settings.poll_s)
                continue
            self.run_one(claimed[0])

    def run_one(self, run: store.Run) -> None:
        """Audit one claimed run; whatever happens, it ends completed or failed."""
        try:
            self._audit(run)
        except Exception as exc:
            log.exception("run %s failed", run.id)
            store.fail_run(self.engine, run.id, self.roots.public(f"the audit could not run: {exc}"), worker=self.name)

    def _audit(self, run: store.Run) -> None:
        try:
            root = self.roots.get(run.data_root or "")
        except AuditError as exc:
            store.fail_run(self.engine, run.id, str(exc), worker=self.name)
            return
        payload = {
            "config_text": run.config_text,
            "root": str(root),
            "base": run.base or "",
            "stage_cpu_s": self.settings.stage_cpu_s,
        }
        process = UserProcess(
            "auditor.service.job:run_data_stages",
            payload,
            timeout_s=self.settings.timeout_s,
            memory_mb=self.settings.memory_mb,
            subject="the audit",
            limit_name="audit serve --job-timeout",
        )
        beat = threading.Event()
        pulse = threading.Thread(target=self._pulse, args=(run.id, beat), daemon=True)
        with process:
            with self._guard:
                if self._stop.is_set():  # stopped between the claim and the start: nothing ran
                    store.requeue_run(self.engine, run.id, self.name)
                    return
                self._current = process
                process.start()
            try:
                pulse.start()
                outcome = process.join()
            finally:
                beat.set()
                self._current = None
        with contextlib.suppress(RuntimeError):
            pulse.join(5)
        if self._stop.is_set() and not outcome.complete:
            # A graceful stop (SIGTERM, a deploy): the audit had not decided anything, so it waits for the next
            # start instead of failing. Only a worker that died without saying so leaves a run failed.
            store.requeue_run(self.engine, run.id, self.name)
            return
        if not outcome.complete or len(outcome.records) != 1:
            reason = outcome.reason or "the audit process ended without a report"
            store.fail_run(self.engine, run.id, self.roots.public(reason), worker=self.name)
            return
        try:
            # The report as submitters may read it: the roots by name, nothing of the server's other files.
            report = portable(self.roots.public_report(Report.model_validate_json(self.roots.hide(outcome.records[0]))))
        except ValidationError as exc:
            store.fail_run(self.engine, run.id, f"the audit process returned no valid report: {exc}", worker=self.name)
            return
        s = report.summary
        store.finish_run(
            self.engine,
            run.id,
            self.name,
            report_json=report.model_dump_json(),
            summary=(s.errors, s.warnings, s.infos),
            exit_code=report.exit_code,
            manifest_sha256=report.manifest.sha256 if report.manifest else None,
        )

    def _pulse(self, run_id: int, done: threading.Event) -> None:
        started = dt.datetime.now(dt.UTC)
        while not done.wait(HEARTBEAT_S):
            elapsed = (dt.datetime.now(dt.UTC) - started).total_seconds()
            try:
                store.heartbeat(self.engine, run_id, self.name, f"running data stages ({elapsed:.0f} s)")
            except Exception:
                log.exception("heartbeat of run %s failed", run_id)
