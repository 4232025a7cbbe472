# Daily bike-share demand forecast
# The features use *past* demand only (shifted by at least one day), and the
# evaluation period comes strictly after the training period.

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_percentage_error

rides = pd.read_csv("daily_rides.csv", parse_dates=["date"])
rides = rides.sort_values("date").reset_index(drop=True)
print(rides.tail())

rides["dow"] = rides["date"].dt.dayofweek
rides["month"] = rides["date"].dt.month
rides["demand_lag_1"] = rides["demand"].shift(1)
rides["demand_lag_7"] = rides["demand"].shift(7)
rides["demand_lag_14"] = rides["demand"].shift(14)
rides["demand_roll7_mean"] = rides["demand"].shift(1).rolling(7).mean()
rides["demand_roll28_std"] = rides["demand"].shift(1).rolling(28).std()
rides = rides.dropna()

features = [
    "dow",
    "month",
    "temp_c",
    "precip_mm",
    "is_holiday",
    "demand_lag_1",
    "demand_lag_7",
    "demand_lag_14",
    "demand_roll7_mean",
    "demand_roll28_std",
]

cutoff = pd.Timestamp("2023-07-01")
train = rides[rides["date"] < cutoff]
test = rides[rides["date"] >= cutoff]
print(f"train: {train.date.min().date()} -> {train.date.max().date()} ({len(train)} days)")
print(f"test:  {test.date.min().date()} -> {test.date.max().date()} ({len(test)} days)")

gbr = GradientBoostingRegressor(n_estimators=500, learning_rate=0.05, max_depth=3, subsample=0.9, random_state=0)
gbr.fit(train[features], train["demand"])

pred = gbr.predict(test[features])
print("MAPE:", mean_absolute_percentage_error(test["demand"], pred))

naive = test["demand_lag_7"]
print("seasonal-naive MAPE:", mean_absolute_percentage_error(test["demand"], naive))
print("improvement:", 1 - np.mean(np.abs(test["demand"] - pred)) / np.mean(np.abs(test["demand"] - naive)))
