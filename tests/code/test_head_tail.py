"""`head(n)` and `tail(n)` take the first and last rows as `iloc[:n]` and `iloc[-n:]` do: a model fitted on every
row and scored on its tail is scored on rows it was trained on, and a cut made with them is a cut in time. Each
case is a script and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("energy.csv").sort_values("timestamp")
cols = ["temp", "humidity"]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: fitted on every row, scored on the last 200": (
        """
    model = GradientBoostingRegressor().fit(df[cols], df["kwh"])
    print(model.score(df[cols].tail(200), df["kwh"].tail(200)))
""",
        [("overlap", 1)],
    ),
    "a cut in time made with head and tail, the scaler fitted on the head; the head shown": (
        """
    train, test = df.head(len(df) - 365), df.tail(365)
    sc = StandardScaler().fit(train[cols])
    model = GradientBoostingRegressor().fit(sc.transform(train[cols]), train["kwh"])
    print(model.score(sc.transform(test[cols]), test["kwh"]))
    print(df.head())
""",
        [],
    ),
    "LEAK: that cut, the scaler fitted on every row": (
        """
    train, test = df.head(len(df) - 365), df.tail(365)
    sc = StandardScaler().fit(df[cols])
    model = GradientBoostingRegressor().fit(sc.transform(train[cols]), train["kwh"])
    print(model.score(sc.transform(test[cols]), test["kwh"]))
""",
        [("preprocessing", 2)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_head_tail(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
