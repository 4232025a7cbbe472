"""Every hostile case ends with a clear result: no traceback, no hang, no false pass, no stale verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.cases import CASES
from tests.hostile.harness import Case, check_promises, run_case

# How a child is started and ended is what these guard: the default path, never a warm child.
pytestmark = pytest.mark.usefixtures("cold_children")


def test_the_corpus_is_large_and_names_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) >= 100
    assert len(set(names)) == len(names)


# Running user code or signalling a run starts a fresh auditor and a fresh child that imports torch: seconds a case.
# tests/numeric/test_isolation.py guards each of those paths in the fast suite; CI runs the whole corpus.
_SLOW_PREFIXES = ("user-", "kill-", "cli-validate-user")


def _marks(c: Case) -> list[pytest.MarkDecorator]:
    marks = [pytest.mark.timeout(c.timeout + 30)]
    if c.process and c.name.startswith(_SLOW_PREFIXES):
        marks.append(pytest.mark.slow)
    return marks


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=_marks(c)) for c in CASES])
def test_hostile_case(case: Case, tmp_path: Path) -> None:
    check_promises(case, run_case(case, tmp_path))
