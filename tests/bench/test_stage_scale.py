"""The stage table's bench: its rows, exponents and refusals, and one case measured end to end on a small size."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def stage_scale(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("stage_scale")


def _result(stage_s: float, peak: float, refused: bool = False) -> dict[str, Any]:
    findings = [{"code": "NDP011", "message": "the rows were not compared for near copies"}] if refused else []
    return {"load_stage_s": stage_s + 1.0, "stage_s": stage_s, "peak_mb": peak, "stages": [{"findings": findings}]}


def test_a_row_gives_the_growth_between_the_sizes(stage_scale: ModuleType) -> None:
    row = stage_scale.row("folds_group_overlap", _result(1.0, 100), _result(10.0, 1000), 10)
    assert row == "| group_overlap, 5 folds | 2.00 | 11.00 | 0.74 | 1.00 | 10.00 | 1.00 | 100 | 1000 | 1.00 |"
    assert stage_scale.exponent(1.0, 20.0, 10) == "1.30" and stage_scale.exponent(None, 2.0, 10) == "—"


def test_a_size_whose_rows_were_refused_is_marked_and_given_no_growth(stage_scale: ModuleType) -> None:
    row = stage_scale.row("near_duplicates", _result(95.0, 931), _result(2.0, 2005, refused=True), 10)
    assert "2.00 (NDP011)" in row and "2005 (NDP011)" in row
    assert row.count("—") == 3  # no exponent for any of the three figures


def test_the_windows_case_is_measured_end_to_end(stage_scale: ModuleType, tmp_path: Path) -> None:
    config, stage = stage_scale.config_for("temporal_order_windows", 2_000, tmp_path)
    assert stage == "temporal_order" and config.name == "windows.yaml"
    result = stage_scale.measure(config, stage)
    # The random rows' times cross the split (TMP001) and training windows reach into the holdout's (TMP005).
    assert {f["code"] for s in result["stages"] for f in s["findings"]} >= {"TMP001", "TMP005"}
    assert result["stage_s"] > 0 and result["peak_mb"] > 0
