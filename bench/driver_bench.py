"""Benchmark: the Dask engine's driver memory as the rows grow, apart from its workers'.

    python bench/driver_bench.py --rows 1000000 10000000 30000000 [--configs groups links]
                                 [--shape random|random-fixed-keys]
                                 [--data-dir bench/data] [--timeout 1200] [--scheduler ADDRESS] [--only STAGES]
                                 [--sources DIR ...] [--engines dask duckdb] [--repeat N]
                                 [--duckdb-memory-limit 6GB] [--json PATH]

For each size, the `random` shape of section 10 (make_random.py, DATA_DIR/random_<N>/, generated when missing;
with --shape random-fixed-keys the same draw from 200k writers and 2M sources at every size, so the findings name
the same values however many rows) and each config, `audit run CONFIG --engine dask` runs as a child process in a
session of its own (a local cluster of one worker process per core unless --scheduler; every stage the config
enables unless --only). While it runs, VmHWM in /proc/PID/status is sampled for the audit process (the driver,
which also holds the local scheduler) and, apart, for each of its descendants (the workers): VmHWM is the peak of
one address space, so neither counts the other. The rusage wait4 returns for the driver is kept beside them: Linux
takes it as the largest of the driver and every descendant it has reaped, and a child made by fork and exec starts
its own with the RSS of its parent at the fork, so it is no driver-only figure. Findings are checked against
truth.json as scale_bench.py does; a stage error, a wrong count or a timeout exits 1. With --sources, each audit
runs once per checkout named (its root on PYTHONPATH), one after the other, so versions are compared side by side
on the same data and load. With --engines dask duckdb, each audit runs on both engines in turn (the file read
into the page cache before each), --repeat times, and the median wall time of the cluster is given as a multiple
of the DuckDB engine's, run by run and overall: the two measured side by side on the same data.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

BENCH = Path(__file__).resolve().parent
CONFIGS = ("groups", "links")
FIVE_BILLION = 5_000_000_000
SOURCES = "sources"  # a result's key naming the checkout it ran, with --sources


# --- /proc ------------------------------------------------------------------------------------------------------


def vm_hwm_kib(pid: int) -> int | None:
    """The peak resident set of ``pid``'s address space (VmHWM, KiB); None once it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return None


def _command_line(pid: int) -> str:
    """The first 200 characters of ``pid``'s command line, to tell a worker from a helper process."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace").strip()[:200]
    except (FileNotFoundError, ProcessLookupError):
        return ""


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, their children, ...), from each task's children list."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except FileNotFoundError:
                continue
            found.extend(kids)
            todo.extend(kids)
    return found


def watch(
    cmd: list[str], timeout: float, interval: float = 0.1, cwd: Path | None = None, env: dict[str, str] | None = None
) -> dict[str, object]:
    """Run ``cmd`` in its own session, sampling its own VmHWM and each descendant's until it ends or
    ``timeout`` passes (then its process group is killed). Peaks in MB; stderr's tail when it fails."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd, env=env, start_new_session=True)
        return _sampled(proc, err, timeout, interval)


def _sampled(proc: subprocess.Popen[bytes], err: IO[bytes], timeout: float, interval: float) -> dict[str, object]:
    """``watch``'s loop over a process started by it."""
    t0 = time.perf_counter()
    driver = 0
    others: dict[int, int] = {}
    names: dict[int, str] = {}
    timed_out = False
    while True:
        # wait4, not Popen.poll: it reaps the driver with its rusage. Until it is reaped, /proc/PID stays.
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        own = vm_hwm_kib(proc.pid)
        if own is not None:
            driver = max(driver, own)
        for kid in descendants(proc.pid):
            peak = vm_hwm_kib(kid)
            if peak is not None:
                others[kid] = max(others.get(kid, 0), peak)
                names.setdefault(kid, _command_line(kid))
        if time.perf_counter() - t0 > timeout:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(interval)
    elapsed = time.perf_counter() - t0
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    err.seek(0)
    tail = err.read().decode(errors="replace").strip()[-2000:]
    out: dict[str, object] = {
        "elapsed_s": elapsed,
        "exit": code,
        "driver_peak_mb": driver / 1024,
        "worker_peaks_mb": sorted((v / 1024 for v in others.values()), reverse=True),
        "descendants": [{"pid": k, "peak_mb": v / 1024, "command": names[k]} for k, v in others.items()],
        "wait4_maxrss_mb": usage.ru_maxrss / 1024,
    }
    if timed_out:
        out["timeout"] = True
    elif code not in (0, 1):  # 0 clean, 1 findings; 2 could not audit
        out["crash"] = f"audit exited {code}: {tail}"
    return out


