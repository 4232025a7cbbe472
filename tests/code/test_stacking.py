"""A model's predictions used as features carry what it learned of its training rows' labels: fitted on every row
before the split (or before cross-validation), they hand the test rows' labels to the next model (CDL001); made
out of fold, or by models fitted on the training part only, they do not. Each case is a script and the leaks it
holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import cross_val_predict, cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsRegressor

df = pd.read_csv("wine.csv")
X = df.drop(columns="quality").values
y = (df["quality"] >= 6).astype(int).values
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a forest fitted on every row, its probabilities the next model's features, then split": (
        """
    rf = RandomForestClassifier(n_estimators=200, random_state=0)
    rf.fit(X, y)
    meta_X = rf.predict_proba(X)
    M_tr, M_te, y_tr, y_te = train_test_split(meta_X, y, test_size=0.2, random_state=0)
    meta = LogisticRegression().fit(M_tr, y_tr)
    print(accuracy_score(y_te, meta.predict(M_te)))
""",
        [("preprocessing", 2)],
    ),
    "LEAK: a neighbours regressor's predictions of every row as a feature, then cross-validated": (
        """
    knn = KNeighborsRegressor(n_neighbors=7, weights="distance").fit(df[["lat", "lon"]], df["price"])
    df["knn_price"] = knn.predict(df[["lat", "lon"]])
    scores = cross_val_score(GradientBoostingRegressor(), df[["area", "knn_price"]], df["price"], cv=5)
    print(scores.mean())
""",
        [("preprocessing", 1)],
    ),
    "out-of-fold predictions on the training part, the test part's from the model fitted on it": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    rf = RandomForestClassifier(n_estimators=200, random_state=0)
    oof = cross_val_predict(rf, X_tr, y_tr, cv=5, method="predict_proba")
    rf.fit(X_tr, y_tr)
    meta = LogisticRegression().fit(oof, y_tr)
    print(accuracy_score(y_te, meta.predict(rf.predict_proba(X_te))))
""",
        [],
    ),
    "a blend: base models fitted on one part, the blender on their predictions of another": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    X_a, X_b, y_a, y_b = train_test_split(X_tr, y_tr, test_size=0.5, random_state=0)
    rf = RandomForestClassifier(random_state=0).fit(X_a, y_a)
    blender = LogisticRegression().fit(rf.predict_proba(X_b), y_b)
    print(accuracy_score(y_te, blender.predict(rf.predict_proba(X_te))))
""",
        [],
    ),
    "a model's predictions of the test rows scored, and its training residuals looked at": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    rf = RandomForestClassifier(random_state=0).fit(X_tr, y_tr)
    wrong = y_tr != rf.predict(X_tr)
    print(wrong.mean(), accuracy_score(y_te, rf.predict(X_te)))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_stacking(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
