"""A statistic of the labels alone given to a model as a setting (the class balance of every row as
`scale_pos_weight`, class weights from every label) is a weak leak: a warning, not an error, since a stratified
split keeps that balance in both parts. The same statistic reaching the model through its rows (a target mean as
a feature) stays an error, and weights from the training labels are clean. Each case is a script and the leaks it
holds (kind, line counted after HEAD, whether an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_graded

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

df = pd.read_csv("fraud.csv")
X, y = df.drop(columns="is_fraud"), df["is_fraud"]
"""

_SPLIT_AND_SCORE = """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, stratify=y, random_state=0)
    print(model.fit(X_tr, y_tr).score(X_te, y_te))
"""

CASES: dict[str, tuple[str, list[tuple[str, int, bool]]]] = {
    "the class balance of every label as scale_pos_weight: a warning": (
        """
    model = XGBClassifier(scale_pos_weight=(y == 0).sum() / (y == 1).sum())
"""
        + _SPLIT_AND_SCORE,
        [("preprocessing", 1, False)],
    ),
    "class weights from value_counts of every label: a warning": (
        """
    counts = y.value_counts()
    model = LogisticRegression(class_weight={c: len(y) / (2 * n) for c, n in counts.items()})
"""
        + _SPLIT_AND_SCORE,
        [("preprocessing", 1, False)],
    ),
    "the class balance of the training labels: clean": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, stratify=y, random_state=0)
    model = XGBClassifier(scale_pos_weight=(y_tr == 0).sum() / (y_tr == 1).sum())
    print(model.fit(X_tr, y_tr).score(X_te, y_te))
""",
        [],
    ),
    "LEAK: each merchant's fraud rate over every row as a feature: an error": (
        """
    X["merchant_rate"] = df.groupby("merchant")["is_fraud"].transform("mean")
    model = LogisticRegression()
"""
        + _SPLIT_AND_SCORE,
        [("preprocessing", 1, True)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_class_balance(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_graded(tmp_path, HEAD, body) == sorted(expected)
