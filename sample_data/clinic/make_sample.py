"""Writes this sample: a visit manifest and four preprocessing artifacts, one of them fitted before the split.

Run from this directory: python make_sample.py (deterministic; the committed files are its output).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
NUMERIC = ["age", "bmi", "glucose"]
WORDS = ["cough", "fever", "fatigue", "headache", "thirst", "blurred", "vision", "dizziness", "nausea", "rash"]


def manifest() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    patients = [f"p{i:03d}" for i in range(80)]
    split_of = {p: "train" if i < 56 else "val" if i < 68 else "test" for i, p in enumerate(patients)}
    rows = []
    for i in range(240):
        patient = patients[i % 80]
        split = split_of[patient]
        # The test patients come from a second site whose glucose runs higher.
        glucose = rng.normal(105 if split != "test" else 125, 18)
        words = rng.choice(WORDS, size=3, replace=False).tolist()
        if split == "test" and i % 4 == 0:
            words.append("polyuria")  # a symptom only the second site records
        rows.append(
            {
                "visit_id": f"v{i:04d}",
                "patient_id": patient,
                "split": split,
                "age": int(rng.integers(25, 80)),
                "bmi": round(float(rng.normal(27, 4)), 1) if i % 17 else None,
                "glucose": round(float(glucose), 1),
                "smoker": ["never", "former", "current"][int(rng.integers(0, 3))],
                "note": " ".join(words),
                "diagnosis": "diabetes" if glucose > 120 else "healthy",
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    df = manifest()
    df.to_csv(HERE / "manifest.csv", index=False)
    train = df[df["split"] == "train"]
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)
    # The leak: the scaler was fitted on every row before the manifest was split.
    x = df[NUMERIC].astype(float)
    scaler = {
        "feature_names_in_": NUMERIC,
        "mean_": x.mean().round(6).tolist(),
        "scale_": x.std(ddof=0).round(6).tolist(),
        "var_": x.var(ddof=0).round(6).tolist(),
        "n_samples_seen_": x.count().tolist(),
    }
    (artifacts / "scaler.json").write_text(json.dumps(scaler, indent=2) + "\n", encoding="utf-8")
    # Fitted after the split, on train rows only.
    medians = train[["bmi", "glucose"]].median()
    lines = ["column,statistic,strategy"] + [f"{c},{medians[c]},median" for c in medians.index]
    (artifacts / "imputer.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    categories = {"feature_names_in_": ["smoker"], "categories_": [sorted(train["smoker"].unique())]}
    (artifacts / "smoker_onehot.json").write_text(json.dumps(categories, indent=2) + "\n", encoding="utf-8")
    tokens = sorted({t for note in train["note"] for t in note.split()})
    (artifacts / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", *tokens]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
