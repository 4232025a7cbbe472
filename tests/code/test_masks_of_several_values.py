"""A mask that keeps rows of several values or ranges of one column (`isin([2019, 2021])`, `(year == 2019) |
(year == 2021)`, `query("year == 2019 or year == 2021")`) shares rows with another side of that column's cut exactly
when one of its values or ranges does; it is not every row, nor none. Conditions joined by `|` over several columns
(`(year == 2022) | ((year == 2023) & (q <= 2))`) keep the rows of each, each read as a mask of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.code.masks import disjuncts_of_columns, mask_union
from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

df = pd.read_csv("flights.csv")
"""

_PARTS = """
        train = {train}
        test = {test}
        model = LogisticRegression().fit(train[["distance"]], train["late"])
        print(model.score(test[["distance"]], test["late"]))
        """

_LATEST = "df[df.year == 2023]"

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "two earlier years joined by |, the last year scored": (
        _PARTS.format(train="df[(df.year == 2022) | (df.year == 2021)]", test=_LATEST),
        [],
    ),
    "two earlier years by a query's or, the last year scored": (
        _PARTS.format(train='df.query("year == 2022 or year == 2021")', test=_LATEST),
        [],
    ),
    "years before and after a gap by |, a year in the gap scored": (
        _PARTS.format(train="df[(df.year < 2020) | (df.year > 2023)]", test=_LATEST),
        [],
    ),
    "cities listed apart from the one scored": (
        _PARTS.format(train='df[df.city.isin(["NY", "LA"])]', test='df[df.city == "SF"]'),
        [],
    ),
    "LEAK: a year joined by | to the year scored": (
        _PARTS.format(train="df[(df.year == 2022) | (df.year == 2023)]", test=_LATEST),
        [("overlap", 3)],
    ),
    "LEAK: a query's or that holds the year scored": (
        _PARTS.format(train='df.query("year == 2022 or year == 2023")', test=_LATEST),
        [("overlap", 3)],
    ),
    "LEAK: two years listed apart, one of them scored": (
        _PARTS.format(train="df[df.year.isin([2020, 2023])]", test=_LATEST),
        [("overlap", 3)],
    ),
    "LEAK: a range by | that reaches the year scored": (
        _PARTS.format(train="df[(df.year < 2020) | (df.year >= 2023)]", test=_LATEST),
        [("overlap", 3)],
    ),
    "LEAK: a year or a region, whose rows may be of the year scored": (
        _PARTS.format(train='df[(df.year == 2021) | (df.region == "eu")]', test=_LATEST),
        [("overlap", 3)],
    ),
    "a year, or the first half of the next by |, the second half of that year scored": (
        _PARTS.format(
            train="df[(df.year == 2022) | ((df.year == 2023) & (df.q <= 2))]",
            test="df[(df.year == 2023) & (df.q > 2)]",
        ),
        [],
    ),
    "a year, or the first half of the next by a query's or, the second half scored": (
        _PARTS.format(
            train='df.query("year == 2022 or (year == 2023 and q <= 2)")', test='df.query("year == 2023 and q > 2")'
        ),
        [],
    ),
    "LEAK: a year, or the next up to its third quarter, the next from its third quarter scored": (
        _PARTS.format(
            train="df[(df.year == 2022) | ((df.year == 2023) & (df.q <= 3))]",
            test="df[(df.year == 2023) & (df.q >= 3)]",
        ),
        [("overlap", 3)],
    ),
    "LEAK: a year, or the flights flagged, whose rows may be of the half scored": (
        _PARTS.format(
            train="df[(df.year == 2022) | (df.flagged == 1)]",
            test="df[(df.year == 2023) & (df.q > 2)]",
        ),
        [("overlap", 3)],
    ),
    "the years cut by comparison methods, .le() and .gt()": (
        _PARTS.format(train="df[df.year.le(2022)]", test="df[df.year.gt(2022)]"),
        [],
    ),
    "LEAK: the years cut by comparison methods that share a year, .le() and .ge()": (
        _PARTS.format(train="df[df.year.le(2023)]", test="df[df.year.ge(2023)]"),
        [("overlap", 3)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_masks_of_several_values(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_the_spans_of_a_mask_of_several_values() -> None:
    assert len(mask_union("df.year.isin([2019, 2021, 2023])")) == 3
    assert len(mask_union("(df.year == 2019) | (df.year > 2021)")) == 2
    assert mask_union("(df.year == 2019) | (df.region == 'eu')") == ()  # two columns: no spans of one
    assert mask_union("df.year == 2019") == ()  # one value: a span of its own, not a union
    assert mask_union("df.year.isin(years)") == ()  # values not written out
    assert disjuncts_of_columns("(df.year == 2019) | (df.region == 'eu')") == ["df.year == 2019", "df.region == 'eu'"]
    assert disjuncts_of_columns("(df.year == 2019) | (df.year > 2021)") is None  # one column: mask_union's
    assert disjuncts_of_columns("(df.year == 2019) & (df.q > 2)") is None
