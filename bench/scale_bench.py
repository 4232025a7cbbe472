"""Benchmark: the data stages on group-wise and on random splits (the worst case for the linking stages).

    python bench/scale_bench.py --rows 10000000 [--repeat 1] [--shapes groupwise random random-50m-sources]
                                [--data-dir bench/data] [--timeout 600]

Shapes (generated into DATA_DIR when missing):

  groupwise           make_links.py's manifest (DATA_DIR/links_<N>/): splits by writer, a few planted leaks
  random              make_random.py's manifest (DATA_DIR/random_<N>/): every row's split drawn on its own,
                      writers from N/50 values, sources from N/5
  random-50m-sources  the same with sources drawn from 50M values (DATA_DIR/random_<N>_sources_50000000/)
  random-fixed-keys   the same with writers drawn from 200k values and sources from 2M, whatever the rows (the
                      10M-row manifest's): the findings name the same values at every size
                      (DATA_DIR/random_<N>_writers_200000_sources_2000000/)

Configs: `groups` (groups: writer and the source column; split_integrity + group_overlap) and `links`
(groups: writer, sources, content_hash, time; the five data stages). For each shape, each repeat and each
config, in a fresh subprocess each: the pyarrow read of the columns the config names, then `run_audit` with
its per-stage times and peak RSS (ru_maxrss). Every audit must reproduce the counts in truth.json; a stage
error, a wrong count or a timeout exits 1. If the auditor's sources change during the run, it exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
SHAPES = ("groupwise", "random", "random-50m-sources", "random-fixed-keys")
CONFIGS = ("groups", "links")
LINK_STAGES = ["split_integrity", "group_overlap", "shared_upstream", "duplicate_content", "temporal_order"]
STAGES = {"groups": LINK_STAGES[:2], "links": LINK_STAGES}
TARGETS = {"groups": (3.0, 3000.0), "links": (5.0, 4000.0)}  # (audit/read, peak RSS MB) at 10M rows
MANY_SOURCES = 50_000_000
FIXED_WRITERS, FIXED_SOURCES = 200_000, 2_000_000  # random-fixed-keys: the key values of 10M random rows


# --- measurements, each in a fresh interpreter -------------------------------------------------------------


def _facts(report: object) -> dict[str, object]:
    """The numbers of the findings that truth.json can pin down, keyed by code."""
    facts: dict[str, object] = {"GRP001": {}}
    for f in report.findings:  # type: ignore[attr-defined]
        ev = f.evidence or {}
        if "fold" in ev:  # a finding per cross-validation fold (folds_bench.py checks GRP001's)
            if f.code == "GRP001":
                facts.setdefault("GRP001 folds", {}).setdefault(ev["key"], {})[ev["fold"]] = ev["groups"]  # type: ignore[attr-defined]
        elif f.code == "GRP001":
            facts["GRP001"][ev["key"]] = ev["groups"]  # type: ignore[index]
        elif f.code == "SPL001":
            facts["SPL001"] = ev.get("ids", 0)
        elif f.code == "DUP001":
            pairs = {"-".join(p["splits"]): p["rows"] for p in ev.get("pairs", [])}
            facts["DUP001"] = {"digests": ev["digests"], "pairs": pairs}
        elif f.code == "UPS001":
            facts["UPS001"] = {"components": ev["components"], "rows": ev["rows"]}
        elif f.code == "UPS003":
            facts["UPS003"] = {"largest": ev["largest"], "components": ev["components"]}
        elif f.code == "TMP001":
            facts["TMP001"] = ev["rows"]
    return facts


def worker(mode: str, target: str, columns: str) -> None:
    import resource

    if mode == "read":
        import pyarrow.dataset  # noqa: F401  read_table imports it lazily on its first call
        import pyarrow.parquet as pq

        t0 = perf_counter()
        table = pq.read_table(target, columns=columns.split(","))
        out: dict[str, object] = {"elapsed_s": perf_counter() - t0, "rows": table.num_rows}
    else:
        from auditor import run_audit
        from auditor.backends.engines import EngineSettings

        engine = mode.split(":", 1)[1] if ":" in mode else "memory"
        t0 = perf_counter()
        report = run_audit(target, only=columns.split(","), engine=EngineSettings(engine))  # type: ignore[arg-type]
        out = {
            "elapsed_s": perf_counter() - t0,
            "notes": list(report.manifest.engine_notes) if report.manifest else [],
            "stages": {s.stage: s.duration_s for s in report.stages},
            "errors": {s.stage: s.error.message for s in report.stages if s.error},
            "facts": _facts(report),
        }
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # The dask engine's local cluster: its worker processes are children (the largest one's peak).
    out["worker_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(out))


def measure(mode: str, target: Path, what: list[str], timeout: float) -> dict[str, object]:
    """Run this script's worker in a fresh session; kill its process group if it runs past ``timeout``."""
    cmd = [sys.executable, __file__, "--worker", mode, str(target), ",".join(what)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    t0 = perf_counter()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"timeout": True, "elapsed_s": perf_counter() - t0}
    lines = stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"crash": f"worker exited {proc.returncode}: {stderr.strip()[-2000:]}", "elapsed_s": perf_counter() - t0}
    return dict(json.loads(lines[-1]))


