"""scipy's tests of a column's values under the label's two values (`ttest_ind(X[y == 1], X[y == 0])`,
`mannwhitneyu`) or of a column against the label (`pearsonr(X[c], y)`) score each column against the label, as
`f_classif` does: columns kept by their p-values over every row were chosen with the test rows' labels."""

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

_SPLIT_FIRST = """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        {chosen}
        m = LogisticRegression().fit(X_tr[keep], y_tr)
        print(roc_auc_score(y_te, m.predict_proba(X_te[keep])[:, 1]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: columns kept by a t-test of every row's classes, then split": (
        "\n        t, p = stats.ttest_ind(X[y == 1], X[y == 0], axis=0)\n        keep = X.columns[p < 0.05]" + _SCORED,
        [("preprocessing", 1)],
    ),
    "LEAK: columns kept by a Mann-Whitney test of each column over every row, then split": (
        "\n        p = pd.Series({c: stats.mannwhitneyu(X.loc[y == 1, c], X.loc[y == 0, c]).pvalue for c in X.columns})"
        "\n        keep = p[p < 0.05].index" + _SCORED,
        [("preprocessing", 1)],
    ),
    "LEAK: columns kept by their correlation with the label over every row, then split": (
        "\n        keep = [c for c in X.columns if stats.pearsonr(X[c], y)[1] < 0.01]" + _SCORED,
        [("preprocessing", 1)],
    ),
    "LEAK: columns kept by a Kruskal-Wallis test of every row, one sample per class passed unpacked": (
        "\n        keep = [c for c in X.columns"
        " if stats.kruskal(*[X.loc[y == k, c] for k in y.unique()]).pvalue < 0.01]" + _SCORED,
        [("preprocessing", 1)],
    ),
    "columns kept by a Kruskal-Wallis test of the training part, one sample per class passed unpacked": (
        _SPLIT_FIRST.format(
            chosen="keep = [c for c in X.columns"
            " if stats.kruskal(*[X_tr.loc[y_tr == k, c] for k in y_tr.unique()]).pvalue < 0.01]"
        ),
        [],
    ),
    "columns that drift across the years dropped by a Kruskal-Wallis test, no label tested": (
        """
        X["year"] = X.index // 1000
        drift = [c for c in X.columns if stats.kruskal(*[X.loc[X.year == v, c] for v in X.year.unique()])[1] < 0.01]
        keep = [c for c in X.columns if c not in drift]"""
        + _SCORED,
        [],
    ),
    "columns kept by a t-test of the training part's classes": (
        _SPLIT_FIRST.format(
            chosen="t, p = stats.ttest_ind(X_tr[y_tr == 1], X_tr[y_tr == 0])\n        keep = X.columns[p < 0.05]"
        ),
        [],
    ),
    "columns kept by their correlation with the label in the training part": (
        _SPLIT_FIRST.format(chosen="keep = [c for c in X.columns if stats.pearsonr(X_tr[c], y_tr)[1] < 0.01]"),
        [],
    ),
    "a t-test of every row's classes printed, no column chosen by it": (
        "\n        print(stats.ttest_ind(X[y == 1], X[y == 0]))\n        keep = list(X.columns)" + _SCORED,
        [],
    ),
    "columns that drift between the training and test rows dropped by a KS test, no label tested": (
        """
        X["is_test"] = (X.index % 5 == 0).astype(int)
        drift = [c for c in X.columns if stats.ks_2samp(X.loc[X.is_test == 0, c], X.loc[X.is_test == 1, c])[1] < 0.01]
        keep = [c for c in X.columns if c not in drift and c != "is_test"]
        tr, te = X[X.is_test == 0], X[X.is_test == 1]
        m = LogisticRegression().fit(tr[keep], y[X.is_test == 0])
        print(roc_auc_score(y[X.is_test == 1], m.predict_proba(te[keep])[:, 1]))
        """,
        [],
    ),
    "the predictions' correlation with the test labels, a score": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(stats.pearsonr(m.predict_proba(X_te)[:, 1], y_te))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_scipy_tests_of_columns_against_the_label(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
