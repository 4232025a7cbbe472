"""Which findings fail a test, per stage and for a whole report: exactly those the exit code counts."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

import auditor
from auditor.core.errors import ArgumentError
from auditor.core.findings import Report
from auditor.integrations.verdict import stage_verdict, unexplained
from auditor.testing import assert_no_leaks


def _report(writers: list[str], splits: list[str], **sections: Any) -> Report:
    rows = pa.table({"split": splits, "writer": writers, "id": [f"r{i}" for i in range(len(splits))]})
    return auditor.audit(rows, id="id", keys={"groups": ["writer"]}, **sections)


SPLITS = ["train", "train", "val", "val", "test", "test"]
LEAKY = ["a", "b", "c", "d", "a", "e"]  # writer a in train and test: an error
CLEAN = ["a", "b", "c", "d", "e", "f"]
HOLDOUT_ONLY = ["a", "b", "c", "d", "c", "e"]  # writer c in val and test only: a warning


def test_a_clean_report_passes_and_a_leak_fails_with_its_findings() -> None:
    assert_no_leaks(_report(CLEAN, SPLITS))
    leaky = _report(LEAKY, SPLITS)
    with pytest.raises(AssertionError) as caught:
        assert_no_leaks(leaky)
    text = str(caught.value)
    assert text.startswith("the audit did not pass:\n")
    assert "GRP001 [group_overlap]" in text and "exit 1" in text
    (overlap,) = [r for r in leaky.stages if r.stage == "group_overlap"]
    verdict = stage_verdict(leaky, overlap)
    assert verdict.outcome == "failed" and "GRP001 error:" in verdict.message


def test_a_warning_passes_at_fail_on_error_and_fails_at_warning() -> None:
    report = _report(HOLDOUT_ONLY, SPLITS)
    assert {f.severity.value for f in report.findings if f.stage == "group_overlap"} == {"warning"}
    assert_no_leaks(report)
    (overlap,) = [r for r in report.stages if r.stage == "group_overlap"]
    passed = stage_verdict(report, overlap)
    assert passed.outcome == "passed" and "GRP" in passed.notes  # shown, not failing
    with pytest.raises(AssertionError, match="fail_on: warning"):
        assert_no_leaks(report, fail_on="warning")
    assert stage_verdict(report.model_copy(update={"fail_on": "warning"}), overlap).outcome == "failed"


def test_an_accepted_finding_is_shown_and_does_not_fail() -> None:
    accept = [{"code": "GRP001", "key": "a", "reason": "writer a is a calibration writer"}]
    report = _report(LEAKY, SPLITS, accept=accept)
    assert report.exit_code == 0
    assert_no_leaks(report)
    (overlap,) = [r for r in report.stages if r.stage == "group_overlap"]
    verdict = stage_verdict(report, overlap)
    assert verdict.outcome == "passed" and "(accepted: writer a is a calibration writer)" in verdict.notes


def test_fail_on_never_passes_findings_but_never_a_report_that_could_not_audit() -> None:
    assert_no_leaks(_report(LEAKY, SPLITS), fail_on="never")
    off = {"enabled": False}
    stages = {name: off for name in ("split_integrity", "group_overlap", "test_exposure")}
    nothing = _report(CLEAN, SPLITS, stages=stages)
    assert nothing.exit_code == 2
    with pytest.raises(AssertionError, match="no stage ran"):
        assert_no_leaks(nothing, fail_on="never")
    verdicts = [stage_verdict(nothing, r) for r in nothing.stages]
    assert {v.outcome for v in verdicts} == {"skipped"}
    assert "no stage ran" in (unexplained(nothing, verdicts) or "")


def test_a_report_whose_stages_carry_its_exit_code_needs_no_verdict_test() -> None:
    for report in (_report(CLEAN, SPLITS), _report(LEAKY, SPLITS)):
        assert unexplained(report, [stage_verdict(report, r) for r in report.stages]) is None


def test_wrong_arguments_are_named() -> None:
    with pytest.raises(ArgumentError, match=r"assert_no_leaks\(report=…\): expected a Report, got dict"):
        assert_no_leaks({"exit_code": 0})  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="'warnings'; expected one of error, warning, never"):
        assert_no_leaks(_report(CLEAN, SPLITS), fail_on="warnings")
