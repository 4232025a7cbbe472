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
    **{
        f"LEAK: noisy copies of every clip appended {how}, then put together before the split": (
            f"""
        X0 = np.load("feats.npy")
        y0 = np.load("labels.npy")
        xs, ys = [X0], [y0]
        {loop}
            xs.append(X0 + np.random.normal(0, 0.01, X0.shape))
            ys.append(y0)
        X, y = np.concatenate(xs), np.concatenate(ys)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        clf = LogisticRegression().fit(X_tr, y_tr)
        print(accuracy_score(y_te, clf.predict(X_te)))
        """,
            [("overlap", line)],
        )
        for how, loop, line in (
            ("in a loop over a range", "for _ in range(2):", 7),
            ("in a loop over listed seeds", "SEEDS = [0, 1]\n        for seed in SEEDS:", 8),
        )
    },
    "the chunks of a file appended one by one, then put together": (
        """
        parts = []
        for chunk in np.array_split(np.load("feats.npy"), 4):
            parts.append(chunk)
        X = np.concatenate(parts)"""
        + _SCORED,
        [],
    ),
    "the files of a folder appended one by one, then put together": (
        """
        parts = []
        for name in ["a.npy", "b.npy", "c.npy"]:
            parts.append(np.load(name))
        X = np.concatenate(parts)"""
        + _SCORED,
        [],
    ),
    "each clip appended one at a time, then put together": (
        """
        parts = []
        for clip in np.load("clips.npy"):
            parts.append(clip)
        X = np.stack(parts)"""
        + _SCORED,
        [],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_rows_made_per_item(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
