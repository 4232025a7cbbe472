"""Benchmark: a 5-fold cross-validation audit as a multiple of the same audit with one fixed split.

    python bench/folds_bench.py --rows 1000000 [10000000] [--repeat 3] [--forms fixed kfold columns]
                                [--configs groups links] [--data-dir bench/data] [--timeout 600] [--json PATH]

The rows are make_random.py's `random` shape (scale_bench.py, section 10: writers from N/50 values,
sources from N/5, a digest and a time per row). Each row draws a fold 0-4 on its own; DATA_DIR/folds_<N>/
holds the same rows three times, each with only the split columns its form needs:

  fixed    split: test for fold 0, train for folds 1-4 (80 / 20 %): one fold's holdout as a fixed split
  kfold    folds: fold (the fold id, an integer 0-4)
  columns  folds: {columns: [cv0, ..., cv4]} (per fold train / holdout, as an sklearn splitter yields them)

Configs as in scale_bench.py: `groups` (groups: writer, source; split_integrity + group_overlap) and
`links` (groups: writer, sources: source, content_hash: sha, time: ts; the five data stages). Every audit
runs in a fresh subprocess of scale_bench.py's worker (wall time of `run_audit`, peak RSS = ru_maxrss),
interleaved per repeat (fixed, kfold, columns, fixed, ...); medians over the repeats, and the ratios are of
medians from the same run.
GRP001's groups on each key and fold must equal the counts in folds_<N>/truth.json (numpy, not the
auditor): a stage error, a wrong count or a timeout exits 1, a change to the auditor's sources exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
FORMS = ("fixed", "kfold", "columns")
CONFIGS = ("groups", "links")
FOLDS = 5
TARGET_TIME, TARGET_RSS = 1.5, 1.2  # a fold form over `fixed`: at most 1.5 times the time, 1.2 the RSS
KEYS = {
    "groups": "keys: {groups: [writer, source]}\n",
    "links": "keys: {groups: [writer], sources: [source], content_hash: sha, time: ts}\n",
}
MANIFEST = {
    "fixed": "manifest: {path: fixed.parquet, id: sample_id, split: split}\n"
    "splits: {train: [train], holdout: [test]}\n",
    "kfold": "manifest: {path: kfold.parquet, id: sample_id, folds: fold}\n",
    "columns": "manifest: {path: columns.parquet, id: sample_id, folds: {columns: [cv0, cv1, cv2, cv3, cv4]}}\n",
}


# --- data and truth --------------------------------------------------------------------------------------------


def _codes(column: object, prefix: str) -> np.ndarray:
    """make_random.py's value numbers back from its strings ("w-00042" -> 42)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    digits = pc.utf8_slice_codeunits(column, len(prefix))
    return np.asarray(pc.cast(digits, pa.int64()))


def _crossing(seen: np.ndarray) -> dict[str, int]:
    """Per fold k: values in fold k's holdout and in another fold (its training rows), as GRP001 counts them."""
    counts = {}
    for k in range(seen.shape[1]):
        others = np.delete(seen, k, axis=1).any(axis=1)
        counts[str(k)] = int((seen[:, k] & others).sum())
    return counts


