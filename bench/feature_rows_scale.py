"""Benchmark: `audit run --only near_duplicates` on an ordinary tabular CSV under `keys.features: auto`, by rows.

    python bench/feature_rows_scale.py [--rows 150000 200000 1000000] [--timeout 900] [--data-dir bench/data]
                                       [--auditor PATH] [--json PATH]

The table is what a tabular dataset looks like, not independent Gaussian draws: six numeric features written
at a coarse resolution (whole years, cents, two decimals), so rows tie by the thousand; a category and a small
count (discrete: equal values are required, not measured); an id and a train/test split (80/20). Then 0.1% of
the test rows are replaced by copies of training rows with one feature nudged by one step. Each size runs the
command in a fresh process, timed whole (reading the CSV and imports included); peak RSS is that process's
``ru_maxrss`` and its CPU time (user + system, all threads: on a shared machine the steadier number) come
from ``os.wait4``. ``--auditor`` runs another checkout of the package (its root) on the same files;
a run past ``--timeout`` is killed and shown as such.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

ROOT = Path(__file__).resolve().parent.parent


def make(rows: int, out: Path, shape: str, seed: int = 0) -> None:
    """Write ``rows`` rows of ``shape`` to ``out`` (CSV) with its audit.yaml beside it."""
    rng = np.random.default_rng(seed)
    test = rng.random(rows) < 0.2
    if shape == "cents":
        columns = {
            "age": rng.integers(18, 91, rows),
            "income": np.round(rng.lognormal(10.5, 0.6, rows), -2),
            "score": np.round(rng.standard_normal(rows), 2),
            "tenure_months": rng.integers(0, 241, rows),
            "balance": np.round(rng.normal(5000, 2000, rows), 2),
            "rate": np.round(rng.random(rows), 3),
        }
    else:  # six whole-number readings, 95% of them on four usual values, the rest spread: rows repeat by the dozen

        def reading() -> np.ndarray:
            usual = rng.random(rows) < 0.95
            return np.where(usual, rng.integers(0, 4, rows), rng.integers(-15, 20, rows)).astype(np.float64)

        columns = {f"item_{j}": reading() for j in range(5)}
        columns["balance"] = reading()
    region = rng.integers(0, 12, rows)
    visits = np.minimum(rng.poisson(3, rows), 15)
    copies = max(1, int(test.sum()) // 1000)
    targets = rng.choice(np.flatnonzero(test), size=copies, replace=False)
    originals = rng.choice(np.flatnonzero(~test), size=copies, replace=False)
    for values in (*columns.values(), region, visits):
        values[targets] = values[originals]
    columns["balance"][targets] += 0.01 if shape == "cents" else 0.5  # off by a little: near, not exact
    table = pa.table(
        {
            "row_id": np.arange(rows),
            "split": np.where(test, "test", "train"),
            **columns,
            "region": pa.array([f"region-{r:02d}" for r in range(12)]).take(pa.array(region)),
            "visits": visits,
        }
    )
    pacsv.write_csv(table, out)
    (out.parent / "planted.json").write_text(json.dumps({"copies": copies}), encoding="utf-8")
    (out.parent / "audit.yaml").write_text(
        f"version: 1\nmanifest: {{path: {out.name}, id: row_id, split: split}}\nkeys: {{features: auto}}\n",
        encoding="utf-8",
    )


def measure(config: Path, auditor: Path, timeout: float) -> dict[str, object]:
    """One `audit run --only near_duplicates` in a fresh process: exit, wall time, peak RSS, the stage's verdict."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(auditor)}
        args = [sys.executable, "-m", "auditor.cli", "run", str(config), "--only", "near_duplicates", "-q"]
        started = time.perf_counter()
        # From the checkout's root: `-m` puts the working directory first on the path.
        proc = subprocess.Popen([*args, "--out", out], cwd=auditor, env=env, stdout=subprocess.DEVNULL)
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                proc.send_signal(signal.SIGKILL)
                killed = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        wall = time.perf_counter() - started
        result: dict[str, object] = {
            "exit": None if killed else os.waitstatus_to_exitcode(status),
            "wall_s": round(wall, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024),
            "killed_after_s": timeout if killed else None,
        }
        report = Path(out) / "report.json"
        if not killed and report.exists():
            data = json.loads(report.read_text())
            stage = data["stages"][0]
            result["stage_s"] = stage.get("duration_s")
            result["status"] = stage.get("status")
            findings = stage.get("findings", [])
            result["codes"] = sorted({f["code"] for f in findings})
            result["pairs"] = {f["code"]: f["evidence"].get("pairs") for f in findings if "pairs" in f["evidence"]}
            searched = [f["evidence"]["search"] for f in findings if "search" in f["evidence"]]
            result["search"] = searched[0] if searched else None
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[150_000, 200_000, 1_000_000])
    parser.add_argument("--shape", choices=["cents", "lattice"], default="cents")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument("--auditor", type=Path, default=ROOT, help="the root of the checkout whose package is run")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for rows in args.rows:
        folder = args.data_dir.resolve() / f"tabular_{args.shape}_{rows}"
        folder.mkdir(parents=True, exist_ok=True)
        csv = folder / "table.csv"
        if not csv.exists():
            make(rows, csv, args.shape)
        planted = json.loads((folder / "planted.json").read_text())["copies"]
        measured = measure(folder / "audit.yaml", args.auditor.resolve(), args.timeout)
        result = {
            "shape": args.shape,
            "rows": rows,
            "csv_mb": round(csv.stat().st_size / 1e6, 1),
            "planted": planted,
            **measured,
        }
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
