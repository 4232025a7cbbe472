"""Run one hostile case as a user would, and check the promises every case shares.

Every case must end: within its time limit, with no traceback, with a process exit code equal to the one
its report states, never passing (exit 0) where a leak was planted, and never leaving a temp file or an
earlier run's verdict behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests import forked

AUDIT = [sys.executable, "-m", "auditor.cli"]

# A leak every data stage sees: writer w1 and content digest d1 in train and test.
LEAKY_CSV = "sample_id,split,writer,sha\na,train,w1,d1\nb,train,w2,d2\nc,test,w1,d1\nd,test,w3,d3\n"
CLEAN_CSV = "sample_id,split,writer,sha\na,train,w1,d1\nb,train,w2,d2\nc,test,w3,d3\nd,test,w4,d4\n"


@dataclass
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    out_dir: Path

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def report(self) -> dict[str, Any] | None:
        path = self.out_dir / "report.json"
        if not path.is_file():
            return None
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def codes(self) -> list[str]:
        data = self.report() or {}
        return [f["code"] for s in data.get("stages", []) for f in s.get("findings", [])]


@dataclass
class Case:
    """A hostile input: how to build it under a temp dir, and what must come out."""

    name: str
    build: Callable[[Path], list[str]]  # returns the `audit` arguments
    exits: frozenset[int] = frozenset({2})
    leak: bool = False  # a leak is planted: exit 0 would be a false pass
    says: tuple[str, ...] = ()  # each must appear in the output (case-insensitive)
    check: Callable[[Outcome], None] | None = None
    timeout: float = 30.0
    signal_after: tuple[Callable[[Path], bool], int] | None = None  # (when, signal): interrupt the run
    env: dict[str, str] = field(default_factory=dict)
    stdout_pipe: Callable[[subprocess.Popen[bytes]], None] | None = None
    process: bool = False  # run as a real process (user code, signals, pipes); else in-process, faster


def project(
    tmp: Path,
    text: str | None = LEAKY_CSV,
    name: str = "manifest.csv",
    out: str = "out",
    **sections: Any,
) -> Path:
    """Write a manifest and an audit.yaml (groups [writer] unless overridden) and return the config path."""
    if text is not None:
        (tmp / name).write_text(text, encoding="utf-8")
    config: dict[str, Any] = {
        "version": 1,
        "manifest": {"path": name, "id": "sample_id", "split": "split"},
        "keys": {"groups": ["writer"]},
        "report": {"out_dir": out, "formats": ["json", "markdown", "html"]},
    }
    for key, value in sections.items():
        if value is None:
            config.pop(key, None)
        elif isinstance(value, dict) and isinstance(config.get(key), dict):
            merged = {**config[key], **value}
            config[key] = {k: v for k, v in merged.items() if v is not None}  # None removes a default key
        else:
            config[key] = value
    path = tmp / "audit.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def raw_config(tmp: Path, text: str, manifest: str | None = LEAKY_CSV) -> Path:
    if manifest is not None:
        (tmp / "manifest.csv").write_text(manifest, encoding="utf-8")
    path = tmp / "audit.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def run_case(case: Case, tmp: Path) -> Outcome:
    args = case.build(tmp)
    if not case.process:
        return _run_in_process(args, tmp)
    env = {**os.environ, "COLUMNS": "120", "PYTHONDONTWRITEBYTECODE": "1", **case.env}
    start = time.monotonic()
    proc = forked.popen(
        [*AUDIT, *args], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    try:
        if case.signal_after is not None:
            ready, sig = case.signal_after
            deadline = time.monotonic() + case.timeout
            while not ready(tmp) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if proc.poll() is None:
                proc.send_signal(sig)
        if case.stdout_pipe is not None:
            case.stdout_pipe(proc)
        stdout, stderr = proc.communicate(timeout=case.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"{case.name}: still running after {case.timeout} s") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    out_dir = _out_dir(tmp, args)
    return Outcome(
        proc.returncode,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
        time.monotonic() - start,
        out_dir,
    )


def _run_in_process(args: list[str], tmp: Path) -> Outcome:
    from typer.testing import CliRunner

    from auditor.cli import app

    start = time.monotonic()
    saved = Path.cwd()
    os.chdir(tmp)
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=True)
    finally:
        os.chdir(saved)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(result.exception))
        raise AssertionError(f"an exception escaped the CLI:\n{tb}")
    return Outcome(result.exit_code, result.stdout, result.stderr, time.monotonic() - start, _out_dir(tmp, args))


def _out_dir(tmp: Path, args: list[str]) -> Path:
    if "--out" in args:
        return Path(args[args.index("--out") + 1])
    return tmp / "out"


def check_promises(case: Case, outcome: Outcome) -> None:
    """The promises every case shares, then the case's own expectations."""
    text = outcome.output
    killed = case.signal_after is not None and case.signal_after[1] == signal.SIGKILL
    assert "Traceback (most recent call last)" not in text, f"{case.name}: a traceback reached the user:\n{text}"
    if not killed:
        assert outcome.exit_code in case.exits, (
            f"{case.name}: exit {outcome.exit_code}, expected {set(case.exits)}:\n{text}"
        )
    if case.leak:
        assert outcome.exit_code != 0, f"{case.name}: a planted leak passed:\n{text}"
    flat = "".join(text.split()).lower()  # the terminal wraps long lines wherever its width falls
    for phrase in case.says:
        assert "".join(phrase.split()).lower() in flat, f"{case.name}: output does not say {phrase!r}:\n{text}"
    report = _quiet_report(outcome)
    if report is not None and report.get("status", "completed") == "completed" and not killed:
        assert report.get("exit_code") == outcome.exit_code, (
            f"{case.name}: the process exited {outcome.exit_code} but report.json says {report.get('exit_code')}"
        )
    if report is not None and killed:
        assert report.get("status") not in (None, "completed"), f"{case.name}: a killed run left a verdict"
    if _is_dir(outcome.out_dir) and not killed:
        leftovers = [p.name for p in outcome.out_dir.iterdir() if p.name.endswith(".tmp")]
        assert leftovers == [], f"{case.name}: temp files left behind: {leftovers}"
    if case.check is not None:
        case.check(outcome)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # e.g. a name too long for the file system: nothing was written there
        return False


def _quiet_report(outcome: Outcome) -> dict[str, Any] | None:
    try:
        return outcome.report()
    except (OSError, ValueError):  # no readable report, e.g. an --out name the file system refuses
        return None
