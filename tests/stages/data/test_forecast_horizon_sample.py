"""The forecast-horizon sample: a cut-off without a gap leaks the last week of training labels into the test
period; the same data split with a 7-day gap is clean."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pandas as pd
import yaml

from auditor import load_config, run_audit
from auditor.core.findings import Severity
from tests.conftest import REPO

SAMPLE = REPO / "sample_data" / "forecast_horizon"


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_forecast_sample", SAMPLE / "make_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_manifest_is_what_the_builder_writes() -> None:
    committed = pd.read_csv(SAMPLE / "manifest.csv")
    pd.testing.assert_frame_equal(committed, _builder().manifest().reset_index(drop=True), check_dtype=False)


def test_the_last_week_of_training_is_purged_in_every_store_and_the_audit_fails(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "s", ignore=shutil.ignore_patterns("audit-report"))
    report = run_audit(load_config(tmp_path / "s" / "audit.yaml"), only=["temporal_order"])
    assert report.exit_code == 1
    # Once, per store: the same 21 rows were reported again across stores, as a warning.
    (mine,) = [f for f in report.findings if f.code == "TMP005"]
    assert mine.key == "store"
    assert mine.severity == Severity.ERROR and mine.evidence["rows"] == 21  # 7 days x 3 stores
    # 2024-03-24 is the first day whose window reaches the test's first day, 03-31; one row a store.
    assert [(e["date"][:10], e["store"]) for e in mine.examples[:3]] == [
        ("2024-03-24", "harbour"),
        ("2024-03-24", "north"),
        ("2024-03-24", "station"),
    ]
    assert mine.evidence["splits"]["test"]["holdout_period"].startswith("2024-03-31")


def test_the_same_days_split_with_a_7_day_gap_are_clean(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns("audit-report"))
    table = pd.read_csv(folder / "manifest.csv")
    days = (pd.to_datetime(table["date"]) - pd.Timestamp("2024-03-31")).dt.days
    table = table[(days < -7) | (days >= 0)]  # drop the 7 days before the cut-off, as TimeSeriesSplit(gap=7) does
    table.to_csv(folder / "manifest.csv", index=False)
    report = run_audit(load_config(folder / "audit.yaml"), only=["temporal_order"])
    assert report.exit_code == 0 and report.stages[0].status == "passed", [f.message for f in report.findings]
    assert yaml.safe_load((folder / "audit.yaml").read_text())["splits"]["gap"] == "7d"
