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


def test_property_tests_have_no_deadline_whatever_their_own_settings() -> None:
    """A property test never fails for the machine's speed: the profile every test runs under has no deadline,
    and settings a test gives itself inherit it."""
    from hypothesis import settings

    assert settings.default.deadline is None
    assert settings(max_examples=5).deadline is None


def test_no_test_sets_a_deadline_of_its_own() -> None:
    """A deadline given in a test's own @settings(...) would bring the machine's speed back into it."""
    import ast

    found = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "settings"
            ):
                continue
            for keyword in node.keywords:
                if keyword.arg == "deadline" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is None
                ):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == []
