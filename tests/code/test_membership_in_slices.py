"""Rows kept by membership in a slice of one sequence of ids (`df.pid.isin(set(ids[:30]))`, or a comprehension over
the rows `if r.pid in test_ids`): two such masks share the rows whose ids sit at positions both slices hold, so
`ids[:30]` against `ids[20:]` trains on ten of the test's ids, while `[:n]` against `[n:]` shares none. A
comprehension's condition keeps rows as the same mask of the table does. Beside them, parts named by texts:
`split != "val"` holds the test part's rows."""

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
    "LEAK: the ids' slices written inline in set(), one overlapping the other": (
        """
        tr = df[df.pid.isin(set(ids[20:]))]
        te = df[df.pid.isin(list(ids[:30]))]"""
        + _FIT,
        [("overlap", 3)],
    ),
    "LEAK: a bound held in a name, past the other slice's start": (
        """
        N = 60
        te = df[df.pid.isin(ids[:N])]
        tr = df[df.pid.isin(ids[40:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "a bound held in a name on both sides": (
        """
        N = 60
        te = df[df.pid.isin(ids[:N])]
        tr = df[df.pid.isin(ids[N:])]"""
        + _FIT,
        [],
    ),
    "LEAK: slices counted from the end that overlap": (
        """
        tr = df[df.pid.isin(ids[:-30])]
        te = df[df.pid.isin(ids[-40:])]"""
        + _FIT,
        [("overlap", 3)],
    ),
    "slices counted from the end": (
        """
        tr = df[df.pid.isin(ids[:-30])]
        te = df[df.pid.isin(ids[-30:])]"""
        + _FIT,
        [],
    ),
    "LEAK: an end written from the sequence's length overlaps one counted from the end": (
        """
        tr = df[df.pid.isin(ids[:len(ids) - 30])]
        te = df[df.pid.isin(ids[-40:])]"""
        + _FIT,
        [("overlap", 3)],
    ),
    "LEAK: the length held in a name, the cut in another": (
        """
        n = len(ids)
        cut = n - 30
        tr = df[df.pid.isin(set(ids[:cut]))]
        te = df[df.pid.isin(ids[n - 40:])]"""
        + _FIT,
        [("overlap", 5)],
    ),
    "an end written from the sequence's length, the rest counted from the end": (
        """
        n = len(ids)
        tr = df[df.pid.isin(ids[:n - 30])]
        te = df[df.pid.isin(ids[-30:])]"""
        + _FIT,
        [],
    ),
    "LEAK: an end of two terms past the length, 50 rows beyond the other's start": (
        """
        n_test = 100
        tr = df[df.pid.isin(ids[:len(ids) - n_test + 50])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "LEAK: the test start two terms back, held in a name": (
        """
        n_test = 100
        start = len(ids) - n_test - 50
        tr = df[df.pid.isin(ids[:len(ids) - n_test])]
        te = df[df.pid.isin(ids[start:])]"""
        + _FIT,
        [("overlap", 5)],
    ),
    "LEAK: a share of the length left out, then 50 rows of it trained on": (
        """
        n_test = int(0.2 * len(ids))
        tr = df[df.pid.isin(ids[:len(ids) - n_test + 50])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "a share of the length left out, a gap of 50 before it": (
        """
        n_test = int(0.2 * len(ids))
        tr = df[df.pid.isin(ids[:len(ids) - n_test - 50])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [],
    ),
    "LEAK: the extra term a name, the share of the length another": (
        """
        n_test, n_val = int(0.2 * len(ids)), 40
        tr = df[df.pid.isin(ids[:len(ids) - n_test + n_val])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "LEAK: the extra term in parentheses": (
        """
        n_test, n_val = len(ids) // 5, 40
        tr = df[df.pid.isin(ids[:len(ids) - (n_test - n_val)])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "LEAK: the extra term in parentheses, both numbers": (
        """
        n_test, n_val = 40, 10
        tr = df[df.pid.isin(ids[:len(ids) - (n_test - n_val)])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 4)],
    ),
    "a gap in parentheses, both numbers": (
        """
        n_test, n_gap = 40, 10
        tr = df[df.pid.isin(ids[:len(ids) - (n_test + n_gap)])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [],
    ),
    "LEAK: the end held in a name": (
        """
        n_test = int(0.2 * len(ids))
        end = len(ids) - n_test + 50
        tr = df[df.pid.isin(ids[:end])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [("overlap", 5)],
    ),
    "a gap held in a name before the held-out share": (
        """
        n_test, gap = int(0.2 * len(ids)), 40
        end = len(ids) - n_test - gap
        tr = df[df.pid.isin(ids[:end])]
        te = df[df.pid.isin(ids[len(ids) - n_test:])]"""
        + _FIT,
        [],
    ),
    "ends of two terms that meet": (
        """
        n_test = 100
        tr = df[df.pid.isin(ids[:len(ids) - n_test - 50])]
        te = df[df.pid.isin(ids[len(ids) - n_test - 50:])]"""
        + _FIT,
        [],
    ),
    "a length of another sequence is no position of this one": (
        """
        tr = df[df.pid.isin(ids[:len(df) - 30])]
        te = df[df.pid.isin(ids[-40:])]"""
        + _FIT,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_membership_in_slices_of_one_sequence(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_PARTS = """
        fit = df[df["split"] {fitted}]
        te = df[df["split"] == "test"]
        m = LogisticRegression().fit(fit[["a", "b"]], fit["y"])
        print(roc_auc_score(te["y"], m.predict_proba(te[["a", "b"]])[:, 1]))
        """


@pytest.mark.parametrize(
    ("fitted", "expected"),
    [('!= "val"', [("overlap", 3)]), ('!= "test"', []), ('== "train"', [])],
    ids=["LEAK: every part but validation, the test part among them", "every part but the test", "the training part"],
)
def test_a_part_named_by_text_beside_every_part_but_one(
    tmp_path: Path, fitted: str, expected: list[tuple[str, int]]
) -> None:
    """`split != "val"` keeps every other part's rows, "test" among them: two texts written out differ."""
    assert leaks_found(tmp_path, HEAD, _PARTS.format(fitted=fitted)) == expected
