"""Daily sales forecast for both stores.

Hyper-parameters are chosen with TimeSeriesSplit so that every validation fold lies after
its training folds.
"""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, train_test_split

root = Path(__file__).resolve().parents[2]
sales = pd.read_csv(root / "data" / "sales.csv", parse_dates=["date"]).sort_values(["date", "store"])

sales["is_airport"] = (sales["store"] == "airport").astype(int)
by_store = sales.groupby("store")["sales"]
sales["lag_1"] = by_store.shift(1)
sales["lag_7"] = by_store.shift(7)
sales["mean_7"] = by_store.transform(lambda s: s.shift(1).rolling(7).mean())
sales["dow"] = sales["date"].dt.day_of_week
sales = sales.dropna()

X = sales[["is_airport", "promo", "holiday", "temperature", "lag_1", "lag_7", "mean_7", "dow"]]
y = sales["sales"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)

search = GridSearchCV(
    RandomForestRegressor(n_estimators=40, min_samples_leaf=3, random_state=0),
    {"max_depth": [6, None]},
    cv=TimeSeriesSplit(n_splits=4),
    scoring="neg_mean_absolute_error",
)
search.fit(X_train, y_train)
print(search.best_params_)
print("hold-out MAE:", round(mean_absolute_error(y_test, search.predict(X_test)), 1))
