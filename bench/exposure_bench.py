"""Benchmark: holdout fingerprints, rows per second for sketch(row_hashes(ids)) and the time of compare().

    .venv/bin/python bench/exposure_bench.py --rows 1000000 10000000 [--repeat 3]

Ids are generated in Arrow (`img_000000123`, some upper-case with outer spaces, so normalising does real
work); each size is timed ``repeat`` times in this process and the median is printed. compare() is timed on
two sketches of the largest size, one with 5% of its rows replaced.
"""

from __future__ import annotations

import argparse
import statistics
from time import perf_counter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.exposure.fingerprint import compare, row_hashes, sketch


def ids(rows: int, start: int = 0) -> pa.Array:
    """``rows`` distinct ids; every tenth written in upper case with outer spaces."""
    numbers = pa.array(np.arange(start, start + rows, dtype=np.int64)).cast(pa.string())
    padded = pc.utf8_lpad(numbers, 9, "0")
    plain = pc.binary_join_element_wise("img_", padded, "")
    odd = pa.array(np.arange(rows) % 10 == 0)
    return pc.if_else(odd, pc.binary_join_element_wise("  ", pc.utf8_upper(plain), "\t", ""), plain)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| ids | row_hashes | sketch | total | ids/s |")
    print("|---:|---:|---:|---:|---:|")
    last = None
    for rows in args.rows:
        values = ids(rows)
        hashing, sorting = [], []
        for _ in range(args.repeat):
            start = perf_counter()
            hashes = row_hashes(values, "ids")
            middle = perf_counter()
            last = sketch(hashes, "ids")
            sorting.append(perf_counter() - middle)
            hashing.append(middle - start)
        h, s = statistics.median(hashing), statistics.median(sorting)
        print(f"| {rows:,} | {h:.2f} s | {s:.2f} s | {h + s:.2f} s | {rows / (h + s) / 1e6:.1f} M |")
    assert last is not None
    n = last.n_rows
    edited = pa.concat_arrays([ids(n - n // 20), ids(n // 20, start=10 * n)])
    other = sketch(row_hashes(edited, "ids"), "ids")
    times = []
    for _ in range(100):
        start = perf_counter()
        overlap = compare(last, other)
        times.append(perf_counter() - start)
    print(
        f"\ncompare() of two {n:,}-row sketches: {statistics.median(times) * 1e6:.0f} µs "
        f"(resemblance {overlap.jaccard:.3f}, truth {(n - n // 20) / (n + n // 20):.3f})"
    )


if __name__ == "__main__":
    main()
