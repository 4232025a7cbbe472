"""The `audit` command: exit codes, files written, and a clear message for every bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from tests.conftest import REPO, write_config, write_table

runner = CliRunner()
SAMPLE = REPO / "sample_data" / "handwriting"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the handwriting sample, so tests never write into the repository."""
    target = tmp_path / "handwriting"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns("audit-report"))
    return target / "audit.yaml"


def test_sample_exits_1_names_writer_a_and_writes_reports(sample: Path) -> None:
    result = invoke("run", str(sample))
    assert result.exit_code == 1, result.output
    assert "writer-a" in result.output and "GRP001" in result.output
    out = sample.parent / "audit-report"
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md"]
    data = json.loads((out / "report.json").read_text())
    assert data["exit_code"] == 1
    assert data["manifest"]["rows_per_split"] == {"train": 13, "val": 4, "test": 8}


def test_out_format_fail_on_and_only(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere"
    result = invoke(
        "run",
        str(sample),
        "--out",
        str(out),
        "--format",
        "json,junit",
        "--fail-on",
        "never",
        "--only",
        "split_integrity",
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.junit.xml"]
    stages = [s["stage"] for s in json.loads((out / "report.json").read_text())["stages"]]
    assert stages == ["split_integrity"]


def test_clean_manifest_exits_0(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    cfg = write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "split": "split"},
            "keys": {"groups": ["w"]},
            "report": {"formats": []},
        },
    )
    result = invoke("run", str(cfg))
    assert result.exit_code == 0, result.output
    assert "exit 0" in result.output


