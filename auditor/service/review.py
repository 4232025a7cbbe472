"""The review rules: a project's acceptances applied to a report, and when approval needs an override.

An acceptance covers its fingerprint within the scope it recorded: a finding whose values or counts grew beyond
it is escalated (it counts again, naming what is new) until someone accepts it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from auditor.core.config import AcceptSpec
from auditor.core.findings import Finding, Report, Severity, StageResult, exit_code_for, summarize
from auditor.core.scope import Growth, Scope, growth
from auditor.core.subjects import covered_form
from auditor.pipeline.acceptances import Acceptances
from auditor.service.store import ReviewRecord


def _status_threshold(report: Report) -> Severity:
    return Severity.ERROR if report.fail_on == "never" else Severity(report.fail_on)


def rejudged(report: Report) -> Report:
    """``report`` with stage statuses, summary and exit code recomputed from its findings: an uploaded report's
    own verdict fields are never believed."""
    return with_acceptances(report, {}, force=True)


def accepted_as_configured(report: Report, entries: Iterable[AcceptSpec]) -> Report:
    """``report`` with each finding accepted (or escalated) only as the config's ``entries`` accept it: a report's
    own `accepted` flags are never believed, so an upload cannot pass on an acceptance its config does not make."""
    acceptances = Acceptances(entries)
    undone = {"accepted": False, "accept_reason": None, "escalated": None}

    def judge(result: StageResult) -> StageResult:
        found = tuple(acceptances.judge_all([f.model_copy(update=undone) for f in result.findings]))
        return result.model_copy(update={"findings": found})

    return report.model_copy(update={"stages": tuple(judge(r) for r in report.stages)})


def with_acceptances(report: Report, accepted: Mapping[str, ReviewRecord], *, force: bool = False) -> Report:
    """``report`` as the project's reviewers see it now: findings they accepted, within the accepted scope, do not
    count; a finding grown beyond its acceptance is escalated and counts."""
    if not accepted and not force:
        return report
    threshold = _status_threshold(report)

    def judge(result: StageResult) -> StageResult:
        if result.status == "error":
            return result
        found = tuple(_accept(f, accepted) for f in result.findings)
        status = result.status
        if status in ("passed", "failed"):
            failing = any(f.counts_against and f.severity >= threshold for f in found)
            status = "failed" if failing else "passed"
        return result.model_copy(update={"findings": found, "status": status})

    stages = tuple(judge(r) for r in report.stages)
    return report.model_copy(
        update={
            "stages": stages,
            "summary": summarize(stages),
            "exit_code": exit_code_for(stages, report.fail_on, new_only=report.new_only),
        }
    )


def beyond(finding: Finding, record: ReviewRecord) -> Growth | None:
    """How ``finding`` exceeds what ``record`` accepted (None: covered). A record without a scope (made before
    scopes were recorded, its run's report unreadable) covers no subject values."""
    return growth(record.scope if record.scope is not None else Scope(), finding.scope, covered_form(finding.code))


def _accept(finding: Finding, accepted: Mapping[str, ReviewRecord]) -> Finding:
    record = accepted.get(finding.fingerprint)
    if finding.accepted or record is None:
        return finding
    until = f" until {record.expires_at:%Y-%m-%d %H:%M} UTC" if record.expires_at else ""
    reason = f"{record.comment} (accepted by {record.actor} on {record.at:%Y-%m-%d}{until})"
    grown = beyond(finding, record)
    if grown is not None:
        return finding.model_copy(update={"accept_reason": reason, "escalated": grown})
    return finding.model_copy(update={"accepted": True, "accept_reason": reason, "escalated": None})


def failing_severity(report: Report) -> Severity:
    """The lowest severity that fails ``report`` (its fail_on; errors when it fails on nothing): what an approval
    without an override may not leave unaccepted."""
    return _status_threshold(report)


def unaccepted_failing(report: Report, accepted: Mapping[str, ReviewRecord]) -> list[Finding]:
    """The findings an approval would overrule: those that fail the run (errors, and warnings under fail_on
    warning) no reviewer accepted, or accepted for a smaller scope. An `accept:` entry in the submitted config is
    the submitter's own word, so it does not spare the reviewer's decision."""
    threshold = failing_severity(report)
    return [
        f
        for f in report.findings
        if f.severity >= threshold
        and ((record := accepted.get(f.fingerprint)) is None or beyond(f, record) is not None)
    ]


def could_not_audit(report: Report) -> bool:
    """A report without a verdict on its data (a stage errored, nothing ran): never approvable without override."""
    return exit_code_for(report.stages, "never") == 2


def not_run(report: Report, known: Sequence[str]) -> list[str]:
    """Installed stages the report does not mention at all: it was limited (`--only`), so its clean verdict
    covers only what ran. A stage skipped for want of config is in the report, with its reason."""
    present = {r.stage for r in report.stages}
    return sorted(name for name in known if name not in present)
