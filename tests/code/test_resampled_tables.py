"""A table resampled by period (`daily.resample("W").sum()`) or made of one column (`s.to_frame()`) keeps its
columns by name: a next-period target added to it is that column's only, and the table is still read for what is
learned from it or filled from later rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.preprocessing import StandardScaler
"""

_WEEKS = """
        daily = pd.read_csv("daily.csv", parse_dates=["date"])
        wk = {weekly}
        wk["lag1"] = wk["views"].shift(1)
        wk["target_next"] = wk["views"].shift(-1)
        {before}wk = wk.dropna()
        train, test = wk[wk.index < "2017-03-01"], wk[wk.index >= "2017-03-01"]
        m = Ridge().fit(train[["views", "lag1"]], train["target_next"])
        print(mean_absolute_error(test["target_next"], m.predict(test[["views", "lag1"]])))
        """

_RESAMPLED = 'daily.set_index("date")[["views"]].resample("W").sum()'


@pytest.mark.parametrize(
    ("weekly", "before", "expected"),
    [
        # next week's views as the target of a weekly table: a forecast, however the table was made
        (_RESAMPLED, "", []),
        ('daily.set_index("date")[["views"]].resample("W").agg("sum")', "", []),
        ('daily.set_index("date")["views"].resample("W").mean().to_frame()', "", []),
        ('daily.set_index("date")["views"].to_frame()', "", []),
        # LEAK: the weekly table scaled before the cut, or its gaps filled from later weeks
        (_RESAMPLED, 'wk[["views"]] = StandardScaler().fit_transform(wk[["views"]])\n        ', ["preprocessing"]),
        (_RESAMPLED, "wk = wk.bfill()\n        ", ["overlap"]),
    ],
    ids=[
        "resampled",
        "resampled, agg",
        "resampled series made a table",
        "one column made a table",
        "LEAK: scaled",
        "LEAK: filled backwards",
    ],
)
def test_a_weekly_table_with_a_next_week_target(tmp_path: Path, weekly: str, before: str, expected: list[str]) -> None:
    found = leaks_found(tmp_path, HEAD, _WEEKS.format(weekly=weekly, before=before))
    assert sorted({kind for kind, _ in found}) == expected
