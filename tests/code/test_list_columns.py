"""A column assigned a list made by a comprehension holds what the list's elements are made of: a statistic of
every row, a copy of the label, or values computed row by row from the row's own columns. Each case is a script
and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

df = pd.read_csv("houses.csv")
"""

_MODEL = """
    X_train, X_test, y_train, y_test = train_test_split(df[["sqft", "m"]], df["price"], random_state=0)
    print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a list of the price's mean over every row, one per row": (
        """
    df["m"] = [df["price"].mean() for _ in range(len(df))]
"""
        + _MODEL,
        [("preprocessing", 1)],
    ),
    "LEAK: a list copying the label row by row": (
        """
    df["m"] = [p for p in df["price"]]
"""
        + _MODEL,
        [("label_in_features", 4)],
    ),
    "a list of values computed from each row's own columns": (
        """
    df["m"] = [len(str(a)) + r for a, r in zip(df["address"], df["rooms"])]
"""
        + _MODEL,
        [],
    ),
    "each row's own mean and range, met by iterating over the rows": (
        """
    cols = ["s0", "s1", "s2"]
    df["m"] = [np.mean(r) for r in df[cols].to_numpy()]
    df["r"] = [row.max() - row.min() for _, row in df[cols].iterrows()]
"""
        + _MODEL,
        [],
    ),
    "a lag of the label written by hand, the value of the row before, the rows cut in time": (
        """
    df["m"] = [None] + [df["price"].iloc[i - 1] for i in range(1, len(df))]
    X_train, X_test, y_train, y_test = train_test_split(df[["sqft", "m"]], df["price"], shuffle=False)
    print(Ridge().fit(X_train, y_train).score(X_test, y_test))
""",
        [],
    ),
    "LEAK: that hand-written lag with the rows shuffled into train and test": (
        """
    df["m"] = [None] + [df["price"].iloc[i - 1] for i in range(1, len(df))]
"""
        + _MODEL,
        [("temporal_shuffle", 3)],
    ),
    "LEAK: the label of the row itself, written by hand": (
        """
    df["m"] = [df["price"].iloc[i] for i in range(len(df))]
"""
        + _MODEL,
        [("label_in_features", 4)],
    ),
    "LEAK: a sum over every chunk of a file read in chunks, the chunks then put together": (
        """
    parts, total, n = [], 0.0, 0
    for chunk in pd.read_csv("big.csv", chunksize=100000):
        total += chunk["amount"].sum()
        n += len(chunk)
        parts.append(chunk)
    df = pd.concat(parts)
    df["m"] = df["amount"] - total / n
"""
        + _MODEL,
        [("preprocessing", 3)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_list_columns(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
