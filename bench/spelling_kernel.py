"""Benchmark: the spelling kernel on a digest column, clean (lower case) against the worst case (upper case).

    python bench/spelling_kernel.py --rows 10000000 [--repeat 3]

Every value of an upper-case hex column differs from its normal form, so the kernel must normalise the
whole column; a lower-case column stops after the byte scan. Both are timed in one run against reading the
same column back from parquet, and the ratio to the read is printed.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from time import perf_counter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditor.manifest.spelling import spelling_variants


def digests(rows: int, seed: int = 0) -> pa.ChunkedArray:
    """``rows`` distinct 32-character lower-case hex strings."""
    raw = np.random.default_rng(seed).integers(0, 256, size=(rows, 16), dtype=np.uint8)
    alphabet = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    chars = np.empty((rows, 32), dtype=np.uint8)
    chars[:, 0::2], chars[:, 1::2] = alphabet[raw >> 4], alphabet[raw & 15]
    offsets = pa.array(np.arange(0, 32 * rows + 1, 32, dtype=np.int32))
    return pa.chunked_array([pa.StringArray.from_buffers(rows, offsets.buffers()[1], pa.py_buffer(chars.tobytes()))])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lower = digests(args.rows)
    upper = pc.utf8_upper(lower)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.parquet"
        pq.write_table(pa.table({"sha": upper}), path)
        times: dict[str, list[float]] = {"read": [], "lower": [], "upper": []}
        for _ in range(args.repeat):
            start = perf_counter()
            pq.read_table(path, columns=["sha"])
            times["read"].append(perf_counter() - start)
            for name, column in (("lower", lower), ("upper", upper)):
                start = perf_counter()
                found = spelling_variants(column)
                times[name].append(perf_counter() - start)
                assert found.n_groups == 0, "distinct digests have no spelling variants"
    read = statistics.median(times["read"])
    print(f"rows {args.rows:,}: read {read:.2f} s")
    for name in ("lower", "upper"):
        median = statistics.median(times[name])
        print(f"  {name:5} case: {median:.2f} s ({median / read:.1f}x the read)  runs {times[name]}")


if __name__ == "__main__":
    main()
