"""Out-of-fold predictions for a next-day sales model (both stores)."""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold, cross_val_predict

path = Path(__file__).resolve().parents[2] / "data" / "sales.csv"
frame = pd.read_csv(path, index_col="date", parse_dates=True).sort_index()

frame["prev_day"] = frame.groupby("store")["sales"].shift(1)
frame["same_day_last_week"] = frame.groupby("store")["sales"].shift(7)
frame["weekend"] = (frame.index.day_of_week >= 5).astype(int)
frame = frame.dropna()

X = frame[["prev_day", "same_day_last_week", "weekend", "promo", "holiday"]].to_numpy()
y = frame["sales"].to_numpy()

pred = cross_val_predict(RidgeCV(alphas=np.logspace(-2, 3, 11)), X, y, cv=KFold(5, shuffle=True, random_state=42))
print("out-of-fold MAE:", np.abs(pred - y).mean().round(1))
print("out-of-fold MAPE: {:.2%}".format(np.mean(np.abs(pred - y) / y)))
