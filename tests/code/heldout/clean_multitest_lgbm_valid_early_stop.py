"""Train the insurance claim-severity model.

Data is split three ways: fit / valid (early stopping) / test (reported once).
"""
import argparse
import logging

import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

log = logging.getLogger(__name__)

CFG = {
    "target": "loss",
    "id": "claim_id",
    "test_size": 0.2,
    "valid_size": 0.15,
    "seed": 13,
    "lgb": {
        "objective": "regression_l1",
        "n_estimators": 5000,
        "learning_rate": 0.03,
        "num_leaves": 96,
        "min_child_samples": 40,
        "feature_fraction": 0.6,
        "bagging_fraction": 0.8,
        "bagging_freq": 1,
    },
}


def load(path):
    df = pd.read_csv(path)
    cat_cols = [c for c in df.columns if c.startswith("cat")]
    df[cat_cols] = df[cat_cols].astype("category")
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-csv", default="data/claims.csv")
    ap.add_argument("--model-file", default="severity.txt")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)

    df = load(args.train_csv)
    X = df.drop(columns=[CFG["target"], CFG["id"]])
    y = np.log1p(df[CFG["target"]])

    X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=CFG["test_size"], random_state=CFG["seed"])
    X_fit, X_valid, y_fit, y_valid = train_test_split(
        X_rest, y_rest, test_size=CFG["valid_size"], random_state=CFG["seed"]
    )
    log.info("fit=%d valid=%d test=%d", len(X_fit), len(X_valid), len(X_test))

    model = lgb.LGBMRegressor(**CFG["lgb"], random_state=CFG["seed"], verbose=-1)
    model.fit(
        X_fit,
        y_fit,
        eval_set=[(X_valid, y_valid)],
        eval_metric="l1",
        callbacks=[lgb.early_stopping(200), lgb.log_evaluation(250)],
    )
    log.info("best iteration %d", model.best_iteration_)

    test_mae = mean_absolute_error(np.expm1(y_test), np.expm1(model.predict(X_test)))
    log.info("test MAE (original scale): %.2f", test_mae)
    model.booster_.save_model(args.model_file)


if __name__ == "__main__":
    main()