# --- one audit --------------------------------------------------------------------------------------------------


def audit_command(
    config: Path,
    out_dir: Path,
    scheduler: str | None,
    only: str | None = None,
    engine: str = "dask",
    memory_limit: str | None = None,
) -> list[str]:
    """`audit run CONFIG --engine ENGINE`, from this interpreter's environment, a JSON report into ``out_dir``;
    the scheduler only for the dask engine."""
    audit = Path(sys.executable).with_name("audit")
    cmd = [str(audit) if audit.exists() else "audit", "run", str(config), "--engine", engine]
    cmd += ["--out", str(out_dir), "--format", "json", "--quiet"]
    cmd += ["--scheduler", scheduler] if scheduler and engine == "dask" else []
    cmd += ["--memory-limit", memory_limit] if memory_limit else []
    return cmd + (["--only", only] if only else [])


def sources_env(root: Path | None) -> dict[str, str] | None:
    """The environment of an audit of the checkout at ``root`` (first on PYTHONPATH); None: this one's own."""
    if root is None:
        return None
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}


def run_one(
    config: Path,
    want: dict[str, object],
    args: argparse.Namespace,
    env: dict[str, str] | None = None,
    engine: str = "dask",
) -> dict[str, object]:
    """One audit watched (with ``env``, else this environment); its findings read back and checked against
    ``want``."""
    from scale_bench import _facts, check

    from auditor.core.diff import load_report

    limit = getattr(args, "duckdb_memory_limit", None) if engine == "duckdb" else None
    with tempfile.TemporaryDirectory(prefix="driver_bench_") as out:
        command = audit_command(config, Path(out), args.scheduler, args.only, engine, limit)
        result = watch(command, args.timeout, args.interval, env=env)
        if "timeout" not in result and "crash" not in result:
            report = load_report(Path(out) / "report.json")
            result["facts"] = _facts(report)
            result["errors"] = {s.stage: s.error.message for s in report.stages if s.error}
            result["stages"] = {s.stage: s.duration_s for s in report.stages}
    result["problems"] = check(result, want)
    return result


# --- figures ----------------------------------------------------------------------------------------------------


def slope(results: list[dict[str, object]], config: str, sources: str | None = None) -> dict[str, float] | None:
    """Bytes of driver peak per row between the two largest sizes of ``config`` (of the checkout ``sources``)
    that finished, and the peak that line gives at 5 billion rows; None with fewer than two sizes."""
    done = sorted(
        (int(r["rows"]), float(r["driver_peak_mb"]))  # type: ignore[call-overload, arg-type]
        for r in results
        if r["config"] == config
        and r.get("sources") == sources
        and r.get("engine", "dask") == "dask"
        and not r["problems"]
    )
    if len(done) < 2 or done[-1][0] == done[-2][0]:
        return None
    (r0, mb0), (r1, mb1) = done[-2], done[-1]
    per_row = (mb1 - mb0) * 2**20 / (r1 - r0)
    return {
        "from_rows": r0,
        "to_rows": r1,
        "bytes_per_row": per_row,
        "five_billion_gb": (mb1 * 2**20 + per_row * (FIVE_BILLION - r1)) / 1e9,
    }


