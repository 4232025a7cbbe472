"""The driver bench tells the audit process's peak from its children's, and checks the findings it read back."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

# A parent that touches 40 MB and then starts a child that touches 160 MB: the child's is the larger peak.
_HOLD = "b = bytearray({mb} * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1\n"
_PARENT = _HOLD.format(mb=40) + (
    "import subprocess, sys, time\n"
    "subprocess.run([sys.executable, '-c', {child!r}])\n"
).format(child=_HOLD.format(mb=160) + "import time\ntime.sleep(1.0)\n")  # fmt: skip


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType, ModuleType]:
    """make_random, scale_bench and driver_bench, imported from bench/ (they import their sibling scripts)."""
    monkeypatch.syspath_prepend(str(BENCH))
    return tuple(importlib.import_module(m) for m in ("make_random", "scale_bench", "driver_bench"))  # type: ignore[return-value]


def test_driver_peak_leaves_out_its_childrens(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    *_, driver_bench = bench
    out = driver_bench.watch([sys.executable, "-c", _PARENT], timeout=30, interval=0.05)
    assert out["exit"] == 0 and "timeout" not in out
    assert 40 <= out["driver_peak_mb"] < 120
    assert 160 <= out["worker_peaks_mb"][0] < 240
    assert [d["command"].startswith(sys.executable) for d in out["descendants"]] == [True]
    # What /usr/bin/time would say for the parent holds the child's peak (and the RSS of whatever forked the
    # parent, this test process): no figure of the parent alone.
    assert out["wait4_maxrss_mb"] >= out["worker_peaks_mb"][0] - 8


def test_a_run_past_its_timeout_is_killed_with_its_children(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    *_, driver_bench = bench
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)'])"
    out = driver_bench.watch([sys.executable, "-c", code], timeout=0.5, interval=0.05)
    assert out["timeout"] is True and out["elapsed_s"] < 10
    assert out["worker_peaks_mb"]  # the child was seen, and killed with its group (else this would wait)


def test_audit_findings_checked_against_truth(bench: tuple[ModuleType, ModuleType, ModuleType], tmp_path: Path) -> None:
    make_random, scale_bench, driver_bench = bench
    truth = make_random.generate(20_000, tmp_path / "manifest.parquet", seed=3)
    args = argparse.Namespace(scheduler="synchronous", only=None, timeout=60.0, interval=0.05)
    want = scale_bench.expected("random", "links", truth)
    r = driver_bench.run_one(tmp_path / "links.yaml", want, args)
    assert r["problems"] == [] and r["exit"] == 1  # findings: exit 1
    assert r["facts"]["UPS003"] == {"largest": 20_000, "components": 1}
    assert r["driver_peak_mb"] > 50 and r["worker_peaks_mb"] == []  # synchronous: no worker processes
    # The same audit checked against a truth it does not match is reported, not passed.
    lie = dict(want, TMP001=int(want["TMP001"]) + 1)
    assert scale_bench.check(r, lie) == [f"TMP001 {want['TMP001']} != {int(want['TMP001']) + 1}"]


def test_slope_between_the_two_largest_finished_sizes(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    *_, driver_bench = bench

    def result(rows: int, mb: float, problems: list[str] | None = None) -> dict[str, object]:
        return {"rows": rows, "config": "links", "driver_peak_mb": mb, "problems": problems or []}

    results = [result(1_000_000, 500.0), result(10_000_000, 1000.0), result(30_000_000, 2000.0)]
    s = driver_bench.slope([*results, result(100_000_000, 1.0, ["timeout"])], "links")
    assert s is not None and s["from_rows"] == 10_000_000 and s["to_rows"] == 30_000_000
    assert s["bytes_per_row"] == pytest.approx(1000 * 2**20 / 20_000_000)
    assert s["five_billion_gb"] == pytest.approx((2000 * 2**20 + s["bytes_per_row"] * 4_970_000_000) / 1e9)
    assert driver_bench.slope(results[:1], "links") is None
    assert driver_bench.slope(results, "groups") is None


def test_checkouts_compared_side_by_side_keep_their_own_slope_and_column(
    bench: tuple[ModuleType, ModuleType, ModuleType], tmp_path: Path
) -> None:
    *_, driver_bench = bench
    assert driver_bench.sources_env(None) is None  # this interpreter's own auditor
    env = driver_bench.sources_env(tmp_path)
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(tmp_path)  # the checkout's package comes first

    def result(rows: int, mb: float, sources: str) -> dict[str, object]:
        return {
            "rows": rows,
            "config": "groups",
            "driver_peak_mb": mb,
            "problems": [],
            "sources": sources,
            "elapsed_s": 1.0,
            "worker_peaks_mb": [],
            "loadavg": 0.0,
        }

    results = [
        result(r, mb * k, s) for r, mb in ((1_000_000, 100.0), (3_000_000, 300.0)) for s, k in (("a", 2), ("b", 1))
    ]
    a, b = driver_bench.slope(results, "groups", "a"), driver_bench.slope(results, "groups", "b")
    assert a is not None and b is not None and a["bytes_per_row"] == pytest.approx(2 * b["bytes_per_row"])
    assert driver_bench.slope(results, "groups") is None  # no result of this interpreter's own checkout
    rows = driver_bench.table(results, 60.0).splitlines()
    assert rows[0].startswith("| rows | config | sources |") and rows[2].startswith(
        "| 1,000,000 | groups | a | 1.0 | 200 |"
    )


def test_the_cluster_is_timed_against_duckdb_run_by_run(bench: tuple[ModuleType, ModuleType, ModuleType]) -> None:
    """--engines dask duckdb: the cluster's median wall time over the DuckDB engine's, each run paired with the
    other engine's run of the same turn; a run that failed counts for neither engine."""
    *_, driver_bench = bench

    def result(engine: str, wall: float, problems: list[str] | None = None) -> dict[str, object]:
        return {"rows": 10, "config": "links", "engine": engine, "elapsed_s": wall, "problems": problems or []}

    runs = [result("duckdb", 100.0), result("dask", 180.0), result("duckdb", 120.0), result("dask", 200.0)]
    [q] = driver_bench.engine_ratios([*runs, result("dask", 10.0, ["UPS001 1 != 2"])])
    assert q["dask_s"] == [180.0, 200.0] and q["duckdb_s"] == [100.0, 120.0]
    assert q["ratio"] == pytest.approx(190.0 / 110.0)
    assert q["pair_ratios"] == pytest.approx([1.8, 200.0 / 120.0])
    assert driver_bench.engine_ratios(runs[1::2]) == []  # one engine alone: nothing to compare
    lines = driver_bench.table(
        [dict(r, worker_peaks_mb=[], driver_peak_mb=1.0, loadavg=0.0) for r in runs], 60.0
    ).splitlines()
    assert lines[0].startswith("| rows | config | engine |") and lines[3].startswith("| 10 | links | dask | 180.0 |")
    command = driver_bench.audit_command(Path("a.yaml"), Path("out"), "tcp://x:1", None, "duckdb", "6GB")
    assert command[2:5] == ["a.yaml", "--engine", "duckdb"] and "--scheduler" not in command
    assert command[-2:] == ["--memory-limit", "6GB"]
