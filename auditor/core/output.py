"""Report files: atomic writes, the in-progress marker that stands in for them, and reading them back.

A run first replaces the previous reports with a `report.json` marker (status running), then writes
every file to a temp name and renames report.json last: a report.json with status completed means every
report file in the directory is from that run. Anything else in report.json is not a verdict.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import json
import os
import re
import socket
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from auditor.core.errors import ReportReadError, ReportWriteError
from auditor.core.paths import open_regular, path_problem, same_file

REPORT_JSON = "report.json"
REPORT_READ_LIMIT = 256 * 2**20  # a report of a thousand splits is a few MB; no more than this is read
STALE_TEMP_AGE_S = 300.0  # a temp file this old is abandoned even when its pid now names another process


def check_writable(out_dir: Path) -> None:
    """Fail before the audit runs, not after, when the report directory cannot be written.

    Nothing is created here: a config that turns out to be wrong must leave no empty report directory.
    """
    try:
        probe = out_dir
        while not probe.exists():
            if probe.parent == probe:
                break
            probe = probe.parent
        problem = None
        if probe.exists() and not probe.is_dir():
            problem = f"{probe} is a file, not a directory"
        elif not os.access(probe, os.W_OK | os.X_OK):
            problem = f"no permission to write in {probe}"
    except OSError as exc:  # a name too long for the file system, a symlink loop, ...
        problem = _os_problem(exc)
    if problem:
        raise ReportWriteError(
            f"cannot write the report directory {out_dir}: {problem}; choose another with --out or report.out_dir"
        )


def _os_problem(exc: OSError) -> str:
    return path_problem(exc)


def _make_dir(out_dir: Path) -> None:
    check_writable(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportWriteError(f"cannot write the report directory {out_dir}: {_os_problem(exc)}") from None


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# How the beginning of each file this tool writes beside its reports reads: a file of that name that does not
# begin so was not written by it (a manifest, an artifact, a note of the user's) and is never removed or
# replaced. report.json is read whole instead (read_report_state). tests/core/test_output.py renders every
# format and checks that each is recognised here.
_HEAD_BYTES = 4096
_SIGNATURES: dict[str, re.Pattern[bytes]] = {
    "report.md": re.compile(rb"## split-auditor report\n"),
    "report.html": re.compile(rb"<!doctype html>.{0,2000}?<title>split-auditor report</title>", re.S),
    "report.junit.xml": re.compile(rb'<\?xml[^>]{0,100}\?>\s*<testsuite name="split-auditor"'),
    "report.sarif": re.compile(
        rb'\{\s*"\$schema": "[^"]*sarif[^"]*",.{0,400}?"driver": \{\s*"name": "split-auditor"', re.S
    ),
    "diff.md": re.compile(rb"## split-auditor diff\n"),
    "contamination.clean.txt": re.compile(rb"# split-auditor clean subset: "),
    "diff.html": re.compile(rb"<!doctype html>.{0,400}?<title>split-auditor diff</title>", re.S),
    "diff.json": re.compile(rb'\{\s*"old": \{\s*"path": .{0,2000}?"tool_version": ', re.S),
}


def written_here(path: Path) -> bool:
    """Whether ``path`` holds a report (or a run's marker, or a diff) this tool wrote, by its content."""
    if path.name == REPORT_JSON:
        return read_report_state(path).status is not RunStatus.NOT_A_REPORT
    signature = _SIGNATURES.get(path.name)
    if signature is None:
        return False
    try:
        with open_regular(path) as fh:
            return signature.match(fh.read(_HEAD_BYTES)) is not None
    except OSError:
        return False


def check_replaceable(out_dir: Path, names: Iterable[str]) -> None:
    """ReportWriteError when a file about to be written in ``out_dir`` is there and was not written by this
    tool: it is never replaced, whatever it is (a manifest named report.json, someone's notes)."""
    for name in names:
        path = out_dir / name
        with contextlib.suppress(OSError):
            if (path.exists() or path.is_symlink()) and not written_here(path):
                raise ReportWriteError(
                    f"{path} is not a file split-auditor wrote, so it is not replaced; "
                    "move it, or choose another report directory (--out or report.out_dir)"
                )


def check_not_inputs(outputs: Iterable[Path], inputs: Iterable[tuple[str, Path]], option: str) -> None:
    """ReportWriteError when an output path is one of the command's own inputs (the same path or the same
    file under another name), before anything is written: an input is never replaced or removed."""
    wanted = list(inputs)
    for output in outputs:
        for what, given in wanted:
            if same_file(output, given):
                raise ReportWriteError(
                    f"{option}: {output} is {what} of this command ({given}); an input is never replaced or "
                    f"removed: choose another {option}"
                )


def remove_stale(out_dir: Path, names: Iterable[str], keep: Iterable[Path] = ()) -> list[Path]:
    """Delete earlier report files of ours that this run does not rewrite, so none contradicts it: only those
    this tool wrote (by their content) and none of ``keep`` (the run's inputs). Returns those left in place."""
    kept = list(keep)
    left = []
    for name in names:
        path = out_dir / name
        with contextlib.suppress(OSError):
            if not (path.exists() or path.is_symlink()):
                continue
            if any(same_file(path, k) for k in kept) or not written_here(path):
                left.append(path)
                continue
            path.unlink(missing_ok=True)
    return left


def _host_tag() -> str:
    """A short tag of this host, so a temp file's pid is only checked on the host that wrote it."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _temp_prefix(name: str) -> str:
    # The writer's pid and host are in the name: a later run can tell an abandoned temp file from a live one.
    return f".{name}.{os.getpid()}-{_host_tag()}."


# "<pid>-<host tag>" as _temp_prefix writes it; a bare "<pid>" is taken to be from this host.
_WRITER = re.compile(r"(\d{1,10})(?:-([0-9a-f]{8}))?")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: beyond any pid, so no process has it
        return False
    except OSError:  # EPERM: the pid exists but belongs to someone else
        return True
    return True


def remove_stale_temps(out_dir: Path, names: Iterable[str], max_age_s: float = STALE_TEMP_AGE_S) -> list[Path]:
    """Delete `.<name>.*.tmp` files left by a writer that died (its pid is gone) or long ago; return them."""
    removed: list[Path] = []
    if not out_dir.is_dir():
        return removed
    host, now = _host_tag(), time.time()
    for name in names:
        for path in out_dir.glob(f".{name}.*.tmp"):
            writer = _WRITER.fullmatch(path.name[len(name) + 2 :].split(".", 1)[0])
            try:
                dead = writer is not None and writer[2] in (None, host) and not _pid_alive(int(writer[1]))
                if dead or now - path.lstat().st_mtime > max_age_s:
                    path.unlink()
                    removed.append(path)
            except OSError:
                continue  # gone already, or not ours to delete: never a reason to fail the run
    return removed


def remove_own_temps(out_dir: Path, names: Iterable[str]) -> None:
    """Delete this process's temp files: an interrupted run leaves none behind."""
    for name in names:
        for path in out_dir.glob(f"{_temp_prefix(name)}*.tmp"):
            with contextlib.suppress(OSError):
                path.unlink()


def write_atomic(out_dir: Path, files: Mapping[str, str], last: str | None = REPORT_JSON) -> list[Path]:
    """Write {file name: text} into out_dir; on any failure or interruption no temp file is left behind.

    Every file is staged under a temp name before any is renamed into place, and ``last`` is renamed
    after all others: when it is there, so is everything written with it.
    """
    _make_dir(out_dir)
    staged: list[tuple[str, Path]] = []
    try:
        for name, text in files.items():
            fd, tmp_name = tempfile.mkstemp(prefix=_temp_prefix(name), suffix=".tmp", dir=out_dir)
            staged.append((name, Path(tmp_name)))
            # mkstemp creates 0600 files; a report is for sharing, so use the usual mode under the umask.
            os.chmod(tmp_name, 0o666 & ~_umask())
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        written = []
        for name, staged_path in sorted(staged, key=lambda item: item[0] == last):
            target = out_dir / name
            os.replace(staged_path, target)
            written.append(target)
        return written
    except BaseException as exc:  # also a signal turned into an exception: temp files never outlive the run
        for _, leftover in staged:
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ReportWriteError(f"cannot write the report into {out_dir}: {_os_problem(exc)}") from None
        raise


class RunStatus(enum.StrEnum):
    """What a report.json says about its run; only COMPLETED is a verdict."""

    COMPLETED = "completed"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    NOT_A_REPORT = "not a report"


class RunMarker(BaseModel):
    """The report.json of a run that has no verdict (yet): who is writing it, from which inputs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Literal["running", "interrupted"]
    pid: int
    hostname: str
    started_at: str
    config_path: str | None
    config_sha256: str | None
    tool_version: str
    signal: str | None = None
    interrupted_at: str | None = None

    @classmethod
    def start(cls, config_path: str | None, config_sha256: str | None, tool_version: str) -> RunMarker:
        """The marker of a run starting now in this process."""
        return cls(
            status="running",
            pid=os.getpid(),
            hostname=socket.gethostname(),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            config_path=config_path,
            config_sha256=config_sha256,
            tool_version=tool_version,
        )

    def interrupted(self, signal_name: str) -> RunMarker:
        """The same run, stopped by a signal before it had a verdict."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        return self.model_copy(update={"status": "interrupted", "signal": signal_name, "interrupted_at": now})


def write_marker(out_dir: Path, marker: RunMarker, others: Iterable[str], keep: Iterable[Path] = ()) -> Path:
    """Replace report.json by ``marker``, then delete the ``others`` report files of an earlier run (those
    this tool wrote, none of ``keep``).

    report.json goes first: whatever moment a run dies at, report.json never holds an earlier verdict.
    """
    [path] = write_atomic(out_dir, {REPORT_JSON: marker.model_dump_json(indent=2, exclude_none=True) + "\n"})
    remove_stale(out_dir, [name for name in others if name != REPORT_JSON], keep)
    return path


@dataclass(frozen=True)
class ReportState:
    """A report.json read back and classified, so that a consumer can refuse what is not a verdict."""

    path: Path
    status: RunStatus
    reason: str
    data: Mapping[str, Any] | None = None
    writer_alive: bool | None = None  # for a running marker written on this host: is its process alive?

    @property
    def is_verdict(self) -> bool:
        return self.status is RunStatus.COMPLETED


def read_report_state(path: Path | str) -> ReportState:
    """Classify a report.json as completed, running, interrupted or not a report; never raises."""
    path = Path(path)
    try:
        with open_regular(path) as fh:  # a FIFO or a device is refused, never waited on or read forever
            raw = fh.read(REPORT_READ_LIMIT + 1)
        if len(raw) > REPORT_READ_LIMIT:
            return ReportState(path, RunStatus.NOT_A_REPORT, f"{path}: larger than {REPORT_READ_LIMIT // 2**20} MiB")
        data = json.loads(raw)
    except FileNotFoundError:
        return ReportState(path, RunStatus.NOT_A_REPORT, f"{path} does not exist")
    except RecursionError:  # JSON nested deeper than any report: the decoder's stack ran out
        return ReportState(path, RunStatus.NOT_A_REPORT, f"{path}: JSON nested too deeply to be a report")
    except (OSError, ValueError) as exc:
        problem = _os_problem(exc) if isinstance(exc, OSError) else f"not JSON ({exc})"
        return ReportState(path, RunStatus.NOT_A_REPORT, f"{path}: {problem}")
    if not isinstance(data, dict):
        return ReportState(path, RunStatus.NOT_A_REPORT, f"{path}: not a report (expected a JSON object)")
    status = data.get("status", RunStatus.COMPLETED.value)  # reports written before the marker: no status
    if status in (RunStatus.RUNNING, RunStatus.INTERRUPTED):
        return _marker_state(path, data)
    code = data.get("exit_code")
    # JSON's false is Python's 0 to isinstance(int): a verdict's exit code is 0, 1 or 2 and nothing else
    verdict = isinstance(code, int) and not isinstance(code, bool) and code in (0, 1, 2)
    if status != RunStatus.COMPLETED or not verdict or "stages" not in data:
        return ReportState(path, RunStatus.NOT_A_REPORT, f"{path}: not an audit report (no status and exit_code)")
    return ReportState(path, RunStatus.COMPLETED, f"{path}: completed, exit code {data['exit_code']}", data)


def _marker_state(path: Path, data: dict[str, Any]) -> ReportState:
    pid, host, started = data.get("pid"), data.get("hostname"), data.get("started_at", "?")
    who = f"pid {pid} on {host}, started {started}"
    if data["status"] == RunStatus.INTERRUPTED:
        why = f"{path}: the run ({who}) was interrupted by {data.get('signal') or 'a signal'}; it has no verdict"
        return ReportState(path, RunStatus.INTERRUPTED, why, data)
    alive = _pid_alive(pid) if isinstance(pid, int) and host == socket.gethostname() else None
    if alive is False:
        why = f"{path}: the run ({who}) ended without a verdict (killed, or out of memory); run the audit again"
    else:
        why = f"{path}: the run ({who}) is still in progress; it has no verdict yet"
    return ReportState(path, RunStatus.RUNNING, why, data, alive)


def require_verdict(path: Path | str) -> Mapping[str, Any]:
    """The data of a completed report; ReportReadError (saying why) for a marker or anything else."""
    state = read_report_state(path)
    if state.data is None or not state.is_verdict:
        expected = "; expected a report.json written by `audit run`" if state.status is RunStatus.NOT_A_REPORT else ""
        raise ReportReadError(f"not a verdict: {state.reason}{expected}")
    return state.data
