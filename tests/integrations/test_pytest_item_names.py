"""The names of an audit's tests: a config outside the rootdir named by its absolute path (was `::audit.yaml`),
`-v` printing the name as it is (was `audit::yaml`), and two configs both called audit.yaml told apart in the
heads of their failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor import audit_config
from tests.integrations.projects import handwriting, run_pytest


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "tests" / "test_model.py").write_text("def test_model():\n    pass\n")
    return root


def test_configs_outside_the_rootdir_are_named_by_their_paths_and_told_apart(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    first, second = handwriting(tmp_path / "vision"), handwriting(tmp_path / "speech")
    done, _ = run_pytest(project, f"--audit={first}", f"--audit={second}", "-v", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    for config in (first, second):
        assert f"{config.as_posix()}::group_overlap FAILED" in out  # -v: the name as it is
        assert f"_ {config.as_posix()}: group_overlap _" in out  # the failure's head names its config
        assert f"FAILED {config.as_posix()}::group_overlap" in out
    assert "::audit.yaml::" not in out and "audit::yaml" not in out


def test_a_config_inside_the_rootdir_keeps_its_path_from_the_rootdir(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    handwriting(project / "data")
    done, _ = run_pytest(project, "--audit=data/audit.yaml", "-v", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "data/audit.yaml::group_overlap FAILED" in done.stdout and "audit::yaml" not in done.stdout
    assert "_ data/audit.yaml: group_overlap _" in done.stdout
    assert "FAILED data/audit.yaml::group_overlap" in done.stdout
    collected, _ = run_pytest(project / "tests", "--audit=../data/audit.yaml", "--collect-only", "-q")
    assert "../data/audit.yaml::group_overlap" in collected.stdout, collected.stdout


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_printed_test_id_runs_that_test_alone(tmp_path: Path, workers: list[str]) -> None:
    """The id a failure prints, given back to pytest, re-runs that stage's test (it was 'not found')."""
    project = _project(tmp_path / "project")
    handwriting(project / "data")
    (project / "pytest.ini").write_text("[pytest]\naudit_configs = data/audit.yaml\n")
    done, outcomes = run_pytest(project, "data/audit.yaml::group_overlap", *workers)
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes == {"group_overlap": "failed"}
    again, outcomes = run_pytest(project, "data/audit.yaml::split_integrity", *workers)
    assert again.returncode == 0 and outcomes == {"split_integrity": "passed"}, again.stdout


def test_a_folder_holding_the_config_collects_its_tests_once(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    config = handwriting(project / "data")
    (project / "pytest.ini").write_text("[pytest]\naudit_configs = data/audit.yaml\n")
    done, _ = run_pytest(project, "--collect-only", "-q")
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert len(ids) == len(set(ids)) == len(audit_config(config).stages) + 1  # and tests/test_model.py's
    assert "data/audit.yaml::group_overlap" in ids
