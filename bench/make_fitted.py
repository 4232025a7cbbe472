"""Generate a manifest of 20 numeric features plus three preprocessing artifacts, for the fitted-statistics bench.

    python bench/make_fitted.py --rows 10000000 --out bench/data/fitted_10000000/manifest.parquet [--seed 0]

Columns:
  sample_id   "img_000000123", unique
  split       train / val / test, about 80 / 10 / 10 % of rows (drawn per row)
  f00 .. f19  float64, column j ~ Normal(loc_j, scale_j); holdout rows are shifted by +0.1 scale_j, so
              statistics over train rows and over sets that include holdout rows differ

Artifacts next to the manifest, computed with numpy in scikit-learn's field names:
  scaler.json    StandardScaler fitted on ALL rows (mean_, scale_ with ddof 0, n_samples_seen_): FIT001
  minmax.csv     MinMaxScaler fitted on train rows (feature, data_min_, data_max_): FIT000
  imputer.json   SimpleImputer(strategy="median") fitted on train rows (statistics_): FIT000

truth.json records the code each artifact must get; audit.yaml declares all three as fitted on train.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from make_manifest import digits, fixed_width_strings

SPLITS = ("train", "val", "test")
SHARES = (0.8, 0.1, 0.1)
N_FEATURES = 20
SHIFT = 0.1  # holdout shift, in units of the column's scale
FEATURES = [f"f{j:02d}" for j in range(N_FEATURES)]
EXPECTED = {"scaler": "FIT001", "minmax": "FIT000", "imputer": "FIT000"}


def generate(rows: int, out: Path, seed: int = 0, chunk_rows: int = 1_000_000) -> dict[str, object]:
    """Write the manifest, the three artifacts, audit.yaml and truth.json; return a summary."""
    rng = np.random.default_rng(seed)
    split = rng.choice(len(SPLITS), size=rows, p=SHARES).astype(np.int8)
    train = split == 0
    holdout = ~train
    loc = rng.uniform(-50, 150, N_FEATURES)
    scale = rng.uniform(0.5, 20, N_FEATURES)
    values = np.empty((N_FEATURES, rows))  # one contiguous row per column
    for j in range(N_FEATURES):
        values[j] = rng.normal(loc[j], scale[j], rows)
        values[j, holdout] += SHIFT * scale[j]

    out.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("sample_id", pa.string()), ("split", pa.string())] + [(f, pa.float64()) for f in FEATURES])
    labels = pa.array(SPLITS, pa.string())
    tmp = out.with_name(out.name + ".tmp")
    with pq.ParquetWriter(tmp, schema) as writer:
        for start in range(0, rows, chunk_rows):
            stop = min(start + chunk_rows, rows)
            ids = fixed_width_strings("img_", np.arange(start, stop), digits(rows, 9))
            codes = labels.take(pa.array(split[start:stop].astype(np.int32)))
            cols = [pa.array(values[j, start:stop]) for j in range(N_FEATURES)]
            writer.write_table(pa.Table.from_arrays([ids, codes, *cols], schema=schema))
    tmp.replace(out)

    folder = out.parent
    (folder / "scaler.json").write_text(
        json.dumps(
            {
                "feature_names_in_": FEATURES,
                "mean_": values.mean(axis=1).tolist(),
                "scale_": values.std(axis=1, ddof=0).tolist(),
                "n_samples_seen_": rows,
            }
        )
        + "\n"
    )
    lo = [float(values[j, train].min()) for j in range(N_FEATURES)]
    hi = [float(values[j, train].max()) for j in range(N_FEATURES)]
    lines = ["feature,data_min_,data_max_"] + [f"{f},{a!r},{b!r}" for f, a, b in zip(FEATURES, lo, hi, strict=True)]
    (folder / "minmax.csv").write_text("\n".join(lines) + "\n")
    medians = [float(np.median(values[j, train])) for j in range(N_FEATURES)]
    (folder / "imputer.json").write_text(
        json.dumps({"feature_names_in_": FEATURES, "statistics_": medians, "strategy": "median"}) + "\n"
    )
    _check_minmax_distinct(values, split, lo, hi)
    write_config(out)
    per_split = {k: int(c) for k, c in zip(SPLITS, np.bincount(split, minlength=len(SPLITS)), strict=True)}
    truth = {"rows": rows, "seed": seed, "features": N_FEATURES, "rows_per_split": per_split, "expected": EXPECTED}
    (folder / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return {"rows": rows, **per_split}


def _check_minmax_distinct(values: np.ndarray, split: np.ndarray, lo: list[float], hi: list[float]) -> None:
    """Fail if train's min/max equal those of some set with holdout rows: FIT000 would then be FIT004."""
    for extra in ([1], [2], [1, 2]):
        rows = np.isin(split, [0, *extra])
        same = all(values[j, rows].min() == lo[j] and values[j, rows].max() == hi[j] for j in range(len(values)))
        if same:
            names = "+".join(SPLITS[k] for k in [0, *extra])
            raise SystemExit(f"train and {names} have the same min and max in every column; try another --seed")


def write_config(manifest: Path) -> Path:
    """The matching audit.yaml, next to the manifest: every artifact claims to be fitted on train."""
    columns = "[" + ", ".join(FEATURES) + "]"
    fitted = "".join(
        f"  - {{name: {name}, kind: {kind}, artifact: {artifact}, columns: {columns}}}\n"
        for name, kind, artifact in (
            ("scaler", "standardize", "scaler.json"),
            ("minmax", "minmax", "minmax.csv"),
            ("imputer", "impute", "imputer.json"),
        )
    )
    config = manifest.parent / "audit.yaml"
    config.write_text(
        "version: 1\n"
        f"manifest: {{path: {manifest.name}, id: sample_id, split: split}}\n"
        "splits: {train: [train], holdout: [val, test]}\n"
        "fitted:\n" + fitted + "report: {formats: [json]}\n"
    )
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True, help="output .parquet path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk-rows", type=int, default=1_000_000, help="rows per row group")
    args = parser.parse_args()
    t0 = time.perf_counter()
    stats = generate(args.rows, args.out, args.seed, args.chunk_rows)
    size_mb = args.out.stat().st_size / 1e6
    print(
        f"wrote {args.out} ({size_mb:.1f} MB) in {time.perf_counter() - t0:.1f}s: "
        + ", ".join(f"{k}={v}" for k, v in stats.items())
    )


if __name__ == "__main__":
    main()
