"""Rows made one item at a time, as audio and signal code writes them: each clip's statistics joined into one
feature vector (`np.concatenate([a.mean(axis=1), a.std(axis=1)])`), then stacked. Joining one row's values makes
no copy of a row; stacking whole arrays with a noisy copy of themselves does. Each case is a script and the leaks
it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
"""

_SCORED = """
        y = np.load("labels.npy")
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        clf = LogisticRegression().fit(X_tr, y_tr)
        print(accuracy_score(y_te, clf.predict(X_te)))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "each clip's statistics joined into one vector, the vectors stacked": (
        """
        raw = np.load("clips.npy")
        X = np.vstack([np.concatenate([a.mean(axis=1), a.std(axis=1)]) for a in raw])"""
        + _SCORED,
        [],
    ),
    "each clip's statistics joined into one vector in a loop, the vectors stacked": (
        """
        raw = np.load("clips.npy")
        rows = []
        for a in raw:
            rows.append(np.concatenate([a.mean(axis=1), a.std(axis=1), a.max(axis=1)]))
        X = np.vstack(rows)"""
        + _SCORED,
        [],
    ),
    "each clip joined with itself reversed, the clips stacked": (
        """
        raw = np.load("clips.npy")
        X = np.stack([np.concatenate([a, a[::-1]]) for a in raw])"""
        + _SCORED,
        [],
    ),
    "LEAK: the clips stacked with a noisy copy of themselves before the split": (
        """
        raw = np.load("clips.npy").reshape(100, -1)
        X = np.concatenate([raw, raw + np.random.normal(0, 0.01, raw.shape)])"""
        + _SCORED,
        [("overlap", 2)],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_rows_made_per_item(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
