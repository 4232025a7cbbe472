"""Copies dropped from the training part only, after the split, with the rows never deduplicated before it: a row
and its copy may sit on both sides, so the test rows may have copies the model trained on (CDL002, a warning: the
data decides). Dropped before the split, or from a pool of augmented training rows, they are clean. Each case is a
script and the leaks it holds (kind, line counted after HEAD, whether an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_graded

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

df = pd.read_csv("scraped_products.csv")
"""

_SCORE = """
    rf = RandomForestClassifier().fit(X_tr, y_tr)
    print(rf.score(X_te, y_te))
"""

CASES: dict[str, tuple[str, list[tuple[str, int, bool]]]] = {
    "LEAK: duplicates dropped from the training part only, after the split": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="category"), df["category"], random_state=0)
    X_tr = X_tr.drop_duplicates()
    y_tr = y_tr.loc[X_tr.index]
"""
        + _SCORE,
        [("overlap", 2, False)],
    ),
    "LEAK: each part deduplicated on its own: copies across the cut remain": (
        """
    train, test = train_test_split(df, random_state=0)
    train, test = train.drop_duplicates(), test.drop_duplicates()
    X_tr, y_tr = train.drop(columns="category"), train["category"]
    X_te, y_te = test.drop(columns="category"), test["category"]
"""
        + _SCORE,
        [("overlap", 2, False)],
    ),
    "duplicates dropped before the split": (
        """
    df = df.drop_duplicates()
    X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="category"), df["category"], random_state=0)
"""
        + _SCORE,
        [],
    ),
    "duplicates dropped before the split and again from the training part": (
        """
    df = df.drop_duplicates()
    X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="category"), df["category"], random_state=0)
    X_tr = X_tr.drop_duplicates()
    y_tr = y_tr.loc[X_tr.index]
"""
        + _SCORE,
        [],
    ),
    "augmented copies of the training part, their duplicates dropped": (
        """
    train, test = train_test_split(df, random_state=0)
    noisy = train.assign(title=train["title"].str.lower())
    train = pd.concat([train, noisy]).drop_duplicates()
    X_tr, y_tr = train.drop(columns="category"), train["category"]
    X_te, y_te = test.drop(columns="category"), test["category"]
"""
        + _SCORE,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_deduplication(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_graded(tmp_path, HEAD, body) == sorted(expected)
