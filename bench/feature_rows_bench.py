"""Benchmark: near-duplicate rows of a feature table, planted near copies against distinct rows.

    python bench/feature_rows_bench.py [--train 1000000] [--holdout 100000] [--features 50] [--copies 1000]
                                       [--noise 0.01] [--json PATH]

The table: ``--train`` training rows and ``--holdout`` holdout rows of ``--features`` features, every row an
independent draw (correlated Gaussian features through a random mixing matrix, a third of them made
skewed by exp, a fifth rounded to two decimals), so no two rows are copies. Then ``--copies`` holdout rows
are replaced by copies of random training rows with Gaussian noise at ``--noise`` (1%) of each feature's
standard deviation. The auditor's own path runs on it (``auditor.similarity.nearcopies.compare_rows``, what
near_duplicates calls for ``keys.features``), in this process: wall and CPU time (all threads; on a shared
machine the CPU time is the steadier number), peak RSS is ``ru_maxrss``. Recall is
the share of planted pairs found; a false pair is any other pair flagged (across or within splits): the
rows are distinct draws, so there is none to find. Exits 1 when the recall is below 0.99 or a pair is false.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditor.similarity.featurerows import RowSettings
from auditor.similarity.nearcopies import compare_rows


def make(
    train: int, holdout: int, features: int, copies: int, noise: float, seed: int = 0
) -> tuple[pa.Table, np.ndarray, np.ndarray]:
    """The table, each row's split code (0 train, 1 holdout), and the planted (train row, holdout row) pairs."""
    rng = np.random.default_rng(seed)
    n = train + holdout
    mixing = rng.standard_normal((features, features)).astype(np.float32) / np.sqrt(features)
    x = rng.standard_normal((n, features), dtype=np.float32) @ mixing
    skewed = np.arange(features) % 3 == 0
    x[:, skewed] = np.exp(x[:, skewed] / x[:, skewed].std(axis=0))
    rounded = np.arange(features) % 5 == 1
    x[:, rounded] = np.round(x[:, rounded] * 100) / 100
    originals = rng.choice(train, size=copies, replace=False)
    targets = train + rng.choice(holdout, size=copies, replace=False)
    spread = x.std(axis=0)
    x[targets] = x[originals] + rng.standard_normal((copies, features), dtype=np.float32) * noise * spread
    split = np.zeros(n, dtype=np.int64)
    split[train:] = 1
    table = pa.table({f"f{j:02d}": x[:, j] for j in range(features)})
    return table, split, np.stack([originals, targets], axis=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=int, default=1_000_000)
    parser.add_argument("--holdout", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--noise", type=float, default=0.01)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    table, split, planted = make(args.train, args.holdout, args.features, args.copies, args.noise)
    made = time.perf_counter() - started
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    source = compare_rows(table, table.column_names, split, 2, RowSettings())
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    search = source.search
    assert search is not None
    found = {(int(a), int(b)) for a, b in zip(search.a, search.b, strict=True)}
    truth = {(int(min(a, b)), int(max(a, b))) for a, b in planted}
    hits = len(found & truth)
    result = {
        "train": args.train,
        "holdout": args.holdout,
        "features": args.features,
        "copies": args.copies,
        "noise": args.noise,
        "generate_s": round(made, 1),
        "seconds": round(elapsed, 1),
        "cpu_seconds": round(cpu, 1),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 2),
        "recall": hits / len(truth),
        "false_pairs": len(found - truth),
        "method": search.method,
        "index_recall": search.recall,
        "probes": search.probes,
        "ratio": round(search.ratio, 4),
        "dimension": round(search.dimension, 2),
        "load_average": [round(load, 1), round(os.getloadavg()[0], 1)],
    }
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["recall"] >= 0.99 and result["false_pairs"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