# --- data and truth --------------------------------------------------------------------------------------------


def ensure_shape(shape: str, rows: int, data_dir: Path) -> tuple[Path, dict[str, Path], list[str], dict[str, object]]:
    """Generate the shape when missing; return its manifest, configs, source column and truth."""
    if shape == "groupwise":
        folder = data_dir / f"links_{rows}"
        cmd = [str(BENCH / "make_links.py")]
        source = "source_document"
    else:
        if shape == "random-50m-sources":
            extra, suffix = ["--sources", str(MANY_SOURCES)], f"_sources_{MANY_SOURCES}"
        elif shape == "random-fixed-keys":
            extra = ["--writers", str(FIXED_WRITERS), "--sources", str(FIXED_SOURCES)]
            suffix = f"_writers_{FIXED_WRITERS}_sources_{FIXED_SOURCES}"
        else:
            extra, suffix = [], ""
        folder = data_dir / f"random_{rows}{suffix}"
        cmd = [str(BENCH / "make_random.py"), *extra]
        source = "source"
    manifest = folder / "manifest.parquet"
    if not (manifest.exists() and (folder / "truth.json").exists()):
        print(f"generating {manifest} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [sys.executable, *cmd, "--rows", str(rows), "--out", str(manifest)],
            check=True,
            stdout=sys.stderr,
            cwd=BENCH,
        )
    if shape == "groupwise":  # make_links.py writes only the links config (audit.yaml)
        (folder / "groups.yaml").write_text(
            "version: 1\n"
            f"manifest: {{path: {manifest.name}, id: sample_id, split: split}}\n"
            "splits: {train: [train], holdout: [val, test]}\n"
            "keys: {groups: [writer, source_document]}\n"
            "report: {formats: [json]}\n"
        )
        configs = {"groups": folder / "groups.yaml", "links": folder / "audit.yaml"}
    else:
        configs = {"groups": folder / "groups.yaml", "links": folder / "links.yaml"}
    return manifest, configs, source, json.loads((folder / "truth.json").read_text())


def columns(config: str, source: str, shape: str) -> list[str]:
    base = ["sample_id", "split", "writer", source]
    if config == "groups":
        return base
    return base + (["content_sha256", "captured_at"] if shape == "groupwise" else ["sha", "ts"])


def expected(shape: str, config: str, truth: dict[str, object]) -> dict[str, object]:
    """What each finding must say, from truth.json; a code mapped to None must be absent."""
    if shape == "groupwise":
        planted: dict[str, int] = truth["expected"]  # type: ignore[assignment]
        want: dict[str, object] = {"SPL001": planted["SPL001:id"], "GRP001": {"writer": planted["GRP001:writer"]}}
        if config == "groups":
            want["GRP001"] = {"writer": planted["GRP001:writer"], "source_document": planted["GRP001:source_document"]}
        else:
            links: dict[str, int] = truth["expected_links"]  # type: ignore[assignment]
            want["DUP001.digests"] = links["DUP001:digests"]
            want["TMP001"] = links["TMP001:rows"]
        return want
    want = {"SPL001": None, "GRP001": {"writer": truth["writers_crossing"]}}
    if config == "groups":
        want["GRP001"] = {"writer": truth["writers_crossing"], "source": truth["sources_crossing"]}
        return want
    shared: dict[str, int] = truth["shared_digest_rows_per_split"]  # type: ignore[assignment]
    want["DUP001"] = {
        "digests": 1,
        "pairs": {"train-val": [shared["train"], shared["val"]], "train-test": [shared["train"], shared["test"]]},
    }
    want["TMP001"] = truth["holdout_rows_before_train_max"]
    want["UPS001"] = {"components": truth["crossing_components"], "rows": truth["crossing_component_rows"]}
    want["UPS003"] = {"largest": truth["largest_component_rows"], "components": truth["components"]}
    return want


