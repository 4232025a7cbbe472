"""Which regressor forecasts next-day sales best? (airport store)"""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

sales = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "sales.csv", parse_dates=["date"])
airport = sales.query("store == 'airport'").sort_values("date").copy()
airport["yesterday"] = airport["sales"].shift(1)
airport["last_week"] = airport["sales"].shift(7)
airport["avg_last_7"] = airport["sales"].rolling(7, closed="left").mean()
airport["weekday"] = airport["date"].dt.day_of_week
airport = airport.dropna()

X = airport[["yesterday", "last_week", "avg_last_7", "weekday", "promo", "holiday", "temperature"]]
y = airport["sales"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1)

models = {
    "linear": LinearRegression(),
    "knn": make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=8)),
    "forest": RandomForestRegressor(n_estimators=80, min_samples_leaf=3, random_state=1),
    "boosting": GradientBoostingRegressor(n_estimators=100, random_state=1),
}
best_name, best_mae = None, float("inf")
for name, model in models.items():
    model.fit(X_train, y_train)
    mae = mean_absolute_error(y_test, model.predict(X_test))
    print(f"{name:9s} MAE {mae:7.1f}")
    if mae < best_mae:
        best_name, best_mae = name, mae
print(f"best model: {best_name} (MAE {best_mae:.1f})")
