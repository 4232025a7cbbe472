"""Weekly store sales forecaster; settings in a dataclass, model in a small class."""

from dataclasses import dataclass

import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split


@dataclass(frozen=True)
class Settings:
    path: str = "walmart_weekly.csv"
    test_size: float = 0.2
    shuffle: bool = True
    seed: int = 0
    lags: tuple[int, ...] = (1, 2, 4, 52)


class WeeklyForecaster:
    def __init__(self, settings):
        self.s = settings
        self.model = GradientBoostingRegressor(n_estimators=500, max_depth=4, learning_rate=0.05, subsample=0.8)

    def features(self, weekly):
        weekly = weekly.sort_values(["store", "week"]).copy()
        g = weekly.groupby("store")["sales"]
        for lag in self.s.lags:
            weekly[f"sales_lag{lag}"] = g.shift(lag)
        weekly["sales_roll4"] = g.transform(lambda s: s.shift(1).rolling(4).mean())
        weekly["holiday"] = weekly["is_holiday"].astype(int)
        return weekly.dropna()

    def split(self, data):
        cols = [c for c in data.columns if c.startswith("sales_") or c in ("holiday", "temperature", "fuel_price")]
        return train_test_split(
            data[cols], data["sales"], test_size=self.s.test_size, shuffle=self.s.shuffle, random_state=self.s.seed
        )

    def fit(self, X, y):
        self.model.fit(X, y)
        return self

    def evaluate(self, X, y):
        return mean_absolute_error(y, self.model.predict(X))


if __name__ == "__main__":
    s = Settings()
    fc = WeeklyForecaster(s)
    weekly = pd.read_csv(s.path, parse_dates=["week"])
    X_train, X_test, y_train, y_test = fc.split(fc.features(weekly))
    print("weekly MAE:", fc.fit(X_train, y_train).evaluate(X_test, y_test))
