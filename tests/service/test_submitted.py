"""Which stages a server-side audit lists: every installed one, those that run the user's code as skipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from auditor.core.errors import ConfigError
from auditor.core.findings import Finding
from auditor.pipeline.registry import discover, load_stages
from auditor.pipeline.stage import AuditContext, Stage
from auditor.service.review import not_run
from auditor.service.submitted import load_submitted, server_stage_classes
from tests.conftest import report_of

CONFIG = "version: 1\nmanifest: {path: manifest.csv, split: split}\n"


class UserCode(Stage):
    """A stage that would run the user's code whatever the config says."""

    name = "user_code"
    summary = "runs the user's code"
    needs_numeric = True

    def run(self, context: AuditContext) -> Iterator[Finding]:
        raise AssertionError("never run on the server")


def test_every_installed_stage_is_listed_and_none_that_runs_user_code_would_run(tmp_path: Path) -> None:
    (tmp_path / "manifest.csv").write_text("split\ntrain\ntest\n")
    loaded = load_submitted(CONFIG, tmp_path)
    classes = server_stage_classes(loaded)
    assert not not_run(_report_of(classes), [p.name for p in discover()])
    with pytest.raises(ConfigError, match="user_code would run the user's code"):
        server_stage_classes(loaded, [*load_stages(discover()), UserCode])


def _report_of(classes: list[type[Stage]]):  # type: ignore[no-untyped-def]
    from auditor.core.findings import StageResult

    return report_of(tuple(StageResult(stage=c.name, status="skipped", duration_s=0.0) for c in classes))
