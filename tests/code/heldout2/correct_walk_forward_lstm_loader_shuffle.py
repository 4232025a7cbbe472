"""Hourly PM2.5, one hour ahead, with a small LSTM; walk-forward evaluation over five folds."""

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import TimeSeriesSplit
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

WINDOW = 48
COLUMNS = ["pm25", "dewp", "temp", "pres", "iws"]


def make_windows(series, window=WINDOW):
    X = np.stack([series[i - window : i] for i in range(window, len(series))])
    y = series[window:, 0]
    return X.astype(np.float32), y.astype(np.float32)


class Forecaster(nn.Module):
    def __init__(self, n_features, hidden=64):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1]).squeeze(-1)


def train_fold(X, y, epochs=15):
    model = Forecaster(X.shape[-1])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dl = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)), batch_size=64, shuffle=True)
    for _ in range(epochs):
        for xb, yb in dl:
            opt.zero_grad()
            nn.functional.l1_loss(model(xb), yb).backward()
            opt.step()
    return model


def main():
    air = pd.read_csv("beijing_pm25_hourly.csv", parse_dates=["datetime"]).sort_values("datetime")
    series = air[COLUMNS].ffill().dropna().to_numpy()
    X, y = make_windows(series)

    maes = []
    for k, (tr, te) in enumerate(TimeSeriesSplit(n_splits=5, gap=WINDOW).split(X)):
        flat = X[tr].reshape(-1, X.shape[-1])
        mu, sd = flat.mean(axis=0), flat.std(axis=0) + 1e-6
        model = train_fold(((X[tr] - mu) / sd).astype(np.float32), ((y[tr] - mu[0]) / sd[0]).astype(np.float32))
        with torch.no_grad():
            pred = model(torch.from_numpy(((X[te] - mu) / sd).astype(np.float32))).numpy() * sd[0] + mu[0]
        maes.append(mean_absolute_error(y[te], pred))
        print(f"fold {k}: MAE {maes[-1]:.2f}")
    print("walk-forward MAE:", np.mean(maes))


if __name__ == "__main__":
    main()
