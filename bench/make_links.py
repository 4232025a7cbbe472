"""Extend a bench manifest with a content digest and a capture time, for the linked-samples benchmark.

    python bench/make_links.py --rows 10000000 --out bench/data/links_10000000/manifest.parquet [--seed 0]

Starts from make_manifest.py's manifest (sample_id, split, writer, source_document, with its planted
writer/document and id leaks) and adds:

  content_sha256  64 hex characters, distinct per row, except that 0.01% of holdout rows are byte copies
                  of a random training row (DUP001 must count exactly these digests)
  captured_at     a timestamp: training rows in 2023, holdout rows in 2024, except 0.1% of holdout rows
                  captured in early 2023 (TMP001 must count exactly these rows)

truth.json next to the manifest records the planted counts.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from make_manifest import generate

COPY_SHARE = 0.0001
EARLY_SHARE = 0.001
HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
T2023 = np.datetime64("2023-01-01T00:00:00", "s").astype(np.int64)
T2024 = np.datetime64("2024-01-01T00:00:00", "s").astype(np.int64)
YEAR = 365 * 24 * 3600


def hex_digests(raw: np.ndarray) -> pa.StringArray:
    """(n, 32) random bytes -> n strings of 64 hex characters, built as one Arrow buffer."""
    n = len(raw)
    out = np.empty((n, 64), dtype=np.uint8)
    out[:, 0::2] = HEX[raw >> 4]
    out[:, 1::2] = HEX[raw & 15]
    offsets = np.arange(0, (n + 1) * 64, 64, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(out.tobytes()))


def extend(base: Path, out: Path, seed: int) -> dict[str, int]:
    rng = np.random.default_rng(seed + 1)
    source = pq.ParquetFile(base)
    n = source.metadata.num_rows
    split = pq.read_table(base, columns=["split"])["split"].to_numpy(zero_copy_only=False)
    holdout = np.flatnonzero(split != "train")
    train = np.flatnonzero(split == "train")
    copies = rng.choice(holdout, size=max(1, int(len(holdout) * COPY_SHARE)), replace=False)
    originals = rng.choice(train, size=len(copies), replace=False)
    early = rng.choice(np.setdiff1d(holdout, copies), size=max(1, int(len(holdout) * EARLY_SHARE)), replace=False)
    raw_all = rng.integers(0, 256, size=(n, 32), dtype=np.uint8)
    raw_all[copies] = raw_all[originals]
    seconds = np.where(split == "train", T2023 + rng.integers(0, YEAR, n), T2024 + rng.integers(0, YEAR, n))
    seconds[early] = T2023 + rng.integers(0, YEAR // 2, len(early))
    schema = source.schema_arrow.append(pa.field("content_sha256", pa.string())).append(
        pa.field("captured_at", pa.timestamp("s"))
    )
    tmp = out.with_name(out.name + ".tmp")
    out.parent.mkdir(parents=True, exist_ok=True)
    start = 0
    with pq.ParquetWriter(tmp, schema) as writer:
        for batch in source.iter_batches(batch_size=1_000_000):
            stop = start + batch.num_rows
            table = pa.Table.from_batches([batch])
            table = table.append_column("content_sha256", hex_digests(raw_all[start:stop]))
            table = table.append_column("captured_at", pa.array(seconds[start:stop], pa.timestamp("s")))
            writer.write_table(table)
            start = stop
    tmp.replace(out)
    base_truth = json.loads((base.parent / "truth.json").read_text())
    truth = {**base_truth, "expected_links": {"DUP001:digests": len(copies), "TMP001:rows": len(early)}}
    (out.parent / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    (out.parent / "audit.yaml").write_text(
        "version: 1\n"
        f"manifest: {{path: {out.name}, id: sample_id, split: split}}\n"
        "splits: {train: [train], holdout: [val, test]}\n"
        "keys:\n"
        "  groups: [writer]\n"
        "  sources: [source_document]\n"
        "  content_hash: content_sha256\n"
        "  time: captured_at\n"
        "report: {formats: [json]}\n"
    )
    return {"rows": n, "copies": len(copies), "early": len(early)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    base = args.out.parent / "base" / "manifest.parquet"
    generate(args.rows, base, seed=args.seed)
    print(extend(base, args.out, args.seed))
    base.unlink()


if __name__ == "__main__":
    main()
