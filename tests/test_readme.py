"""The README's check catalogue lists every finding code a built-in stage can report."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.pipeline.registry import discover, load_stages
from tests.conftest import REPO


def test_catalogue_covers_every_code() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for cls in load_stages(discover()):
        for code in cls.codes:
            assert f"| {code} |" in readme, f"{code} of {cls.name} is missing from the README catalogue"
        assert f"`{cls.name}`" in readme or f"### {cls.name}" in readme, cls.name


def test_readme_test_command_is_what_ci_runs() -> None:
    assert "python -m pytest" in (REPO / ".ci" / "run").read_text()
    assert 'pip install -c constraints.txt -e ".[torch,dev]"' in (REPO / ".ci" / "run").read_text()


def python_blocks(readme: str) -> dict[str, str]:
    """The README's python code blocks, keyed by the file their first-line comment names."""
    blocks = {}
    for block in re.findall(r"```python\n(.*?)```", readme, flags=re.S):
        first, _, _ = block.partition("\n")
        if first.startswith("# "):
            blocks[first[2:].strip()] = block
    return blocks


def test_plugin_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks((REPO / "README.md").read_text(encoding="utf-8"))
    package = tmp_path / "my_checks"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "small_holdout.py").write_text(blocks["my_checks/small_holdout.py"])
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict[str, object] = {}
    exec(compile(blocks["tests/test_small_holdout.py"], "test_small_holdout.py", "exec"), namespace)
    work = tmp_path / "work"
    work.mkdir()
    namespace["test_small_test_split_is_flagged"](work)  # type: ignore[operator]
    for name in [m for m in sys.modules if m.startswith("my_checks")]:
        monkeypatch.delitem(sys.modules, name)


def _ci_sandbox(tmp_path: Path, present: list[str]) -> tuple[Path, dict[str, str]]:
    """A copy of .ci/run whose apt-get, python3 and the named programs are stubs that only log their calls."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO / ".ci" / "run", tmp_path / ".ci" / "run")
    stubs, log = tmp_path / "bin", tmp_path / "calls.log"
    stubs.mkdir()
    # The venv CI makes: its python and pip only log what they were asked to do.
    (tmp_path / ".venv-ci" / "bin").mkdir(parents=True)
    activate = 'python() { echo "python $*" >> LOG; }; pip() { echo "pip $*" >> LOG; }'
    (tmp_path / ".venv-ci" / "bin" / "activate").write_text(activate.replace("LOG", str(log)))
    programs = {
        "apt-get": f'echo "apt-get $*" >> {log}',
        "python3": "true",
        **{name: "true" for name in present},
    }
    for name, body in programs.items():
        (stubs / name).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / name).chmod(0o755)
    for tool in ("dirname", "id"):  # the only programs the script runs besides the stubs
        found = shutil.which(tool)
        assert found is not None
        (stubs / tool).symlink_to(found)
    env = {"PATH": str(stubs), "HOME": str(tmp_path), "AUDIT_CI_PG_LIB": str(tmp_path / "no-postgresql")}
    if os.geteuid() != 0:
        (stubs / "sudo").write_text('#!/bin/sh\n"$@"\n')
        (stubs / "sudo").chmod(0o755)
    return log, env


@pytest.mark.skipif(sys.platform != "linux", reason="CI runs on Debian")
@pytest.mark.parametrize(
    ("present", "installed"),
    [([], "chromium postgresql"), (["chromium"], "postgresql"), (["chromium", "initdb"], None)],
)
def test_ci_installs_the_debian_packages_the_tests_need(
    tmp_path: Path, present: list[str], installed: str | None
) -> None:
    log, env = _ci_sandbox(tmp_path, present)
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run([bash, str(tmp_path / ".ci" / "run")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    installs = [c for c in calls if c.startswith("apt-get") and " install " in c]
    if installed is None:
        assert installs == []
    else:
        assert installs == [f"apt-get install -y -qq {installed}"]
    assert "pip install -c constraints.txt -e .[torch,dev]" in calls and "python -m pytest" in calls
