"""A mask of a name that holds a table's column (`yrs = df["year"]`, `.to_numpy()`, `.values`) cuts the rows by
that column, as the mask written on the column does, so two such masks say which rows they share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, leaks_graded

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
"""

_FRAMES = """
        df = pd.read_csv("flats.csv")
        yrs = {held}
        tr = df[yrs {low}]
        {between}te = df[yrs {high}]
        m = Ridge().fit(tr[["sqm", "age"]], tr["price"])
        print(mean_absolute_error(te["price"], m.predict(te[["sqm", "age"]])))
        """

_POSITIONS = """
        df = pd.read_csv("flats.csv")
        X, y = df[["sqm", "age"]].to_numpy(), df["price"].to_numpy()
        yrs = {held}
        tr = np.where(yrs {low})[0]
        te = np.where(yrs {high})[0]
        m = Ridge().fit(X[tr], y[tr])
        print(mean_absolute_error(y[te], m.predict(X[te])))
        """


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # LEAK: both sides hold 2021
        (_FRAMES.format(held='df["year"]', low="<= 2021", high=">= 2021", between=""), [("overlap", 5)]),
        (_FRAMES.format(held="df.year", low="<= 2021", high=">= 2021", between=""), [("overlap", 5)]),
        (_POSITIONS.format(held='df["year"].to_numpy()', low="<= 2021", high=">= 2021"), [("overlap", 6)]),
        (_POSITIONS.format(held='df["year"].values', low="<= 2021", high=">= 2021"), [("overlap", 6)]),
        # a cut that keeps the sides apart
        (_FRAMES.format(held='df["year"]', low="<= 2020", high=">= 2021", between=""), []),
        (_POSITIONS.format(held='df["year"].to_numpy()', low="< 2021", high=">= 2021"), []),
        # the name given another column between the two masks: cuts of two columns, which keep no rows apart
        (
            _FRAMES.format(held='df["year"]', low="<= 2020", high=">= 2021", between='yrs = df["built"]\n        '),
            [("overlap", 6)],
        ),
        # a rank of the column is not the column: its cut is not read as the year's
        (_FRAMES.format(held='df["year"].rank()', low="<= 2021", high=">= 2021", between=""), []),
    ],
    ids=[
        "LEAK: a column held in a name, both masks hold one year",
        "LEAK: the column as an attribute",
        "LEAK: the column's numbers, positions of np.where",
        "LEAK: the column's values",
        "the masks apart",
        "positions apart",
        "another column between the masks",
        "a rank of the column",
    ],
)
def test_a_mask_of_a_name_that_holds_a_column(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_CUT_HELD = """
        CFG = {{"cut": "2017-03-01"}}
        CUT = CFG["cut"]
        df = pd.read_csv("weekly.csv", parse_dates=["date"]).set_index("date")
        tr = df[df.index <= {train_end}]
        te = df[df.index >= {test_start}]
        m = Ridge().fit(tr[["lag1"]], tr["views"])
        print(mean_absolute_error(te["views"], m.predict(te[["lag1"]])))
        """


@pytest.mark.parametrize(
    ("train_end", "test_start", "expected"),
    [
        # LEAK: both hold the cut's week, or four weeks before it; the instants made of the text a name holds
        ("CUT", "pd.Timestamp(CUT)", [("overlap", 6)]),
        ("CUT", 'pd.Timestamp(CFG["cut"]) - pd.Timedelta(weeks=4)', [("overlap", 6)]),
        ('pd.to_datetime(CFG["cut"])', "CUT", [("overlap", 6)]),
        # apart
        ("pd.Timestamp(CUT)", 'pd.Timestamp(CFG["cut"]) + pd.Timedelta(days=1)', []),
    ],
)
def test_an_instant_made_of_a_text_a_name_holds(
    tmp_path: Path, train_end: str, test_start: str, expected: list[tuple[str, int]]
) -> None:
    body = _CUT_HELD.format(train_end=train_end, test_start=test_start)
    assert leaks_found(tmp_path, HEAD, body) == expected


_CUT_IN_A_NAME = """
        CFG = {{"cut": "2017-03-01", "gap": 14}}
        CUT, YEAR, MONTH, GAP_DAYS = "2017-03-01", 2017, 3, 14
        BUFFER = pd.Timedelta(days=14)
        df = pd.read_csv("weekly.csv", parse_dates=["date"])
        cut = {cut}
        tr = df[df["date"] < {train_end}]
        te = df[df["date"] >= cut]
        m = Ridge().fit(tr[["lag1"]], tr["views"])
        print(mean_absolute_error(te["views"], m.predict(te[["lag1"]])))
        """

_INSTANTS_HELD = [
    "pd.Timestamp(CUT)",
    'pd.Timestamp(CFG["cut"])',
    "pd.to_datetime(CUT)",
    'pd.Timestamp(f"{YEAR}-{MONTH:02d}-01")',
    'pd.Timestamp(f"{YEAR}-0{MONTH}-01")',
]


@pytest.mark.parametrize("cut", _INSTANTS_HELD)
@pytest.mark.parametrize(
    ("train_end", "expected"),
    [
        # LEAK: training runs two weeks past the test's start
        ("cut + BUFFER", [("overlap", 8)]),
        ('"2017-03-15"', [("overlap", 8)]),
        ("pd.Timestamp(CUT) + BUFFER", [("overlap", 8)]),
        ("cut + pd.Timedelta(days=GAP_DAYS)", [("overlap", 8)]),
        ('cut + pd.Timedelta(days=CFG["gap"])', [("overlap", 8)]),
        # apart: training ends at the cut, or a buffer before it
        ("cut", []),
        ("cut - BUFFER", []),
        ('cut - pd.Timedelta(days=CFG["gap"])', []),
    ],
)
def test_an_instant_held_in_a_name_made_of_names(
    tmp_path: Path, cut: str, train_end: str, expected: list[tuple[str, int]]
) -> None:
    """`cut = pd.Timestamp(CUT)` (of a name, a constant key's item or an f-string of names) holds the instant of the
    text, so a cut two weeks later shares those weeks with `date >= cut`."""
    body = _CUT_IN_A_NAME.format(cut=cut, train_end=train_end)
    assert leaks_found(tmp_path, HEAD, body) == expected


_TWO_COLUMNS = """
        df = pd.read_csv("weekly.csv", parse_dates=["date"])
        tr = df[{train}]
        te = df[{test}]
        m = Ridge().fit(tr[["lag1"]], tr["views"])
        print(mean_absolute_error(te["views"], m.predict(te[["lag1"]])))
        """


@pytest.mark.parametrize(
    ("train", "test", "expected"),
    [
        # parts chosen by different columns: rows both may hold, which only the data can say (a warning)
        ('df["date"] < "2023-01-01"', 'df["is_test"] == 1', [("overlap", 4, False)]),
        ('df["year"] <= 2021', 'df["fiscal_year"] >= 2021', [("overlap", 4, False)]),
        # one column: the code says it (an error), or says they are apart
        ('df["year"] <= 2021', 'df["year"] >= 2021', [("overlap", 4, True)]),
        ('df["is_test"] == 0', 'df["is_test"] == 1', []),
        # a condition on a value column beside the flag: the same, the data decides
        ('df["views"] >= 0', 'df["is_test"] == 1', [("overlap", 4, False)]),
    ],
)
def test_parts_chosen_by_different_columns_may_share_rows(
    tmp_path: Path, train: str, test: str, expected: list[tuple[str, int, bool]]
) -> None:
    """`date < cut` trained on, `is_test == 1` scored: the code keeps no scored row out of training, but neither
    does it put one in, so the leak is a warning that says 'may include'."""
    assert leaks_graded(tmp_path, HEAD, _TWO_COLUMNS.format(train=train, test=test)) == expected


@pytest.mark.parametrize(
    ("gap", "expected"),
    [
        ("cut + pd.Timedelta(days=GAP_DAYS)", [("overlap", 9)]),
        ('cut + pd.Timedelta(days=CFG["gap"])', [("overlap", 9)]),
        ("cut + pd.Timedelta(days=14)", [("overlap", 9)]),
        ('cut - pd.Timedelta(days=CFG["gap"])', []),
    ],
)
def test_a_training_end_held_in_a_name_moved_by_a_span_of_a_name(
    tmp_path: Path, gap: str, expected: list[tuple[str, int]]
) -> None:
    """`train_end = cut + pd.Timedelta(days=CFG["gap"])`: the span's length read from the name or item that holds it,
    so the training end is two weeks past the test's start."""
    body = _CUT_IN_A_NAME.format(cut="pd.Timestamp(CUT)", train_end="train_end").replace(
        "        tr = df[", f"        train_end = {gap}\n        tr = df["
    )
    assert leaks_found(tmp_path, HEAD, body) == expected
