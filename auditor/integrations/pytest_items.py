"""The tests an audit becomes: one per stage of each config's report, an error where the audit could not run.

Each config is audited once per session, when its tests are collected (under pytest-xdist, by the controller
before the workers start: every worker collects the same tests from the same outcome).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from auditor.api import audit_config
from auditor.core.errors import AuditError
from auditor.core.findings import Report
from auditor.integrations.pytest_plugin import WORKER_KEY
from auditor.integrations.verdict import StageVerdict, assert_no_leaks, checked_fail_on, stage_verdict, unexplained
from auditor.render.terminal import render_terminal

VERDICT_ITEM = "verdict"  # the test that fails a report no stage's test fails (every stage skipped: exit 2)


@dataclass(frozen=True)
class AuditOutcome:
    """One config's audit: its report, or why it could not run (a config, manifest or stage-loading error)."""

    config: Path
    report: Report | None
    error: str | None

    def to_wire(self) -> dict[str, str | None]:
        report = self.report.model_dump_json() if self.report is not None else None
        return {"config": str(self.config), "report": report, "error": self.error}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AuditOutcome:
        report = Report.model_validate_json(data["report"]) if data.get("report") is not None else None
        return cls(Path(data["config"]), report, data.get("error"))


class CouldNotAudit(Exception):
    """The audit, or one of its stages, could not run: an error, never a pass or a skip."""


class StageFailed(AssertionError):
    """A stage found what fails the audit at its fail_on."""


_OUTCOMES = pytest.StashKey[dict[Path, AuditOutcome]]()
_COLLECTED = pytest.StashKey[set[Path]]()  # configs whose tests pytest collected as a file's (see config_file)


def run_one(config: Path, fail_on: str | None) -> AuditOutcome:
    """The audit of ``config``, or the one-line reason it could not run (a bug: its traceback)."""
    try:
        threshold = checked_fail_on(fail_on, "--audit-fail-on")
        return AuditOutcome(config, audit_config(config, fail_on=threshold), None)
    except AuditError as exc:
        return AuditOutcome(config, None, str(exc))
    except Exception as exc:  # a bug in the auditor itself: still no verdict, with what to report
        tb = "".join(traceback.format_exception(exc, limit=-4))
        return AuditOutcome(config, None, f"internal error, please report it:\n{tb}")


def outcomes(config: pytest.Config, chosen: Sequence[Path]) -> list[AuditOutcome]:
    """Each chosen config's outcome: handed over by pytest-xdist's controller, else run here once a session."""
    done = config.stash.setdefault(_OUTCOMES, {})
    given = getattr(config, "workerinput", {}).get(WORKER_KEY)
    if given is not None and not done:
        for data in json.loads(given):
            outcome = AuditOutcome.from_wire(data)
            done[outcome.config] = outcome
    fail_on = config.getoption("audit_fail_on")
    for path in chosen:
        if path not in done:
            done[path] = run_one(path, fail_on)
    return [done[path] for path in chosen]


def shared_outcomes(config: pytest.Config, chosen: Sequence[Path]) -> str:
    """The outcomes as the text pytest-xdist sends each worker."""
    return json.dumps([o.to_wire() for o in outcomes(config, chosen)])


def collect(session: pytest.Session, chosen: Sequence[Path]) -> list[pytest.Item]:
    """The tests of the configs pytest did not collect as files; none when the command line named a test or
    file of a config (`pytest vision/audit.yaml::group_overlap` runs that test alone, as for a test module)."""
    collected = session.config.stash.get(_COLLECTED, set())
    if any(_names_a_config(session.config, arg, chosen) for arg in session.config.args):
        return []
    items: list[pytest.Item] = []
    for outcome in outcomes(session.config, [c for c in chosen if c not in collected]):
        named = config_id(session.config, outcome.config)
        items += session.genitems(AuditFile.from_parent(session, path=outcome.config, nodeid=named, outcome=outcome))
    return items


def config_file(parent: pytest.Collector, path: Path) -> AuditFile:
    """The tests of the config at ``path``, collected where pytest met the file."""
    (outcome,) = outcomes(parent.config, [path])
    return AuditFile.from_parent(parent, path=path, outcome=outcome)


