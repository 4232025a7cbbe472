"""The keeper holds every process the user's code starts and ends them all before it ends itself (Linux)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.numeric.keeper import EXIT_SETUP
from tests.numeric.test_isolation import gone

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux only"),
    pytest.mark.usefixtures("cold_children"),  # the default path, never a warm child
]

# Leaves a sleeper in a session of its own (it would outlive a process-group kill), then ends as told.
DETACH = "setsid sleep 600 & echo $! > {pidfile}; {end}"


def keeper(command: str, parent: int | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "auditor.numeric.keeper", str(parent or os.getpid()), "sh", "-c", command],
        start_new_session=True,
    )


def sleeper(pidfile: Path) -> int:
    deadline = time.monotonic() + 20
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return int(pidfile.read_text())


@pytest.mark.parametrize(("end", "status"), [("exit 0", 0), ("exit 3", 3), ("kill -9 $$", -9), ("kill $$", -15)])
def test_ends_as_the_child_did_and_only_after_everything_below_it(tmp_path: Path, end: str, status: int) -> None:
    pidfile = tmp_path / "sleeper.pid"
    process = keeper(DETACH.format(pidfile=pidfile, end=end))
    assert process.wait(timeout=30) == status
    assert gone(sleeper(pidfile), within_s=0.1)


def test_sigterm_kills_the_whole_tree_and_then_the_keeper(tmp_path: Path) -> None:
    pidfile = tmp_path / "sleeper.pid"
    process = keeper(DETACH.format(pidfile=pidfile, end="sleep 600"))
    pid = sleeper(pidfile)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGKILL  # as if the child was killed: its checks did not finish
    assert gone(pid, within_s=0.1)


def test_runs_nothing_for_a_parent_it_does_not_have(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    process = keeper(f"touch {marker}", parent=1)
    assert process.wait(timeout=30) == EXIT_SETUP and not marker.exists()
