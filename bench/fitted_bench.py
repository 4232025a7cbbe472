"""Benchmark: the fitted_statistics stage on N rows x 20 numeric columns, next to reading those columns.

    python bench/fitted_bench.py --rows 1000000 10000000 [--repeat 3] [--data-dir bench/data] [--json out.json]

For each size (generated into DATA_DIR/fitted_<N>/ by make_fitted.py when missing), each repeat runs in a
fresh subprocess per measurement, read and audit alternating:

  read   auditor.manifest.readers.read_files on the 22 columns the audit reads (split, sample_id, f00..f19), as
         load_manifest calls it (split dictionary-encoded, no pre-buffering); only the read is timed
  audit  run_audit(audit.yaml, only=["fitted_statistics"]); `audit s` is the whole call (reading, the
         stage, report), `stage s` the stage's own duration_s; peak RSS = ru_maxrss of that subprocess

Every audit must report exactly the planted verdicts (truth.json: FIT001 for the scaler fitted on all
rows, reproduced from "all rows"; FIT000 for the min-max scaler and the median imputer fitted on train),
and nothing else; otherwise the script exits 1. If a module the audit imports (the runner, the stage and
what they import) changes during the run, it exits 2; edits elsewhere in the package do not stop it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter

from make_fitted import FEATURES
from run_bench import environment, warm_page_cache

BENCH = Path(__file__).resolve().parent
STAGE = "fitted_statistics"
COLUMNS = ["split", "sample_id", *FEATURES]
# Lists, with a digest each, the auditor modules the measured audit runs: the runner, the stage, and theirs.
_SOURCES_PROBE = """
import hashlib, json, os, sys
import auditor.pipeline.runner, auditor.stages.data.fitted_statistics
root = os.path.dirname(sys.modules["auditor"].__file__)
files = sorted(m.__file__ for n, m in list(sys.modules.items()) if n.split(".")[0] == "auditor" and m.__file__)
print(json.dumps({os.path.relpath(f, root): hashlib.sha256(open(f, "rb").read()).hexdigest()[:12] for f in files}))
"""


def sources_fingerprint() -> dict[str, str]:
    """Digest of each auditor module the audit imports, to notice the measured code changing mid-run."""
    out = subprocess.run([sys.executable, "-c", _SOURCES_PROBE], capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout))


def worker(mode: str, target: str) -> None:
    """One measurement in this (fresh) interpreter, printed as one JSON line."""
    import resource

    if mode == "read":
        import pyarrow.dataset  # noqa: F401  read_table imports it (and pandas) lazily on its first call

        from auditor.manifest.readers import read_files

        t0 = perf_counter()
        table = read_files([Path(target)], COLUMNS, "parquet", ["split"])
        out: dict[str, object] = {"elapsed_s": perf_counter() - t0, "rows": table.num_rows}
    else:
        from auditor import run_audit

        t0 = perf_counter()
        report = run_audit(target, only=[STAGE])
        elapsed = perf_counter() - t0
        result = next(s for s in report.stages if s.stage == STAGE)
        out = {
            "elapsed_s": elapsed,
            "stage_s": result.duration_s,
            "error": None if result.error is None else f"{result.error.type}: {result.error.message}",
            "rows": report.manifest.rows if report.manifest else None,
            "findings": sorted([str(f.key), f.code, f.evidence.get("reproduces_from")] for f in result.findings),
        }
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def measure(mode: str, target: Path) -> dict[str, object]:
    """Run one worker subprocess and return its JSON result."""
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", mode, str(target)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def ensure_data(rows: int, data_dir: Path, seed: int) -> Path:
    """The folder holding manifest, artifacts, audit.yaml and truth.json for ``rows``; generated if missing."""
    folder = data_dir / f"fitted_{rows}"
    needed = ("manifest.parquet", "audit.yaml", "truth.json", "scaler.json", "minmax.csv", "imputer.json")
    if not all((folder / name).exists() for name in needed):
        print(f"generating {folder} ...", file=sys.stderr, flush=True)
        out = str(folder / needed[0])
        cmd = [sys.executable, str(BENCH / "make_fitted.py"), "--rows", str(rows), "--seed", str(seed), "--out", out]
        subprocess.run(cmd, check=True, stdout=sys.stderr)
    return folder


def wrong_findings(audit: dict[str, object], expected: dict[str, str], rows: int) -> str | None:
    """Why an audit result is not exactly as planted, or None."""
    if audit["error"]:
        return f"stage error: {audit['error']}"
    if audit["rows"] != rows:
        return f"read {audit['rows']} rows, not {rows}"
    got = {(key, code) for key, code, _ in audit["findings"]}  # type: ignore[attr-defined]
    if got != set(expected.items()) or len(audit["findings"]) != len(expected):  # type: ignore[arg-type]
        return f"findings {sorted(got)}, expected {sorted(expected.items())}"
    leaked = [src for key, code, src in audit["findings"] if code == "FIT001"]  # type: ignore[attr-defined]
    if leaked != [["all rows"]]:
        return f"FIT001 reproduces from {leaked}, expected ['all rows']"
    return None


def bench_size(rows: int, folder: Path, repeat: int) -> dict[str, object]:
    """Interleaved read and audit measurements for one size; medians and the check against truth.json."""
    manifest = folder / "manifest.parquet"
    expected: dict[str, str] = json.loads((folder / "truth.json").read_text())["expected"]
    warm_page_cache(manifest)
    reads, audits = [], []
    for i in range(repeat):
        reads.append(measure("read", manifest))
        audits.append(measure("audit", folder / "audit.yaml"))
        print(
            f"  {rows:>11,} rows  repeat {i + 1}/{repeat}: read {reads[-1]['elapsed_s']:.2f}s  audit "
            f"{audits[-1]['elapsed_s']:.2f}s  stage {audits[-1]['stage_s']:.2f}s  "
            f"peak {audits[-1]['peak_rss_mb']:.0f} MB",
            file=sys.stderr,
            flush=True,
        )
    problems = [p for a in audits if (p := wrong_findings(a, expected, rows))]

    def med(runs: list[dict[str, object]], key: str) -> float:
        return statistics.median(float(r[key]) for r in runs)  # type: ignore[arg-type]

    read_s, audit_s, stage_s = med(reads, "elapsed_s"), med(audits, "elapsed_s"), med(audits, "stage_s")
    return {
        "rows": rows,
        "manifest_mb": manifest.stat().st_size / 1e6,
        "read_s": read_s,
        "audit_s": audit_s,
        "stage_s": stage_s,
        "stage_over_read": stage_s / read_s,
        "audit_over_read": audit_s / read_s,
        "cells_per_s": rows * len(FEATURES) / stage_s,
        "peak_rss_mb": max(float(a["peak_rss_mb"]) for a in audits),  # type: ignore[arg-type]
        "read_peak_rss_mb": max(float(r["peak_rss_mb"]) for r in reads),  # type: ignore[arg-type]
        "findings": audits[-1]["findings"],
        "problems": problems,
        "reads": reads,
        "audits": audits,
    }


def table(results: list[dict[str, object]]) -> str:
    """The results as a markdown table."""
    lines = [
        "| rows | file MB | read s | audit s | stage s | stage/read | audit/read | M cells/s | peak RSS MB "
        "| findings |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        found = ", ".join(f"{key} {code}" for key, code, _ in r["findings"])  # type: ignore[attr-defined]
        verdict = "as planted" if not r["problems"] else "NOT AS PLANTED"
        lines.append(
            f"| {r['rows']:,} | {r['manifest_mb']:.0f} | {r['read_s']:.2f} | {r['audit_s']:.2f} | {r['stage_s']:.2f} "
            f"| {r['stage_over_read']:.2f} | {r['audit_over_read']:.2f} | {float(r['cells_per_s']) / 1e6:.0f} "  # type: ignore[arg-type]
            f"| {r['peak_rss_mb']:.0f} | {found} ({verdict}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write all raw measurements here")
    parser.add_argument("--worker", nargs=2, metavar=("MODE", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    env = environment()
    folders = [ensure_data(rows, args.data_dir, args.seed) for rows in args.rows]  # generate before timing
    fingerprint = sources_fingerprint()
    env["measured_sources_sha256"] = hashlib.sha256(json.dumps(fingerprint).encode()).hexdigest()[:12]
    results: list[dict[str, object]] = []
    changed: dict[int, list[str]] = {}
    for rows, folder in zip(args.rows, folders, strict=True):
        results.append(bench_size(rows, folder, args.repeat))
        now = sources_fingerprint()
        if now != fingerprint:
            changed[rows] = sorted(k for k in now.keys() | fingerprint.keys() if now.get(k) != fingerprint.get(k))
    env["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(
        f"\nmedian of {args.repeat} repeat(s), each measurement in a fresh subprocess; "
        + ", ".join(f"{k} {v}" for k, v in env.items())
    )
    print()
    print(table(results))
    if len(results) >= 2:
        first, last = results[0], results[-1]
        growth = float(last["stage_s"]) / float(first["stage_s"])  # type: ignore[arg-type]
        print(f"\nstage time grows {growth:.1f}x for {int(last['rows']) / int(first['rows']):.0f}x the rows")  # type: ignore[call-overload]
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "repeat": args.repeat, "results": results}, indent=2))
    if changed:
        print(f"\nERROR: sources changed while measuring (rows: files): {changed}; rerun", file=sys.stderr)
        raise SystemExit(2)
    failed = {r["rows"]: r["problems"] for r in results if r["problems"]}
    if failed:
        print(f"\nERROR: audits that did not report the planted verdicts: {failed}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
