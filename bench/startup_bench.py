"""Start-up of the `audit` command: `--help`, `stages` and a run on the 25-row handwriting sample.

    python bench/startup_bench.py [--repeat 15]

Each command runs in a fresh interpreter, interleaved, after one warm-up run of each; the table gives the
median and the fastest wall time. The package's bytecode is compiled first, as an installed package has it
(with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile the sources again). Targets:
`--help` and `stages` in at most 0.3 s, the run in at most 1 s.
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
    args = parser.parse_args()
    compileall.compile_dir(REPO / "auditor", quiet=1)
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
        times: dict[str, list[float]] = {name: [] for name in commands}
        for attempt in range(args.repeat + 1):
            for name, argv in commands.items():
                start = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, env={**os.environ, "COLUMNS": "120"})
                took = time.perf_counter() - start
                if done.returncode not in (0, 1):
                    print(f"{name} exited {done.returncode}: {done.stderr.decode()[-400:]}", file=sys.stderr)
                    return 2
                if attempt:  # the first round only warms the page cache
                    times[name].append(took)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; {args.repeat} runs each\n")
    print("| command | median s | fastest s | target s |")
    print("|---|---:|---:|---:|")
    for name, values in times.items():
        print(f"| `{name}` | {statistics.median(values):.3f} | {min(values):.3f} | {TARGETS[name]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
