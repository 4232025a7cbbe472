"""Hospital readmission model - training script.

Usage: python train_readmission.py --data data/encounters.parquet --config configs/readmission.json
"""
import argparse
import json
import logging
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import classification_report, roc_auc_score
from sklearn.model_selection import train_test_split

LOGGER = logging.getLogger("readmission")

DEFAULT_CONFIG = {
    "target": "readmitted",
    "id_columns": ["encounter_id", "patient_nbr"],
    "test_size": 0.2,
    "random_state": 0,
    "rf": {"n_estimators": 400, "min_samples_leaf": 10, "class_weight": "balanced_subsample", "n_jobs": -1},
}


def load_config(path: Path | None) -> dict:
    cfg = dict(DEFAULT_CONFIG)
    if path is not None:
        cfg.update(json.loads(path.read_text()))
    return cfg


def describe_target(df: pd.DataFrame, target: str) -> None:
    LOGGER.info("target distribution:\n%s", df[target].value_counts(normalize=True))
    LOGGER.info("mean length of stay by %s:\n%s", target, df.groupby(target)["time_in_hospital"].mean())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--config", type=Path)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)

    cfg = load_config(args.config)
    target = cfg["target"]

    df = pd.read_parquet(args.data)
    df[target] = (df[target] == "<30").astype(int)
    describe_target(df, target)

    X = df.drop(columns=[target, *cfg["id_columns"]])
    X = X.select_dtypes(include="number")
    y = df[target]

    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=cfg["test_size"], stratify=y, random_state=cfg["random_state"]
    )
    model = RandomForestClassifier(**cfg["rf"], random_state=cfg["random_state"])
    model.fit(X_train, y_train)

    proba = model.predict_proba(X_test)[:, 1]
    LOGGER.info("test ROC AUC: %.4f", roc_auc_score(y_test, proba))
    LOGGER.info("\n%s", classification_report(y_test, proba > 0.5))


if __name__ == "__main__":
    main()
