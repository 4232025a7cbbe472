"""Files a report carries besides its renderings: a stage's list that a reviewer uses as is (the clean subset of a
benchmark), written into the report directory from the report's own evidence."""

from __future__ import annotations

from auditor.core.findings import Report

# Only these names are ever written: a file name never comes from the data.
ATTACHMENTS = ("contamination.clean.txt",)


def attachments(report: Report) -> dict[str, str]:
    """File name -> text, for each finding whose evidence holds a `clean_subset` list of ids; its first line
    (a `#` comment) says what the list is and marks the file as this tool's."""
    files: dict[str, str] = {}
    for result in report.stages:
        for finding in result.findings:
            subset = finding.evidence.get("clean_subset")
            if isinstance(subset, dict) and subset.get("file") in ATTACHMENTS:
                ids = subset.get("ids", [])
                head = f"# split-auditor clean subset: {len(ids)} id(s) clean under {subset.get('name')}, one a line\n"
                files[str(subset["file"])] = head + "".join(f"{i}\n" for i in ids)
    return files