def check(audit: dict[str, object], want: dict[str, object]) -> list[str]:
    """Mismatches between an audit's findings and what truth.json says (empty: as planted)."""
    if audit.get("timeout"):
        return ["timeout"]
    if audit.get("crash"):
        return [str(audit["crash"])]
    problems = [f"{stage} error: {msg}" for stage, msg in audit["errors"].items()]  # type: ignore[attr-defined]
    facts: dict[str, object] = audit["facts"]  # type: ignore[assignment]
    for name, value in want.items():
        code, _, field = name.partition(".")
        got = facts.get(code)
        if field and isinstance(got, dict):
            got = got.get(field)
        if got != value:
            problems.append(f"{name} {got} != {value}")
    return problems


# --- the run ---------------------------------------------------------------------------------------------------


def _workers(r: dict[str, object]) -> str:
    peak = r.get("worker_peak_rss_mb")
    return f"{float(peak):.0f}" if r["engine"] == "dask" and peak else "—"  # type: ignore[arg-type]


def _per_core(r: dict[str, object]) -> str:
    rate = r.get("rows_per_s_per_core")
    return f"{float(rate) / 1000:.0f}k" if rate else "—"  # type: ignore[arg-type]


def _fmt(s: float | None) -> str:
    return "—" if s is None else f"{s:.2f}"


def run_shape(shape: str, rows: int, args: argparse.Namespace) -> list[dict[str, object]]:
    manifest, configs, source, truth = ensure_shape(shape, rows, args.data_dir)
    from run_bench import warm_page_cache

    warm_page_cache(manifest)
    pairs = [(c, e) for c in CONFIGS for e in args.engines]
    runs: dict[tuple[str, str], dict[str, list[dict[str, object]]]] = {p: {"read": [], "audit": []} for p in pairs}
    for i in range(args.repeat):
        for config, engine in pairs:
            read = measure("read", manifest, columns(config, source, shape), args.timeout)
            audit = measure(f"audit:{engine}", configs[config], STAGES[config], args.timeout)
            runs[config, engine]["read"].append(read)
            runs[config, engine]["audit"].append(audit)
            state = "TIMEOUT" if audit.get("timeout") else "CRASH" if audit.get("crash") else ""
            print(
                f"  {shape} {config} {engine} {rows:,} rows repeat {i + 1}: read {read['elapsed_s']:.2f}s audit "
                f"{audit['elapsed_s']:.2f}s {state} peak {audit.get('peak_rss_mb', 0):.0f} MB",
                file=sys.stderr,
                flush=True,
            )
    results = []
    for config, engine in pairs:
        reads, audits = runs[config, engine]["read"], runs[config, engine]["audit"]
        want = expected(shape, config, truth)
        problems = sorted({p for a in audits for p in check(a, want)})
        done = [a for a in audits if "facts" in a]
        read_s = statistics.median(float(r["elapsed_s"]) for r in reads)  # type: ignore[arg-type]
        audit_s = statistics.median(float(a["elapsed_s"]) for a in done) if done else None  # type: ignore[arg-type]
        stage_s = {
            s: statistics.median(float(a["stages"][s]) for a in done) if done else None  # type: ignore[index]
            for s in STAGES[config]
        }
        results.append(
            {
                "shape": shape,
                "config": config,
                "engine": engine,
                "rows": rows,
                "read_s": read_s,
                "audit_s": audit_s,
                "timeouts": sum(1 for a in audits if a.get("timeout")),
                "peak_rss_mb": max((float(a["peak_rss_mb"]) for a in done), default=None),  # type: ignore[arg-type]
                "worker_peak_rss_mb": max((float(a.get("worker_peak_rss_mb", 0)) for a in done), default=None),  # type: ignore[arg-type]
                "rows_per_s_per_core": rows / audit_s / (os.cpu_count() or 1) if audit_s else None,
                "notes": done[-1].get("notes", []) if done else [],
                "stages": stage_s,
                "facts": done[-1]["facts"] if done else None,
                "problems": problems,
            }
        )
    return results


