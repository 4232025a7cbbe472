"""Benchmark: what the `groups` audit of a manifest cannot avoid doing, each as a multiple of the read.

    python bench/floor_bench.py [MANIFEST.parquet ...] [--repeat 5]

The `groups` config (split_integrity + group_overlap) must, whatever the engine: read the id, split and key
columns; find every repeated id exactly; group each key column exactly by value; and digest the manifest
file for the report. This script times the fastest library call for each of those steps, in one process on
the same columns, alternating the steps over `--repeat` rounds (medians), and prints each as a multiple of
the read:

  read            pyarrow.parquet.read_table of sample_id, split, writer, source
  sha256          hashlib over the file's bytes (page cache warm)
  ids: sort       numpy sort of one 64-bit hash per id (the cheapest exact-after-confirmation repeat search)
  <key>: arrow    pyarrow's dictionary_encode of the strings (Arrow's own exact grouping)
  <key>: hash+enc the auditor's 64-bit hashes, then dictionary_encode of the integers

The sum of the steps, against the target of 3x the read, says whether the target is reachable on this
machine by any implementation built from these libraries. Default manifests: the two random shapes at 10M.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter

import numpy as np
import pyarrow as pa
import pyarrow.dataset  # read_table imports it on its first call: not part of the read
import pyarrow.parquet as pq

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from auditor.manifest.content import sha256_file  # noqa: E402
from auditor.manifest.hashing import fingerprint  # noqa: E402

DEFAULT = [
    BENCH / "data" / "random_10000000" / "manifest.parquet",
    BENCH / "data" / "random_10000000_sources_50000000" / "manifest.parquet",
]
COLUMNS = ["sample_id", "split", "writer", "source"]
KEYS = ["writer", "source"]


def steps(path: Path) -> dict[str, Callable[[], object]]:
    table = pq.read_table(path, columns=COLUMNS)
    id_hashes = fingerprint(table["sample_id"], second=False)[0]
    out: dict[str, Callable[[], object]] = {
        "read": lambda: pq.read_table(path, columns=COLUMNS),
        "sha256": lambda: sha256_file(path, block=1 << 22),
        "ids: sort": lambda: np.sort(id_hashes),
    }
    for key in KEYS:
        column = table[key]
        out[f"{key}: arrow"] = lambda column=column: column.dictionary_encode()
        out[f"{key}: hash+enc"] = lambda column=column: pa.array(fingerprint(column)[0]).dictionary_encode()
    return out


def measure(path: Path, repeat: int) -> dict[str, float]:
    work = steps(path)
    times: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(repeat):
        for name, step in work.items():
            t0 = perf_counter()
            step()
            times[name].append(perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifests", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}; medians of {args.repeat}\n")
    for path in args.manifests:
        med = measure(path, args.repeat)
        read = med["read"]
        floor = (
            med["read"]
            + med["sha256"]
            + med["ids: sort"]
            + sum(min(med[f"{k}: arrow"], med[f"{k}: hash+enc"]) for k in KEYS)
        )
        print(f"{path.parent.name}\n\n| step | s | × read |\n|---|---:|---:|")
        for name, seconds in med.items():
            print(f"| {name} | {seconds:.2f} | {seconds / read:.2f} |")
        print(f"| **sum of the cheapest steps** | {floor:.2f} | {floor / read:.2f} |\n")


if __name__ == "__main__":
    main()
