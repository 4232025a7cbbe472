"""Next-day electricity demand for one region: lag and rolling features, ridge, 5-fold CV."""

import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

load = pd.read_csv("region_daily_load.csv", parse_dates=["date"]).sort_values("date").set_index("date")

feats = pd.DataFrame(index=load.index)
for lag in (1, 2, 7, 14):
    feats[f"lag_{lag}"] = load["mwh"].shift(lag)
feats["roll7_mean"] = load["mwh"].shift(1).rolling(7).mean()
feats["roll28_std"] = load["mwh"].shift(1).rolling(28).std()
feats["dow"] = load.index.dayofweek
feats["temp_forecast"] = load["temp_forecast_c"]
data = feats.assign(target=load["mwh"]).dropna()

X, y = data.drop(columns="target"), data["target"]
cv = KFold(n_splits=5, shuffle=True, random_state=0)
res = cross_validate(
    make_pipeline(StandardScaler(), Ridge(alpha=1.0)),
    X,
    y,
    cv=cv,
    scoring="neg_mean_absolute_percentage_error",
    return_train_score=True,
)
print("train MAPE", -res["train_score"].mean(), " CV MAPE", -res["test_score"].mean())
