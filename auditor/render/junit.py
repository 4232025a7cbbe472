"""The report as JUnit XML, so CI systems show each stage as a test case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from auditor.core.findings import Finding, Report, Severity, StageResult

# The case that stands for the run itself when it could not audit and no stage's case says so.
RUN_CASE = "audit"


def _fails(result: StageResult, report: Report) -> list[Finding]:
    """The findings that make a stage 'failed': counted, at fail_on (an error when fail_on is never)."""
    threshold = Severity.ERROR if report.fail_on == "never" else Severity(report.fail_on)
    return [f for f in result.findings if f.counts_against and f.severity >= threshold]


def render_junit(report: Report) -> str:
    """One test case per stage: a failure for a stage whose findings fail the run, an error for one that crashed.

    With ``--new-only`` a stage whose failing findings the baseline already had is no failure (exit 0 agrees).
    A run that could not audit with no errored stage (every selected stage skipped) gets one more case, an
    error, so that the test report never reads as passing when the exit code is 2."""
    errored = sum(r.status == "error" for r in report.stages)
    # With --new-only a finding the baseline already had does not fail the run, so neither does its case.
    new_only = report.baseline is not None and report.baseline.new_only
    fails = [
        r.status == "failed" and not (new_only and all(f.baseline == "persisting" for f in _fails(r, report)))
        for r in report.stages
    ]
    unaudited = report.exit_code == 2 and not errored
    suite = ET.Element(
        "testsuite",
        {
            "name": "split-auditor",
            "tests": str(len(report.stages) + unaudited),
            "failures": str(sum(fails)),
            "errors": str(errored + unaudited),
            "skipped": str(sum(r.status == "skipped" for r in report.stages)),
            "time": f"{sum(r.duration_s for r in report.stages):.3f}",
        },
    )
    for r, fails_here in zip(report.stages, fails, strict=True):
        case = ET.SubElement(
            suite, "testcase", {"classname": "auditor", "name": r.stage, "time": f"{r.duration_s:.3f}"}
        )
        if r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": r.skip_reason or ""})
        elif r.error is not None:
            err = ET.SubElement(case, "error", {"type": r.error.type, "message": r.error.message})
            err.text = r.error.traceback
        elif fails_here:
            failing = [f for f in r.findings if f.counts_against and f.severity >= Severity.WARNING]
            fail = ET.SubElement(case, "failure", {"message": f"{len(failing)} finding(s)"})
            fail.text = "\n".join(f"{f.severity.value} {f.code}: {f.message}" for f in failing)
    if unaudited:
        case = ET.SubElement(suite, "testcase", {"classname": "auditor", "name": RUN_CASE, "time": "0.000"})
        ran = any(r.status in ("passed", "failed") for r in report.stages)
        why = "exit 2" if ran else "no stage ran (every selected stage was skipped)"
        err = ET.SubElement(case, "error", {"type": "CouldNotAudit", "message": f"could not audit: {why}"})
        err.text = "\n".join(f"{r.stage}: skipped, {r.skip_reason}" for r in report.stages if r.skip_reason)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
