"""Weights a hand-written gradient descent learns (`w -= lr * X[tr].T @ (p - y[tr]) / n` in a loop) are a model of
the rows its steps read, and `X[te] @ w` its predictions: so a standardisation of every row before the split, or
test rows among the steps' rows, reach the score as they do through a library's model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.metrics import accuracy_score
"""

_STEPS = """
        data = np.loadtxt("feats.csv", delimiter=",", skiprows=1)
        X, y = data[:, :-1], data[:, -1].astype(int)
        idx = np.random.default_rng(0).permutation(len(X))
        tr, te = idx[:800], idx[800:]
        {scaled}
        w = np.zeros(X.shape[1])
        for _ in range(500):
            p = 1 / (1 + np.exp(-(X[{fitted}] @ w)))
            {step}
        pred = (X[te] @ w) > 0
        {score}
        """

_STEP = "w -= 0.1 * X[tr].T @ (p - y[tr]) / len(tr)"
_SCALED_ALL = "X = (X - X.mean(axis=0)) / X.std(axis=0)"
_SCALED_TRAIN = "X = (X - X[tr].mean(axis=0)) / X[tr].std(axis=0)"
_HAND = 'print("test accuracy", (pred == y[te]).mean())'
_METRIC = "print(accuracy_score(y[te], pred))"


@pytest.mark.parametrize(
    ("scaled", "fitted", "step", "score", "expected"),
    [
        # every row standardised before the split, then a model of the training rows scored on the test rows
        (_SCALED_ALL, "tr", _STEP, _HAND, [("preprocessing", 5)]),
        (_SCALED_ALL, "tr", _STEP, _METRIC, [("preprocessing", 5)]),
        (_SCALED_ALL, "tr", "w = w - 0.1 * np.dot(X[tr].T, p - y[tr]) / len(tr)", _METRIC, [("preprocessing", 5)]),
        (_SCALED_ALL, "tr", "w -= 0.1 * X[tr].T.dot(p - y[tr]) / len(tr)", _METRIC, [("preprocessing", 5)]),
        # steps over every row, the test rows among them
        (_SCALED_TRAIN, "idx", "w -= 0.1 * X[idx].T @ (p - y[idx]) / len(idx)", _HAND, [("overlap", 9)]),
        # statistics of the training rows only, steps over the training rows: no leak
        (_SCALED_TRAIN, "tr", _STEP, _HAND, []),
        (_SCALED_TRAIN, "tr", _STEP, _METRIC, []),
        # no gradient (a running count of the rows' labels): no model, nothing scored
        (_SCALED_ALL, "tr", "w += (p > 0.5).sum()", _HAND, []),
    ],
    ids=[
        "LEAK: standardised first, scored by hand",
        "LEAK: standardised first, scored by a metric",
        "LEAK: the step written out, the gradient by np.dot",
        "LEAK: the gradient by .dot",
        "LEAK: steps over the test rows too",
        "standardised by the training rows",
        "standardised by the training rows, scored by a metric",
        "a count, no gradient",
    ],
)
def test_weights_learned_by_gradient_steps_are_a_model(
    tmp_path: Path, scaled: str, fitted: str, step: str, score: str, expected: list[tuple[str, int]]
) -> None:
    body = _STEPS.format(scaled=scaled, fitted=fitted, step=step, score=score)
    assert leaks_found(tmp_path, HEAD, body) == expected