def _names_a_config(config: pytest.Config, arg: str, chosen: Sequence[Path]) -> bool:
    """Whether a command-line argument names one of the configs, or a test of one."""
    path = (config.invocation_params.dir / arg.partition("::")[0]).absolute()
    return path in chosen


def config_id(config: pytest.Config, path: Path) -> str:
    """How the tests of the config at ``path`` are named: its path from the rootdir (`vision/audit.yaml`) as pytest
    names a test file, or its absolute path outside the rootdir, where pytest would name it by the file name alone
    (`::audit.yaml`), the same for every config so named."""
    absolute = Path(path).absolute()
    try:
        return absolute.relative_to(config.rootpath).as_posix()
    except ValueError:
        return absolute.as_posix()


class AuditFile(pytest.File):
    """A config's tests: one per stage of its report, and a `verdict` test when no stage's test fails as its exit
    code does. A config that could not be audited is a collection error (pytest exits 2)."""

    def __init__(self, *, outcome: AuditOutcome, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outcome = outcome

    def collect(self) -> Iterator[pytest.Item]:
        # Made as pytest lists a folder's files, a collector is collected only when its folder is searched.
        self.config.stash.setdefault(_COLLECTED, set()).add(self.outcome.config)
        report = self.outcome.report
        if report is None:
            raise CouldNotAudit(self.outcome.error or "the audit did not run")
        verdicts = [stage_verdict(report, result) for result in report.stages]
        for verdict in verdicts:
            yield StageItem.from_parent(self, name=verdict.stage, verdict=verdict)
        reason = unexplained(report, verdicts)
        if reason is not None:
            yield VerdictItem.from_parent(self, name=VERDICT_ITEM, reason=reason, exit_code=report.exit_code)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, CouldNotAudit):
            return f"{self.path}: could not audit (exit 2): {excinfo.value}"
        return super().repr_failure(excinfo)


class _AuditItem(pytest.Item):
    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, StageFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        # A line: a skip is reported at the config. The third part heads a failure's section: the config's name
        # as its tests are named, so two audit.yaml files are told apart; not the end of the test's name, which
        # `-v` would print with each '.' as '::' (`audit::yaml`).
        assert self.parent is not None
        return self.path, 0, f"{self.parent.nodeid}: {self.name}"


class StageItem(_AuditItem):
    """One stage: fails with its findings at or above fail_on, errors when it could not run, skipped with its
    reason; the findings that do not fail it are attached to its output."""

    def __init__(self, *, verdict: StageVerdict, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verdict = verdict
        if verdict.outcome == "skipped":  # a mark: pytest reports the skip at the config, not at this module
            self.add_marker(pytest.mark.skip(reason=verdict.message))

    def setup(self) -> None:
        if self.verdict.outcome == "error":  # failed in setup: pytest reports an error, not a failure
            pytest.fail(self.verdict.message, pytrace=False)

    def runtest(self) -> None:
        if self.verdict.notes:
            self.add_report_section("call", "split-auditor findings", self.verdict.notes)
        if self.verdict.outcome == "failed":
            raise StageFailed(self.verdict.message)


class VerdictItem(_AuditItem):
    """The report's exit code where no stage's test carries it: every selected stage skipped, nothing audited."""

    def __init__(self, *, reason: str, exit_code: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason
        self.exit_code = exit_code

    def setup(self) -> None:
        if self.exit_code == 2:  # could not audit: an error, as a stage that could not run is
            pytest.fail(f"the audit did not pass:\n{self.reason}", pytrace=False)

    def runtest(self) -> None:
        raise StageFailed(f"the audit did not pass:\n{self.reason}")


class ReportCheck:
    """The `audit_report` fixture's value: ``audit_report(report, fail_on=None)`` attaches the report's summary
    to the test's output and fails the test unless the report passes."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item

    def __call__(self, report: Report, fail_on: str | None = None) -> Report:
        __tracebackhide__ = True
        if isinstance(report, Report):
            self._item.add_report_section("call", "split-auditor", render_terminal(report, width=None))
        assert_no_leaks(report, fail_on=fail_on)
        return report
