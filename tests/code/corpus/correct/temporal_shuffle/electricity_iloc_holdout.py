# day-ahead load model: last 180 days held out, chronological validation inside the training part
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import TimeSeriesSplit, cross_val_score

here = Path(__file__).resolve().parent
elec = pd.read_csv(here.parents[1] / "data" / "electricity.csv", parse_dates=["date"])
elec = elec.sort_values("date").reset_index(drop=True)

elec["target"] = elec["load_mwh"].shift(-1)
for k in (1, 2, 7):
    elec[f"load_lag{k}"] = elec["load_mwh"].shift(k - 1)   # lag1 is today's load
elec["temp_mean"] = (elec["temp_max_c"] + elec["temp_min_c"]) / 2
elec["dow"] = elec["date"].dt.day_of_week
elec = elec.dropna()

feats = ["load_lag1", "load_lag2", "load_lag7", "temp_mean", "humidity", "is_holiday", "dow"]
split_at = len(elec) - 180
train, test = elec.iloc[:split_at], elec.iloc[split_at:]

gbr = GradientBoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, random_state=1)
cv_mae = -cross_val_score(gbr, train[feats], train["target"], cv=TimeSeriesSplit(n_splits=4, gap=1),
                          scoring="neg_mean_absolute_error")
print("walk-forward MAE:", np.round(cv_mae, 1))

gbr.fit(train[feats], train["target"])
print("hold-out MAE (last 180 days):", round(mean_absolute_error(test["target"], gbr.predict(test[feats])), 1))
