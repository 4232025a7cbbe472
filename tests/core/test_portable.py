"""A report made portable for sharing: paths relative to the config's folder, other absolute paths by name only."""

from __future__ import annotations

import json

import pytest

from auditor.core.findings import Finding, Report, Severity, fingerprint
from auditor.core.portable import portable, shown_path
from tests.conftest import REPO, SampleReports

FOLDER = "/home/alice/proj"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("/home/alice/proj/audit.yaml", "audit.yaml"),
        ("/home/alice/proj", "."),
        ("at /home/alice/proj/src/model.py:38: the loss", "at src/model.py:38: the loss"),
        ("splits.allow[0] (/home/alice/proj/audit.yaml:10:11) exempts", "splits.allow[0] (audit.yaml:10:11) exempts"),
        ("/data/shared/manifest.csv", "…/manifest.csv"),
        ("/home/alice/proj2/x.csv", "…/x.csv"),  # a sibling folder whose name starts like the config's
        ("/mnt/home/alice/proj/x.csv", "…/x.csv"),  # the config's folder inside another path is not it
        ('File "/usr/lib/python3/site.py", line 3', 'File "…/site.py", line 3'),
        ("C:\\Users\\alice\\data\\train.csv", "…/train.csv"),
        ("'/etc/passwd' is not a database", "'…/passwd' is not a database"),
    ],
)
def test_local_paths_become_relative_or_their_name(text: str, shown: str) -> None:
    assert shown_path(text, FOLDER) == shown
    assert shown_path(shown, FOLDER) == shown  # applied again, nothing more changes


@pytest.mark.parametrize(
    "text",
    [
        "train/test",
        "val–test (holdout–holdout)",
        "a ratio of 1/2 and 3 /4",
        "http://127.0.0.1:8765/projects/p/runs/1",
        "s3://bucket/shards/part-0.parquet",
        "<data root samples>/clinic/manifest.csv",
        "data/manifest.csv",
        "/manifest.csv",  # at the root of a file system: no folder to hide
        "2024-01-15T08:00:00+00:00 .. 2024-03-06T11:00:04+00:00",
    ],
)
def test_text_that_only_looks_like_a_path_is_kept(text: str) -> None:
    assert shown_path(text, FOLDER) == text


def test_a_sample_report_keeps_no_absolute_path_and_its_verdict(sample_report: SampleReports) -> None:
    report = sample_report("clinic")
    folder = str((REPO / "sample_data" / "clinic").resolve())
    assert folder in report.model_dump_json()  # the local report names where its files are
    shared = portable(report)
    text = shared.model_dump_json()
    assert str(REPO.resolve()) not in text and '"/' not in text
    assert shared.config_path == "audit.yaml" and shared.manifest and shared.manifest.paths == ("manifest.csv",)
    artifacts = {f.evidence["artifact"] for f in shared.findings if "artifact" in f.evidence}
    assert artifacts == {
        "artifacts/scaler.json",
        "artifacts/imputer.csv",
        "artifacts/vocab.txt",
        "artifacts/smoker_onehot.json",
    }
    assert [f.fingerprint for f in shared.findings] == [f.fingerprint for f in report.findings]
    assert (shared.exit_code, shared.summary) == (report.exit_code, report.summary)
    assert portable(shared) == shared


