"""Columns chosen by a loop that tests each one and grows a list (`if p < 0.01: keep.append(c)`), or dropped by
a list so chosen, carry the rows the test was of, as the same choice written as a comprehension does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.metrics import roc_auc_score

X = pd.read_csv("genes.csv")
y = X.pop("y")
"""

_SCORED = """
        X_tr, X_te, y_tr, y_te = train_test_split(X[keep], y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """

_DROPPED = """
        X = X.drop(columns=weak)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a loop keeps the columns a Mann-Whitney test of every row finds, then split": (
        """
        keep = []
        for c in X.columns:
            stat, p = stats.mannwhitneyu(X[c][y == 1], X[c][y == 0])
            if p < 0.01:
                keep.append(c)
        """
        + _SCORED,
        [("preprocessing", 3)],
    ),
    "LEAK: a loop keeps the columns correlating with the label over every row": (
        """
        keep = []
        for c in X.columns:
            if abs(X[c].corr(y)) > 0.3:
                keep.append(c)
        """
        + _SCORED,
        [("preprocessing", 3)],
    ),
    "LEAK: a loop puts the weak columns aside, which are dropped before the split": (
        """
        weak = []
        for c in X.columns:
            r, p = stats.pearsonr(X[c], y)
            if p > 0.05:
                weak.append(c)
        """
        + _DROPPED,
        [("preprocessing", 3)],
    ),
    "LEAK: the weak columns dropped are the ones a comprehension found": (
        "\n        weak = [c for c in X.columns if stats.pearsonr(X[c], y)[1] > 0.05]" + _DROPPED,
        [("preprocessing", 1)],
    ),
    "LEAK: the columns dropped are those a correlation of every row ranks low": (
        """
        corr = X.corrwith(y).abs()
        X = X.drop(columns=corr[corr < 0.1].index)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """,
        [("preprocessing", 1)],
    ),
    "a loop keeps the columns a test of the training part finds; its else branch prints": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        keep = []
        for c in X_tr.columns:
            stat, p = stats.mannwhitneyu(X_tr[c][y_tr == 1], X_tr[c][y_tr == 0])
            if p < 0.01:
                keep.append(c)
            else:
                print("dropped", c)
        m = LogisticRegression().fit(X_tr[keep], y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te[keep])[:, 1]))
        """,
        [],
    ),
    "weak columns found in the training part dropped from both parts": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        corr = X_tr.corrwith(y_tr).abs()
        weak = corr[corr < 0.1].index
        X_tr, X_te = X_tr.drop(columns=weak), X_te.drop(weak, axis=1)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """,
        [],
    ),
    "a loop keeps the numeric columns, by their type": (
        """
        keep = []
        for c in X.columns:
            if X[c].dtype != "object":
                keep.append(c)
        """
        + _SCORED,
        [],
    ),
    "constant and mostly empty columns dropped over every row, no label looked at": (
        """
        empty = []
        for c in X.columns:
            if X[c].nunique() <= 1:
                empty.append(c)
        X = X.drop(columns=X.columns[X.isna().mean() > 0.5])
        weak = empty
        """
        + _DROPPED,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_columns_chosen_in_a_loop(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