def engine_ratios(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """For each size, config and checkout audited on both engines: the dask engine's median wall time over the
    DuckDB engine's, and each run's pair (the n-th run of one with the n-th of the other). Runs that failed,
    timed out or did not reproduce truth.json count for neither."""
    out = []
    keys = dict.fromkeys((r["rows"], r["config"], r.get(SOURCES)) for r in results)
    for rows, config, sources in keys:
        walls: dict[str, list[float]] = {"dask": [], "duckdb": []}
        for r in results:
            if (r["rows"], r["config"], r.get(SOURCES)) == (rows, config, sources) and not r["problems"]:
                walls.setdefault(str(r.get("engine", "dask")), []).append(float(r["elapsed_s"]))  # type: ignore[arg-type]
        if walls["dask"] and walls["duckdb"]:
            dask_s, duck_s = statistics.median(walls["dask"]), statistics.median(walls["duckdb"])
            pairs = [a / b for a, b in zip(walls["dask"], walls["duckdb"], strict=False)]
            out.append(
                {
                    "rows": rows,
                    "config": config,
                    SOURCES: sources,
                    "dask_s": walls["dask"],
                    "duckdb_s": walls["duckdb"],
                    "ratio": dask_s / duck_s,
                    "pair_ratios": pairs,
                }
            )
    return out


def table(results: list[dict[str, object]], timeout: float) -> str:
    several = len({r.get("sources") for r in results}) > 1
    engines = len({r.get("engine", "dask") for r in results}) > 1
    lines = [
        "| rows | config |"
        + (" sources |" if several else "")
        + (" engine |" if engines else "")
        + " wall s | driver peak MB | largest worker MB | wait4 maxrss MB | load average | findings |",
        "|---:|---|" + ("---|" if several else "") + ("---|" if engines else "") + "---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        problems: list[str] = r["problems"]  # type: ignore[assignment]
        workers: list[float] = r["worker_peaks_mb"]  # type: ignore[assignment]
        wall = f"timeout > {timeout:.0f}" if r.get("timeout") else f"{float(r['elapsed_s']):.1f}"  # type: ignore[arg-type]
        wait4 = r.get("wait4_maxrss_mb")
        lines.append(
            f"| {int(r['rows']):,} | {r['config']} | {f'{r.get(SOURCES)} | ' if several else ''}"  # type: ignore[call-overload]
            f"{str(r.get('engine', 'dask')) + ' | ' if engines else ''}"
            f"{wall} | {float(r['driver_peak_mb']):.0f} | "  # type: ignore[arg-type]
            f"{f'{workers[0]:.0f}' if workers else '—'} | {'—' if wait4 is None else f'{float(wait4):.0f}'} | "  # type: ignore[arg-type]
            f"{float(r['loadavg']):.1f} | "  # type: ignore[arg-type]
            f"{'as truth.json' if not problems else 'WRONG: ' + '; '.join(problems)} |"
        )
    return "\n".join(lines)


# --- the run ----------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000, 30_000_000])
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    parser.add_argument("--shape", choices=("random", "random-fixed-keys"), default="random")
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per audit (default 1200)")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between /proc samples (default 0.1)")
    parser.add_argument("--scheduler", help="passed to the audit (default: a local cluster)")
    parser.add_argument("--only", help="passed to the audit: run only these stages (comma-separated)")
    parser.add_argument(
        "--sources",
        type=Path,
        nargs="+",
        help="checkouts of split-auditor (their roots) to run in turn, each audit once per checkout (default: the "
        "auditor this interpreter imports)",
    )
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=("dask", "duckdb"),
        default=["dask"],
        help="engines to audit with, in turn (default: dask); with both, the cluster's time over DuckDB's",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each audit, interleaved (default 1)")
    parser.add_argument("--duckdb-memory-limit", help="--memory-limit of the DuckDB engine's audits (e.g. 6GB)")
    parser.add_argument("--json", type=Path, help="also save the results here")
    args = parser.parse_args()
    from run_bench import package_fingerprint, warm_page_cache
    from scale_bench import ensure_shape, expected

    args.data_dir = args.data_dir.resolve()
    roots: list[Path | None] = [r.resolve() for r in args.sources] if args.sources else [None]
    envs = {root: sources_env(root) for root in roots}
    prints = {root: package_fingerprint(envs[root], root) for root in roots}
    label = {root: None if root is None else f"{root.name} {prints[root]}" for root in roots}
    fingerprint = ", ".join(prints.values())
    load = os.getloadavg()
    print(f"auditor sources {fingerprint}; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results: list[dict[str, object]] = []
    for rows in args.rows:
        manifest, configs, _, truth = ensure_shape(args.shape, rows, args.data_dir)
        warm_page_cache(manifest)
        for config, _, root, engine in itertools.product(args.configs, range(args.repeat), roots, args.engines):
            if len(args.engines) > 1:
                warm_page_cache(manifest)  # each engine starts from the same page cache, whatever ran before
            loadavg = os.getloadavg()[0]
            r = run_one(configs[config], expected(args.shape, config, truth), args, envs[root], engine)
            r.update(rows=rows, config=config, loadavg=loadavg, engine=engine)
            if root is not None:
                r[SOURCES] = label[root]
            results.append(r)
            workers: list[float] = r["worker_peaks_mb"]  # type: ignore[assignment]
            print(
                f"  {config} {engine} {rows:,} rows{f' ({label[root]})' if root else ''}: "
                f"{float(r['elapsed_s']):.1f}s "  # type: ignore[arg-type]
                f"driver {float(r['driver_peak_mb']):.0f} MB "  # type: ignore[arg-type]
                f"workers {', '.join(f'{w:.0f}' for w in workers)} MB load {loadavg:.2f}"
                + (f" PROBLEMS {r['problems']}" if r["problems"] else ""),
                file=sys.stderr,
                flush=True,
            )
    print(f"\nload average at end {os.getloadavg()[0]:.2f}\n")
    print(table(results, args.timeout))
    ratios = engine_ratios(results)
    for q in ratios:
        print(
            f"{q['config']} {int(q['rows']):,} rows{f' ({q[SOURCES]})' if q[SOURCES] else ''}: dask "  # type: ignore[call-overload]
            f"{', '.join(f'{x:.1f}' for x in q['dask_s'])} s, duckdb {', '.join(f'{x:.1f}' for x in q['duckdb_s'])} s: "  # type: ignore[attr-defined]
            f"{float(q['ratio']):.2f}x the DuckDB engine's median (run by run: "  # type: ignore[arg-type]
            + ", ".join(f"{x:.2f}x" for x in q["pair_ratios"])  # type: ignore[attr-defined]
            + ")"
        )
    slopes = {
        " ".join(filter(None, [c, label[root]])): slope(results, c, label[root]) for c in args.configs for root in roots
    }
    for name, s in slopes.items():
        if s:
            print(
                f"{name}: {s['bytes_per_row']:.0f} bytes a row of driver peak from {s['from_rows']:,.0f} to "
                f"{s['to_rows']:,.0f} rows; at 5,000,000,000 rows {s['five_billion_gb']:.0f} GB"
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"fingerprint": fingerprint, "loadavg": load, "results": results, "slopes": slopes, "ratios": ratios},
                indent=2,
            )
        )
    if any(r["problems"] for r in results):
        print("\nERROR: an audit failed, timed out or did not reproduce truth.json", file=sys.stderr)
        raise SystemExit(1)
    if any(package_fingerprint(envs[root], root) != prints[root] for root in roots):
        print("\nERROR: the auditor's sources changed during the run", file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH))
    main()
