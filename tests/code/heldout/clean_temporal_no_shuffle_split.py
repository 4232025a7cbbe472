"""
Forecasting monthly air passengers with a linear model on lag features
=====================================================================

For a time series the test period must come after the training period, so
``train_test_split`` is called with ``shuffle=False``: the last 20% of the
(sorted) months become the test set.
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

air = pd.read_csv("AirPassengers.csv", parse_dates=["Month"], index_col="Month").sort_index()
air.columns = ["passengers"]
air["log_pax"] = np.log(air["passengers"])
print(air.head(13))

air.plot(y="passengers", title="Monthly airline passengers")
plt.show()

# lags of the log series; month-of-year dummies for seasonality
for lag in (1, 2, 3, 12):
    air[f"lag_{lag}"] = air["log_pax"].shift(lag)
air = air.join(pd.get_dummies(air.index.month, prefix="m").set_index(air.index).astype(int))
air["t"] = np.arange(len(air))
air = air.dropna()

X = air.drop(columns=["passengers", "log_pax"])
y = air["log_pax"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, shuffle=False)
print("train until", X_train.index.max().date(), "| test from", X_test.index.min().date())

model = Ridge(alpha=0.1)
model.fit(X_train, y_train)
pred = np.exp(model.predict(X_test))

print("MAE (passengers):", mean_absolute_error(np.exp(y_test), pred))

plt.plot(air.index, air["passengers"], label="actual")
plt.plot(X_test.index, pred, label="forecast")
plt.legend()
plt.show()
