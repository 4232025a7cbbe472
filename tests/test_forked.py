"""A forked `audit` (tests/forked.py) is the process a fresh interpreter is: same output, exit, signals, session."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import forked
from tests.examples import examples, full_runs

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data" / "handwriting" / "audit.yaml"
MODULE = [sys.executable, "-m", "auditor.cli"]
SCRIPT = str(Path(sys.executable).parent / "audit")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks are made on Linux only")


Done = subprocess.CompletedProcess[str]


def both(argv: list[str], **kwargs: object) -> tuple[Done, Done]:
    fresh = subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload]
    fork = forked.run(argv, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[arg-type]
    return fresh, fork


def test_an_audit_command_is_forked_and_anything_else_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    assert forked.forkable([*MODULE, "run"]) == "module"
    assert forked.forkable([SCRIPT, "run"]) == "script"
    assert forked.forkable([sys.executable, "-X", "importtime", "-m", "auditor.cli"]) is None  # interpreter options
    assert forked.forkable([sys.executable, "-c", "pass"]) is None
    monkeypatch.setenv(forked.COLD_ENV, "1")
    assert forked.forkable([*MODULE, "run"]) is None


@pytest.mark.parametrize("entry", [MODULE, [SCRIPT]], ids=["python -m auditor.cli", "audit"])
def test_help_names_the_command_as_a_fresh_start_does(entry: list[str]) -> None:
    fresh, fork = both([*entry, "--help"], env={**os.environ, "COLUMNS": "100"})
    assert fork.returncode == fresh.returncode == 0
    assert fork.stdout == fresh.stdout and fork.stderr == fresh.stderr
    assert "Usage: " in fork.stdout


def test_a_run_gives_the_same_report_exit_and_output_in_its_own_folder(tmp_path: Path) -> None:
    for name in ("fresh", "fork"):
        (tmp_path / name).mkdir()
    argv = [*MODULE, "run", str(SAMPLE), "--out", "report", "--format", "json", "-q"]
    fresh = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path / "fresh", timeout=120)
    fork = forked.run(argv, capture_output=True, text=True, cwd=tmp_path / "fork", timeout=120)
    assert fork.returncode == fresh.returncode == 1  # the sample has findings
    assert (fork.stdout, fork.stderr) == (fresh.stdout, fresh.stderr)
    assert (tmp_path / "fork" / "report" / "report.json").is_file()  # --out relative to the fork's own folder


def test_the_environment_given_is_the_one_the_command_sees(tmp_path: Path) -> None:
    config = tmp_path / "audit.yaml"
    config.write_text("manifest: {path: nowhere.csv, split: split}\nkeys: {groups: [writer]}\n")
    env = {**os.environ, "COLUMNS": "60", "NO_COLOR": "1"}
    fresh, fork = both([*MODULE, "run", str(config), "--out", str(tmp_path / "out")], env=env)
    assert fork.returncode == fresh.returncode == 2
    assert fork.stderr == fresh.stderr and "nowhere.csv" in fork.stderr


def test_a_signal_mid_run_ends_it_as_it_ends_a_fresh_one(tmp_path: Path) -> None:
    """The signal comes while the run waits on code that sleeps: it is mid-run whatever the machine's load (an
    audit of a sample could end before the signal on a fast machine, or start late on a busy one)."""
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(120)\n")
    codes = []
    for start in (subprocess.Popen, forked.popen):
        out = tmp_path / start.__name__
        process = start(
            [*MODULE, "code", str(slow), "--run", "--timeout", "150", "--out", str(out), "-q"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while not (out / "report.json").exists() and time.monotonic() < deadline:  # the run has begun
            time.sleep(0.01)
        assert os.getsid(process.pid) == process.pid  # its own session, as start_new_session asks
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        codes.append((process.returncode, err.decode().strip().splitlines()[-1].replace(str(out), "OUT")))
    assert codes[0] == codes[1] and codes[0][0] == 2, codes


def test_a_killed_fork_reports_the_signal_and_its_pid_stays_its_own_until_waited() -> None:
    process = forked.popen([*MODULE, "serve", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    process.kill()
    assert process.wait(30) in (-signal.SIGKILL, 0)  # killed, or done before the signal came
    assert process.poll() == process.returncode
    process.send_signal(signal.SIGTERM)  # after the end: nothing is signalled, as with Popen
    assert process.stdout is not None
    process.stdout.close()


def test_a_wait_that_times_out_says_so_and_the_process_goes_on(tmp_path: Path) -> None:
    process = forked.popen([*MODULE, "run", str(SAMPLE), "--out", str(tmp_path / "out")], stdout=subprocess.DEVNULL)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(0.0)
    finally:
        process.kill()
        process.communicate(timeout=30)


def test_local_property_runs_are_a_part_of_the_ci_ones() -> None:
    from tests import examples as module

    before = list(module._FULL)
    try:
        full_runs(True)
        assert examples(200) == 200 and examples(10) == 10
        full_runs(False)
        assert examples(200) == 33 and examples(60) == 20 and examples(10) == 10
    finally:
        module._FULL[:] = before
