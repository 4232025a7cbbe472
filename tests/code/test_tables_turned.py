"""A table read on its side (genes by samples) and turned by `.T` before the split: a statistic taken along each of
its rows as read (each gene's mean over every sample, `expr.mean(axis=1)`) is taken over the rows the split then
cuts, so it is learned from the test samples too (CDL001); a scaler fitted on the table once turned learns each
gene over every sample. The same statistic over the training samples only, or a statistic of each sample's own
values (its total over the genes, counts per million), is clean: what is over the rows and what is along each row
trade places at each turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

expr = pd.read_csv("expression.csv", index_col=0)  # genes x samples
y = pd.read_csv("samples.csv", index_col=0)["subtype"]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: each gene z-scored over every sample, then turned and split": (
        """
z = expr.sub(expr.mean(axis=1), axis=0).div(expr.std(axis=1), axis=0)
X_tr, X_te, y_tr, y_te = train_test_split(z.T, y, random_state=0)
clf = LogisticRegression().fit(X_tr, y_tr)
print(f1_score(y_te, clf.predict(X_te), average="macro"))
""",
        [("preprocessing", 1)],
    ),
    "LEAK: each gene centred by numpy over every sample, then turned and split": (
        """
a = expr.to_numpy()
X = (a - np.mean(a, axis=1, keepdims=True)).T
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(f1_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te), average="macro"))
""",
        [("preprocessing", 2)],
    ),
    "turned and split first, each gene's mean and spread over the training samples": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(expr.T, y, random_state=0)
mu, sd = X_tr.mean(), X_tr.std()
clf = LogisticRegression().fit((X_tr - mu) / sd, y_tr)
print(f1_score(y_te, clf.predict((X_te - mu) / sd), average="macro"))
""",
        [],
    ),
    "LEAK: a scaler fitted on the table turned to samples by genes, then split": (
        """
X = StandardScaler().fit_transform(expr.T)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(f1_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te), average="macro"))
""",
        [("preprocessing", 1)],
    ),
    "each sample's counts per million (its own total over the genes), then turned and split": (
        """
cpm = expr / expr.sum() * 1e6
X_tr, X_te, y_tr, y_te = train_test_split(np.log1p(cpm.T), y, random_state=0)
print(f1_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te), average="macro"))
""",
        [],
    ),
    "a row sum of a table read the usual way (samples by features), never turned": (
        """
X = expr.T.copy()
X["total"] = X.sum(axis=1)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(f1_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te), average="macro"))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_table_turned_before_the_split(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