def derive(source: Path, out_dir: Path, seed: int = 0) -> dict[str, object]:
    """Write the three forms of ``source``'s rows, their configs and truth.json into ``out_dir``; return the truth."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    parquet = pq.ParquetFile(source)
    rows = parquet.metadata.num_rows
    n_writers, n_sources = max(1, rows // 50), max(1, rows // 5)  # make_random.py's ROWS_PER_WRITER / _SOURCE
    writer_seen = np.zeros((n_writers, FOLDS), dtype=bool)
    source_seen = np.zeros((n_sources, FOLDS), dtype=bool)
    per_fold = np.zeros(FOLDS, dtype=np.int64)
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = pa.array(["train", "test"], pa.string())
    roles = pa.array(["train", "holdout"], pa.string())
    writers: dict[str, pq.ParquetWriter] = {}
    try:
        for batch in parquet.iter_batches(batch_size=1_000_000):
            fold = rng.integers(0, FOLDS, size=batch.num_rows).astype(np.int8)
            per_fold += np.bincount(fold, minlength=FOLDS)
            writer_seen[_codes(batch.column("writer"), "w-"), fold] = True
            source_seen[_codes(batch.column("source"), "src-"), fold] = True
            rest = batch.drop_columns(["split"])
            tables = {
                "fixed": rest.add_column(1, "split", labels.take(pa.array((fold == 0).astype(np.int32)))),
                "kfold": rest.add_column(1, "fold", pa.array(fold.astype(np.int32))),
                "columns": rest,
            }
            for k in range(FOLDS):
                role = roles.take(pa.array((fold == k).astype(np.int32)))
                tables["columns"] = tables["columns"].add_column(1 + k, f"cv{k}", role)
            for form, table in tables.items():
                t = pa.Table.from_batches([table])
                if form not in writers:
                    writers[form] = pq.ParquetWriter(out_dir / f"{form}.parquet.tmp", t.schema)
                writers[form].write_table(t)
    finally:
        for w in writers.values():
            w.close()
    for form in FORMS:
        (out_dir / f"{form}.parquet.tmp").replace(out_dir / f"{form}.parquet")
        for config, keys in KEYS.items():
            (out_dir / f"{form}_{config}.yaml").write_text(
                "version: 1\n" + MANIFEST[form] + keys + "report: {formats: [json]}\n"
            )
    writers_k, sources_k = _crossing(writer_seen), _crossing(source_seen)
    truth: dict[str, object] = {
        "rows": rows,
        "seed": seed,
        "rows_per_fold": {str(k): int(c) for k, c in enumerate(per_fold)},
        # GRP001's groups per key and fold; the fixed split is fold 0's holdout against folds 1-4.
        "GRP001": {
            "fixed": {"writer": {"-": writers_k["0"]}, "source": {"-": sources_k["0"]}},
            "folds": {"writer": writers_k, "source": sources_k},
        },
    }
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return truth


def ensure_data(rows: int, data_dir: Path) -> tuple[Path, dict[str, object]]:
    """The folds_<N>/ folder (derived from the `random` shape, generated when missing) and its truth."""
    folder = data_dir / f"folds_{rows}"
    if not all((folder / f).exists() for f in ("truth.json", *(f"{form}.parquet" for form in FORMS))):
        from scale_bench import ensure_shape

        manifest, _, _, _ = ensure_shape("random", rows, data_dir)
        print(f"deriving {folder} ...", file=sys.stderr, flush=True)
        derive(manifest, folder)
    return folder, json.loads((folder / "truth.json").read_text())


def expected(form: str, config: str, truth: dict[str, object]) -> dict[str, dict[str, int]]:
    """GRP001's groups per key and fold label that the audit of ``form`` must report."""
    grp: dict[str, dict[str, dict[str, int]]] = truth["GRP001"]  # type: ignore[assignment]
    keys = ["writer", "source"] if config == "groups" else ["writer"]
    if form == "fixed":
        return {key: grp["fixed"][key] for key in keys}
    label = (lambda k: f"fold {k}") if form == "kfold" else (lambda k: f"cv{k}")
    return {key: {label(k): n for k, n in grp["folds"][key].items()} for key in keys}


# --- checks ---------------------------------------------------------------------------------------------------


def check(audit: dict[str, object], want: dict[str, dict[str, int]]) -> list[str]:
    """Mismatches between an audit's GRP001 counts and truth.json (empty: as counted)."""
    if audit.get("timeout"):
        return ["timeout"]
    if audit.get("crash"):
        return [str(audit["crash"])]
    problems = [f"{stage} error: {msg}" for stage, msg in audit["errors"].items()]  # type: ignore[attr-defined]
    facts: dict[str, dict[str, object]] = audit["facts"]  # type: ignore[assignment]
    # scale_bench's worker: GRP001 {key: groups} for a fixed split, "GRP001 folds" {key: {fold: groups}}
    fixed = {key: {"-": n} for key, n in facts.get("GRP001", {}).items()}
    got: dict[str, object] = facts.get("GRP001 folds", fixed)
    for key, per_fold in want.items():
        if got.get(key, {}) != per_fold:
            problems.append(f"GRP001 {key} {got.get(key)} != {per_fold}")
    return problems


# --- the run ---------------------------------------------------------------------------------------------------


def run_size(rows: int, args: argparse.Namespace) -> list[dict[str, object]]:
    from run_bench import warm_page_cache
    from scale_bench import STAGES, measure

    folder, truth = ensure_data(rows, args.data_dir)
    for form in args.forms:
        warm_page_cache(folder / f"{form}.parquet")
    pairs = [(c, f) for c in args.configs for f in args.forms]
    runs: dict[tuple[str, str], list[dict[str, object]]] = {p: [] for p in pairs}
    for i in range(args.repeat):
        for config, form in pairs:  # interleaved: fixed, kfold, columns, fixed, ...
            audit = measure("audit:memory", folder / f"{form}_{config}.yaml", STAGES[config], args.timeout)
            audit["loadavg"] = os.getloadavg()[0]
            runs[config, form].append(audit)
            print(
                f"  {config} {form} {rows:,} rows repeat {i + 1}: {audit.get('elapsed_s', 0):.2f}s "
                f"peak {audit.get('peak_rss_mb', 0):.0f} MB load {audit['loadavg']:.2f}"
                + (" TIMEOUT" if audit.get("timeout") else " CRASH" if audit.get("crash") else ""),
                file=sys.stderr,
                flush=True,
            )
    results = []
    for config, form in pairs:
        audits = runs[config, form]
        done = [a for a in audits if "facts" in a]
        results.append(
            {
                "rows": rows,
                "config": config,
                "form": form,
                "audit_s": statistics.median(float(a["elapsed_s"]) for a in done) if done else None,  # type: ignore[arg-type]
                "peak_rss_mb": statistics.median(float(a["peak_rss_mb"]) for a in done) if done else None,  # type: ignore[arg-type]
                "stages": {
                    s: statistics.median(float(a["stages"][s]) for a in done)  # type: ignore[index]
                    for s in STAGES[config]
                }
                if done
                else {},
                "loadavg": [a["loadavg"] for a in audits],
                "problems": sorted({p for a in audits for p in check(a, expected(form, config, truth))}),
            }
        )
    return results


