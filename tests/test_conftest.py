"""The suite's own rules: slow tests run in CI (CI=true) or with --run-slow, and are skipped otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, runs_slow

SLOW_AND_FAST = """
import pytest

@pytest.mark.slow
def test_long_run():
    pass

def test_quick():
    pass
"""


@pytest.mark.parametrize(
    ("run_slow", "ci", "expected"),
    [
        (False, None, False),
        (False, "", False),
        (False, "false", False),
        (False, "0", False),
        (False, "true", True),
        (False, "1", True),
        (True, None, True),
    ],
)
def test_slow_tests_run_in_ci_or_when_asked(run_slow: bool, ci: str | None, expected: bool) -> None:
    assert runs_slow(run_slow, ci) is expected


def test_a_slow_test_is_skipped_with_its_reason_outside_ci(tmp_path: Path) -> None:
    (tmp_path / "test_marks.py").write_text(SLOW_AND_FAST, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-rs", "--strict-markers"]
    # The repository's settings and conftest, as the suite loads them; the test file lives outside it.
    command += ["-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), "-p", "tests.conftest"]
    done = subprocess.run([*command, str(tmp_path)], capture_output=True, text=True, cwd=REPO, env=env, timeout=240)
    assert "1 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    assert "slow: runs in CI (CI=true) or with --run-slow" in done.stdout
