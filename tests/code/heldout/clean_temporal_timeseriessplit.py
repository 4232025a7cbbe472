"""Tune and validate the weekly sales model with expanding-window cross-validation."""
from __future__ import annotations

import argparse
import logging

import numpy as np
import pandas as pd
from sklearn.linear_model import ElasticNet
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

logger = logging.getLogger(__name__)

SETTINGS = {
    "lags": [1, 2, 4, 52],
    "n_splits": 6,
    "test_weeks": 12,
    "grid": {"model__alpha": [0.01, 0.1, 1.0], "model__l1_ratio": [0.1, 0.5, 0.9]},
}


def weekly_features(sales: pd.DataFrame) -> pd.DataFrame:
    weekly = sales.set_index("week_start").sort_index()
    for lag in SETTINGS["lags"]:
        weekly[f"units_lag_{lag}"] = weekly["units"].shift(lag)
    weekly["units_ma_4"] = weekly["units"].shift(1).rolling(4).mean()
    weekly["weekofyear"] = weekly.index.isocalendar().week.astype(int)
    weekly["promo_next_week"] = weekly["promo"].shift(-1).fillna(0)
    return weekly.dropna()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sales", default="data/weekly_sales.csv")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)

    sales = pd.read_csv(args.sales, parse_dates=["week_start"])
    weekly = weekly_features(sales)
    X = weekly.drop(columns=["units"])
    y = weekly["units"]

    cv = TimeSeriesSplit(n_splits=SETTINGS["n_splits"], test_size=SETTINGS["test_weeks"])
    pipe = Pipeline([("scale", StandardScaler()), ("model", ElasticNet(max_iter=20000))])
    search = GridSearchCV(pipe, SETTINGS["grid"], cv=cv, scoring="neg_mean_absolute_error", n_jobs=-1)
    search.fit(X, y)

    logger.info("best params: %s", search.best_params_)
    logger.info("expanding-window CV MAE: %.1f units", -search.best_score_)
    for i, (tr, va) in enumerate(cv.split(X)):
        logger.info("fold %d: train %s..%s, validate %s..%s", i, X.index[tr[0]].date(), X.index[tr[-1]].date(),
                    X.index[va[0]].date(), X.index[va[-1]].date())
    fold_scores = np.array([search.cv_results_[f"split{i}_test_score"][search.best_index_] for i in range(cv.n_splits)])
    logger.info("per-fold MAE: %s", np.round(-fold_scores, 1))


if __name__ == "__main__":
    main()
