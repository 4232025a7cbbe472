"""Where the driver's memory goes: each stage's peak resident set in one audit, run in this process.

    python bench/stage_memory.py CONFIG [--engine dask] [--scheduler ADDRESS] [--memory-limit 6GB]
                                 [--only STAGE ...] [--json PATH]

Before the manifest is loaded and before each stage, the peak resident set of this process (VmHWM) is reset
(`/proc/self/clear_refs`, Linux); after it, the peak and the resident set are read. So each figure is the peak
during that step alone, the memory earlier steps kept included, and the difference between `before` and `peak`
is what the step itself added. On the dask engine with no --scheduler the local cluster's workers are other
processes: their memory is not in these figures (bench/driver_bench.py measures them apart). Printed: a table
of the steps in the order they ran, the audit's wall time and exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def status_mb(field: str) -> float:
    """``field`` of /proc/self/status (VmRSS, VmHWM) in MB (2**20 bytes)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise KeyError(field)


def reset_peak() -> None:
    """Set VmHWM back to the current resident set (writing 5 to clear_refs, Linux 4.0 and later)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


class Steps:
    """The steps measured so far: name, resident set before, peak during, resident set after, seconds."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def wrap(self, name_of: Any, function: Any) -> Any:
        """``function`` measured as one step each call, named by ``name_of(*args)``."""

        def measured(*args: Any, **kwargs: Any) -> Any:
            reset_peak()
            before, t0 = status_mb("VmRSS"), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds, after = time.perf_counter() - t0, status_mb("VmRSS")
                # The kernel updates its high-water mark lazily (VmHWM shows it or the resident set now, whichever
                # is larger): a figure read a moment apart may be the higher one.
                peak = max(status_mb("VmHWM"), before, after)
                row = {"step": name_of(*args), "before_mb": before, "peak_mb": peak, "after_mb": after}
                self.rows.append({**row, "seconds": seconds})

        return measured


def audit(config: Path, engine: str, scheduler: str | None, memory_limit: str | None, only: list[str] | None) -> Any:
    """The audit of ``config``, each stage and the manifest's load measured; returns (report, steps)."""
    import auditor.backends.load as load
    import auditor.pipeline.runner as runner
    from auditor.backends.engines import EngineSettings, parse_size

    steps = Steps()
    real_execute, real_load = runner.execute, load.load_for
    runner.execute = steps.wrap(lambda stage, *rest: stage.name, real_execute)  # type: ignore[assignment]
    load.load_for = steps.wrap(lambda *rest: "(load the manifest)", real_load)  # type: ignore[assignment]
    try:
        settings = EngineSettings(
            engine,  # type: ignore[arg-type]
            memory_limit=parse_size(memory_limit) if memory_limit else None,
            scheduler=scheduler,
        )
        return runner.run_audit(config, engine=settings, only=only), steps
    finally:
        runner.execute, load.load_for = real_execute, real_load  # type: ignore[assignment]


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| step | before MB | peak MB | added MB | after MB | s |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['step']} | {r['before_mb']:.0f} | {r['peak_mb']:.0f} | {r['peak_mb'] - r['before_mb']:.0f} | "
            f"{r['after_mb']:.0f} | {r['seconds']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--engine", default="dask", choices=("memory", "duckdb", "dask"))
    parser.add_argument("--scheduler", help="the dask engine's scheduler (default: a local cluster)")
    parser.add_argument("--memory-limit", help="as audit run's --memory-limit (e.g. 6GB)")
    parser.add_argument("--only", nargs="+", help="run only these stages")
    parser.add_argument("--json", type=Path, help="also save the steps here")
    args = parser.parse_args()
    t0 = time.perf_counter()
    report, steps = audit(args.config, args.engine, args.scheduler, args.memory_limit, args.only)
    print(f"{args.config}: exit {report.exit_code} in {time.perf_counter() - t0:.1f} s on the {args.engine} engine")
    print(table(steps.rows))
    if args.json:
        # What each stage concluded (its status, error and findings), so a refusal is recorded with its figures.
        stages = [
            {
                "stage": r.stage,
                "status": r.status,
                "error": r.error.message if r.error else None,
                "findings": [{"code": f.code, "severity": f.severity, "message": f.message} for f in r.findings],
            }
            for r in report.stages
        ]
        args.json.write_text(
            json.dumps({"exit_code": report.exit_code, "steps": steps.rows, "stages": stages}, indent=2, default=str)
        )


if __name__ == "__main__":  # the dask engine's local cluster starts worker processes that import this module
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
