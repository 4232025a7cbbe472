"""What docs/integrations.md says of a local file store under mlflow 3.x: mlflow refuses it unless
MLFLOW_ALLOW_FILE_STORE=true; `audit run --mlflow` then warns with mlflow's words and keeps the audit's exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from tests.integrations.projects import handwriting

mlflow = pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
runner = CliRunner()


@pytest.fixture
def file_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    uri = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("DO_NOT_TRACK", "true")
    for name in ("MLFLOW_ALLOW_FILE_STORE", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(name, raising=False)
    return uri


def test_a_file_store_needs_mlflow_allow_file_store_and_the_exit_code_stays_the_audits(
    tmp_path: Path, file_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = handwriting(tmp_path / "project")
    refused = runner.invoke(app, ["run", str(config), "--mlflow", "-q", "--out", str(tmp_path / "a")])
    if "MLFLOW_ALLOW_FILE_STORE" not in refused.output:
        pytest.skip(f"mlflow {mlflow.__version__} takes a file store without the opt-in")
    assert refused.exit_code == 1  # the audit's verdict (writer-a leaks), not the tracker's
    assert "warning: mlflow: could not log the report to a run" in refused.output
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    logged = runner.invoke(app, ["run", str(config), "--mlflow", "-q", "--out", str(tmp_path / "b")])
    assert logged.exit_code == 1 and "mlflow: logged the report to run" in logged.output, logged.output
    while mlflow.active_run() is not None:
        mlflow.end_run()
