# Daily electricity load: sorted by date, lag features, and a split at a cut-off date, never shuffled.
from pathlib import Path

import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_absolute_error

load = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "electricity.csv", parse_dates=["date"])
load = load.sort_values("date")
load["weekday"] = load["date"].dt.dayofweek
load["lag_7"] = load["load_mwh"].shift(7)
load = load.dropna()

cutoff = load["date"].quantile(0.8)
train, test = load[load["date"] <= cutoff], load[load["date"] > cutoff]
features = ["weekday", "lag_7", "temp_max_c", "is_holiday"]
model = HistGradientBoostingRegressor(random_state=0).fit(train[features], train["load_mwh"])
print("MAE after the cut-off:", mean_absolute_error(test["load_mwh"], model.predict(test[features])))
