"""The queue worker: takes queued server-side runs from the database and audits each in a child process."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError
from sqlalchemy import Engine

from auditor.core.errors import AuditError
from auditor.core.findings import Report
from auditor.core.portable import portable
from auditor.core.processes import has_ended, pid_namespace, start_ticks
from auditor.numeric.isolation import UserProcess
from auditor.service import store
from auditor.service.outage import first_line, outage_kind
from auditor.service.submitted import DataRoots

log = logging.getLogger("auditor.service.worker")

HEARTBEAT_S = 2.0
# Waits between tries of a write the database refused in an outage: doubling from the first to the last.
BACKOFF_START_S, BACKOFF_MAX_S = 0.5, 15.0
# A run whose worker has not reported for this long is failed: its process died (kill -9, a lost machine).
STALE_AFTER = dt.timedelta(seconds=15)
ABANDONED = (
    "the server stopped while this run was running (killed or restarted); no verdict was reached, submit it again"
)


def this_host() -> str:
    """The host name and PID namespace: process ids compare only within one (containers share host names)."""
    return f"{socket.gethostname()[:50]}@{pid_namespace()}"


def worker_name(host: str, pid: int) -> str:
    """``host:pid:start:nonce``: enough for a later server on this host to tell whether the holder still lives."""
    return f"{host}:{pid}:{start_ticks(pid) or '-'}:{secrets.token_hex(4)}"


def holder_gone(worker: str, host: str) -> bool:
    """True when ``worker`` names a process of ``host`` that has ended (its id unused, or reused by another)."""
    parts = worker.rsplit(":", 3)
    if len(parts) != 4 or parts[0] != host or not parts[1].isdigit():
        return False  # another host's worker: only its heartbeat going stale can tell
    return has_ended(int(parts[1]), None if parts[2] == "-" else parts[2])


class Outage:
    """Whether the worker already said that the database is down: one line an outage, not one a poll."""

    def __init__(self) -> None:
        self._down = False
        self._lock = threading.Lock()

    def begins(self) -> bool:
        with self._lock:
            first, self._down = not self._down, True
        return first

    def answered(self) -> None:
        with self._lock:
            was, self._down = self._down, False
        if was:
            log.warning("worker: the database answers again")


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
        self._outage = Outage()
        self._running: int | None = None  # the run being audited now

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
            if holder == self.name:
                if run_id == self._running:
                    continue
                # Held by this worker, which does not audit it: the claim committed, but its answer was lost to
                # a database outage. Nothing ran; it goes back to the queue (the heartbeat check spares it).
                if store.requeue_run(self.engine, run_id, self.name, "queued again: claimed as the database went away"):
                    log.warning("run %s was claimed as the database went away, and never started: queued again", run_id)
                continue
            dead = holder_gone(holder, self.host)
            # fail_run with the holder's name: a run another worker took over meanwhile is left alone.
            if dead and store.fail_run(self.engine, run_id, ABANDONED, worker=holder):
                log.warning("run %s was left running by %s, which has ended: marked failed", run_id, holder)
                failed.append(run_id)
        return failed

    @property
    def alive(self) -> bool:
        """Whether the worker's thread runs (False before start and after stop, or if it ever died)."""
        return self._thread is not None and self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.recover()
                # Runs of this host's live workers are left to recover(): a heartbeat missed in a database
                # outage does not make a live audit abandoned.
                alive_here = [
                    holder
                    for _, holder in store.running_holders(self.engine)
                    if holder.startswith(f"{self.host}:") and not holder_gone(holder, self.host)
                ]
                store.fail_abandoned(self.engine, STALE_AFTER, reason=ABANDONED, spare=alive_here)
                claimed = store.claim_next(self.engine, self.name)
                self._outage.answered()
            except Exception as exc:  # a database outage must not end the worker; the next poll tries again
                self._trouble(exc, "could not read the queue")
                claimed = None
            if claimed is None:
                self._stop.wait(self.settings.poll_s)
                continue
            try:
                self.run_one(claimed[0])
            except Exception:  # never reached by design; a worker that ends would leave the queue unserved
                log.exception("run %s: the worker could not settle it", claimed[0].id)

    def _trouble(self, exc: Exception, what: str) -> None:
        """Log a database outage once (until it ends), anything else with its traceback."""
        kind = outage_kind(exc)
        if kind is None:
            log.exception("worker %s", what)
        elif self._outage.begins():
            log.warning("worker: the database is %s (%s): %s; retrying", kind, what, first_line(exc))

    def _settle(self, what: str, write: Callable[[], object]) -> None:
        """Do ``write`` once the database answers, waiting longer after each failure; give up only on stop.

        A finished audit's verdict, or a failure, is kept until it is stored: never a run left running."""
        wait = BACKOFF_START_S
        while True:
            try:
                write()
                self._outage.answered()
                return
            except Exception as exc:
                if outage_kind(exc) is None:
                    raise  # not an outage: waiting would not help; the caller fails the run
                self._trouble(exc, what)
            if self._stop.wait(wait):
                log.warning("worker stopped before it could %s; the next start decides the run", what)
                return
            wait = min(wait * 2, BACKOFF_MAX_S)

    def run_one(self, run: store.Run) -> None:
        """Audit one claimed run; whatever happens, it ends completed or failed."""
        self._running = run.id
        try:
            self._audit(run)
        except Exception as exc:
            log.exception("run %s failed", run.id)
            self._fail(run, self.roots.public(f"the audit could not run: {first_line(exc)}"))
        finally:
            self._running = None

    def _audit(self, run: store.Run) -> None:
        try:
            root = self.roots.get(run.data_root or "")
        except AuditError as exc:
            self._fail(run, str(exc))
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
                    self._requeue(run)
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
            self._requeue(run)
            return
        if not outcome.complete or len(outcome.records) != 1:
            reason = outcome.reason or "the audit process ended without a report"
            self._fail(run, self.roots.public(reason))
            return
        try:
            # The report as submitters may read it: the roots by name, nothing of the server's other files.
            report = portable(self.roots.public_report(Report.model_validate_json(self.roots.hide(outcome.records[0]))))
        except ValidationError as exc:
            self._fail(run, f"the audit process returned no valid report: {exc}")
            return
        s = report.summary
        self._settle(
            f"store the report of run {run.id}",
            lambda: store.finish_run(
                self.engine,
                run.id,
                self.name,
                report_json=report.model_dump_json(),
                summary=(s.errors, s.warnings, s.infos),
                exit_code=report.exit_code,
                manifest_sha256=report.manifest.sha256 if report.manifest else None,
            ),
        )

    def _fail(self, run: store.Run, reason: str) -> None:
        self._settle(f"fail run {run.id}", lambda: store.fail_run(self.engine, run.id, reason, worker=self.name))

    def _requeue(self, run: store.Run) -> None:
        # Not waiting on a stop (which is what asked for it): a run the database did not take back stays
        # running under this worker's name, and the next start's recovery fails it.
        with contextlib.suppress(Exception):
            store.requeue_run(self.engine, run.id, self.name)

    def _pulse(self, run_id: int, done: threading.Event) -> None:
        started = dt.datetime.now(dt.UTC)
        while not done.wait(HEARTBEAT_S):
            elapsed = (dt.datetime.now(dt.UTC) - started).total_seconds()
            try:
                store.heartbeat(self.engine, run_id, self.name, f"running data stages ({elapsed:.0f} s)")
            except Exception as exc:  # the audit goes on; its verdict is stored once the database answers
                self._trouble(exc, f"heartbeat of run {run_id}")
