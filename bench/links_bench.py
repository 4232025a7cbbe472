"""Benchmark: all data stages on a manifest with writer, document, content digest and time keys.

    python bench/links_bench.py --rows 1000000 10000000 [--repeat 3] [--data-dir bench/data]

For each size (generated into DATA_DIR/links_<N>/ by make_links.py when missing), each repeat runs in a
fresh subprocess per measurement, read and audit alternating:

  read   pyarrow.parquet.read_table(path, columns=[the six columns the audit reads])
  audit  run_audit(audit.yaml) with split_integrity, group_overlap, shared_upstream, duplicate_content,
         temporal_order; peak RSS = ru_maxrss of that subprocess

Every audit must report exactly the planted content copies (DUP001) and early holdout rows (TMP001), and
find the linked train-holdout groups (UPS001); otherwise the script exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
COLUMNS = ["sample_id", "split", "writer", "source_document", "content_sha256", "captured_at"]
STAGES = ["split_integrity", "group_overlap", "shared_upstream", "duplicate_content", "temporal_order"]


def worker(mode: str, target: str) -> None:
    import resource

    if mode == "read":
        import pyarrow.dataset  # noqa: F401  read_table imports it lazily on its first call
        import pyarrow.parquet as pq

        t0 = perf_counter()
        table = pq.read_table(target, columns=COLUMNS)
        out: dict[str, object] = {"elapsed_s": perf_counter() - t0, "rows": table.num_rows}
    else:
        from auditor import run_audit

        t0 = perf_counter()
        report = run_audit(target, only=STAGES)
        elapsed = perf_counter() - t0
        found = {f.code: f.evidence for f in report.findings if not f.accepted}
        out = {
            "elapsed_s": elapsed,
            "stages": {s.stage: s.duration_s for s in report.stages},
            "errors": {s.stage: s.error.message for s in report.stages if s.error},
            "dup001_digests": found.get("DUP001", {}).get("digests", 0),
            "tmp001_rows": sum(v["rows"] for v in found.get("TMP001", {}).get("splits", {}).values()),
            "ups001_components": found.get("UPS001", {}).get("components", 0),
            "grp001": "GRP001" in found,
            "spl001": found.get("SPL001", {}).get("ids", 0),
        }
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def measure(mode: str, target: Path, script: str = __file__) -> dict[str, object]:
    """Run ``script --worker MODE TARGET`` in a fresh interpreter and return the JSON line it prints last."""
    proc = subprocess.run([sys.executable, script, "--worker", mode, str(target)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--worker", nargs=2, metavar=("MODE", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    rows_out = []
    failed = []
    for rows in args.rows:
        folder = args.data_dir / f"links_{rows}"
        manifest = folder / "manifest.parquet"
        if not manifest.exists():
            subprocess.run(
                [sys.executable, str(BENCH / "make_links.py"), "--rows", str(rows), "--out", str(manifest)],
                check=True,
                stdout=sys.stderr,
                cwd=BENCH,
            )
        truth = json.loads((folder / "truth.json").read_text())["expected_links"]
        with open(manifest, "rb") as fh:  # warm the page cache
            while fh.read(1 << 24):
                pass
        reads, audits = [], []
        for i in range(args.repeat):
            reads.append(measure("read", manifest))
            audits.append(measure("audit", folder / "audit.yaml"))
            print(
                f"  {rows:>11,} rows  repeat {i + 1}: read {reads[-1]['elapsed_s']:.2f}s  audit "
                f"{audits[-1]['elapsed_s']:.2f}s  peak {audits[-1]['peak_rss_mb']:.0f} MB",
                file=sys.stderr,
            )
        for a in audits:
            ok = (
                not a["errors"]
                and a["dup001_digests"] == truth["DUP001:digests"]
                and a["tmp001_rows"] == truth["TMP001:rows"]
                and a["ups001_components"]
                and a["grp001"]
                and a["spl001"]
            )
            if not ok:
                failed.append((rows, a))
        read_s = statistics.median(float(r["elapsed_s"]) for r in reads)  # type: ignore[arg-type]
        audit_s = statistics.median(float(a["elapsed_s"]) for a in audits)  # type: ignore[arg-type]
        stage_s = {s: statistics.median(float(a["stages"][s]) for a in audits) for s in STAGES}  # type: ignore[index]
        rows_out.append((rows, read_s, audit_s, max(float(a["peak_rss_mb"]) for a in audits), stage_s, audits[-1]))
    print(f"\nmedian of {args.repeat}, fresh subprocess per measurement; cpus {os.cpu_count()}\n")
    print("| rows | read s | audit s | audit/read | peak RSS MB | " + " | ".join(f"{s} s" for s in STAGES) + " |")
    print("|---:|---:|---:|---:|---:|" + "---:|" * len(STAGES))
    for rows, read_s, audit_s, rss, stage_s, _ in rows_out:
        print(
            f"| {rows:,} | {read_s:.2f} | {audit_s:.2f} | {audit_s / read_s:.2f} | {rss:.0f} | "
            + " | ".join(f"{stage_s[s]:.2f}" for s in STAGES)
            + " |"
        )
    if len(rows_out) >= 2:
        (r1, _, a1, *_), (r2, _, a2, *_) = rows_out[0], rows_out[-1]
        print(f"\naudit time grows {a2 / a1:.1f}x for {r2 / r1:.0f}x the rows ({r1:,} -> {r2:,})")
    last = rows_out[-1][-1]
    print(
        f"findings at {rows_out[-1][0]:,} rows: DUP001 digests {last['dup001_digests']}, TMP001 rows "
        f"{last['tmp001_rows']}, UPS001 components {last['ups001_components']}, SPL001 ids {last['spl001']}"
    )
    if failed:
        print(f"\nERROR: audits that did not report the planted leaks: {failed}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
