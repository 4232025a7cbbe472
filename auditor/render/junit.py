"""The report as JUnit XML, so CI systems show each stage as a test case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from auditor.core.findings import Finding, Report, Severity, StageResult, fails_run

# The case that stands for the run itself when it could not audit and no stage's case says so.
RUN_CASE = "audit"


def _failing(result: StageResult, report: Report) -> list[Finding]:
    """The stage's findings that fail the run, as the exit code counts them (fail_on, --new-only)."""
    return [f for f in result.findings if fails_run(f, report.fail_on, new_only=report.new_only)]


def _why_not(finding: Finding, report: Report) -> str:
    """Why a counted warning or error does not fail the run: the threshold, or the baseline had it."""
    if report.fail_on == "never":
        return "fail_on: never"
    if finding.severity < Severity(report.fail_on):
        return f"below fail_on: {report.fail_on}"
    return "persisting: in the baseline, not counted with --new-only"


def _line(f: Finding) -> str:
    """A finding in one line of a failure or of system-out: severity, code, message."""
    return f"{f.severity.value} {f.code}: {f.message}"


def render_junit(report: Report) -> str:
    """One test case per stage: a failure for a stage with a finding that fails the run, an error for one that
    crashed, skipped with its reason.

    A case fails exactly as the exit code does: at ``fail_on`` (under ``never`` none does), and with
    ``--new-only`` not for a finding the baseline already had; the warnings and errors that do not fail it are
    listed in its ``system-out``, so they stay in view. A run that could not audit with no errored stage (every
    selected stage skipped) gets one more case, an error, so that the test report never reads as passing when
    the exit code is 2."""
    errored = sum(r.status == "error" for r in report.stages)
    failing = [_failing(r, report) if r.status in ("passed", "failed") else [] for r in report.stages]
    unaudited = report.exit_code == 2 and not errored
    suite = ET.Element(
        "testsuite",
        {
            "name": "split-auditor",
            "tests": str(len(report.stages) + unaudited),
            "failures": str(sum(bool(found) for found in failing)),
            "errors": str(errored + unaudited),
            "skipped": str(sum(r.status == "skipped" for r in report.stages)),
            "time": f"{sum(r.duration_s for r in report.stages):.3f}",
        },
    )
    # The threshold and the exit code the cases were judged by, for a reader of this file alone.
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "fail_on", "value": report.fail_on})
    ET.SubElement(properties, "property", {"name": "exit_code", "value": str(report.exit_code)})
    for r, fails in zip(report.stages, failing, strict=True):
        case = ET.SubElement(
            suite, "testcase", {"classname": "auditor", "name": r.stage, "time": f"{r.duration_s:.3f}"}
        )
        if r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": r.skip_reason or ""})
            continue
        if r.error is not None:
            err = ET.SubElement(case, "error", {"type": r.error.type, "message": r.error.message})
            err.text = r.error.traceback
            continue
        if fails:
            message = f"{len(fails)} finding(s) at or above fail_on ({report.fail_on})"
            fail = ET.SubElement(case, "failure", {"message": message})
            fail.text = "\n".join(_line(f) for f in fails)
        # Shown, not failed: the user chose the threshold (or the baseline), not to hide what was found.
        kept = [
            f
            for f in r.findings
            if f.counts_against and f.severity >= Severity.WARNING and not any(f is g for g in fails)
        ]
        if kept:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"{_line(f)} (not failing: {_why_not(f, report)})" for f in kept)
    if unaudited:
        case = ET.SubElement(suite, "testcase", {"classname": "auditor", "name": RUN_CASE, "time": "0.000"})
        ran = any(r.status in ("passed", "failed") for r in report.stages)
        why = "exit 2" if ran else "no stage ran (every selected stage was skipped)"
        err = ET.SubElement(case, "error", {"type": "CouldNotAudit", "message": f"could not audit: {why}"})
        err.text = "\n".join(f"{r.stage}: skipped, {r.skip_reason}" for r in report.stages if r.skip_reason)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
