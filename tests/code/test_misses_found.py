"""Leaks the reading used to pass as clean, each beside correct code that looks like it: positions drawn by
Python's random module, rows kept by a statistic of every row, a sample whose index is reset before the rest is
taken, values filled from later rows in place or before a time-series cross-validation. Each case is a script
and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import random
import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import TimeSeriesSplit, cross_val_score, train_test_split
from sklearn.preprocessing import StandardScaler
"""

_SONAR = """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]"""

# 1. Positions drawn by Python's random module, then sliced or indexed with ---------------------------------------
STDLIB_RANDOM: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a scaler on every row, then positions shuffled by random.shuffle and sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = list(range(len(X)))
        random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions shuffled by random.shuffle and sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = list(range(len(X)))
        random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a vectorizer on every text, then positions shuffled by a random.Random": (
        """
        df = pd.read_csv("reviews.csv")
        X = TfidfVectorizer().fit_transform(df["text"])
        y = df["label"].values
        idx = list(range(len(df)))
        random.Random(0).shuffle(idx)
        cut = int(0.8 * len(idx))
        tr, te = idx[:cut], idx[cut:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 2)],
    ),
    "positions shuffled by a random.Random, the vectorizer fitted on the training texts": (
        """
        df = pd.read_csv("reviews.csv")
        y = df["label"].values
        rng = random.Random(0)
        idx = list(range(len(df)))
        rng.shuffle(idx)
        cut = int(0.8 * len(idx))
        tr, te = idx[:cut], idx[cut:]
        vec = TfidfVectorizer().fit(df["text"].iloc[tr])
        clf = LogisticRegression().fit(vec.transform(df["text"].iloc[tr]), y[tr])
        print(clf.score(vec.transform(df["text"].iloc[te]), y[te]))
        """,
        [],
    ),
    "an imputer on every row, then test positions by random.sample and the rest by a comprehension": (
        _SONAR
        + """
        X = SimpleImputer().fit_transform(X)
        te = random.sample(range(len(X)), 40)
        tr = [i for i in range(len(X)) if i not in te]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "test positions by random.sample, the rest by a comprehension, the imputer fitted on the rest": (
        _SONAR
        + """
        te = random.sample(range(len(X)), 40)
        tr = [i for i in range(len(X)) if i not in set(te)]
        imp = SimpleImputer().fit(X[tr])
        print(LogisticRegression().fit(imp.transform(X[tr]), y[tr]).score(imp.transform(X[te]), y[te]))
        """,
        [],
    ),
    "an imputer on every row, then test positions by random.sample and the rest by np.setdiff1d": (
        _SONAR
        + """
        X = SimpleImputer().fit_transform(X)
        te = random.sample(range(len(X)), k=40)
        tr = np.setdiff1d(np.arange(len(X)), te)
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler on every row, then every position drawn by random.sample (a shuffle) and sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = random.sample(range(len(X)), len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "every position drawn by random.sample (a shuffle) and sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = random.sample(range(len(X)), len(X))
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    # the rest of numpy's drawn sample written as a comprehension was read as every row: a false overlap
    "test positions by np.random.choice, the rest by a comprehension": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        tr = [i for i in range(len(X)) if i not in te]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [],
    ),
    "a model trained on every row, scored on positions random.sample drew": (
        _SONAR
        + """
        te = random.sample(range(len(X)), 40)
        m = LogisticRegression().fit(X, y)
        print(m.score(X[te], y[te]))
        """,
        [("overlap", 4)],
    ),
}


@pytest.mark.parametrize("body, expected", STDLIB_RANDOM.values(), ids=STDLIB_RANDOM.keys())
def test_positions_drawn_by_pythons_random_module(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected
