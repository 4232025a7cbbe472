"""Generate a manifest split at random (the worst case for the linking stages) plus its configs.

    python bench/make_random.py --rows 10000000 --out bench/data/random_10000000/manifest.parquet [--sources N]
                                [--writers N]

Every row draws its split on its own (train / val / test, 80 / 10 / 10 %), so nearly every key value is
in every split. Columns:

  sample_id  "s_000000123"; unique
  split      train / val / test, drawn per row
  writer     "w-00042"; drawn from rows/50 values (200k at 10M rows), or from --writers values
  source     "src-0000042"; drawn from rows/5 values (2M at 10M rows), or from --sources values
  sha        64 hex characters, distinct per row, except that 1% of rows share one digest
  ts         a timestamp drawn uniformly over 2023-2024, independent of the split

Rows are generated vectorized in 1M-row row groups, each string column built as one Arrow buffer.
Next to the manifest go `groups.yaml` (groups: writer, source), `links.yaml` (groups: writer, sources:
source, content_hash: sha, time: ts) and `truth.json` with the counts an audit must reproduce.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from make_links import hex_digests
from make_manifest import digits, fixed_width_strings

SPLITS = ("train", "val", "test")
SHARES = (0.8, 0.1, 0.1)
ROWS_PER_WRITER = 50
ROWS_PER_SOURCE = 5
SHARED_DIGEST_SHARE = 0.01
T0 = int(np.datetime64("2023-01-01T00:00:00", "s").astype(np.int64))
SPAN = 2 * 365 * 24 * 3600
SCHEMA = pa.schema(
    [
        ("sample_id", pa.string()),
        ("split", pa.string()),
        ("writer", pa.string()),
        ("source", pa.string()),
        ("sha", pa.string()),
        ("ts", pa.timestamp("s")),
    ]
)
HEAD = "version: 1\nmanifest: {path: %s, id: sample_id, split: split}\nsplits: {train: [train], holdout: [val, test]}\n"
GROUPS_KEYS = "keys: {groups: [writer, source]}\n"
LINKS_KEYS = "keys: {groups: [writer], sources: [source], content_hash: sha, time: ts}\n"
REPORT = "report: {formats: [json]}\n"


def _seen(n_values: int) -> np.ndarray:
    """(n_values, 3) booleans: is value v in split s. Booleans, so 50M sources take 150 MB."""
    return np.zeros((n_values, 3), dtype=bool)


def _crossing(seen: np.ndarray) -> int:
    """Values in train and in at least one holdout split (what GRP001 counts)."""
    return int((seen[:, 0] & (seen[:, 1] | seen[:, 2])).sum())


def _linked_components(
    w: np.ndarray, src: np.ndarray, split: np.ndarray, shared: np.ndarray, n_writers: int, n_sources: int
) -> dict[str, int]:
    """Components of rows linked by a common writer, source or digest, computed independently of the auditor.

    Every row has a writer, so a row's component is its writer's in the writer-source-digest graph (the one
    shared digest is node ``n_writers + n_sources``); a component crosses when it has train and holdout rows.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_nodes = n_writers + n_sources + 1
    a = np.concatenate([w, w[shared]])
    b = np.concatenate([n_writers + src, np.full(len(shared), n_nodes - 1)])
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(n_nodes, n_nodes)).tocsr()
    _, label = connected_components(graph, directed=False)
    comp = label[w]
    n_comp = int(label.max()) + 1
    sizes = np.bincount(comp, minlength=n_comp)
    in_train = np.bincount(comp[split == 0], minlength=n_comp) > 0
    in_holdout = np.bincount(comp[split != 0], minlength=n_comp) > 0
    crossing = in_train & in_holdout
    return {
        "components": int((sizes > 0).sum()),
        "largest_component_rows": int(sizes.max()),
        "crossing_components": int(crossing.sum()),
        "crossing_component_rows": int(sizes[crossing].sum()),
    }


