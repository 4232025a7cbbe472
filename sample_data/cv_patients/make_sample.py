"""Writes this sample: visits of patients with two 5-fold cross-validations and a scaler fitted on every row.

`kfold` is scikit-learn's KFold(shuffle=True) on the rows, so a patient's visits land in several folds;
`group_fold` is GroupKFold on the patients, so each patient is in one fold. The scaler was fitted on all
rows before either cross-validation, as `StandardScaler().fit(X)` before `cross_val_score` does.

Run from this directory: python make_sample.py (deterministic; the committed files are its output).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupKFold, KFold

HERE = Path(__file__).resolve().parent
NUMERIC = ["age", "bmi", "glucose"]


def manifest() -> pd.DataFrame:
    rng = np.random.default_rng(23)
    rows = []
    for p in range(60):
        age = int(rng.integers(25, 80))
        risk = rng.normal(0, 1)
        for v in range(int(rng.integers(1, 6))):
            glucose = 100 + 12 * risk + rng.normal(0, 8)
            rows.append(
                {
                    "visit_id": f"v{len(rows):04d}",
                    "patient_id": f"p{p:03d}",
                    "age": age + v,
                    "bmi": round(float(rng.normal(26 + 2 * risk, 2)), 1),
                    "glucose": round(float(glucose), 1),
                    "diagnosis": "diabetes" if glucose > 112 else "healthy",
                }
            )
    df = pd.DataFrame(rows)
    df["kfold"] = -1
    for k, (_, holdout) in enumerate(KFold(5, shuffle=True, random_state=0).split(df)):
        df.loc[holdout, "kfold"] = k
    df["group_fold"] = -1
    for k, (_, holdout) in enumerate(GroupKFold(5).split(df, groups=df["patient_id"])):
        df.loc[holdout, "group_fold"] = k
    return df


def main() -> None:
    df = manifest()
    df.to_csv(HERE / "manifest.csv", index=False)
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)
    x = df[NUMERIC].astype(float)  # every row: fitted before the folds were made
    scaler = {
        "feature_names_in_": NUMERIC,
        "mean_": x.mean().round(6).tolist(),
        "scale_": x.std(ddof=0).round(6).tolist(),
        "var_": x.var(ddof=0).round(6).tolist(),
        "n_samples_seen_": len(df),
    }
    (artifacts / "scaler.json").write_text(json.dumps(scaler, indent=2) + "\n")


if __name__ == "__main__":
    main()
