"""The per-stage memory bench measures every stage that ran, each from a peak reset before it."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("make_random"), importlib.import_module("stage_memory")


def test_each_stage_gets_its_own_peak(bench: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    make_random, stage_memory = bench
    make_random.generate(5_000, tmp_path / "manifest.parquet", seed=1)
    report, steps = stage_memory.audit(tmp_path / "links.yaml", "dask", "synchronous", None, None)
    assert report.exit_code == 1
    names = [r["step"] for r in steps.rows]
    assert names[0] == "(load the manifest)"
    ran = {s.stage for s in report.stages if s.status != "skipped"}
    assert set(names[1:]) == ran and len(names) == len(ran) + 1  # every stage that ran, once each
    for r in steps.rows:
        assert 0 < r["before_mb"] <= r["peak_mb"] and r["after_mb"] <= r["peak_mb"] and r["seconds"] >= 0


def test_a_peak_reset_forgets_what_came_before(bench: tuple[ModuleType, ModuleType]) -> None:
    """A peak from before the reset is not counted in the next step's."""
    _, stage_memory = bench
    held = bytearray(200 * 2**20)
    for i in range(0, len(held), 4096):
        held[i] = 1
    del held
    peak_then = stage_memory.status_mb("VmHWM")
    stage_memory.reset_peak()
    assert stage_memory.status_mb("VmHWM") < peak_then - 100
    lines = stage_memory.table([{"step": "s", "before_mb": 10.0, "peak_mb": 30.0, "after_mb": 12.0, "seconds": 1.0}])
    assert lines.splitlines()[2] == "| s | 10 | 30 | 20 | 12 | 1.0 |"
