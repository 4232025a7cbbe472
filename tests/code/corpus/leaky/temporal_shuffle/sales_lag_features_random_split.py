"""Next-day sales forecast for the downtown store with lag features and a random forest."""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error, mean_absolute_percentage_error
from sklearn.model_selection import train_test_split

DATA = Path(__file__).resolve().parents[2] / "data"

sales = pd.read_csv(DATA / "sales.csv", parse_dates=["date"])
store = sales[sales["store"] == "downtown"].sort_values("date").reset_index(drop=True)

# calendar features
store["dow"] = store["date"].dt.day_of_week
store["month"] = store["date"].dt.month
store["day"] = store["date"].dt.day

# lags and rolling statistics of past sales
for lag in (1, 2, 7, 14):
    store[f"lag_{lag}"] = store["sales"].shift(lag)
store["rolling_mean_7"] = store["sales"].shift(1).rolling(7).mean()
store["rolling_std_7"] = store["sales"].shift(1).rolling(7).std()
store = store.dropna()

features = ["dow", "month", "day", "promo", "holiday", "temperature",
            "lag_1", "lag_2", "lag_7", "lag_14", "rolling_mean_7", "rolling_std_7"]
X = store[features]
y = store["sales"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42)

rf = RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=42)
rf.fit(X_train, y_train)
pred = rf.predict(X_test)
print(f"MAE  {mean_absolute_error(y_test, pred):8.1f}")
print(f"MAPE {mean_absolute_percentage_error(y_test, pred):8.2%}")
