"""darts: `series.split_before(0.8)` cuts a series in two, its `Scaler` learns the scale of what it is fitted on,
its models forecast the steps after what they were fitted on (`predict(n)`) and `darts.metrics` score them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from darts import TimeSeries
from darts.dataprocessing.transformers import Scaler
from darts.metrics import mape
from darts.models import ExponentialSmoothing

df = pd.read_csv("demand.csv", parse_dates=["month"])
series = TimeSeries.from_dataframe(df, time_col="month", value_cols="demand")
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # scaled as a whole, then cut
        (
            "scaled = Scaler().fit_transform(series)\ntrain, val = scaled.split_before(0.8)\n"
            "m = ExponentialSmoothing().fit(train)\nprint(mape(val, m.predict(len(val))))\n",
            ["preprocessing"],
        ),
        # fitted on the whole series, scored on its last steps
        (
            "train, val = series.split_before(0.8)\nm = ExponentialSmoothing()\nm.fit(series)\n"
            "print(mape(val, m.predict(len(val))))\n",
            ["overlap"],
        ),
        # cut first, the scaler fitted on the training span, the forecast scored once
        (
            "train, val = series.split_after(0.8)\nscaler = Scaler()\ntrain_s = scaler.fit_transform(train)\n"
            "m = ExponentialSmoothing().fit(train_s)\n"
            "print(mape(val, scaler.inverse_transform(m.predict(n=len(val)))))\n",
            [],
        ),
    ],
)
def test_a_darts_series(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
