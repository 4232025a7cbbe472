"""The reading never fails on real code: every module of Python's standard library is read to its end (or
said unreadable, as a file of another Python version is), in bounded time, with no leak found in it."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from auditor.code.analysis import analyse


@pytest.mark.slow
# 1,800 files that import one another's modules, each read into its importers up to the reading's limits: some
# minutes on two cores, longer than the default time limit of one test. The limit is a guard against a reading
# that never ends, not a measure of speed (bench/README's section 19 times the reading): a machine shared with
# other jobs took 20 minutes.
@pytest.mark.timeout(2400)
def test_the_standard_library_is_read_without_a_failure_of_the_reading() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    analysis = analyse([stdlib], workers=2)
    assert len(analysis.files) > 1000
    failures = [(r.path, s.reason) for r in analysis.files for s in r.skipped if "analysis failed" in s.reason]
    assert failures == []
    leaks = [(r.path.name, p.leak.kind.value) for r in analysis.files for p in r.leaks]
    assert leaks == []
