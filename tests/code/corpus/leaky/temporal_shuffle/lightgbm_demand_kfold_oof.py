# Bike sharing demand - hourly forecast with LightGBM, out-of-fold scoring
import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.metrics import mean_squared_log_error
from sklearn.model_selection import KFold

bikes = pd.read_csv("hour.csv", parse_dates=["dteday"])
bikes = bikes.sort_values(["dteday", "hr"]).reset_index(drop=True)
bikes["cnt_lag_1h"] = bikes["cnt"].shift(1)
bikes["cnt_lag_24h"] = bikes["cnt"].shift(24)
bikes["cnt_roll_24h"] = bikes["cnt"].shift(1).rolling(24).mean()
bikes = bikes.dropna()

features = ["season", "yr", "mnth", "hr", "holiday", "weekday", "workingday", "weathersit", "temp", "atemp",
            "hum", "windspeed", "cnt_lag_1h", "cnt_lag_24h", "cnt_roll_24h"]
X, y = bikes[features], np.log1p(bikes["cnt"])

oof = np.zeros(len(bikes))
kf = KFold(n_splits=5, shuffle=True, random_state=42)
for fold, (tr_idx, va_idx) in enumerate(kf.split(X)):
    reg = lgb.LGBMRegressor(n_estimators=1200, learning_rate=0.03, num_leaves=63, subsample=0.8, subsample_freq=1,
                            colsample_bytree=0.8, verbose=-1)
    reg.fit(X.iloc[tr_idx], y.iloc[tr_idx])
    oof[va_idx] = reg.predict(X.iloc[va_idx])
    print(f"fold {fold} RMSLE: {np.sqrt(mean_squared_log_error(np.expm1(y.iloc[va_idx]), np.expm1(oof[va_idx]))):.4f}")

print("OOF RMSLE:", np.sqrt(mean_squared_log_error(np.expm1(y), np.expm1(oof))))
