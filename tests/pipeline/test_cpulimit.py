"""A stage that spins is stopped at its CPU budget and becomes an error; the audit goes on."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from auditor import run_audit
from auditor.core.config import config_from_mapping
from auditor.core.findings import Finding, Severity
from auditor.pipeline.cpulimit import CpuBudget, cpu_limit
from auditor.pipeline.execute import execute
from auditor.pipeline.stage import Acceptances, AuditContext, Stage

BUDGET = CpuBudget(0.5, "a test's limit")


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class Spins(Stage):
    name = "spins"
    summary = "never ends, and swallows every Exception on the way"
    needs_manifest = False

    def run(self, context: AuditContext) -> Iterator[Finding]:
        while True:
            try:
                _burn(10)
            except Exception:  # a careless stage: the limit must still stop it
                continue


class Backtracks(Stage):
    name = "backtracks"
    summary = "a regular expression that backtracks exponentially"
    needs_manifest = False

    def run(self, context: AuditContext) -> Iterator[Finding]:
        re.findall(r"(\w+\s?\w*)+\d", "a" * 60)
        yield from ()


class Quick(Stage):
    name = "quick"
    summary = "a little work, well within the budget"
    needs_manifest = False

    def run(self, context: AuditContext) -> Iterator[Finding]:
        _burn(0.1)
        yield self.finding("Q001", Severity.INFO, "done")


def _context(tmp_path: Path) -> AuditContext:
    loaded = config_from_mapping({"numeric": {"model": "m:f", "batch": "m:b", "loss": "m:l"}}, tmp_path)
    return AuditContext(loaded, None, Acceptances([]))


def test_a_spinning_stage_is_an_error_naming_the_limit(tmp_path: Path) -> None:
    result = execute(Spins(), _context(tmp_path), BUDGET)  # returns at all: the limit stopped the spin
    assert result.status == "error" and result.error is not None
    assert result.error.type == "cpu" and result.error.traceback == ""
    assert "stopped after 0.5 s of CPU" in result.error.message and "a test's limit" in result.error.message


def test_a_backtracking_regex_is_interrupted(tmp_path: Path) -> None:
    result = execute(Backtracks(), _context(tmp_path), BUDGET)
    assert result.error is not None and result.error.type == "cpu"


def test_a_stage_within_its_budget_passes_and_the_timer_is_gone_after_it(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGPROF)
    result = execute(Quick(), _context(tmp_path), BUDGET)
    assert result.status == "passed" and [f.code for f in result.findings] == ["Q001"]
    assert signal.getsignal(signal.SIGPROF) == before
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    _burn(0.8)  # past the budget, outside any stage: nothing fires


def test_no_budget_means_no_timer() -> None:
    with cpu_limit(None):
        assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_run_audit_bounds_each_stage_and_goes_on(tmp_path: Path) -> None:
    loaded = config_from_mapping({"numeric": {"model": "m:f", "batch": "m:b", "loss": "m:l"}}, tmp_path)
    report = run_audit(loaded, classes=[Spins, Quick], stage_cpu=BUDGET)
    status = {r.stage: r.status for r in report.stages}
    assert status == {"spins": "error", "quick": "passed"}
    assert report.exit_code == 2