def test_a_code_site_keeps_its_fingerprint_when_made_portable() -> None:
    absolute = fingerprint("BRD001", "broadcast", "/home/alice/proj/src/model.py:38", {})
    assert fingerprint("BRD001", "broadcast", "…/model.py:38", {}) == absolute
    assert fingerprint("BRD001", "broadcast", "C:\\Users\\alice\\proj\\model.py:38", {}) == absolute
    # Relative to the project the whole path names the file: a copy of the script elsewhere is another finding.
    relative = fingerprint("CDL001", "code_leakage", "exp1/train.py:6", {})
    assert fingerprint("CDL001", "code_leakage", "exp2/train.py:6", {}) != relative
    assert fingerprint("CDL001", "code_leakage", "train.py:6", {}) != relative
    assert fingerprint("CDL001", "code_leakage", "./exp1/train.py:6", {}) == relative
    assert fingerprint("CDL001", "code_leakage", "exp1\\train.py:6", {}) == relative
    # A file name is compared as written (two files on most systems), a data value in its normal spelling.
    for upper, lower in (
        ("Train.py:7", "train.py:7"),
        ("exp/Train.py:7", "exp/train.py:7"),
        ("…/A.ipynb:cell6:5", "…/a.ipynb:cell6:5"),
    ):
        assert fingerprint("CDL001", "code_leakage", upper, {}) != fingerprint("CDL001", "code_leakage", lower, {})
    assert fingerprint("GRP001", "group_overlap", "W1", {}) == fingerprint("GRP001", "group_overlap", "w1", {})
    # Group values with slashes and a colon are not code sites: two different ones stay two findings.
    assert fingerprint("TMP002", "temporal_order", "2020/01/05 10:30", {}) != fingerprint(
        "TMP002", "temporal_order", "2021/01/05 10:30", {}
    )
    assert fingerprint("GRP001", "group_overlap", "ward/3:12", {}) != fingerprint("GRP001", "group_overlap", "3:12", {})


def test_a_report_without_a_config_file_hides_absolute_paths_by_name(sample_report: SampleReports) -> None:
    found = Finding(
        code="FIT001",
        stage="fitted_statistics",
        severity=Severity.ERROR,
        title="t",
        message="artifact /srv/team/artifacts/norm.json was fitted on all rows",
        evidence={"artifact": "/srv/team/artifacts/norm.json"},
    )
    report = sample_report("clinic")
    stage = report.stages[0].model_copy(update={"findings": (found,)})
    bare = report.model_copy(update={"config_path": None, "manifest": None, "stages": (stage,)})
    shared = json.loads(portable(Report.model_validate(bare.model_dump(mode="json"))).model_dump_json())
    only = shared["stages"][0]["findings"][0]
    assert (
        only["message"] == "artifact …/norm.json was fitted on all rows"
        and only["evidence"]["artifact"] == "…/norm.json"
    )


def _with(report: Report, *found: Finding) -> Report:
    stage = report.stages[0].model_copy(update={"findings": found})
    return Report.model_validate(report.model_copy(update={"stages": (stage,)}).model_dump(mode="json"))


def test_values_outside_the_folder_never_merge_two_findings_into_one(sample_report: SampleReports) -> None:
    report = sample_report("clinic")
    folder = str((REPO / "sample_data" / "clinic").resolve())

    def source(value: str) -> Finding:
        return Finding(
            code="UPS001",
            stage="shared_upstream",
            severity=Severity.ERROR,
            title="t",
            message=f"'{value}' links train and test",
            key=value,
            evidence={"key": value, "rows": 2},
        )

    given = _with(report, source("/data/a/doc.pdf"), source("/data/b/doc.pdf"), source(f"{folder}/docs/c.pdf"))
    shared = portable(given)
    assert [f.key for f in shared.findings] == ["/data/a/doc.pdf", "/data/b/doc.pdf", "docs/c.pdf"]
    assert len({f.fingerprint for f in shared.findings}) == 3
    assert [f.fingerprint for f in shared.findings[:2]] == [f.fingerprint for f in given.findings[:2]]
    assert shared.findings[0].message == "'…/doc.pdf' links train and test"  # the prose still hides the folder
    site = Finding(
        code="BRD001",
        stage="broadcast",
        severity=Severity.ERROR,
        title="t",
        message="m",
        key="/opt/venv/lib/python3.11/site-packages/lib/ops.py:12",
    )
    (code,) = portable(_with(report, site)).findings
    assert code.key == "…/ops.py:12" and code.fingerprint == site.fingerprint
    inside = site.model_copy(update={"key": f"{folder}/src/model.py:38"})
    inside = Finding.model_validate(inside.model_dump())
    (shown,) = portable(_with(report, inside)).findings
    assert shown.key == "…/model.py:38" and shown.fingerprint == inside.fingerprint
