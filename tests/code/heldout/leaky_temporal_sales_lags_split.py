# Store Item Demand Forecasting - Random Forest with lag features
import pandas as pd
import numpy as np
import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

train = pd.read_csv("../input/demand-forecasting-kernels-only/train.csv", parse_dates=["date"])
print(train.head())
print(train.date.min(), train.date.max())

train = train.sort_values(["store", "item", "date"]).reset_index(drop=True)

# calendar features
train["dayofweek"] = train.date.dt.dayofweek
train["month"] = train.date.dt.month
train["year"] = train.date.dt.year
train["dayofyear"] = train.date.dt.dayofyear

# lag / rolling features per store-item series
grp = train.groupby(["store", "item"])["sales"]
for lag in [1, 7, 14, 28, 364]:
    train[f"sales_lag_{lag}"] = grp.shift(lag)
train["rolling_mean_7"] = grp.transform(lambda s: s.shift(1).rolling(7).mean())
train["rolling_mean_30"] = grp.transform(lambda s: s.shift(1).rolling(30).mean())
train = train.dropna()

features = [c for c in train.columns if c not in ("date", "sales")]
X = train[features]
y = train["sales"]

X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, random_state=42)

rf = RandomForestRegressor(n_estimators=200, max_depth=14, n_jobs=-1, random_state=42)
rf.fit(X_train, y_train)
pred = rf.predict(X_val)
print("MAE:", mean_absolute_error(y_val, pred))

def smape(a, f):
    return 100 / len(a) * np.sum(2 * np.abs(f - a) / (np.abs(a) + np.abs(f)))

print("SMAPE:", smape(y_val.values, pred))

pd.Series(rf.feature_importances_, index=features).sort_values().plot(kind="barh", figsize=(8, 8))
plt.show()
