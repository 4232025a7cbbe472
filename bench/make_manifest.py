"""Generate a synthetic, realistic split manifest (parquet) plus a matching audit.yaml.

    python bench/make_manifest.py --rows 10000000 --out bench/data/rows_10000000/manifest.parquet [--seed 0]

Columns:
  sample_id        "img_000000123"; unique except for a few hundred ids duplicated across splits
  split            train / val / test, about 80 / 10 / 10 % of rows
  writer           "writer-00042"; about rows/100 distinct values (group key)
  source_document  "doc-0000042";  about rows/20 distinct values, each document belongs to one writer

The split is group-wise: every writer (and so each of its documents) has one home split. About 1% of
writers leak: ~10% of their rows are put into a second split, always so that the leak crosses train and
holdout (GRP001 on both `writer` and `source_document`). A few hundred extra rows repeat the sample_id of
an earlier row under a different split (SPL001); they are given a writer whose home is that split, so
they add no group leak of their own.

The planted counts (ids in two splits; writers and documents in train and holdout, as they came out of
the random draw) are written to truth.json next to the manifest, for run_bench.py to check the audit.

Rows are generated vectorized in row-group chunks (default 1M rows), so memory stays flat in the size of
the manifest; the file is written with pyarrow.parquet.ParquetWriter and its default (snappy) compression.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SPLITS = ("train", "val", "test")
SHARES = (0.8, 0.1, 0.1)
ROWS_PER_WRITER = 100
DOCS_PER_WRITER = 5  # -> about rows/20 documents
LEAK_WRITER_SHARE = 0.01
LEAK_ROW_SHARE = 0.10
TRUTH_NAME = "truth.json"  # planted leak counts, next to the manifest
SCHEMA = pa.schema(
    [
        ("sample_id", pa.string()),
        ("split", pa.string()),
        ("writer", pa.string()),
        ("source_document", pa.string()),
    ]
)


def fixed_width_strings(prefix: str, numbers: np.ndarray, width: int) -> pa.StringArray:
    """prefix + zero-padded numbers, built as one Arrow buffer (no Python objects per row)."""
    numbers = np.asarray(numbers, dtype=np.int64)
    n = len(numbers)
    head = np.frombuffer(prefix.encode(), dtype=np.uint8)
    length = len(head) + width
    out = np.empty((n, length), dtype=np.uint8)
    out[:, : len(head)] = head
    rest = numbers.copy()
    for pos in range(length - 1, len(head) - 1, -1):
        out[:, pos] = 48 + rest % 10
        rest //= 10
    if n and rest.max() > 0:
        raise ValueError(f"numbers do not fit in {width} digits")
    offsets = np.arange(0, (n + 1) * length, length, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(out.tobytes()))


def digits(n: int, minimum: int) -> int:
    return max(minimum, len(str(max(n - 1, 0))))


def default_duplicates(rows: int) -> int:
    """A few hundred ids duplicated across splits (fewer for tiny manifests)."""
    return min(300, rows // 1000) if rows >= 2000 else min(3, rows // 10)


def generate(
    rows: int, out: Path, seed: int = 0, chunk_rows: int = 1_000_000, duplicates: int | None = None
) -> dict[str, int]:
    if rows < 10:
        raise ValueError("need at least 10 rows")
    rng = np.random.default_rng(seed)
    n_dup = default_duplicates(rows) if duplicates is None else duplicates
    n_regular = rows - n_dup
    n_writers = max(3, rows // ROWS_PER_WRITER)
    n_docs = n_writers * DOCS_PER_WRITER

    # Group-wise split: each writer has one home split, 80/10/10 of writers (so ~80/10/10 of rows).
    cut = np.round(np.cumsum(SHARES) * n_writers).astype(np.int64)
    home = np.zeros(n_writers, dtype=np.int8)
    perm = rng.permutation(n_writers)
    home[perm[cut[0] : cut[1]]] = 1
    home[perm[cut[1] :]] = 2

    # ~1% of writers leak into a second split, always across train/holdout.
    n_leak = max(1, round(n_writers * LEAK_WRITER_SHARE))
    leakers = rng.choice(n_writers, size=n_leak, replace=False)
    second = np.full(n_writers, -1, dtype=np.int8)
    second[leakers] = np.where(home[leakers] == 0, rng.integers(1, 3, size=n_leak), 0)

    writer_labels = fixed_width_strings("writer-", np.arange(n_writers), digits(n_writers, 5))
    doc_labels = fixed_width_strings("doc-", np.arange(n_docs), digits(n_docs, 7))
    split_labels = pa.array(SPLITS, pa.string())
    id_width = digits(rows, 9)

    # Rows whose id gets duplicated in the tail; remember their split as they are generated.
    dup_sources = np.sort(rng.choice(n_regular, size=n_dup, replace=False)) if n_dup else np.empty(0, np.int64)
    dup_source_split = np.empty(n_dup, dtype=np.int8)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    per_split = np.zeros(3, dtype=np.int64)
    writer_splits = np.zeros(n_writers * 3, dtype=np.int64)  # rows per (writer, split): the ground truth
    doc_splits = np.zeros(n_docs * 3, dtype=np.int64)
    with pq.ParquetWriter(tmp, SCHEMA) as writer:
        for start in range(0, n_regular, chunk_rows):
            stop = min(start + chunk_rows, n_regular)
            n = stop - start
            w = rng.integers(0, n_writers, size=n)
            doc = w * DOCS_PER_WRITER + rng.integers(0, DOCS_PER_WRITER, size=n)
            s = home[w].copy()
            leak = (second[w] >= 0) & (rng.random(n) < LEAK_ROW_SHARE)
            s[leak] = second[w[leak]]
            sel = (dup_sources >= start) & (dup_sources < stop)
            dup_source_split[sel] = s[dup_sources[sel] - start]
            per_split += np.bincount(s, minlength=3)
            writer_splits += np.bincount(w * 3 + s, minlength=n_writers * 3)
            doc_splits += np.bincount(doc * 3 + s, minlength=n_docs * 3)
            writer.write_table(
                _table(np.arange(start, stop), s, w, doc, id_width, split_labels, writer_labels, doc_labels)
            )
        if n_dup:
            # The duplicate goes to another split, under a writer whose home is that split.
            target = np.where(dup_source_split == 0, rng.integers(1, 3, size=n_dup), 0).astype(np.int8)
            w = np.empty(n_dup, dtype=np.int64)
            for k in range(3):
                pool = np.flatnonzero((home == k) & (second < 0))
                idx = target == k
                w[idx] = rng.choice(pool, size=int(idx.sum()))
            doc = w * DOCS_PER_WRITER + rng.integers(0, DOCS_PER_WRITER, size=n_dup)
            per_split += np.bincount(target, minlength=3)
            writer_splits += np.bincount(w * 3 + target, minlength=n_writers * 3)
            doc_splits += np.bincount(doc * 3 + target, minlength=n_docs * 3)
            writer.write_table(_table(dup_sources, target, w, doc, id_width, split_labels, writer_labels, doc_labels))
    tmp.replace(out)
    write_config(out)

    def shared(counts: np.ndarray) -> int:
        return int(((counts.reshape(-1, 3) > 0).sum(axis=1) > 1).sum())

    # Every planted leak crosses train and holdout, so these are exactly what GRP001 / SPL001 must report.
    expected = {
        "SPL001:id": n_dup,
        "GRP001:writer": shared(writer_splits),
        "GRP001:source_document": shared(doc_splits),
    }
    truth = {
        "rows": rows,
        "seed": seed,
        "rows_per_split": {k: int(c) for k, c in zip(SPLITS, per_split, strict=True)},
        "writers": n_writers,
        "documents": n_docs,
        "expected": expected,
    }
    (out.parent / TRUTH_NAME).write_text(json.dumps(truth, indent=2) + "\n")
    return {
        "rows": rows,
        "writers": n_writers,
        "documents": n_docs,
        "leaking_writers_drawn": n_leak,
        **{f"rows_{k}": int(c) for k, c in zip(SPLITS, per_split, strict=True)},
        **{k.replace(":", "_"): v for k, v in expected.items()},
    }


def _table(
    ids: np.ndarray,
    split: np.ndarray,
    w: np.ndarray,
    doc: np.ndarray,
    id_width: int,
    split_labels: pa.Array,
    writer_labels: pa.Array,
    doc_labels: pa.Array,
) -> pa.Table:
    return pa.Table.from_arrays(
        [
            fixed_width_strings("img_", ids, id_width),
            split_labels.take(pa.array(split.astype(np.int32))),
            writer_labels.take(pa.array(w)),
            doc_labels.take(pa.array(doc)),
        ],
        schema=SCHEMA,
    )


def write_config(manifest: Path) -> Path:
    """The matching audit.yaml, next to the manifest (so use one directory per manifest)."""
    config = manifest.parent / "audit.yaml"
    config.write_text(
        "version: 1\n"
        f"manifest: {{path: {manifest.name}, id: sample_id, split: split}}\n"
        "splits: {train: [train], holdout: [val, test]}\n"
        "keys: {groups: [writer, source_document]}\n"
        "report: {formats: [json]}\n"
    )
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True, help="output .parquet path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk-rows", type=int, default=1_000_000, help="rows per row group")
    parser.add_argument(
        "--duplicates",
        type=int,
        default=None,
        help="ids duplicated across splits (default: min(300, rows/1000))",
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    stats = generate(args.rows, args.out, args.seed, args.chunk_rows, args.duplicates)
    size_mb = args.out.stat().st_size / 1e6
    print(
        f"wrote {args.out} ({size_mb:.1f} MB) in {time.perf_counter() - t0:.1f}s: "
        + ", ".join(f"{k}={v}" for k, v in stats.items())
    )
    print(f"config: {args.out.parent / 'audit.yaml'}")


if __name__ == "__main__":
    main()
