"""Next-day sales forecast evaluated on the most recent 20% of days.

shuffle=False keeps the order of the rows, so the test part is the last months of the
series and every training day precedes every test day.
"""

from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

sales = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "sales.csv", parse_dates=["date"])
daily = sales[sales["store"] == "downtown"].sort_values("date").set_index("date")

daily["lag_1"] = daily["sales"].shift(1)
daily["lag_7"] = daily["sales"].shift(7)
daily["rolling_7"] = daily["sales"].shift(1).rolling(7).mean()
daily["dow"] = daily.index.day_of_week
daily = daily.dropna()

X = daily[["lag_1", "lag_7", "rolling_7", "dow", "promo", "holiday", "temperature"]]
y = daily["sales"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, shuffle=False)
print("train:", X_train.index.min().date(), "->", X_train.index.max().date())
print("test: ", X_test.index.min().date(), "->", X_test.index.max().date())

model = RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=0).fit(X_train, y_train)
print(f"test MAE: {mean_absolute_error(y_test, model.predict(X_test)):.1f}")
