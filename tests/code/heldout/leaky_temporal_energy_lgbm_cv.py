"""Hourly electricity load forecaster (next hour) - cross-validated training run."""
import argparse
import json
import logging

import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold

LOG = logging.getLogger("load_forecast")

CFG = {
    "lags": [1, 2, 3, 24, 48, 168],
    "windows": [6, 24, 168],
    "n_folds": 5,
    "seed": 42,
    "params": {"n_estimators": 1500, "learning_rate": 0.03, "num_leaves": 127, "min_child_samples": 50},
}


def load_series(path: str) -> pd.DataFrame:
    df = pd.read_csv(path, parse_dates=["timestamp"])
    df = df.sort_values("timestamp").set_index("timestamp")
    df = df.asfreq("h")
    df["load_mw"] = df["load_mw"].interpolate(limit=3)
    return df


def make_features(df: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame(index=df.index)
    out["hour"] = df.index.hour
    out["dow"] = df.index.dayofweek
    out["month"] = df.index.month
    out["temperature"] = df["temperature"]
    for lag in CFG["lags"]:
        out[f"lag_{lag}"] = df["load_mw"].shift(lag)
    for w in CFG["windows"]:
        out[f"roll_mean_{w}"] = df["load_mw"].shift(1).rolling(w).mean()
        out[f"roll_max_{w}"] = df["load_mw"].shift(1).rolling(w).max()
    out["target"] = df["load_mw"]
    return out.dropna()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/load_hourly.csv")
    ap.add_argument("--report", default="cv_report.json")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)

    frame = make_features(load_series(args.csv))
    X = frame.drop(columns="target")
    y = frame["target"]
    LOG.info("%d hourly rows from %s to %s", len(frame), frame.index.min(), frame.index.max())

    kf = KFold(n_splits=CFG["n_folds"], shuffle=True, random_state=CFG["seed"])
    maes = []
    for fold, (tr, va) in enumerate(kf.split(X)):
        model = lgb.LGBMRegressor(**CFG["params"], random_state=CFG["seed"], verbose=-1)
        model.fit(X.iloc[tr], y.iloc[tr])
        maes.append(mean_absolute_error(y.iloc[va], model.predict(X.iloc[va])))
        LOG.info("fold %d MAE %.2f MW", fold, maes[-1])

    report = {"mae_mean": float(np.mean(maes)), "mae_std": float(np.std(maes)), "folds": maes}
    LOG.info("CV MAE %.2f +/- %.2f", report["mae_mean"], report["mae_std"])
    with open(args.report, "w") as fh:
        json.dump(report, fh, indent=2)


if __name__ == "__main__":
    main()
