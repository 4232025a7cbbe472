"""A slice of a time index by dates (`df.loc[:"2023-06-01"]`, `s["2023-06-01":"2023-06-07"]`) keeps the rows a mask
of the index would, every instant of the period its end names included (pandas' partial dates), so it compares
with masks of the index (`df.index < "2023-06-01"`) and with other such slices. A bound moved by a span of fixed
length (`cut - pd.Timedelta(days=28)`) is the instant it comes to."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from auditor.code.masks import period_after
from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LinearRegression

df = pd.read_csv("load.csv", parse_dates=["date"], index_col="date")
"""

_PARTS = """
        train = {train}
        test = {test}
        m = LinearRegression().fit(train[["temp"]], train["load"])
        print(m.score(test[["temp"]], test["load"]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: .loc up to a day and from that day, the day in both": (
        _PARTS.format(train='df.loc[:"2023-06-01"]', test='df.loc["2023-06-01":]'),
        [("overlap", 3)],
    ),
    "LEAK: .loc up to a month and from a day within it": (
        _PARTS.format(train='df.loc[:"2023-06"]', test='df.loc["2023-06-15":]'),
        [("overlap", 3)],
    ),
    "LEAK: a mask before a day beside a slice that starts the day before": (
        _PARTS.format(train='df[df.index < "2023-06-01"]', test='df["2023-05-31":"2023-06-07"]'),
        [("overlap", 3)],
    ),
    ".loc up to a day and from the next day": (
        _PARTS.format(train='df.loc[:"2023-05-31"]', test='df.loc["2023-06-01":]'),
        [],
    ),
    ".loc up to a month and from the next month": (
        _PARTS.format(train='df.loc[:"2023-05"]', test='df.loc["2023-06":]'),
        [],
    ),
    "a mask before a day beside a week's slice from that day": (
        _PARTS.format(train='df[df.index < "2023-06-01"]', test='df["2023-06-01":"2023-06-07"]'),
        [],
    ),
    "a mask before a day beside a week's range of the index from that day": (
        _PARTS.format(
            train='df[df.index < "2023-06-01"]', test='df[(df.index >= "2023-06-01") & (df.index < "2023-06-08")]'
        ),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_slices_of_a_time_index_by_dates(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize(
    ("end", "after"),
    [
        ("2023", "2024-01-01 00:00:00"),
        ("2023-12", "2024-01-01 00:00:00"),
        ("2023-06-01", "2023-06-02 00:00:00"),
        ("2023-06-01 12:30", "2023-06-01 12:31:00"),
        ("2023-06-01 12:30:00", None),  # one instant: the slice ends there
        ("2023-06-01T00:00Z", None),
        ("June", None),
    ],
)
def test_the_period_a_partial_date_names(end: str, after: str | None) -> None:
    assert period_after(ast.Constant(end)) == after


_CUT = """
        df = pd.read_csv("load.csv", parse_dates=["date"])
        cut = pd.Timestamp("2024-01-01")
        {start}
        train, test = df[df["date"] < cut], df[df["date"] >= start]
        m = LinearRegression().fit(train[["temp"]], train["load"])
        print(m.score(test[["temp"]], test["load"]))
        """

MOVED: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the test part starts four weeks before the cut, by a Timedelta": (
        _CUT.format(start="start = cut - pd.Timedelta(days=28)"),
        [("overlap", 5)],
    ),
    "LEAK: the test part starts four weeks before the cut, by a DateOffset in weeks": (
        _CUT.format(start="start = cut - pd.DateOffset(weeks=4)"),
        [("overlap", 5)],
    ),
    "LEAK: the test part starts a day before the cut, by a Timedelta of text": (
        _CUT.format(start='start = cut - pd.Timedelta("1D")'),
        [("overlap", 5)],
    ),
    "the test part starts a week after the cut, a gap left": (
        _CUT.format(start="start = cut + pd.Timedelta(weeks=1)"),
        [],
    ),
    "the test part starts at the cut moved by nothing": (
        _CUT.format(start="start = cut + pd.Timedelta(hours=0)"),
        [],
    ),
}


@pytest.mark.parametrize("case", list(MOVED))
def test_a_bound_moved_by_a_span_of_time(tmp_path: Path, case: str) -> None:
    body, expected = MOVED[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
