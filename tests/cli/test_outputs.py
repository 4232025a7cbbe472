"""The `audit` command writes only where nothing of the user's is: an output that is one of the command's own
inputs, or a file of a report's name that this tool did not write, is refused before anything is touched."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.core.output import read_report_state
from tests.conftest import write_config, write_table

runner = CliRunner()
JSONL = '{"sample_id": "a", "split": "train", "writer": "w1"}\n{"sample_id": "b", "split": "test", "writer": "w2"}\n'


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def clean_run(folder: Path, out: Path) -> Path:
    """A passing audit of a small CSV whose reports (json, markdown, html) are written to ``out``."""
    write_table(folder / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    config = write_config(folder, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}})
    assert invoke("run", str(config), "--out", str(out)).exit_code == 0
    return config


@pytest.mark.parametrize("named_by", ["--out", "report.out_dir"])
def test_a_manifest_named_report_json_in_the_report_folder_is_refused_and_kept(tmp_path: Path, named_by: str) -> None:
    (tmp_path / "report.json").write_text(JSONL)
    config = {
        "manifest": {"path": "report.json", "id": "sample_id", "split": "split", "format": "jsonl"},
        "keys": {"groups": ["writer"]},
    }
    if named_by == "report.out_dir":
        config["report"] = {"out_dir": "."}
    path = write_config(tmp_path, config)
    before = snapshot(tmp_path)
    result = invoke("run", str(path), *(["--out", str(tmp_path)] if named_by == "--out" else []))
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'report.json'} is a manifest file of this command" in result.output
    assert named_by in result.output and "an input is never replaced or removed" in result.output
    assert snapshot(tmp_path) == before  # the manifest is there, unchanged, and nothing was added


def test_a_fitted_artifact_named_like_a_report_is_refused_and_kept(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b", "c"], "split": ["train", "train", "test"], "f": [1.0, 2.0, 3.0]})
    (tmp_path / "report.json").write_text('{"mean_": [1.5], "scale_": [0.5]}')
    fitted = [{"name": "scaler", "kind": "standardize", "artifact": "report.json", "columns": ["f"]}]
    config = write_config(
        tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}, "fitted": fitted}
    )
    before = snapshot(tmp_path)
    result = invoke("run", str(config), "--out", str(tmp_path))
    assert result.exit_code == 2 and "is the artifact of fitted 'scaler' of this command" in result.output
    assert snapshot(tmp_path) == before


def test_a_baseline_in_the_report_folder_is_not_replaced_by_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = clean_run(tmp_path, out)
    before = snapshot(out)
    result = invoke("run", str(config), "--out", str(out), "--baseline", str(out / "report.json"))
    assert result.exit_code == 2 and "is the baseline of this command" in result.output
    assert snapshot(out) == before  # the approved report and its siblings stay as they were
    hard = tmp_path / "approved.json"
    os.link(out / "report.json", hard)  # the same file under another name
    result = invoke("run", str(config), "--out", str(out), "--baseline", str(hard))
    assert result.exit_code == 2 and f"is the baseline of this command ({hard})" in result.output
    assert snapshot(out) == before


def test_a_file_of_a_report_name_this_tool_did_not_write_is_never_replaced_or_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = clean_run(tmp_path, out)
    (out / "report.md").write_text("# my notes on the split\n")
    before = snapshot(out)
    result = invoke("run", str(config), "--out", str(out))  # would write report.md
    assert result.exit_code == 2, result.output
    assert f"{out / 'report.md'} is not a file split-auditor wrote, so it is not replaced" in result.output
    assert snapshot(out) == before
    result = invoke("run", str(config), "--out", str(out), "--format", "json")  # writes no report.md
    assert result.exit_code == 0, result.output
    assert (out / "report.md").read_text() == "# my notes on the split\n"
    assert not (out / "report.html").exists()  # this tool's own stale report is removed, as before
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: 1\nmanifest: [\n")
    assert invoke("run", str(broken), "--out", str(out)).exit_code == 2  # a config that fails clears the reports
    assert (out / "report.md").read_text() == "# my notes on the split\n"
    assert not (out / "report.json").exists()


def test_reports_of_this_tool_are_still_replaced_and_removed(tmp_path: Path) -> None:
    """The suspicious-looking but right case: a folder of this tool's own reports is this tool's to rewrite."""
    out = tmp_path / "out"
    config = clean_run(tmp_path, out)
    assert invoke("run", str(config), "--out", str(out), "--format", "json,junit,sarif").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.junit.xml", "report.sarif"]
    assert invoke("run", str(config), "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md"]
    assert read_report_state(out / "report.json").is_verdict


def test_diff_never_writes_over_the_reports_it_compares(tmp_path: Path) -> None:
    out = tmp_path / "out"
    clean_run(tmp_path, out)
    old = out / "diff.json"  # a report saved under a diff's name, then compared
    shutil.copy(out / "report.json", old)
    before = snapshot(out)
    result = invoke("diff", str(old), str(out / "report.json"), "--out", str(out))
    assert result.exit_code == 2 and f"--out: {old} is OLD of this command" in result.output
    assert snapshot(out) == before


def test_diff_refuses_a_file_it_did_not_write_and_replaces_its_own(tmp_path: Path) -> None:
    out = tmp_path / "out"
    clean_run(tmp_path, out)
    report = str(out / "report.json")
    diffs = tmp_path / "diffs"
    assert invoke("diff", report, report, "--out", str(diffs)).exit_code == 0
    assert sorted(p.name for p in diffs.iterdir()) == ["diff.html", "diff.json", "diff.md"]
    assert invoke("diff", report, report, "--out", str(diffs), "--format", "json").exit_code == 0
    assert sorted(p.name for p in diffs.iterdir()) == ["diff.json"]  # its own older diff files are removed
    (diffs / "diff.md").write_text("what we decided\n")
    result = invoke("diff", report, report, "--out", str(diffs), "--format", "markdown")
    assert result.exit_code == 2 and "is not a file split-auditor wrote" in result.output
    assert (diffs / "diff.md").read_text() == "what we decided\n"
    assert invoke("diff", report, report, "--out", str(diffs), "--format", "json").exit_code == 0
    assert (diffs / "diff.md").read_text() == "what we decided\n"


@pytest.mark.parametrize("how", ["same path", "hard link"])
def test_init_never_writes_the_config_over_its_manifest(tmp_path: Path, how: str) -> None:
    manifest = write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    target = manifest
    if how == "hard link":
        target = tmp_path / "audit.yaml"
        os.link(manifest, target)
    before = manifest.read_bytes()
    result = invoke("init", str(manifest), "--out", str(target), "--force")
    assert result.exit_code == 2, result.output
    assert f"--out: {target} is the manifest of this command ({manifest})" in result.output
    assert manifest.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"m.csv", target.name})


def test_init_force_still_replaces_a_config(tmp_path: Path) -> None:
    manifest = write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    before = manifest.read_bytes()
    config = tmp_path / "audit.yaml"
    config.write_text("version: 1\n")
    assert invoke("init", str(manifest), "--out", str(config), "--force").exit_code == 0
    assert "split: split" in config.read_text()
    assert manifest.read_bytes() == before


def test_init_without_out_writes_audit_yaml_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--out`'s default (a path, not a text typed) reaches the same check a typed one does: no internal error."""
    write_table(tmp_path / "my data.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    monkeypatch.chdir(tmp_path)
    result = invoke("init", "my data.csv")
    assert result.exit_code == 0, result.output
    assert 'path: "my data.csv"' in (tmp_path / "audit.yaml").read_text()
