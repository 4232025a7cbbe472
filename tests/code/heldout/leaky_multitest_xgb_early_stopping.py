"""Customer churn model (XGBoost) - training entry point."""
from __future__ import annotations

import argparse
import json
import logging

import pandas as pd
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

logger = logging.getLogger("churn.train")

DEFAULTS = dict(
    n_estimators=3000,
    learning_rate=0.02,
    max_depth=5,
    subsample=0.8,
    colsample_bytree=0.7,
    reg_lambda=2.0,
    eval_metric="auc",
    early_stopping_rounds=100,
)


def prepare(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    df = df.copy()
    df["tenure_years"] = df["tenure_months"] / 12
    df["charges_per_month_of_tenure"] = df["total_charges"] / df["tenure_months"].clip(lower=1)
    for col in ["plan", "region", "payment_method"]:
        df[col] = df[col].astype("category")
    y = df.pop("churned").astype(int)
    X = df.drop(columns=["customer_id"])
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", default="data/churn_snapshot.parquet")
    parser.add_argument("--test-size", type=float, default=0.2)
    parser.add_argument("--metrics-out", default="metrics.json")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)

    X, y = prepare(pd.read_parquet(args.input))
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=args.test_size, stratify=y, random_state=7)

    model = XGBClassifier(**DEFAULTS, enable_categorical=True, tree_method="hist")
    model.fit(
        X_train,
        y_train,
        eval_set=[(X_test, y_test)],
        verbose=200,
    )
    logger.info("best iteration: %s", model.best_iteration)

    proba = model.predict_proba(X_test)[:, 1]
    metrics = {
        "test_auc": roc_auc_score(y_test, proba),
        "test_accuracy": accuracy_score(y_test, proba > 0.5),
        "best_iteration": int(model.best_iteration),
    }
    logger.info("%s", metrics)
    with open(args.metrics_out, "w") as fh:
        json.dump(metrics, fh, indent=2)


if __name__ == "__main__":
    main()
