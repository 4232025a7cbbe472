"""The catalogue of the lowest severity of each finding code: complete, and never above what an audit reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor import run_audit
from auditor.pipeline.registry import discover, load_stages
from auditor.pipeline.severity import LOWEST

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
ACCEPT_CODES = {"ACC001", "ACC002", "ACC003", "ACC004"}  # the runner's own, about `accept` entries


def test_every_code_of_every_installed_stage_has_its_lowest_severity() -> None:
    codes = {code for cls in load_stages(discover()) for code in cls.codes}
    assert set(LOWEST) == codes | ACCEPT_CODES


@pytest.mark.parametrize("config", sorted(SAMPLES.glob("*/audit*.yaml")), ids=lambda p: p.parent.name + "/" + p.name)
def test_no_sample_audit_reports_a_finding_below_its_lowest_severity(config: Path) -> None:
    """A floor set too high would make the service refuse a report as the audit wrote it."""
    report = run_audit(config)
    assert [(f.code, f.severity.value) for f in report.findings if f.severity < LOWEST[f.code]] == []
