"""MLflow logging against a local file store: the report files as artifacts, the verdict and counts as tags and
metrics, in the active run or one started for it; a store that fails never changes the exit code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from auditor import audit_config, log_to_mlflow
from auditor.cli import app
from auditor.core.errors import ArgumentError, TrackingError
from auditor.render import render_json
from tests.conftest import REPO
from tests.integrations.projects import DOC, handwriting, snippet, tool_env

mlflow = pytest.importorskip("mlflow", reason="the mlflow extra is not installed")

REPORT_FILES = ["split-auditor/report.html", "split-auditor/report.json", "split-auditor/report.md"]


def _store_env(root: Path) -> dict[str, str]:
    return {
        "MLFLOW_TRACKING_URI": (root / "mlruns").as_uri(),
        "MLFLOW_ALLOW_FILE_STORE": "true",  # the file store, kept for local use, is opted into
        "MLFLOW_DISABLE_TELEMETRY": "true",
        "DO_NOT_TRACK": "true",
    }


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fresh local file store as the tracking URI; its client."""
    for name, value in _store_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    for name in ("MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(name, raising=False)
    yield mlflow.MlflowClient(_store_env(tmp_path)["MLFLOW_TRACKING_URI"])
    while mlflow.active_run() is not None:
        mlflow.end_run()


def _artifacts(client: Any, run_id: str) -> list[str]:
    return sorted(a.path for a in client.list_artifacts(run_id, "split-auditor"))


def test_with_no_active_run_a_run_is_started_for_the_report_and_ended(tmp_path: Path, store: Any) -> None:
    report = audit_config(handwriting(tmp_path / "project"))
    assert report.exit_code == 1  # the sample's leak
    logged = log_to_mlflow(report)
    assert logged.started and tuple(sorted(logged.artifacts)) == tuple(REPORT_FILES)
    run = store.get_run(logged.run_id)
    # a run of the audit's own ends as the audit did: a failed audit is a FAILED run, not a FINISHED one
    assert run.info.status == "FAILED" and mlflow.active_run() is None
    passed = report.model_copy(update={"exit_code": 0})
    assert store.get_run(log_to_mlflow(passed).run_id).info.status == "FINISHED"
    assert run.data.tags["audit.verdict"] == "failed" and run.data.tags["audit.exit_code"] == "1"
    assert run.data.tags["audit.config"] == str(tmp_path / "project" / "audit.yaml")
    assert run.data.metrics["audit.exit_code"] == 1.0
    assert (run.data.metrics["audit.errors"], run.data.metrics["audit.warnings"]) == (1.0, 0.0)
    assert _artifacts(store, logged.run_id) == REPORT_FILES
    local = Path(store.download_artifacts(logged.run_id, "split-auditor/report.json", str(tmp_path)))
    assert local.read_text(encoding="utf-8") == render_json(report)


def test_the_active_run_gets_the_report_and_stays_active(tmp_path: Path, store: Any) -> None:
    report = audit_config(handwriting(tmp_path / "project", clean=True))
    with mlflow.start_run() as active:
        logged = log_to_mlflow(report, formats=["json"])
        assert mlflow.active_run().info.run_id == active.info.run_id
    assert not logged.started and logged.run_id == active.info.run_id
    run = store.get_run(active.info.run_id)
    assert run.data.tags["audit.verdict"] == "passed" and run.data.metrics["audit.errors"] == 0.0
    assert _artifacts(store, active.info.run_id) == ["split-auditor/report.json"]


def test_the_run_mlflow_run_id_names_is_used_and_left_running(
    tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parent process (`mlflow run`, a pipeline step) owns the run: logging to it never ends it."""
    experiment = store.get_experiment_by_name("Default").experiment_id
    owned = store.create_run(experiment).info.run_id
    monkeypatch.setenv("MLFLOW_RUN_ID", owned)
    logged = log_to_mlflow(audit_config(handwriting(tmp_path / "project")))
    assert (logged.run_id, logged.started) == (owned, False)
    assert store.get_run(owned).info.status == "RUNNING"
    assert store.get_run(owned).data.tags["audit.exit_code"] == "1"


def test_a_store_that_refuses_is_a_tracking_error(tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (blocker / "mlruns").as_uri())
    report = audit_config(handwriting(tmp_path / "project"))
    with pytest.raises(TrackingError, match=r"mlflow: could not log the report to a run: \w+"):
        log_to_mlflow(report)
    assert report.exit_code == 1  # the report is what it was


def test_wrong_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="expected a Report, got dict"):
        log_to_mlflow({})  # type: ignore[arg-type]
    report = audit_config(handwriting(tmp_path))
    with pytest.raises(ArgumentError, match=r"log_to_mlflow\(formats=…\): \['pdf'\]"):
        log_to_mlflow(report, formats=["pdf"])


# -- the command line -------------------------------------------------------------------------------------


def _docs_command() -> list[str]:
    # The page gives the command where it introduces it, and again beside a file store's setting.
    commands = set(re.findall(r"^audit run audit\.yaml --mlflow$", DOC.read_text(encoding="utf-8"), flags=re.M))
    (command,) = commands
    return command.split()[1:]


def _invoke(cwd: Path, *args: str) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.mark.parametrize(("clean", "exit_code"), [(False, 1), (True, 0)])
def test_audit_run_mlflow_logs_the_files_it_wrote_and_exits_as_the_audit(
    tmp_path: Path, store: Any, clean: bool, exit_code: int
) -> None:
    handwriting(tmp_path, clean=clean)
    result = _invoke(tmp_path, *_docs_command())
    assert result.exit_code == exit_code, result.output
    said = re.search(r"mlflow: logged the report to run (\w+) of experiment \w+ \(no run was active", result.stderr)
    assert said, result.stderr
    run = store.get_run(said.group(1))
    assert run.data.tags["audit.exit_code"] == str(exit_code)
    assert _artifacts(store, run.info.run_id) == REPORT_FILES  # the config's formats, as written


@pytest.mark.parametrize(("clean", "exit_code"), [(False, 1), (True, 0)])
def test_a_logging_failure_is_a_warning_and_the_exit_code_stays_the_audits(
    tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch, clean: bool, exit_code: int
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (blocker / "mlruns").as_uri())
    handwriting(tmp_path, clean=clean)
    result = _invoke(tmp_path, "run", "audit.yaml", "--mlflow")
    assert result.exit_code == exit_code, result.output
    assert "warning: mlflow: could not log the report" in result.stderr
    assert f"the exit code is the audit's ({exit_code})" in result.stderr
    assert (tmp_path / "audit-report" / "report.json").is_file()


def test_mlflow_missing_is_refused_before_the_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("auditor.integrations.tracking.mlflow_available", lambda: False)
    handwriting(tmp_path)
    for args in (["run", "audit.yaml", "--mlflow"], ["code", str(REPO / "sample_data" / "churn_notebook"), "--mlflow"]):
        result = _invoke(tmp_path, *args)
        assert result.exit_code == 2, result.output
        assert "--mlflow: mlflow is not installed; install it with pip install 'split-auditor[mlflow]'" in result.stderr
    assert not (tmp_path / "audit-report").exists()


def test_audit_code_mlflow_logs_the_report_it_printed(tmp_path: Path, store: Any) -> None:
    notebook = REPO / "sample_data" / "churn_notebook" / "churn_model.ipynb"
    result = _invoke(tmp_path, "code", str(notebook), "--mlflow")
    assert result.exit_code == 1, result.output
    run_id = re.search(r"logged the report to run (\w+)", result.stderr).group(1)  # type: ignore[union-attr]
    assert store.get_run(run_id).data.metrics["audit.errors"] >= 1
    assert _artifacts(store, run_id) == REPORT_FILES


def test_the_training_snippet_logs_the_audit_and_stops_on_a_leak(tmp_path: Path, store: Any) -> None:
    block = snippet("train.py")
    env = tool_env(**_store_env(tmp_path))
    for clean in (False, True):
        project = tmp_path / ("clean" if clean else "leaky")
        handwriting(project, clean=clean)
        (project / "train.py").write_text(block)
        done = subprocess.run([sys.executable, "train.py"], cwd=project, capture_output=True, text=True, env=env)
        assert done.returncode == (0 if clean else 1), done.stderr
        if not clean:
            assert "the split did not pass its audit (exit 1)" in done.stderr
    client = store
    runs = client.search_runs([client.get_experiment_by_name("Default").experiment_id])
    verdicts = sorted((r.data.tags["audit.verdict"], r.data.params.get("model")) for r in runs)
    assert verdicts == [("failed", None), ("passed", "baseline")]
    assert all(_artifacts(client, r.info.run_id) == REPORT_FILES for r in runs)
    assert (
        json.loads(
            Path(client.download_artifacts(runs[0].info.run_id, "split-auditor/report.json", str(tmp_path))).read_text()
        )["status"]
        == "completed"
    )


# -- one run, several audits ------------------------------------------------------------------------------


def _owned_run(store: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """A run that a parent process owns (named by MLFLOW_RUN_ID), as every audit of a pipeline step logs to."""
    owned = store.create_run(store.get_experiment_by_name("Default").experiment_id).info.run_id
    monkeypatch.setenv("MLFLOW_RUN_ID", owned)
    return str(owned)


def _audit_tags(store: Any, run_id: str) -> dict[str, str]:
    return {k: v for k, v in store.get_run(run_id).data.tags.items() if k.startswith("audit.")}


def test_a_passing_report_is_not_logged_over_a_run_whose_audit_did_not_pass(
    tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data audit failed; the code audit of the same run passed: logged over it, the run said `passed`
    beside the failed audit's config and manifest, and its report files were the passing one's."""
    owned = _owned_run(store, monkeypatch)
    failed = audit_config(handwriting(tmp_path / "project"))
    log_to_mlflow(failed)
    before = _audit_tags(store, owned)
    notebook = REPO / "sample_data" / "churn_notebook" / "churn_model_fixed.ipynb"
    result = _invoke(tmp_path, "code", str(notebook), "--mlflow")
    assert result.exit_code == 0, result.output  # the audit's own exit code, whatever the tracker does
    assert f"warning: mlflow: run {owned} holds an audit that did not pass (exit 1" in result.stderr
    assert "log this report to a run of its own" in result.stderr
    assert _audit_tags(store, owned) == before and before["audit.verdict"] == "failed"
    local = Path(store.download_artifacts(owned, "split-auditor/report.json", str(tmp_path / "down")))
    assert local.read_text(encoding="utf-8") == render_json(failed)
    with pytest.raises(TrackingError, match=f"run {owned} holds an audit that did not pass"):
        log_to_mlflow(audit_config(handwriting(tmp_path / "mended", clean=True)))


def test_a_report_that_does_not_pass_is_logged_over_any_and_leaves_no_tag_of_the_one_before(
    tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's later audits that pass again, or fail, are logged as before (the run says the latest); a report
    with no config or manifest (audit code) removes those of the report it replaces."""
    owned = _owned_run(store, monkeypatch)
    log_to_mlflow(audit_config(handwriting(tmp_path / "clean", clean=True)))
    log_to_mlflow(audit_config(handwriting(tmp_path / "clean2", clean=True)))
    assert _audit_tags(store, owned)["audit.config"] == str(tmp_path / "clean2" / "audit.yaml")
    result = _invoke(tmp_path, "code", str(REPO / "sample_data" / "churn_notebook" / "churn_model.ipynb"), "--mlflow")
    assert result.exit_code == 1 and "warning" not in result.stderr, result.output
    tags = _audit_tags(store, owned)
    assert (tags["audit.verdict"], tags["audit.exit_code"]) == ("failed", "1")
    assert "audit.config" not in tags and "audit.manifest_sha256" not in tags
    log_to_mlflow(audit_config(handwriting(tmp_path / "leaky")))
    tags = _audit_tags(store, owned)
    assert tags["audit.config"] == str(tmp_path / "leaky" / "audit.yaml") and tags["audit.verdict"] == "failed"
