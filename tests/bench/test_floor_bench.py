"""The floor benchmark times every step it names on a manifest of the random shape."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_floor_bench_times_each_step(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    make_random = importlib.import_module("make_random")
    floor_bench = importlib.import_module("floor_bench")
    out = tmp_path / "manifest.parquet"
    make_random.generate(5_000, out, seed=1)
    medians = floor_bench.measure(out, repeat=1)
    expected = {"read", "sha256", "ids: sort", "writer: arrow", "writer: hash+enc", "source: arrow", "source: hash+enc"}
    assert set(medians) == expected
    assert all(seconds > 0 for seconds in medians.values())
