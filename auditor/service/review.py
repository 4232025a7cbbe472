"""The review rules: a project's accepted fingerprints applied to a report, and when approval needs an override."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from auditor.core.findings import Finding, Report, Severity, StageResult, exit_code_for, summarize
from auditor.service.store import ReviewRecord


def _status_threshold(report: Report) -> Severity:
    return Severity.ERROR if report.fail_on == "never" else Severity(report.fail_on)


def rejudged(report: Report) -> Report:
    """``report`` with stage statuses, summary and exit code recomputed from its findings: an uploaded report's
    own verdict fields are never believed."""
    return with_acceptances(report, {}, force=True)


def with_acceptances(report: Report, accepted: Mapping[str, ReviewRecord], *, force: bool = False) -> Report:
    """``report`` as the project's reviewers see it now: findings whose fingerprint they accepted do not count."""
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
    new_only = report.baseline is not None and report.baseline.new_only
    return report.model_copy(
        update={
            "stages": stages,
            "summary": summarize(stages),
            "exit_code": exit_code_for(stages, report.fail_on, new_only=new_only),
        }
    )


def _accept(finding: Finding, accepted: Mapping[str, ReviewRecord]) -> Finding:
    record = accepted.get(finding.fingerprint)
    if finding.accepted or record is None:
        return finding
    until = f" until {record.expires_at:%Y-%m-%d %H:%M} UTC" if record.expires_at else ""
    reason = f"{record.comment} (accepted by {record.actor} on {record.at:%Y-%m-%d}{until})"
    return finding.model_copy(update={"accepted": True, "accept_reason": reason})


def unaccepted_errors(report: Report, accepted: Mapping[str, ReviewRecord]) -> list[Finding]:
    """The findings an approval would overrule: errors no reviewer accepted. An `accept:` entry in the
    submitted config is the submitter's own word, so it does not spare the reviewer's decision."""
    return [f for f in report.findings if f.severity is Severity.ERROR and f.fingerprint not in accepted]


def could_not_audit(report: Report) -> bool:
    """A report without a verdict on its data (a stage errored, nothing ran): never approvable without override."""
    return exit_code_for(report.stages, "never") == 2


def not_run(report: Report, known: Sequence[str]) -> list[str]:
    """Installed stages the report does not mention at all: it was limited (`--only`), so its clean verdict
    covers only what ran. A stage skipped for want of config is in the report, with its reason."""
    present = {r.stage for r in report.stages}
    return sorted(name for name in known if name not in present)
