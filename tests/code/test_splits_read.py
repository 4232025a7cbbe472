"""Splits and sources the reading recognises beyond train_test_split: positions drawn by numpy's legacy random
functions, positional slices that overlap, Hugging Face's train_test_split and DatasetDict, and keras' bundled
data sets. Each case is a script and the leaks it holds (kind and line); a correct look-alike holds none."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from auditor.code.analysis import analyse_file

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression, LinearRegression
from sklearn.metrics import accuracy_score
"""

_SONAR = """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]"""

# Each case's lines are counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # numpy's legacy random functions ---------------------------------------------------------------------
    "a scaler on every row, then positions from np.random.permutation sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = np.random.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions from np.random.permutation sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = np.random.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a scaler on every row, then an arange shuffled in place by np.random.shuffle": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = np.arange(len(X))
        np.random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "an arange shuffled in place, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = np.arange(len(X))
        np.random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a scaler on every row, then test positions by np.random.choice and the rest by np.setdiff1d": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        te = np.random.choice(len(X), size=40, replace=False)
        tr = np.setdiff1d(np.arange(len(X)), te)
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "test positions by np.random.choice, the scaler fitted on the rest": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        tr = np.setdiff1d(np.arange(len(X)), te)
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a model trained on every row, scored on positions np.random.choice drew": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        m = LogisticRegression().fit(X, y)
        print(m.score(X[te], y[te]))
        """,
        [("overlap", 4)],
    ),
    "a scaler on every row, then positions from RandomState(0).permutation": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        rs = np.random.RandomState(0)
        idx = rs.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions shuffled in place by a generator, the scaler fitted on the training positions": (
        _SONAR
        + """
        rng = np.random.default_rng(0)
        idx = np.arange(len(X))
        rng.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a model trained on every row of a table, scored at positions np.random.permutation drew": (
        """
        df = pd.read_csv("data.csv")
        X, y = df.drop(columns="y"), df["y"]
        te = np.random.permutation(len(df))[800:]
        clf = LogisticRegression().fit(X, y)
        print(clf.score(X.iloc[te], y.iloc[te]))
        """,
        [("overlap", 4)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reading_finds_what_the_program_holds(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    script = tmp_path / "script.py"
    offset = HEAD.count("\n")
    script.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    result = analyse_file(script)
    assert result.skipped == ()
    found = sorted((p.leak.kind.value, p.place.line - offset) for p in result.leaks)
    assert found == sorted(expected)
