"""A report made portable for sharing: paths relative to the config's folder, other absolute paths by name only."""

from __future__ import annotations

import json

import pytest

from auditor import run_audit
from auditor.core.findings import Finding, Report, Severity, fingerprint
from auditor.core.portable import portable, shown_path
from tests.conftest import REPO

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


def test_a_sample_report_keeps_no_absolute_path_and_its_verdict() -> None:
    report = run_audit(REPO / "sample_data" / "clinic" / "audit.yaml")
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


def test_a_code_site_keeps_its_fingerprint_when_made_relative() -> None:
    absolute = fingerprint("BRD001", "broadcast", "/home/alice/proj/src/model.py:38", {})
    assert fingerprint("BRD001", "broadcast", "src/model.py:38", {}) == absolute
    assert fingerprint("BRD001", "broadcast", "…/model.py:38", {}) == absolute
    # Group values with slashes and a colon are not code sites: two different ones stay two findings.
    assert fingerprint("TMP002", "temporal_order", "2020/01/05 10:30", {}) != fingerprint(
        "TMP002", "temporal_order", "2021/01/05 10:30", {}
    )
    assert fingerprint("GRP001", "group_overlap", "ward/3:12", {}) != fingerprint("GRP001", "group_overlap", "3:12", {})


def test_a_report_without_a_config_file_hides_absolute_paths_by_name() -> None:
    found = Finding(
        code="FIT001",
        stage="fitted_statistics",
        severity=Severity.ERROR,
        title="t",
        message="artifact /srv/team/artifacts/norm.json was fitted on all rows",
        evidence={"artifact": "/srv/team/artifacts/norm.json"},
    )
    report = run_audit(REPO / "sample_data" / "clinic" / "audit.yaml")
    stage = report.stages[0].model_copy(update={"findings": (found,)})
    bare = report.model_copy(update={"config_path": None, "manifest": None, "stages": (stage,)})
    shared = json.loads(portable(Report.model_validate(bare.model_dump(mode="json"))).model_dump_json())
    only = shared["stages"][0]["findings"][0]
    assert (
        only["message"] == "artifact …/norm.json was fitted on all rows"
        and only["evidence"]["artifact"] == "…/norm.json"
    )
