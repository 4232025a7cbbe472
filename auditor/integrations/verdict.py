"""What a report says to a test runner: the findings that fail it, per stage, and the message naming them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from auditor.core.errors import ArgumentError
from auditor.core.findings import FailOn, Finding, Report, StageResult, fails_run, with_fail_on
from auditor.render.common import MARK, cell, headline, plain
from auditor.render.terminal import render_terminal

Outcome = Literal["passed", "failed", "error", "skipped"]


@dataclass(frozen=True)
class StageVerdict:
    """One stage's result as a test outcome: the message says why it failed, errored or was skipped, and
    ``notes`` lists the findings shown but not failing (below fail_on, or accepted)."""

    stage: str
    outcome: Outcome
    message: str
    notes: str


def checked_fail_on(fail_on: str | None, where: str) -> FailOn | None:
    """``fail_on`` when it is one of error, warning, never (or None); ArgumentError naming ``where`` otherwise."""
    if fail_on is not None and fail_on not in get_args(FailOn):
        raise ArgumentError(f"{where}: {fail_on!r}; expected one of {', '.join(get_args(FailOn))}")
    return fail_on  # type: ignore[return-value]


def counts(finding: Finding, report: Report) -> bool:
    """Whether ``finding`` fails ``report`` at its fail_on, as its exit code counts it."""
    return fails_run(finding, report.fail_on, new_only=report.new_only)


def stage_verdict(report: Report, result: StageResult) -> StageVerdict:
    """The test outcome of one stage of ``report``: an error when it could not run, a failure when a finding
    reaches fail_on, skipped with its reason, passed otherwise."""
    failing = [f for f in result.findings if counts(f, report)]
    others = [f for f in result.findings if not counts(f, report)]
    notes = describe_findings(others)
    if result.status == "error":
        error = result.error
        text = error.message if error is not None else "no reason was recorded"
        if error is not None and error.traceback:  # a crash, not an input the stage cannot read
            text = f"{error.type}: {error.message}\n{error.traceback.rstrip()}"
        return StageVerdict(result.stage, "error", f"{result.stage} could not run: {text}", notes)
    if result.status == "skipped":
        return StageVerdict(result.stage, "skipped", result.skip_reason or "skipped", notes)
    if failing:
        head = f"{result.stage}: {len(failing)} finding(s) at or above fail_on ({report.fail_on})"
        return StageVerdict(result.stage, "failed", f"{head}\n{describe_findings(failing)}", notes)
    return StageVerdict(result.stage, "passed", "", notes)


def unexplained(report: Report, verdicts: Iterable[StageVerdict]) -> str | None:
    """Why ``report`` does not pass when no stage's outcome says so (every stage skipped: nothing was
    audited, exit 2), or None when the stages' outcomes already fail as the exit code does."""
    outcomes = {v.outcome for v in verdicts}
    if report.exit_code == 0:
        return None
    if report.exit_code == 2 and "error" in outcomes:
        return None
    if report.exit_code == 1 and "failed" in outcomes:
        return None
    if not {"passed", "failed"} & outcomes:
        return f"{headline(report)}; each skipped test says what its stage needs"
    return headline(report)


def describe_findings(findings: Iterable[Finding], examples: int = 3) -> str:
    """Each finding in a line or two: mark, code, message, a few examples and the remediation."""
    lines: list[str] = []
    for f in sorted(findings, key=lambda f: f.sort_key()):
        accepted = f" (accepted: {f.accept_reason})" if f.accepted else ""
        lines.append(f"{MARK[f.severity]} {f.code} {f.severity.value}: {f.message}{accepted}")
        lines += [f"    e.g. {cell(plain(e))}" for e in f.examples[:examples]]
        if f.remediation and not f.accepted:
            lines.append(f"    fix: {f.remediation}")
    return "\n".join(lines)


def assert_no_leaks(report: Report, fail_on: str | None = None) -> None:
    """Raise AssertionError, with the report's summary and findings, unless ``report`` passes at ``fail_on``
    (default: the report's own); a report that could not audit (exit 2) never passes."""
    __tracebackhide__ = True
    if not isinstance(report, Report):
        raise ArgumentError(f"assert_no_leaks(report=…): expected a Report, got {type(report).__qualname__}")
    threshold = checked_fail_on(fail_on, "assert_no_leaks(fail_on=…)")
    judged = with_fail_on(report, threshold) if threshold is not None else report
    if judged.exit_code != 0:
        raise AssertionError("the audit did not pass:\n" + render_terminal(judged, width=None).rstrip())