def ratios(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """Each fold form's median time and peak RSS over those of `fixed` for the same rows and config."""
    fixed = {(r["rows"], r["config"]): r for r in results if r["form"] == "fixed"}
    rows_out = []
    for r in results:
        base = fixed.get((r["rows"], r["config"]))
        if r["form"] == "fixed" or base is None:
            continue
        ok = all(x["audit_s"] is not None for x in (r, base))
        time_ratio = float(r["audit_s"]) / float(base["audit_s"]) if ok else None  # type: ignore[arg-type]
        rss_ratio = float(r["peak_rss_mb"]) / float(base["peak_rss_mb"]) if ok else None  # type: ignore[arg-type]
        met = ok and time_ratio <= TARGET_TIME and rss_ratio <= TARGET_RSS  # type: ignore[operator]
        loads = [*base["loadavg"], *r["loadavg"]]  # type: ignore[misc]
        rows_out.append(
            {
                "rows": r["rows"],
                "config": r["config"],
                "form": r["form"],
                "fixed_s": base["audit_s"],
                "fixed_mb": base["peak_rss_mb"],
                "folds_s": r["audit_s"],
                "folds_mb": r["peak_rss_mb"],
                "time_ratio": time_ratio,
                "rss_ratio": rss_ratio,
                "met": met,
                "load": (min(loads), max(loads)),
                "problems": sorted({*base["problems"], *r["problems"]}),  # type: ignore[misc]
            }
        )
    return rows_out


def table(rows_out: list[dict[str, object]]) -> str:
    def num(x: object, fmt: str) -> str:
        return "—" if x is None else format(float(x), fmt)  # type: ignore[arg-type]

    lines = [
        "| rows | config | 5-fold form | fixed s / GB | 5-fold s / GB | time ratio | RSS ratio | target "
        f"(≤{TARGET_TIME}×, ≤+{TARGET_RSS - 1:.0%}) | load average | findings |",
        "|---:|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    for r in rows_out:
        lo, hi = r["load"]  # type: ignore[misc]
        problems: list[str] = r["problems"]  # type: ignore[assignment]
        lines.append(
            f"| {r['rows']:,} | {r['config']} | {r['form']} | {num(r['fixed_s'], '.2f')} / "
            f"{num(r['fixed_mb'] and float(r['fixed_mb']) / 1024, '.2f')} | {num(r['folds_s'], '.2f')} / "  # type: ignore[arg-type]
            f"{num(r['folds_mb'] and float(r['folds_mb']) / 1024, '.2f')} | {num(r['time_ratio'], '.2f')}× | "  # type: ignore[arg-type]
            f"{num(r['rss_ratio'], '.2f')}× | {'met' if r['met'] else 'missed'} | {lo:.1f}–{hi:.1f} | "
            f"{'as truth.json' if not problems else 'WRONG: ' + '; '.join(problems)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forms", nargs="+", choices=FORMS, default=list(FORMS))
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per audit (default 600)")
    parser.add_argument("--json", type=Path, help="also save the results here")
    args = parser.parse_args()
    if "fixed" not in args.forms:
        parser.error("--forms must include fixed (the ratios are against it)")
    from run_bench import package_fingerprint

    args.data_dir = args.data_dir.resolve()
    fingerprint = package_fingerprint()
    load = os.getloadavg()
    print(f"auditor sources {fingerprint}; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results, changed = [], []
    for rows in args.rows:
        results.extend(run_size(rows, args))
        if package_fingerprint() != fingerprint:
            changed.append(f"{rows:,}")
    print(f"\nmedians of {args.repeat}, a fresh subprocess per audit; load average at end {os.getloadavg()[0]:.2f}\n")
    rows_out = ratios(results)
    print(table(rows_out))
    for r in results:
        stages = ", ".join(f"{s} {t:.2f}" for s, t in r["stages"].items())  # type: ignore[attr-defined]
        print(f"{r['rows']:,} {r['config']} {r['form']}: {stages}")
    if args.json:
        args.json.write_text(json.dumps({"fingerprint": fingerprint, "results": results, "ratios": rows_out}, indent=2))
    if any(r["problems"] for r in results):
        print("\nERROR: an audit failed, timed out or did not reproduce truth.json", file=sys.stderr)
        raise SystemExit(1)
    if changed:
        print(f"\nERROR: the auditor's sources changed during: {', '.join(changed)}", file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH))
    main()
