"""Start-up of the `audit` command: `--help`, `stages` and a run on the 25-row handwriting sample.

    python bench/startup_bench.py [--repeat 15] [--against DIR]

Each command runs in a fresh interpreter, interleaved, after one warm-up run of each; the table gives the
median and the fastest wall time. The package's bytecode is compiled first, as an installed package has it
(with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile the sources again). Targets:
`--help` and `stages` in at most 0.3 s, the run in at most 1 s. With `--against DIR` (another checkout of the
sources, e.g. `git worktree add /tmp/before HEAD~3`) every command also runs on DIR's `auditor`, interleaved
with this one, so a before/after pair is measured side by side under the same load.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AUDIT = str(Path(sys.executable).with_name("audit"))
TARGETS = {"audit --help": 0.3, "audit stages": 0.3, "audit run handwriting": 1.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--against", type=Path, help="another source tree to time side by side with this one")
    args = parser.parse_args()
    trees = {"now": REPO, **({"against": args.against.resolve()} if args.against else {})}
    for tree in trees.values():
        compileall.compile_dir(tree / "auditor", quiet=1)
    with tempfile.TemporaryDirectory() as out:
        commands = {
            "audit --help": [AUDIT, "--help"],
            "audit stages": [AUDIT, "stages"],
            "audit run handwriting": [
                AUDIT,
                "run",
                str(REPO / "sample_data/handwriting/audit.yaml"),
                "--out",
                out,
                "-q",
            ],
        }
        times: dict[tuple[str, str], list[float]] = {(name, tree): [] for name in commands for tree in trees}
        load = [os.getloadavg()[0]]
        for attempt in range(args.repeat + 1):
            for name, argv in commands.items():
                for tree, path in trees.items():
                    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(path)}
                    start = time.perf_counter()
                    done = subprocess.run(argv, capture_output=True, env=env, cwd=path)
                    took = time.perf_counter() - start
                    if done.returncode not in (0, 1):
                        print(f"{name} exited {done.returncode}: {done.stderr.decode()[-400:]}", file=sys.stderr)
                        return 2
                    if attempt:  # the first round only warms the page cache
                        times[name, tree].append(took)
            load.append(os.getloadavg()[0])
    print(f"load average {min(load):.2f}-{max(load):.2f}; {args.repeat} runs each\n")
    head = " | ".join(f"{tree} median s | {tree} fastest s" for tree in trees)
    print(f"| command | {head} | target s |")
    print("|---|" + "---:|---:|" * len(trees) + "---:|")
    for name in commands:
        cells = " | ".join(f"{statistics.median(times[name, t]):.3f} | {min(times[name, t]):.3f}" for t in trees)
        print(f"| `{name}` | {cells} | {TARGETS[name]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
