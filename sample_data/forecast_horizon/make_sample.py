"""Writes this sample: daily demand of three stores, each row labelled with the demand of the next 7 days,
split at a cut-off date without a gap, so the last week of training labels looks into the test period.

Run from this directory: python make_sample.py (deterministic; the committed file is its output).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
HORIZON_DAYS = 7
DAYS = 120
CUT_OFF = 90  # days 0..89 train, 90..119 test: what TimeSeriesSplit(gap=0) gives for this cut-off


def manifest() -> pd.DataFrame:
    rng = np.random.default_rng(23)
    dates = pd.date_range("2024-01-01", periods=DAYS, freq="D")
    frames = []
    for store, level in (("north", 120.0), ("harbour", 80.0), ("station", 200.0)):
        weekly = 1 + 0.25 * np.sin(2 * np.pi * np.arange(DAYS) / 7)
        demand = np.round(level * weekly * rng.lognormal(0, 0.1, DAYS)).astype(int)
        # The label: units sold over the next 7 days, a window that ends HORIZON_DAYS after the row's date.
        ahead = pd.Series(demand[::-1]).rolling(HORIZON_DAYS, min_periods=1).sum().to_numpy()[::-1]
        next_week = np.concatenate([ahead[1:], [0]]).astype(int)
        frames.append(
            pd.DataFrame(
                {
                    "store": store,
                    "date": dates.strftime("%Y-%m-%d"),
                    "label_window_end": (dates + pd.Timedelta(days=HORIZON_DAYS)).strftime("%Y-%m-%d"),
                    "units_sold": demand,
                    "units_next_7d": next_week,
                    "split": np.where(np.arange(DAYS) < CUT_OFF, "train", "test"),
                }
            )
        )
    table = pd.concat(frames, ignore_index=True).sort_values(["date", "store"], kind="stable")
    table.insert(0, "row_id", [f"r{i:04d}" for i in range(len(table))])
    # The last days' windows run past the data: those rows have no label and are left out, as in practice.
    return table[pd.to_datetime(table["label_window_end"]) <= dates[-1]]


if __name__ == "__main__":
    manifest().to_csv(HERE / "manifest.csv", index=False)
