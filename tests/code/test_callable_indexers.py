"""A function given as a table's index selects the rows its mask keeps: `df[lambda d: d.year < 2020]`,
`df.loc[lambda d: d.split == "test", cols]`, `df.loc[is_test]` with `is_test` a function of the file, as
`df[df.year < 2020]` does. Read as the whole table, both parts would seem to hold every row: a false alarm
where the parts are apart, and a miss where the scaler was fitted before the cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import roc_auc_score

df = pd.read_csv("visits.csv")
cols = ["a", "b"]
"""

_FIT = """
m = LogisticRegression().fit(train[cols], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[cols])[:, 1]))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "two lambdas keeping years apart": (
        """
train = df.loc[lambda d: d["year"] <= 2021]
test = df.loc[lambda d: d["year"] >= 2022]"""
        + _FIT,
        [],
    ),
    "lambdas as the index of the table itself and with columns": (
        """
train = df[lambda d: d.split == "train"]
test = df.loc[lambda d: d.split == "test", ["a", "b", "y"]]"""
        + _FIT,
        [],
    ),
    "a function of the file as the index": (
        """
def is_test(d):
    return d["split"] == "test"
train = df.query("split == 'train'")
test = df.loc[is_test]"""
        + _FIT,
        [],
    ),
    "LEAK: lambdas keeping years that overlap": (
        """
train = df.loc[lambda d: d["year"] <= 2022]
test = df.loc[lambda d: d["year"] >= 2022]"""
        + _FIT,
        [("overlap", 3)],
    ),
    "LEAK: a scaler fitted on every row, then the parts kept by lambdas": (
        """
df[cols] = StandardScaler().fit_transform(df[cols])
train = df.loc[lambda d: d.split == "train"]
test = df.loc[lambda d: d.split == "test"]"""
        + _FIT,
        [("preprocessing", 1)],
    ),
    "LEAK: a model fitted on every row, scored on the part a lambda keeps": (
        """
train = df
test = df[lambda d: d.split == "test"]"""
        + _FIT,
        [("overlap", 3)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_function_given_as_the_index_selects_the_rows_its_mask_keeps(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
