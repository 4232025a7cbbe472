"""Benchmark: short texts compared by their normalised words (near_duplicates), cost and false alarms.

    python bench/short_texts_bench.py [--texts 100000 1000000] [--vocabulary 5000]

Texts of 1-4 words drawn from a vocabulary of --vocabulary words (distinct texts, each in train or test at
random), with 1% of them copied into the other split re-punctuated or with one word added. Per size: the
seconds and peak memory of the comparison, the planted copies found, and the flagged pairs that were not
planted (random texts that happen to be one word apart: a small vocabulary makes them common).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.similarity.shorttexts import short_pairs


def run(n: int, vocabulary: int, seed: int = 0) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocabulary)])
    drawn = [" ".join(words[rng.integers(0, vocabulary, k)]) for k in rng.integers(1, 5, n)]
    texts = list(dict.fromkeys(drawn))
    splits = rng.integers(0, 2, len(texts)).tolist()
    sources = [i for i, t in enumerate(texts) if 2 <= len(t.split()) <= 3][: len(texts) // 100]
    planted = set()
    for j, i in enumerate(sources):
        edited = texts[i].upper() + "!" if j % 2 else texts[i] + " extra"
        planted.add((i, len(texts)))
        texts.append(edited)
        splits.append(1 - splits[i])
    per_split = np.zeros((len(texts), 2), np.int64)
    per_split[np.arange(len(texts)), splits] = 1
    count = pc.count_substring_regex(pa.array(texts), r"\w+").to_numpy(zero_copy_only=False)
    start = time.perf_counter()
    a, b, _, _, flagged, _ = short_pairs(per_split, texts, count, 4)
    seconds = time.perf_counter() - start
    found = {(int(x), int(y)) for x, y, f in zip(a, b, flagged, strict=True) if f}
    return {
        "texts": len(texts),
        "seconds": round(seconds, 2),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "planted": len(planted),
        "found": len(planted & found),
        "unplanted_flagged": len(found - planted),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--vocabulary", type=int, default=5000)
    args = parser.parse_args()
    print("| texts | seconds | peak RSS (MB) | planted | found | flagged, not planted |")
    print("|---|---|---|---|---|---|")
    for n in args.texts:
        r = run(n, args.vocabulary)
        print(
            f"| {r['texts']:,} | {r['seconds']} | {r['peak_rss_mb']} | {r['planted']} | {r['found']} | "
            f"{r['unplanted_flagged']} |"
        )


if __name__ == "__main__":
    main()
