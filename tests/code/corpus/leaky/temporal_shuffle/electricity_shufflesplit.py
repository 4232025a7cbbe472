"""Day-ahead load forecasting with gradient boosting, evaluated with ShuffleSplit."""

from pathlib import Path

import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import ShuffleSplit, cross_validate

csv = Path(__file__).resolve().parents[2] / "data" / "electricity.csv"
df = pd.read_csv(csv, parse_dates=["date"]).set_index("date").sort_index()

df["load_lag1"] = df["load_mwh"].shift(1)
df["load_lag7"] = df["load_mwh"].shift(7)
df["load_ma7"] = df["load_mwh"].shift(1).rolling(7).mean()
df["dow"] = df.index.day_of_week
df = df.dropna()

X = df[["load_lag1", "load_lag7", "load_ma7", "temp_max_c", "temp_min_c", "humidity", "is_holiday", "dow"]]
y = df["load_mwh"]

cv = ShuffleSplit(n_splits=5, test_size=0.2, random_state=0)
res = cross_validate(GradientBoostingRegressor(n_estimators=80, max_depth=3, random_state=0), X, y, cv=cv,
                     scoring=("neg_mean_absolute_error", "r2"))
print("MAE:", -res["test_neg_mean_absolute_error"].mean().round(1))
print("R2 :", res["test_r2"].mean().round(3))
