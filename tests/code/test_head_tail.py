"""`head(n)` and `tail(n)` take the first and last rows as `iloc[:n]` and `iloc[-n:]` do (of a groupby, each group's:
the two sides of one cut within every group): a model fitted on every
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
    "each store's first 40 weeks to train, the rest (~isin of their index) to test": (
        """
    train = df.groupby("store").head(40)
    test = df.loc[~df.index.isin(train.index)]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [],
    ),
    "each store's first 40 weeks and its last 10, or from the 41st on by nth": (
        """
    train = df.groupby("store").head(40)
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(df.groupby("store").tail(10)[cols], df.groupby("store").tail(10)["kwh"]))
    later = df.groupby("store").nth(slice(40, None))
    print(model.score(later[cols], later["kwh"]))
""",
        [],
    ),
    "LEAK: each user's last session as the test set, the model fitted on every session": (
        """
    test = df.groupby("user").tail(1)
    model = GradientBoostingRegressor().fit(df[cols], df["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 2)],
    ),
    "LEAK: the head to the length less 300, the last 365 rows scored": (
        """
    train, test = df.head(len(df) - 300), df.tail(365)
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 2)],
    ),
    "LEAK: positions written from the table's length held in a name, overlapping the last 40": (
        """
    n = len(df)
    train, test = df.iloc[:n - 30], df.iloc[-40:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 3)],
    ),
    "LEAK: positions written from the table's shape, overlapping the last 40": (
        """
    train, test = df.iloc[:df.shape[0] - 30], df.iloc[len(df.index) - 40:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 2)],
    ),
    "LEAK: an end of two terms from the length, 50 rows past the last part's start": (
        """
    n = len(df)
    train, test = df.iloc[:n - 100 + 50], df.iloc[n - 100:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 3)],
    ),
    "LEAK: a share of the length held out, 48 rows of it trained on": (
        """
    n_test = int(0.2 * len(df))
    train, test = df.iloc[:len(df) - n_test + 48], df.iloc[len(df) - n_test:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 3)],
    ),
    "LEAK: a share of the length held out, a warm-up in parentheses trained on": (
        """
    n_test, warmup = int(0.2 * len(df)), 48
    train, test = df.iloc[:len(df) - (n_test - warmup)], df.iloc[len(df) - n_test:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 3)],
    ),
    "LEAK: two numbers in parentheses, 336 rows of the last part trained on": (
        """
    N_TEST, WARMUP = 2000, 336
    n = len(df)
    train, test = df.iloc[:n - (N_TEST - WARMUP)], df.iloc[n - N_TEST:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [("overlap", 4)],
    ),
    "a share of the length held out, a gap in parentheses before it": (
        """
    n_test, gap = int(0.2 * len(df)), 48
    train, test = df.iloc[:len(df) - (n_test + gap)], df.iloc[len(df) - n_test:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [],
    ),
    "a share of the length held out, a gap of 48 rows before it": (
        """
    n_test = int(0.2 * len(df))
    train, test = df.iloc[:len(df) - n_test - 48], df.iloc[len(df) - n_test:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [],
    ),
    "a share of the length held out, the rest trained on": (
        """
    n_test = int(0.2 * len(df))
    train, test = df.iloc[:len(df) - n_test], df.iloc[len(df) - n_test:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [],
    ),
    "positions written from the table's length, the last 30 apart": (
        """
    n = len(df)
    train, test = df.iloc[:len(df) - 30], df.iloc[n - 30:]
    model = GradientBoostingRegressor().fit(train[cols], train["kwh"])
    print(model.score(test[cols], test["kwh"]))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_head_tail(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
