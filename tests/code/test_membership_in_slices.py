"""Rows kept by membership in a slice of one sequence of ids (`df.pid.isin(set(ids[:30]))`, or a comprehension over
the rows `if r.pid in test_ids`): two such masks share the rows whose ids sit at positions both slices hold, so
`ids[:30]` against `ids[20:]` trains on ten of the test's ids, while `[:n]` against `[n:]` shares none. A
comprehension's condition keeps rows as the same mask of the table does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

df = pd.read_csv("visits.csv")
ids = df["pid"].unique()
np.random.default_rng(0).shuffle(ids)
"""

_FIT = """
        m = LogisticRegression().fit(tr[["a", "b"]], tr["y"])
        print(roc_auc_score(te["y"], m.predict_proba(te[["a", "b"]])[:, 1]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: isin of two slices of the ids that overlap": (
        """
        test_ids = set(ids[:30])
        train_ids = set(ids[20:])
        tr = df[df.pid.isin(train_ids)]
        te = df[df.pid.isin(test_ids)]"""
        + _FIT,
        [("overlap", 5)],
    ),
    "LEAK: a comprehension over the rows, kept by membership in slices that overlap": (
        """
        test_ids = list(ids[:30])
        train_ids = ids[20:].tolist()
        tr = pd.DataFrame([r for r in df.itertuples() if r.pid in train_ids])
        te = pd.DataFrame([r for r in df.itertuples() if r.pid in test_ids])"""
        + _FIT,
        [("overlap", 5)],
    ),
    "isin of the slices before and after a cut held in a name": (
        """
        n = int(0.2 * len(ids))
        test_ids = set(ids[:n])
        train_ids = set(ids[n:])
        tr = df[df.pid.isin(train_ids)]
        te = df[df.pid.isin(test_ids)]"""
        + _FIT,
        [],
    ),
    "the test ids' slice, and every other row by the mask's complement": (
        """
        test_ids = set(ids[:30])
        tr = df[~df.pid.isin(test_ids)]
        te = df[df.pid.isin(test_ids)]"""
        + _FIT,
        [],
    ),
    "a middle slice for the test, the rest by the complement": (
        """
        test_ids = set(ids[30:60])
        tr = df[~df.pid.isin(test_ids)]
        te = df[df.pid.isin(test_ids)]"""
        + _FIT,
        [],
    ),
    "a comprehension over the rows, `in` and `not in` the test ids": (
        """
        test_ids = set(ids[:30])
        tr = pd.DataFrame([r for r in df.itertuples() if r.pid not in test_ids])
        te = pd.DataFrame([r for r in df.itertuples() if r.pid in test_ids])"""
        + _FIT,
        [],
    ),
    "slices counted from the end": (
        """
        tr = df[df.pid.isin(ids[:-30])]
        te = df[df.pid.isin(ids[-30:])]"""
        + _FIT,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_membership_in_slices_of_one_sequence(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
