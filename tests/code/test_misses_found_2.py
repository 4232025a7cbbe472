"""Leaks the reading used to pass as clean, each beside correct code that looks like it: a loop over the parts
(`for d in [train, test]`) that fills each with a statistic. Each case is a script and the leaks it holds (kind
and line, counted after HEAD); a correct look-alike holds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
"""

_TITANIC = """
        df = pd.read_csv("titanic.csv")
        train, test = train_test_split(df, random_state=0)"""

_SCORED = """
        rf = RandomForestClassifier().fit(train[["Age", "Pclass"]], train["Survived"])
        print(accuracy_score(test["Survived"], rf.predict(test[["Age", "Pclass"]])))
        """

# 1. A loop over the parts changes each in place ----------------------------------------------------------------
PARTS_LOOP: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "each part filled with its own median in a loop over [train, test]": (
        _TITANIC
        + """
        for d in [train, test]:
            d["Age"] = d["Age"].fillna(d["Age"].median())"""
        + _SCORED,
        [("preprocessing", 4)],
    ),
    "each part filled with its own median, in place, in a loop over a list named combine": (
        _TITANIC
        + """
        combine = [train, test]
        for dataset in combine:
            dataset["Age"].fillna(dataset["Age"].median(), inplace=True)"""
        + _SCORED,
        [("preprocessing", 5)],
    ),
    "each part filled with the mean of every row in a loop over the parts": (
        _TITANIC
        + """
        for d in (train, test):
            d["Age"] = d["Age"].fillna(df["Age"].mean())"""
        + _SCORED,
        [("preprocessing", 4)],
    ),
    "each part filled with the training part's median in a loop over the parts": (
        _TITANIC
        + """
        med = train["Age"].median()
        for d in [train, test]:
            d["Age"] = d["Age"].fillna(med)"""
        + _SCORED,
        [],
    ),
    "categories mapped by a fixed dict in a loop over the parts": (
        _TITANIC
        + """
        combine = [train, test]
        for dataset in combine:
            dataset["Sex"] = dataset["Sex"].map({"female": 1, "male": 0}).astype(int)
            dataset["Age"] = dataset["Age"].fillna(30)"""
        + _SCORED,
        [],
    ),
    "each part rebound to a copy filled with its own median: the parts themselves are left as they were": (
        _TITANIC
        + """
        for d in [train, test]:
            d = d.fillna(d.median())"""
        + _SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", PARTS_LOOP.values(), ids=PARTS_LOOP.keys())
def test_a_loop_over_the_parts(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected
