"""Benchmark: the data stages section 17.3's first table leaves out, each alone at 1M and 10M rows.

    python bench/stage_scale.py [--rows 1000000 10000000] [--corpus-mb 100 1000] [--cases NAME ...]
                                [--data-dir bench/data] [--json PATH] [--from-json PATH]

Each case runs bench/stage_memory.py (`--engine memory --only STAGE --json`) in a fresh process, the smaller
size then the larger (both generated first), and the markdown rows of section 17.3's table are printed: the
manifest's load plus the stage's step, the stage's step alone and the process's peak (VmHWM over the steps),
each at both sizes with its growth exponent log10(large / small) / log10(size ratio); a size at which
near_duplicates left the rows out (NDP011) is marked and given no exponent. Also kept in --json: the process's
CPU (user + system, from ``os.wait4``), and, sampled every 0.2 s, the CPU and the summed resident set of its
whole process tree (contamination's workers included); stage_memory.py's steps and each stage's findings.
--from-json prints the rows of a saved run. The data, generated when missing with fixed seeds by the existing
generators, goes under --data-dir:

  feature_leakage          tabular_cents_N/ (feature_rows_scale.py's `cents` table, CSV): label `region`,
                           features auto
  near_duplicates          the same table with its own config (features: auto), as in section 16.1
  temporal_order_windows   windows_N/: make_random.py's rows plus a label window per row (`ts_end`, 0-30 days
                           after `ts`), `keys.time_end` and `splits.gap: 7d` (purge, gap and embargo)
  folds_STAGE              folds_N/kfold (folds_bench.py: the `random` rows, a fold 0-4 each) with the `links`
                           keys; test_exposure does not run on folds alone (nothing to fingerprint)
  contamination            a corpus of --corpus-mb MB of JSON (contamination_bench.py's) against 10,000 items
                           of 40 words (1% planted), as in section 15: sizes are the corpus's, not rows
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
FOLD_STAGES = ("split_integrity", "group_overlap", "shared_upstream", "duplicate_content", "temporal_order")
CASES = ("feature_leakage", "near_duplicates", "temporal_order_windows", *(f"folds_{s}" for s in FOLD_STAGES))
CASES += ("contamination",)
ITEMS = 10_000
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")
WINDOW_DAYS = 30


def tabular(rows: int, data_dir: Path) -> Path:
    """feature_rows_scale.py's `cents` table of ``rows`` rows, with a feature_leakage config beside its own."""
    from feature_rows_scale import make

    folder = data_dir / f"tabular_cents_{rows}"
    if not (folder / "table.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"generating {folder} ...", file=sys.stderr, flush=True)
        make(rows, folder / "table.csv", "cents")
    (folder / "leakage.yaml").write_text(
        "version: 1\nmanifest: {path: table.csv, id: row_id, split: split}\n"
        "keys: {label: region, features: auto}\nreport: {formats: [json]}\n"
    )
    return folder


def windows(rows: int, data_dir: Path) -> Path:
    """The `random` rows' id, split and time, plus a label window's end per row, and a config with a 7-day gap."""
    from scale_bench import ensure_shape

    folder = data_dir / f"windows_{rows}"
    out = folder / "manifest.parquet"
    if not out.exists():
        source, _, _, _ = ensure_shape("random", rows, data_dir)
        print(f"deriving {folder} ...", file=sys.stderr, flush=True)
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(1)
        tmp = out.with_name(out.name + ".tmp")
        writer = None
        try:
            for batch in pq.ParquetFile(source).iter_batches(1_000_000, columns=["sample_id", "split", "ts"]):
                ts = batch.column("ts").cast(pa.timestamp("s")).cast(pa.int64()).to_numpy()  # parquet holds ms
                end = ts + rng.integers(0, WINDOW_DAYS * 24 * 3600, size=len(ts))
                table = pa.Table.from_batches([batch]).append_column("ts_end", pa.array(end, pa.timestamp("s")))
                writer = writer or pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
        tmp.replace(out)
    (folder / "windows.yaml").write_text(
        "version: 1\nmanifest: {path: manifest.parquet, id: sample_id, split: split}\n"
        "splits: {train: [train], holdout: [val, test], gap: 7d}\n"
        "keys: {time: ts, time_end: ts_end}\nreport: {formats: [json]}\n"
    )
    return folder / "windows.yaml"


def folds(rows: int, data_dir: Path) -> Path:
    """folds_bench.py's folds_<N>/ (5 folds, one column `fold`) under the `links` keys."""
    from folds_bench import ensure_data

    folder, _ = ensure_data(rows, data_dir)
    return folder / "kfold_links.yaml"


def contamination(mb: int, data_dir: Path) -> Path:
    """contamination_bench.py's corpus of ``mb`` MB and section 15's 10,000 items (1% planted), as a manifest."""
    from contamination_bench import docstrings, make_corpus, stdlib_documents, third_party_docstrings

    folder = data_dir / f"contamination_{mb}"
    make_corpus(folder / "corpus", mb)
    items = folder / "items.parquet"
    if not items.exists():
        docs = stdlib_documents()
        planted_from, other = docstrings(docs[:300], 500), third_party_docstrings(2000)
        rng = random.Random(3)
        planted = [" ".join(rng.choice(planted_from).split()[:40]) for _ in range(ITEMS // 100)]
        pool = [" ".join(o.split()[i : i + 40]) for o in other for i in range(0, max(1, len(o.split()) - 40), 40)]
        distinct = [pool[i % len(pool)] + f" item {i}" for i in range(ITEMS - len(planted))]
        texts = planted + distinct
        ids = [f"q{i:05d}" for i in range(len(texts))]
        pq.write_table(pa.table({"id": ids, "split": ["test"] * len(texts), "text": texts}), items)
    (folder / "contamination.yaml").write_text(
        "version: 1\nmanifest: {path: items.parquet, id: id, split: split}\n"
        "splits: {train: [], holdout: [test]}\nkeys: {text: text}\n"
        "stages: {contamination: {corpus: corpus/*.jsonl.zst}}\nreport: {formats: [json]}\n"
    )
    return folder / "contamination.yaml"


def config_for(case: str, size: int, data_dir: Path) -> tuple[Path, str]:
    """The config and the stage of one case at one size (rows, or MB of corpus)."""
    if case == "feature_leakage":
        return tabular(size, data_dir) / "leakage.yaml", "feature_leakage"
    if case == "near_duplicates":
        return tabular(size, data_dir) / "audit.yaml", "near_duplicates"
    if case == "temporal_order_windows":
        return windows(size, data_dir), "temporal_order"
    if case.startswith("folds_"):
        return folds(size, data_dir), case.removeprefix("folds_")
    if case == "contamination":
        return contamination(size, data_dir), "contamination"
    raise ValueError(case)


def measure(config: Path, stage: str) -> dict[str, Any]:
    """stage_memory.py on ``config`` with ``--only stage`` in a fresh process; its JSON plus wait4's figures."""
    from driver_bench import descendants

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "steps.json"
        cmd = [sys.executable, str(BENCH / "stage_memory.py"), str(config), "--engine", "memory"]
        cmd += ["--only", stage, "--json", str(out)]
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=sys.stderr)
        tree_peak, cpu_of = 0.0, {}  # the process tree's summed resident set; each process's CPU, last seen
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            rss = 0.0
            for p in [proc.pid, *descendants(proc.pid)]:
                with contextlib.suppress(OSError, ValueError, IndexError):
                    rss += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE / 2**20
                    fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
                    cpu_of[p] = (int(fields[11]) + int(fields[12])) / TICKS
            tree_peak = max(tree_peak, rss)
            time.sleep(0.2)
        result: dict[str, Any] = {
            "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
            "stage": stage,
            "exit": os.waitstatus_to_exitcode(status),
            "wall_s": time.perf_counter() - started,
            # The child's CPU and its waited-for children's (exact); the whole tree's, its worker processes
            # included, as last sampled (up to 0.2 s short per process).
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "tree_cpu_s": sum(cpu_of.values()),
            "tree_peak_mb": tree_peak,  # sampled every 0.2 s: the sum over the child and its descendants
            "load_before": load_before,
            "load_after": os.getloadavg()[0],
        }
        if out.exists():
            result.update(json.loads(out.read_text()))
    steps = {s["step"]: s for s in result.get("steps", [])}
    if "(load the manifest)" in steps and stage in steps:
        result["stage_s"] = steps[stage]["seconds"]
        result["load_stage_s"] = steps["(load the manifest)"]["seconds"] + result["stage_s"]
        result["peak_mb"] = max(s["peak_mb"] for s in steps.values())
    return result


def exponent(small: float | None, large: float | None, ratio: float) -> str:
    if not small or not large:
        return "—"
    return f"{round(math.log10(large / small) / math.log10(ratio), 2) + 0.0:.2f}"  # no "-0.00"


LABELS = {
    "temporal_order_windows": "temporal_order, windows (`time_end`, gap 7d)",
    "contamination": "contamination, 100 MB → 1 GB corpus",
    **{f"folds_{s}": f"{s}, 5 folds" for s in FOLD_STAGES},
}


def refused(result: dict[str, Any]) -> bool:
    """Whether near_duplicates left the rows out for its memory budget (NDP011 with rows not compared)."""
    return any(
        f["code"] == "NDP011" and "not compared" in f["message"] for s in result["stages"] for f in s["findings"]
    )


def row(case: str, small: dict[str, Any], large: dict[str, Any], ratio: float) -> str:
    """One markdown row: load + stage, the stage's step and the peak, each at both sizes with its exponent; a size
    whose rows were not compared (NDP011) is marked, and no exponent is given against it."""
    cells = [LABELS.get(case, case)]
    mark = {id(r): " (NDP011)" if refused(r) else "" for r in (small, large)}
    for key, fmt in (("load_stage_s", "{:.2f}"), ("stage_s", "{:.2f}"), ("peak_mb", "{:.0f}")):
        a, b = small.get(key), large.get(key)
        growth = "—" if any(mark.values()) else exponent(a, b, ratio)
        cells += [fmt.format(a) + mark[id(small)] if a else "—", fmt.format(b) + mark[id(large)] if b else "—", growth]
    return "| " + " | ".join(cells) + " |"


def outcome(result: dict[str, Any]) -> str:
    """The stage's status and codes, the message of a refusal (NDP011) or an error in full."""
    parts = []
    for s in result.get("stages", []):
        codes = sorted({f["code"] for f in s["findings"]})
        parts.append(f"{s['stage']} {s['status']} {' '.join(codes)}".strip())
        if s["error"]:
            parts.append(f"error: {s['error']}")
        parts += [f"{f['code']}: {f['message']}" for f in s["findings"] if f["code"] == "NDP011"]
    return "; ".join(parts) or f"exit {result['exit']}, no report"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs=2, default=[1_000_000, 10_000_000])
    parser.add_argument("--corpus-mb", type=int, nargs=2, default=[100, 1000])
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--from-json", type=Path, help="print the rows of a saved run instead of running")
    args = parser.parse_args()
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        for case in dict.fromkeys(r["case"] for r in saved):
            small, large = [r for r in saved if r["case"] == case]
            print(row(case, small, large, large["size"] / small["size"]))
        return 0
    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    results, lines = [], []
    for case in args.cases:
        sizes = args.corpus_mb if case == "contamination" else args.rows
        measured = []
        configs = [config_for(case, size, data_dir) for size in sizes]  # both sizes' data before either run
        for size, (config, stage) in zip(sizes, configs, strict=True):
            result = {"case": case, "size": size, **measure(config, stage)}
            print(
                f"{case} at {size:,}: exit {result['exit']}, load + stage {result.get('load_stage_s', 0):.2f} s, "
                f"stage {result.get('stage_s', 0):.2f} s, peak {result.get('peak_mb', 0):.0f} MB "
                f"(tree {result['tree_peak_mb']:.0f} MB), CPU {result['cpu_s']:.1f} s "
                f"(tree {result['tree_cpu_s']:.1f} s), load average "
                f"{result['load_before']:.1f} → {result['load_after']:.1f}; {outcome(result)}",
                file=sys.stderr,
                flush=True,
            )
            measured.append(result)
        results += measured
        lines.append(row(case, measured[0], measured[1], sizes[1] / sizes[0]))
        if args.json:
            args.json.write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH))
    raise SystemExit(main())
