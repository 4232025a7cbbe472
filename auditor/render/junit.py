"""The report as JUnit XML, so CI systems show each stage as a test case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from auditor.core.findings import Report, Severity


def render_junit(report: Report) -> str:
    suite = ET.Element(
        "testsuite",
        {
            "name": "split-auditor",
            "tests": str(len(report.stages)),
            "failures": str(sum(r.status == "failed" for r in report.stages)),
            "errors": str(sum(r.status == "error" for r in report.stages)),
            "skipped": str(sum(r.status == "skipped" for r in report.stages)),
            "time": f"{sum(r.duration_s for r in report.stages):.3f}",
        },
    )
    for r in report.stages:
        case = ET.SubElement(
            suite, "testcase", {"classname": "auditor", "name": r.stage, "time": f"{r.duration_s:.3f}"}
        )
        if r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": r.skip_reason or ""})
        elif r.error is not None:
            err = ET.SubElement(case, "error", {"type": r.error.type, "message": r.error.message})
            err.text = r.error.traceback
        elif r.status == "failed":
            failing = [f for f in r.findings if f.counts_against and f.severity >= Severity.WARNING]
            fail = ET.SubElement(case, "failure", {"message": f"{len(failing)} finding(s)"})
            fail.text = "\n".join(f"{f.severity.value} {f.code}: {f.message}" for f in failing)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
