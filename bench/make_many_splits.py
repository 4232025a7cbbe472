"""Generate a small manifest with very many splits, every pair of which shares groups, content and ids.

    python bench/make_many_splits.py --splits 1000 --out bench/data/many_splits [--rows-per-split 5]

Each split has ``rows-per-split`` rows, plus 50 more in the train split ``s0000``. The same writers,
source documents and content digests (one per row position) occur in every split, and one sample id
repeats in every split, so every data stage has something to say about all ``splits * (splits - 1) / 2``
pairs. Labels include one label per holdout split that train never has, and holdout rows are older than
train rows. The audit.yaml next to the manifest runs every data stage; its report's size shows whether
per-pair evidence stays bounded.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml


def make(splits: int, rows_per_split: int, out: Path) -> Path:
    """Write manifest.csv and audit.yaml into ``out``; return the config's path."""
    rows = []
    for s in range(splits):
        extra = 50 if s == 0 else 0
        for r in range(rows_per_split + extra):
            n = len(rows)
            rows.append(
                {
                    "sample_id": "shared" if r == 0 else f"id{n:06d}",
                    "split": f"s{s:04d}",
                    "writer": f"w{r}",
                    "source_document": f"d{r}",
                    "content": f"{r:064x}",
                    "label": f"only-{s}" if s and r == 1 else f"l{n % 3}",
                    "captured_at": f"20{10 if s else 20}-01-{1 + r % 28:02d}",
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "manifest.csv", index=False)
    config = {
        "version": 1,
        "manifest": {"path": "manifest.csv", "id": "sample_id", "split": "split"},
        "splits": {"train": ["s0000"]},
        "keys": {
            "groups": ["writer"],
            "sources": ["source_document"],
            "content_hash": "content",
            "label": "label",
            "time": "captured_at",
        },
        "report": {"out_dir": "audit-report", "formats": ["json", "markdown", "html"]},
    }
    path = out / "audit.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--splits", type=int, default=1000)
    parser.add_argument("--rows-per-split", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/data/many_splits"))
    args = parser.parse_args()
    print(make(args.splits, args.rows_per_split, args.out))


if __name__ == "__main__":
    main()
