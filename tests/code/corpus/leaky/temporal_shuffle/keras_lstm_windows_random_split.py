import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.model_selection import train_test_split

WINDOW = 30
HORIZON = 1

prices = pd.read_csv("BTC-USD.csv", parse_dates=["Date"]).sort_values("Date")
close = prices["Close"].to_numpy(dtype="float32")
close = close / close[0]  # relative to the first day, a fixed reference


def make_windows(series, window, horizon):
    xs, ys = [], []
    for start in range(len(series) - window - horizon + 1):
        xs.append(series[start:start + window])
        ys.append(series[start + window + horizon - 1])
    return np.array(xs)[..., None], np.array(ys)


X, y = make_windows(close, WINDOW, HORIZON)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.15)

model = tf.keras.Sequential([
    tf.keras.layers.Input((WINDOW, 1)),
    tf.keras.layers.LSTM(64, return_sequences=True),
    tf.keras.layers.LSTM(32),
    tf.keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
model.fit(X_train, y_train, epochs=25, batch_size=64, validation_split=0.1)
print("test MAE:", model.evaluate(X_test, y_test, verbose=0)[1])
