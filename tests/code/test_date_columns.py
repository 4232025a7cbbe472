"""A window back from the last date only places a cut in time: the column it is taken of is known as a date by
being read as dates (also under a new name, `rename(columns={"date": "ds"})`), or by a name that says a time
(Prophet's `ds`, a `ts`). A statistic of any other column that chooses the rows is learned from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from prophet import Prophet
from sklearn.metrics import mean_absolute_error
"""

BODY = """
df = pd.read_csv("visits.csv"{read}){rename}
cutoff = df["{col}"].max() - {back}
train, test = df[df["{col}"] <= cutoff], df[df["{col}"] > cutoff]
m = Prophet().fit(train.rename(columns={{"{col}": "ds"}}))
print(mean_absolute_error(test["y"], m.predict(test.rename(columns={{"{col}": "ds"}})[["ds"]])["yhat"]))
"""


@pytest.mark.parametrize(
    ("read", "rename", "col", "back", "expected"),
    [
        (', parse_dates=["date"]', '.rename(columns={"date": "d"})', "d", "pd.Timedelta(days=90)", []),
        ("", "", "ds", "pd.Timedelta(days=90)", []),
        ("", "", "ts", "pd.Timedelta(days=90)", []),
        # a column of numbers cut at its own statistic: rows chosen by a value learned from every row
        ("", "", "visits", "100", ["preprocessing"]),
    ],
)
def test_a_window_back_from_the_last_date(
    tmp_path: Path, read: str, rename: str, col: str, back: str, expected: list[str]
) -> None:
    body = BODY.format(read=read, rename=rename, col=col, back=back)
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
