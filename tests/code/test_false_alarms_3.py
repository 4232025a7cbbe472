"""Correct code that was read as a leak, each beside the real leak that looks like it: blend weights normalised
inside an optimiser's objective (a vector, not rows). Each case is a script and the leaks it holds (kind and line,
counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.preprocessing import StandardScaler
"""

_OOF = """
        df = pd.read_csv("train.csv")
        X, y = df[["a", "b"]], df["y"]
        oof = cross_val_predict(LogisticRegression(), X, y, cv=5, method="predict_proba")
        """

BLENDS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "blend weights normalised in an objective no call reaches, out-of-fold predictions scored": (
        _OOF
        + """
        def blend_loss(w):
            w = w / w.sum()
            return log_loss(y, oof @ w)
        """,
        [],
    ),
    "blend weights normalised in the objective minimize is given": (
        _OOF
        + """
        def blend_loss(w):
            w = np.abs(w) / np.abs(w).sum()
            return log_loss(y, oof @ w)
        best = minimize(blend_loss, np.ones(2) / 2, method="Nelder-Mead").x
        print(best / best.sum())
        """,
        [],
    ),
    "LEAK: a function scales the rows it is given and scores a model on them": (
        """
        def score_on(frame):
            X = StandardScaler().fit_transform(frame[["a", "b"]])
            model = LogisticRegression().fit(X[:800], frame["y"][:800])
            return model.score(X[800:], frame["y"][800:])
        """,
        [("preprocessing", 2)],
    ),
    "LEAK: components of every row's centred values, the projection then split": (
        """
        df = pd.read_csv("train.csv")
        X, y = df.drop(columns=["y"]).values, df["y"].values
        Xc = X - X.mean(axis=0)
        U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
        Z = Xc @ Vt[:5].T
        Z_tr, Z_te, y_tr, y_te = train_test_split(Z, y, random_state=0)
        print(LogisticRegression().fit(Z_tr, y_tr).score(Z_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
}


@pytest.mark.parametrize("case", list(BLENDS))
def test_blend_weights_are_not_rows(tmp_path: Path, case: str) -> None:
    body, expected = BLENDS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