@pytest.mark.parametrize(
    ("config_text", "expected"),
    [
        ("manifest: {path: m.csv, split: split\n", "YAML syntax error"),
        ("manifest: {path: m.csv, split: split}\nkeys: {grups: [w]}\n", "did you mean 'groups'?"),
        ("manifest: {path: m.csv, split: split}\nreport: {fail_on: 3}\n", "report.fail_on"),
        ("manifest: {path: gone.csv, split: split}\n", "working directory"),
        ("manifest: {path: m.csv, split: split}\nkeys: {groups: [writr]}\n", "available columns: w, split"),
        (
            "manifest: {path: m.csv, split: split}\nstages: {group_overlap: {max_exampels: 2}}\n",
            "did you mean 'max_examples'?",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message_and_writes_nothing(tmp_path: Path, config_text: str, expected: str) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    (tmp_path / "audit.yaml").write_text(config_text)
    result = invoke("run", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 2
    assert "error:" in result.output and expected in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "audit-report").exists()


def test_missing_config_exits_2(tmp_path: Path) -> None:
    result = invoke("run", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2 and "not found" in result.output


def test_unwritable_out_dir_exits_2_before_auditing(sample: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = invoke("run", str(sample), "--out", str(blocker / "reports"))
    assert result.exit_code == 2 and "cannot write the report directory" in result.output
    assert blocker.read_text() == "not a directory"


def test_unknown_format_and_fail_on(sample: Path) -> None:
    assert "unknown report format" in invoke("run", str(sample), "--format", "pdf").output
    result = invoke("run", str(sample), "--fail-on", "sometimes")
    assert result.exit_code == 2 and "--fail-on" in result.output


def test_unknown_only_stage(sample: Path) -> None:
    result = invoke("run", str(sample), "--only", "group_overlp")
    assert result.exit_code == 2 and "did you mean 'group_overlap'" in result.output


def test_validate_checks_columns_without_running(sample: Path, tmp_path: Path) -> None:
    result = invoke("validate", str(sample))
    assert result.exit_code == 0 and "valid" in result.output and "group_overlap" in result.output
    assert not (sample.parent / "audit-report").exists()
    bad = sample.parent / "bad.yaml"
    bad.write_text(sample.read_text().replace("groups: [writer]", "groups: [author]"))
    result = invoke("validate", str(bad))
    assert result.exit_code == 2 and "no column 'author'" in result.output


def test_stages_lists_every_stage_and_whether_it_applies(sample: Path) -> None:
    result = runner.invoke(app, ["stages", str(sample)], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "group_overlap" in result.output and "runs" in result.output
    assert "not implemented yet" in result.output
    bare = runner.invoke(app, ["stages"], env={"COLUMNS": "250"}).output
    assert "keys.groups" in bare and "(not implemented yet)" in bare


def test_schema_writes_and_checks(tmp_path: Path) -> None:
    assert invoke("schema", "--out", str(tmp_path)).exit_code == 0
    assert invoke("schema", "--out", str(tmp_path), "--check").exit_code == 0
    (tmp_path / "report.schema.json").write_text("{}")
    assert invoke("schema", "--out", str(tmp_path), "--check").exit_code == 1


def test_console_script_entry_point(sample: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditor.cli", "run", str(sample), "--format", "json", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""


def test_verbose_shows_info_findings_and_skip_reasons(sample: Path) -> None:
    quiet = runner.invoke(app, ["run", str(sample), "--format", "json"], env={"COLUMNS": "200"}).output
    loud = runner.invoke(app, ["run", str(sample), "--format", "json", "-v"], env={"COLUMNS": "200"}).output
    assert "SPL000" not in quiet and "SPL000" in loud
    assert "not implemented yet" in loud and "not implemented yet" not in quiet


def test_reports_are_readable_by_others_and_stale_ones_go(sample: Path) -> None:
    import os
    import stat

    out = sample.parent / "audit-report"
    old = os.umask(0o022)
    try:
        invoke("run", str(sample))
        assert stat.S_IMODE((out / "report.json").stat().st_mode) == 0o644
        invoke("run", str(sample), "--format", "json")
        assert sorted(p.name for p in out.iterdir()) == ["report.json"]
        (sample.parent / "manifest.csv").write_text("")
        assert invoke("run", str(sample)).exit_code == 2
        assert list(out.iterdir()) == []  # an audit that could not run leaves no old report behind
    finally:
        os.umask(old)


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.startswith("split-auditor ")


def test_numeric_only_config_with_a_missing_module_names_it(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path, {"numeric": {"model": "m:a", "batch": "m:b", "loss": "m:c"}, "report": {"formats": []}}
    )
    result = runner.invoke(app, ["run", str(cfg)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "no module named 'm'" in result.output
    assert "audit.yaml:" in result.output  # where the reference is written


@pytest.fixture
def clinic(tmp_path: Path) -> Path:
    target = tmp_path / "clinic"
    shutil.copytree(REPO / "sample_data" / "clinic", target, ignore=shutil.ignore_patterns("audit-report"))
    return target / "audit.yaml"


def test_clinic_sample_finds_the_scaler_fitted_on_all_rows(clinic: Path) -> None:
    result = runner.invoke(app, ["run", str(clinic), "--only", "fitted_statistics", "-v"], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert "FIT001" in result.output and "'feature_scaler'" in result.output and "all rows" in result.output
    report = json.loads((clinic.parent / "audit-report" / "report.json").read_text())
    found = sorted((f["code"], f["key"]) for s in report["stages"] for f in s["findings"])
    assert found == [
        ("FIT000", "missing_values"),
        ("FIT000", "note_vocabulary"),
        ("FIT000", "smoker_onehot"),
        ("FIT001", "feature_scaler"),
    ]


def test_validate_reads_artifacts(clinic: Path) -> None:
    assert invoke("validate", str(clinic)).exit_code == 0
    (clinic.parent / "artifacts" / "vocab.txt").unlink()
    pickled = clinic.read_text().replace("artifacts/scaler.json", "artifacts/scaler.pkl")
    clinic.write_text(pickled)
    (clinic.parent / "artifacts" / "scaler.pkl").write_bytes(b"\x80\x04.")
    result = invoke("validate", str(clinic))
    assert result.exit_code == 2
    assert "scaler.pkl" in result.output and "is a pickle" in result.output
    assert "vocab.txt" in result.output and "not found" in result.output
    assert not (clinic.parent / "audit-report").exists()


def test_lab_computes_the_four_faults() -> None:
    result = invoke("lab")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "broadcast error shape: (3, 3), wrong MSE=1.333333, right MSE=0.000000"
    assert lines[1] == "backward after .item() re-wrap fails: True; gradient with the graph kept = 4.0"
    assert lines[2] == "direct exp probabilities all finite: False; stable probabilities sum = 1.000000"
    assert lines[3] == "writers crossing splits: ['writer-a']"
    assert "not yet a model that generalizes" in result.output
    assert "broadcast BRD001, BRD003" in result.output and "detached_graph GRD001" in result.output


def test_quiet_still_says_why_the_audit_could_not_run(clinic: Path) -> None:
    (clinic.parent / "artifacts" / "scaler.json").write_text("{broken", encoding="utf-8")
    result = runner.invoke(app, ["run", str(clinic), "-q"])
    assert result.exit_code == 2
    assert "fitted_statistics:" in result.output and "scaler.json:1:2" in result.output


def test_validate_checks_claimed_splits_against_the_declared_ones(clinic: Path) -> None:
    clinic.write_text(
        clinic.read_text().replace("fitted_on: [train]\n  - name: missing", "fitted_on: [training]\n  - name: missing")
    )
    result = runner.invoke(app, ["validate", str(clinic)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "claims split(s) training, which `splits` does not declare" in result.output


def test_validate_imports_the_numeric_code(tmp_path: Path) -> None:
    sample = tmp_path / "regression"
    shutil.copytree(REPO / "sample_data" / "numeric" / "regression" / "fixed", sample)
    assert invoke("validate", str(sample / "audit.yaml")).exit_code == 0
    config = sample / "audit.yaml"
    config.write_text(config.read_text().replace("housing:build_model", "housing:buld_model"))
    result = runner.invoke(app, ["validate", str(config)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "has no attribute 'buld_model'; did you mean 'build_model'?" in result.output


def test_bad_options_still_clear_old_reports(sample: Path) -> None:
    assert invoke("run", str(sample)).exit_code == 1
    out = sample.parent / "audit-report"
    assert (out / "report.json").exists()
    assert invoke("run", str(sample), "--format", "jsn").exit_code == 2
    assert not (out / "report.json").exists()
    assert invoke("run", str(sample)).exit_code == 1
    assert invoke("run", str(sample), "--fail-on", "warn").exit_code == 2
    assert not (out / "report.json").exists()


def test_quiet_says_why_nothing_ran(tmp_path: Path) -> None:
    sample = tmp_path / "regression"
    shutil.copytree(REPO / "sample_data" / "numeric" / "regression" / "fixed", sample)
    result = runner.invoke(app, ["run", str(sample / "audit.yaml"), "--only", "fitted_statistics", "-q"])
    assert result.exit_code == 2
    assert "fitted_statistics: skipped, the config has no `manifest`" in result.output
