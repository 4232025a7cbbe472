import numpy as np
import pandas as pd
import tensorflow as tf

WINDOW = 48

energy = pd.read_csv("PJME_hourly.csv", index_col="Datetime", parse_dates=True).sort_index()
series = energy["PJME_MW"].to_numpy(dtype="float32")

n_train = int(len(series) * 0.8)
mean, std = series[:n_train].mean(), series[:n_train].std()   # statistics of the training period only
series = (series - mean) / std


def windows(values, window):
    idx = np.arange(window)[None, :] + np.arange(len(values) - window)[:, None]
    return values[idx][..., None], values[window:]


X, y = windows(series, WINDOW)
cut = n_train - WINDOW
X_train, y_train = X[:cut], y[:cut]
X_test, y_test = X[cut:], y[cut:]

model = tf.keras.Sequential([
    tf.keras.layers.Input((WINDOW, 1)),
    tf.keras.layers.LSTM(64),
    tf.keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
# Keras takes the validation_split rows from the end of the arrays, without shuffling them first
model.fit(X_train, y_train, epochs=10, batch_size=256, validation_split=0.1, shuffle=True)
pred = model.predict(X_test).ravel() * std + mean
print("test MAE (MW):", np.abs(pred - (y_test * std + mean)).mean())
