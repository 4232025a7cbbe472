"""Files a report carries besides its renderings: a stage's list that a reviewer uses as is (the clean subset of a
benchmark), written into the report directory from the report's own evidence."""

from __future__ import annotations

from auditor.core.findings import Report

# Only these names are ever written: a file name never comes from the data.
ATTACHMENTS = ("contamination.clean.txt",)


def attachments(report: Report) -> dict[str, str]:
    """File name -> text, for each finding whose evidence holds a `clean_subset` list of ids."""
    files: dict[str, str] = {}
    for result in report.stages:
        for finding in result.findings:
            subset = finding.evidence.get("clean_subset")
            if isinstance(subset, dict) and subset.get("file") in ATTACHMENTS:
                files[str(subset["file"])] = "".join(f"{i}\n" for i in subset.get("ids", []))
    return files