def generate(
    rows: int,
    out: Path,
    seed: int = 0,
    sources: int | None = None,
    chunk_rows: int = 1_000_000,
    writers: int | None = None,
) -> dict[str, object]:
    """Write the manifest, both configs and truth.json; return the truth."""
    if rows < 100:
        raise ValueError("need at least 100 rows")
    rng = np.random.default_rng(seed)
    n_writers = max(1, rows // ROWS_PER_WRITER) if writers is None else writers
    n_sources = max(1, rows // ROWS_PER_SOURCE) if sources is None else sources
    n_shared = max(2, int(rows * SHARED_DIGEST_SHARE))
    shared_rows = np.sort(rng.choice(rows, size=n_shared, replace=False))
    shared_raw = rng.integers(0, 256, size=32, dtype=np.uint8)
    split_labels = pa.array(SPLITS, pa.string())
    id_width, w_width, s_width = digits(rows, 9), digits(n_writers, 5), digits(n_sources, 7)

    writer_seen, source_seen = _seen(n_writers), _seen(n_sources)
    per_split = np.zeros(3, dtype=np.int64)
    shared_per_split = np.zeros(3, dtype=np.int64)
    train_ts_max, holdout_ts = -1, []
    row_writer = np.empty(rows, dtype=np.int64)
    row_source = np.empty(rows, dtype=np.int64)
    row_split = np.empty(rows, dtype=np.int8)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with pq.ParquetWriter(tmp, SCHEMA) as writer:
        for start in range(0, rows, chunk_rows):
            stop = min(start + chunk_rows, rows)
            n = stop - start
            s = rng.choice(3, size=n, p=SHARES).astype(np.int8)
            w = rng.integers(0, n_writers, size=n)
            src = rng.integers(0, n_sources, size=n)
            raw = rng.integers(0, 256, size=(n, 32), dtype=np.uint8)
            here = shared_rows[(shared_rows >= start) & (shared_rows < stop)] - start
            raw[here] = shared_raw
            ts = T0 + rng.integers(0, SPAN, size=n)
            per_split += np.bincount(s, minlength=3)
            shared_per_split += np.bincount(s[here], minlength=3)
            writer_seen[w, s] = True
            row_writer[start:stop], row_source[start:stop], row_split[start:stop] = w, src, s
            source_seen[src, s] = True
            train_ts_max = max(train_ts_max, int(ts[s == 0].max(initial=-1)))
            holdout_ts.append(ts[s != 0])
            table = pa.Table.from_arrays(
                [
                    fixed_width_strings("s_", np.arange(start, stop), id_width),
                    split_labels.take(pa.array(s.astype(np.int32))),
                    fixed_width_strings("w-", w, w_width),
                    fixed_width_strings("src-", src, s_width),
                    hex_digests(raw),
                    pa.array(ts, pa.timestamp("s")),
                ],
                schema=SCHEMA,
            )
            writer.write_table(table)
    tmp.replace(out)
    for name, keys in (("groups.yaml", GROUPS_KEYS), ("links.yaml", LINKS_KEYS)):
        (out.parent / name).write_text(HEAD % out.name + keys + REPORT)

    all_holdout_ts = np.concatenate(holdout_ts)
    components = _linked_components(row_writer, row_source, row_split, shared_rows, n_writers, n_sources)
    del row_writer, row_source, row_split
    truth: dict[str, object] = {
        "rows": rows,
        "seed": seed,
        "rows_per_split": {k: int(c) for k, c in zip(SPLITS, per_split, strict=True)},
        "writers_drawn_from": n_writers,
        "sources_drawn_from": n_sources,
        "writers": int(writer_seen.any(axis=1).sum()),
        "sources": int(source_seen.any(axis=1).sum()),
        # Values in train and holdout: GRP001's count for each group key.
        "writers_crossing": _crossing(writer_seen),
        "sources_crossing": _crossing(source_seen),
        "shared_digest": hex_digests(shared_raw[None, :])[0].as_py(),
        "shared_digest_rows": n_shared,
        "shared_digest_rows_per_split": {k: int(c) for k, c in zip(SPLITS, shared_per_split, strict=True)},
        # Holdout rows captured before the last training row (TMP001).
        "holdout_rows_before_train_max": int((all_holdout_ts < train_ts_max).sum()),
        # Rows linked through writer, source or the shared digest (links.yaml: UPS001 / UPS003).
        **components,
    }
    (out.parent / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True, help="output .parquet path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sources", type=int, default=None, help="distinct sources to draw from (default rows/5)")
    parser.add_argument("--writers", type=int, default=None, help="distinct writers to draw from (default rows/50)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    truth = generate(args.rows, args.out, args.seed, args.sources, writers=args.writers)
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f}s: "
        + ", ".join(f"{k}={v}" for k, v in truth.items() if not isinstance(v, dict))
    )


if __name__ == "__main__":
    main()
