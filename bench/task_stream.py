"""Where the Dask engine's workers spend their time: one audit on a local cluster, its task stream summed.

    python bench/task_stream.py CONFIG [--workers 2] [--top 20] [--json PATH]

A local cluster of WORKERS single-thread worker processes is started here and `audit run CONFIG --engine dask
--scheduler ADDRESS` runs against it as a child process; the scheduler's task stream is collected meanwhile.
Printed: the audit's wall time and exit code, each worker's compute seconds, the compute and transfer seconds
per task function (largest first), and each stage's duration from report.json. The run's findings are not
checked here (driver_bench.py does that).
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _function(key: object) -> str:
    """The task function of a Dask key: ``('_map_groups-<token>', 3)`` -> ``_map_groups``."""
    name = str(key[0] if isinstance(key, tuple) else key)
    return name.rsplit("-", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also save the summary here")
    args = parser.parse_args()
    from distributed import Client, LocalCluster, get_task_stream

    audit = Path(sys.executable).with_name("audit")
    out = Path(tempfile.mkdtemp(prefix="task-stream-"))
    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local) as client,
    ):
        with get_task_stream(client=client) as stream:
            t0 = time.perf_counter()
            command = [str(audit) if audit.exists() else "audit", "run", str(args.config), "--engine", "dask"]
            done = subprocess.run(
                [*command, "--scheduler", local.scheduler_address, "--out", str(out), "-q"], capture_output=True
            )
            wall = time.perf_counter() - t0
        records = stream.data
    busy: dict[str, float] = collections.defaultdict(float)
    spent: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for task in records:
        for part in task["startstops"]:
            seconds = part["stop"] - part["start"]
            if part["action"] == "compute":
                busy[task["worker"]] += seconds
            entry = spent[(_function(task["key"]), part["action"])]
            entry[0] += seconds
            entry[1] += 1
    report = out / "report.json"
    stages = {}
    if report.exists():
        stages = {s["stage"]: s["duration_s"] for s in json.loads(report.read_text())["stages"] if s["duration_s"]}
    shutil.rmtree(out, ignore_errors=True)
    print(f"audit exit {done.returncode} in {wall:.1f} s; worker compute s: {[round(b, 1) for b in busy.values()]}")
    print("| function | action | seconds | tasks |\n|---|---|---:|---:|")
    ranked = sorted(spent.items(), key=lambda kv: -kv[1][0])
    for (function, action), (seconds, n) in ranked[: args.top]:
        print(f"| `{function}` | {action} | {seconds:.1f} | {int(n)} |")
    print("stages (s):", ", ".join(f"{name} {s:.1f}" for name, s in stages.items()))
    if args.json:
        summary = {
            "wall_s": wall,
            "exit": done.returncode,
            "workers_s": list(busy.values()),
            "functions": [{"function": f, "action": a, "s": s, "tasks": n} for (f, a), (s, n) in ranked],
            "stages": stages,
        }
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
