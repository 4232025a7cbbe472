"""The README's check catalogue lists every finding code a built-in stage can report."""

from __future__ import annotations

from auditor.registry import discover, load_stages
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