def table(results: list[dict[str, object]], timeout: float) -> str:
    head = "| shape | config | engine | rows | read s | audit s | audit/read | peak RSS MB | largest worker MB | "
    head += "rows/s/core | target (10M) | "
    head += " | ".join(f"{s} s" for s in LINK_STAGES) + " | findings |"
    lines = [head, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|" + "---:|" * len(LINK_STAGES) + "---|"]
    for r in results:
        audit_s, read_s, rss = r["audit_s"], float(r["read_s"]), r["peak_rss_mb"]  # type: ignore[arg-type]
        max_ratio, max_rss = TARGETS[str(r["config"])]
        if audit_s is None:
            audit_cell, ratio_cell = (f"timeout > {timeout:.0f}" if r["timeouts"] else "failed"), "—"
            verdict = "missed (time)"
        else:
            ratio = float(audit_s) / read_s  # type: ignore[arg-type]
            audit_cell, ratio_cell = f"{audit_s:.2f}", f"{ratio:.2f}"
            missed = [w for w, ok in (("time", ratio <= max_ratio), ("RSS", float(rss) <= max_rss)) if not ok]  # type: ignore[arg-type]
            verdict = "met" if not missed else "missed (" + ", ".join(missed) + ")"
        stages: dict[str, float | None] = r["stages"]  # type: ignore[assignment]
        problems: list[str] = r["problems"]  # type: ignore[assignment]
        lines.append(
            f"| {r['shape']} | {r['config']} | {r['engine']} | {r['rows']:,} | {read_s:.2f} | {audit_cell} | "
            f"{ratio_cell} | "
            f"{'—' if rss is None else f'{rss:.0f}'} | {_workers(r)} | {_per_core(r)} | "
            f"≤{max_ratio:.0f}×, ≤{max_rss / 1000:.0f} GB: {verdict} | "
            + " | ".join(_fmt(stages.get(s)) for s in LINK_STAGES)
            + f" | {'as truth.json' if not problems else 'WRONG: ' + '; '.join(problems)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per measurement (default 600)")
    parser.add_argument("--json", type=Path, help="also save the results here")
    parser.add_argument("--engines", nargs="+", choices=["memory", "duckdb", "dask"], default=["memory", "duckdb"])
    parser.add_argument("--worker", nargs=3, metavar=("MODE", "TARGET", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    from run_bench import package_fingerprint

    args.data_dir = args.data_dir.resolve()
    fingerprint = package_fingerprint()
    load = os.getloadavg()
    print(f"auditor sources {fingerprint}; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results, changed = [], []
    for rows in args.rows:
        for shape in args.shapes:
            results.extend(run_shape(shape, rows, args))
            if package_fingerprint() != fingerprint:
                changed.append(f"{shape} {rows:,}")
    print(
        f"\nmedian of {args.repeat}, a fresh subprocess per measurement; cpus {os.cpu_count()}; "
        f"load average at end {os.getloadavg()[0]:.2f}\n"
    )
    print(table(results, args.timeout))
    for r in results:
        print(f"{r['shape']} {r['config']} {r['rows']:,}: {json.dumps(r['facts'])}")
        if r.get("notes"):
            print(f"  {r['engine']}: {'; '.join(r['notes'])}")  # type: ignore[arg-type]
    if args.json:
        args.json.write_text(json.dumps({"fingerprint": fingerprint, "loadavg": load, "results": results}, indent=2))
    if any(r["problems"] for r in results):
        print(
            "\nERROR: an audit failed, timed out or did not reproduce truth.json (see findings column)", file=sys.stderr
        )
        raise SystemExit(1)
    if changed:
        print(f"\nERROR: the auditor's sources changed during: {', '.join(changed)}", file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    main()
