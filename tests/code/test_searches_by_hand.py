"""A setting picked by the scores of a validation curve (`validation_curve`, then `np.argmax`) or of a loop of
cross-validations (`np.argmax([cross_val_score(SVC(C=c), X, y).mean() for c in Cs])`) is chosen on the rows they
cross-validate, as a search's `best_params_` is: on the test part, or on every row before the split, the test
rows chose the setting they then score."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import cross_val_score, train_test_split, validation_curve
from sklearn.svm import SVC

df = pd.read_csv("d.csv")
X, y = df.drop(columns=["y"]), df["y"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
Cs = [0.1, 1, 10]
"""

_SCORED = """
        model = SVC(C=best_C).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: C picked by a validation curve of the test part": (
        """
        _, val = validation_curve(SVC(), X_te, y_te, param_name="C", param_range=Cs, cv=5)
        best_C = Cs[np.argmax(val.mean(axis=1))]"""
        + _SCORED,
        [("multi_test", 1)],
    ),
    "LEAK: C picked by a validation curve of every row, from a range of numpy's": (
        """
        C_range = np.logspace(-3, 2, 6)
        _, val = validation_curve(SVC(), X, y, param_name="C", param_range=C_range, cv=5)
        best_C = C_range[np.argmax(val.mean(axis=1))]"""
        + _SCORED,
        [("multi_test", 2)],
    ),
    "LEAK: C picked by cross-validating each value on the test part": (
        """
        means = [cross_val_score(SVC(C=c), X_te, y_te, cv=5).mean() for c in Cs]
        best_C = Cs[int(np.argmax(means))]"""
        + _SCORED,
        [("multi_test", 2)],
    ),
    "C picked by a validation curve of the training part, the test part scored once": (
        """
        _, val = validation_curve(SVC(), X_tr, y_tr, param_name="C", param_range=Cs, cv=5)
        best_C = Cs[np.argmax(val.mean(axis=1))]"""
        + _SCORED,
        [],
    ),
    "C picked by cross-validating each value on the training part, the test part scored once": (
        """
        means = [cross_val_score(SVC(C=c), X_tr, y_tr, cv=5).mean() for c in Cs]
        best_C = Cs[int(np.argmax(means))]"""
        + _SCORED,
        [],
    ),
    "a validation curve of every row plotted, a fixed C scored": (
        """
        _, val = validation_curve(SVC(), X, y, param_name="C", param_range=Cs, cv=5)
        print(val.mean(axis=1))
        best_C = 1.0"""
        + _SCORED,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_setting_picked_by_cross_validated_scores(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
