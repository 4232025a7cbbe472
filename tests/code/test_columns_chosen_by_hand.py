"""Columns chosen by hand carry the rows their statistics were of, however the choice is written: a loop that
tests each one and grows a list (`if p < 0.01: keep.append(c)`), a list so chosen dropped, a dict made by
`dict(zip(...))`, names ranked by `sorted(d.items(), key=...)` or `key=d.get`, `filter(lambda ...)`, a list of
each column's statistic zipped back with the names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.metrics import roc_auc_score

X = pd.read_csv("genes.csv")
y = X.pop("y")
"""

_SCORED = """
        X_tr, X_te, y_tr, y_te = train_test_split(X[keep], y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """

_DROPPED = """
        X = X.drop(columns=weak)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a loop keeps the columns a Mann-Whitney test of every row finds, then split": (
        """
        keep = []
        for c in X.columns:
            stat, p = stats.mannwhitneyu(X[c][y == 1], X[c][y == 0])
            if p < 0.01:
                keep.append(c)
        """
        + _SCORED,
        [("preprocessing", 3)],
    ),
    "LEAK: a loop keeps the columns correlating with the label over every row": (
        """
        keep = []
        for c in X.columns:
            if abs(X[c].corr(y)) > 0.3:
                keep.append(c)
        """
        + _SCORED,
        [("preprocessing", 3)],
    ),
    "LEAK: a loop puts the weak columns aside, which are dropped before the split": (
        """
        weak = []
        for c in X.columns:
            r, p = stats.pearsonr(X[c], y)
            if p > 0.05:
                weak.append(c)
        """
        + _DROPPED,
        [("preprocessing", 3)],
    ),
    "LEAK: the weak columns dropped are the ones a comprehension found": (
        "\n        weak = [c for c in X.columns if stats.pearsonr(X[c], y)[1] > 0.05]" + _DROPPED,
        [("preprocessing", 1)],
    ),
    "LEAK: the columns dropped are those a correlation of every row ranks low": (
        """
        corr = X.corrwith(y).abs()
        X = X.drop(columns=corr[corr < 0.1].index)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """,
        [("preprocessing", 1)],
    ),
    "a loop keeps the columns a test of the training part finds; its else branch prints": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        keep = []
        for c in X_tr.columns:
            stat, p = stats.mannwhitneyu(X_tr[c][y_tr == 1], X_tr[c][y_tr == 0])
            if p < 0.01:
                keep.append(c)
            else:
                print("dropped", c)
        m = LogisticRegression().fit(X_tr[keep], y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te[keep])[:, 1]))
        """,
        [],
    ),
    "weak columns found in the training part dropped from both parts": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        corr = X_tr.corrwith(y_tr).abs()
        weak = corr[corr < 0.1].index
        X_tr, X_te = X_tr.drop(columns=weak), X_te.drop(weak, axis=1)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
        """,
        [],
    ),
    "a loop keeps the numeric columns, by their type": (
        """
        keep = []
        for c in X.columns:
            if X[c].dtype != "object":
                keep.append(c)
        """
        + _SCORED,
        [],
    ),
    "constant and mostly empty columns dropped over every row, no label looked at": (
        """
        empty = []
        for c in X.columns:
            if X[c].nunique() <= 1:
                empty.append(c)
        X = X.drop(columns=X.columns[X.isna().mean() > 0.5])
        weak = empty
        """
        + _DROPPED,
        [],
    ),
    "LEAK: importances of every row in dict(zip(...)), the names kept by a comprehension over it": (
        """
        from sklearn.ensemble import RandomForestClassifier
        imp = dict(zip(X.columns, RandomForestClassifier().fit(X, y).feature_importances_))
        keep = [c for c in imp if imp[c] > 0.01]
        """
        + _SCORED,
        [("preprocessing", 2)],
    ),
    "LEAK: mutual information of every row in dict(zip(...)), ranked by sorted(key=scores.get)": (
        """
        from sklearn.feature_selection import mutual_info_classif
        scores = dict(zip(X.columns, mutual_info_classif(X, y)))
        keep = sorted(scores, key=scores.get)[-10:]
        """
        + _SCORED,
        [("preprocessing", 2)],
    ),
    "LEAK: correlations of every row ranked as (name, value) pairs, the first names kept": (
        """
        corrs = {c: abs(X[c].corr(y)) for c in X.columns}
        keep = [c for c, _ in sorted(corrs.items(), key=lambda kv: kv[1])[-10:]]
        """
        + _SCORED,
        [("preprocessing", 1)],
    ),
    "LEAK: importances of every row, the names kept by filter(lambda ...)": (
        """
        from sklearn.ensemble import RandomForestClassifier
        imp = pd.Series(RandomForestClassifier().fit(X, y).feature_importances_, index=X.columns)
        keep = list(filter(lambda c: imp[c] > 0.01, imp.index))
        """
        + _SCORED,
        [("preprocessing", 2)],
    ),
    "LEAK: each column's correlation in a list, zipped back with the names and cut": (
        """
        corrs = [abs(X[c].corr(y)) for c in X.columns]
        keep = [c for c, r in zip(X.columns, corrs) if r > 0.1]
        """
        + _SCORED,
        [("preprocessing", 1)],
    ),
    "importances of the training part in dict(zip(...)), ranked by key=imp.get and filter(lambda ...)": (
        """
        from sklearn.ensemble import RandomForestClassifier
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        imp = dict(zip(X_tr.columns, RandomForestClassifier().fit(X_tr, y_tr).feature_importances_))
        ranked = sorted(imp, key=imp.get)[-10:]
        keep = list(filter(lambda c: imp[c] > 0.01, ranked))
        m = LogisticRegression().fit(X_tr[keep], y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te[keep])[:, 1]))
        """,
        [],
    ),
    "names sorted alphabetically and filtered by their spelling": (
        """
        cols = dict(zip(X.columns, range(len(X.columns))))
        keep = list(filter(lambda c: not c.startswith("id_"), sorted(cols, key=str.lower)))
        """
        + _SCORED,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_columns_chosen_in_a_loop(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
