"""Benchmark: do the audit's data stages scale like reading the manifest does?

    python bench/run_bench.py --rows 1000000 10000000 [--repeat 3] [--data-dir bench/data] [--json out.json]

For each size (the manifest is generated into DATA_DIR/rows_<N>/ with make_manifest.py when missing), in
the same run, each repeat being a fresh subprocess per measurement:

  read    pyarrow.parquet.read_table(path, columns=[sample_id, split, writer, source_document]);
          only the read is timed
  audit   run_audit(audit.yaml, only=["split_integrity", "group_overlap"]); import time is recorded
          separately and not included; peak RSS = ru_maxrss of that subprocess at the end
  pandas  read + to_pandas (untimed), then df.groupby("writer")["split"].nunique() timed, as a reference

The three measurements are interleaved per repeat (read, audit, pandas, read, ...) so drift hits all of
them alike; the table shows medians over the repeats. Every audit run must report GRP001 and SPL001 with
exactly the counts the generator planted (truth.json: ids in two splits, writers and documents in train
and holdout); otherwise the run exits 1, so a no-op or a wrong answer cannot pass as fast.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORKER = BENCH / "_worker.py"
GENERATOR = BENCH / "make_manifest.py"
TRUTH = "truth.json"  # written by make_manifest.py: the planted leak counts
TIMEOUT_S = 3600


def ensure_data(rows: int, data_dir: Path, seed: int, regenerate: bool) -> tuple[Path, Path]:
    folder = data_dir / f"rows_{rows}"
    manifest, config = folder / "manifest.parquet", folder / "audit.yaml"
    if regenerate or not all(p.exists() for p in (manifest, config, folder / TRUTH)):
        print(f"generating {manifest} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [
                sys.executable,
                str(GENERATOR),
                "--rows",
                str(rows),
                "--out",
                str(manifest),
                "--seed",
                str(seed),
            ],
            check=True,
            stdout=sys.stderr,
        )
    return manifest, config


def warm_page_cache(path: Path) -> None:
    """Read the file once so the first timed repeat is not the only one paying for the disk."""
    with open(path, "rb") as fh:
        while fh.read(1 << 24):
            pass


def measure(mode: str, target: Path) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, str(WORKER), mode, str(target)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": f"worker exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"}
    return json.loads(lines[-1])


def median(runs: list[dict[str, object]], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)  # type: ignore[arg-type]


def bench_size(rows: int, manifest: Path, config: Path, repeat: int) -> dict[str, object]:
    warm_page_cache(manifest)
    runs: dict[str, list[dict[str, object]]] = {"read": [], "audit": [], "pandas": []}
    for i in range(repeat):
        for mode, target in (("read", manifest), ("audit", config), ("pandas", manifest)):
            result = measure(mode, target)
            if "error" in result:
                raise SystemExit(
                    f"{mode} failed for {rows} rows (repeat {i + 1}):\n{result['error']}\n{result.get('traceback', '')}"
                )
            if mode == "audit":
                errors = {s: v["error"] for s, v in result["stages"].items() if v["error"]}  # type: ignore[union-attr]
                if errors:
                    raise SystemExit(f"audit stage error(s) for {rows} rows: {errors}")
            runs[mode].append(result)
            print(
                f"  {rows:>11,} rows  repeat {i + 1}/{repeat}  {mode:<6} {result['elapsed_s']:.3f}s  "
                f"peak RSS {int(result['peak_rss_kib']) / 1024:.0f} MB",
                file=sys.stderr,
                flush=True,
            )
    read_s, audit_s, pandas_s = (median(runs[m], "elapsed_s") for m in ("read", "audit", "pandas"))
    last = runs["audit"][-1]
    truth = json.loads((manifest.parent / TRUTH).read_text())
    expected: dict[str, int] = truth["expected"]
    wrong = {
        f"{run_no + 1}": {k: (r["leaks"].get(k), v) for k, v in expected.items() if r["leaks"].get(k) != v}  # type: ignore[union-attr]
        for run_no, r in enumerate(runs["audit"])
    }
    wrong = {k: v for k, v in wrong.items() if v}
    return {
        "rows": rows,
        "manifest_mb": manifest.stat().st_size / 1e6,
        "read_s": read_s,
        "audit_s": audit_s,
        "pandas_groupby_s": pandas_s,
        "audit_over_read": audit_s / read_s,
        "pandas_groupby_over_read": pandas_s / read_s,
        "audit_peak_rss_mb": median(runs["audit"], "peak_rss_kib") / 1024,
        "audit_peak_rss_mb_max": max(float(r["peak_rss_kib"]) for r in runs["audit"]) / 1024,  # type: ignore[arg-type]
        "read_peak_rss_mb": median(runs["read"], "peak_rss_kib") / 1024,
        "audit_import_s": median(runs["audit"], "import_s"),
        "pandas_read_to_pandas_s": median(runs["pandas"], "read_to_pandas_s"),
        "stage_s": {
            s: statistics.median(float(r["stages"][s]["duration_s"]) for r in runs["audit"])  # type: ignore[index]
            for s in last["stages"]
        },  # type: ignore[union-attr]
        "codes": last["codes"],
        "leaks": last["leaks"],
        "audit_rows": last["rows"],
        "expected": expected,
        "mismatch": wrong,
        "runs": runs,
    }


def package_fingerprint(env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """sha256 over the auditor package's .py files a child with ``env`` imports, to notice code changing during
    the run (``python -c`` puts its working folder first on its path: ``cwd`` is the checkout's root)."""
    where = subprocess.run(
        [sys.executable, "-c", "import auditor, os; print(os.path.dirname(auditor.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=cwd,
    ).stdout.strip()
    digest = hashlib.sha256()
    for f in sorted(Path(where).rglob("*.py")):
        digest.update(str(f.relative_to(where)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def environment() -> dict[str, object]:
    info: dict[str, object] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    info["loadavg_1m_at_start"] = round(os.getloadavg()[0], 2)
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        info["memory_gib"] = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    probe = (
        "import json, numpy, pandas, pyarrow, auditor; print(json.dumps({'numpy': numpy.__version__, "
        "'pandas': pandas.__version__, 'pyarrow': pyarrow.__version__, 'auditor': auditor.__version__}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if out.returncode == 0:
        info.update(json.loads(out.stdout))
    git = subprocess.run(
        ["git", "-C", str(BENCH.parent), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    if git.returncode == 0:
        dirty = subprocess.run(
            ["git", "-C", str(BENCH.parent), "status", "--porcelain", "--", "auditor"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        info["commit"] = git.stdout.strip() + (" (auditor/ has uncommitted changes)" if dirty else "")
    return info


def findings_cell(result: dict[str, object]) -> str:
    codes: dict[str, int] = result["codes"]  # type: ignore[assignment]
    leaks: dict[str, int] = result["leaks"]  # type: ignore[assignment]
    parts = [f"GRP001×{codes.get('GRP001', 0)}", f"SPL001×{codes.get('SPL001', 0)}"]
    detail = ", ".join(f"{k.split(':', 1)[1]} {v:,}" for k, v in leaks.items())
    verdict = "all as planted" if not result["mismatch"] else f"NOT AS PLANTED: {result['mismatch']}"
    return " ".join(parts) + (f" ({detail}; {verdict})" if detail else f" ({verdict})")


def table(results: list[dict[str, object]]) -> str:
    lines = [
        "| rows | read s | audit s | audit/read ratio | pandas groupby/read ratio | peak RSS MB | findings |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['rows']:,} | {r['read_s']:.3f} | {r['audit_s']:.3f} | {r['audit_over_read']:.2f} | "
            f"{r['pandas_groupby_over_read']:.2f} | {r['audit_peak_rss_mb']:.0f} | {findings_cell(r)} |"
        )
    return "\n".join(lines)


def details(results: list[dict[str, object]]) -> str:
    lines = [
        "| rows | file MB | read peak RSS MB | audit import s | split_integrity s | group_overlap s "
        "| pandas groupby s | read+to_pandas s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        st: dict[str, float] = r["stage_s"]  # type: ignore[assignment]
        lines.append(
            f"| {r['rows']:,} | {r['manifest_mb']:.0f} | {r['read_peak_rss_mb']:.0f} "
            f"| {r['audit_import_s']:.2f} "
            f"| {st.get('split_integrity', float('nan')):.3f} | {st.get('group_overlap', float('nan')):.3f} "
            f"| {r['pandas_groupby_s']:.3f} | {r['pandas_read_to_pandas_s']:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--regenerate", action="store_true", help="rewrite the manifests even if present")
    parser.add_argument("--json", type=Path, default=None, help="also write all raw measurements here")
    args = parser.parse_args()

    env = environment()
    for rows in args.rows:  # generate first, so no generation runs between timed measurements
        ensure_data(rows, args.data_dir, args.seed, args.regenerate)
    fingerprint = package_fingerprint()
    env["auditor_sources_sha256"] = fingerprint
    results = []
    changed = []
    for rows in args.rows:
        manifest, config = ensure_data(rows, args.data_dir, args.seed, False)
        results.append(bench_size(rows, manifest, config, args.repeat))
        if package_fingerprint() != fingerprint:
            changed.append(rows)

    env["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(
        f"\nmedian of {args.repeat} repeat(s), each measurement in a fresh subprocess; "
        + ", ".join(f"{k} {v}" for k, v in env.items())
    )
    print()
    print(table(results))
    print()
    print(details(results))
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "repeat": args.repeat, "results": results}, indent=2))

    if changed:
        print(
            f"\nERROR: the auditor sources changed while {changed} rows were measured; "
            "the repeats mix code versions, rerun when the package is quiet",
            file=sys.stderr,
        )
        raise SystemExit(2)
    noop = [
        r["rows"]
        for r in results
        if not r["codes"].get("GRP001")  # type: ignore[union-attr]
        or not r["codes"].get("SPL001")  # type: ignore[union-attr]
        or r["mismatch"]
        or r["audit_rows"] != r["rows"]
    ]
    if noop:
        print(
            f"\nERROR: the audit did not report exactly the planted leaks (see truth.json), or read a "
            f"different row count, for {noop}",
            file=sys.stderr,
        )
        raise SystemExit(1)


if __name__ == "__main__":
    main()
