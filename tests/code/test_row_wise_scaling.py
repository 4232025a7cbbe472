"""Scaling each row by its own values learns nothing of the other rows: `zscore(X, axis=1)`, scikit-learn's
`scale(X, axis=1)` and `minmax_scale(X, axis=1)`, or a scaler fitted on the table turned on its side and turned
back, `StandardScaler().fit_transform(X.T).T`. The same calls down the columns learn every row's statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from scipy.stats import zscore
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler, minmax_scale, scale

X = np.load("X.npy")
y = np.load("y.npy")
"""

BODY = """
X = {scaled}
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(accuracy_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te)))
"""


@pytest.mark.parametrize(
    ("scaled", "expected"),
    [
        ("zscore(X, axis=1)", []),
        ("zscore(X, 1)", []),
        ("scale(X, axis=1)", []),
        ("minmax_scale(X, axis=1)", []),
        ("scale(X.T).T", []),
        ("StandardScaler().fit_transform(X.T).T", []),
        ("zscore(X)", [("preprocessing", 1)]),
        ("zscore(X, axis=0)", [("preprocessing", 1)]),
        ("scale(X, axis=0)", [("preprocessing", 1)]),
        ("StandardScaler().fit_transform(X)", [("preprocessing", 1)]),
    ],
)
def test_scaling_each_row_by_its_own_values_learns_nothing_of_the_rows(
    tmp_path: Path, scaled: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(scaled=scaled)) == expected
