"""The README's check catalogue lists every finding code a built-in stage can report."""

from __future__ import annotations

import re
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
