"""Out-of-fold predictions are a fair feature only of the rows they were made for: made by cross_val_predict over
every row and then split, each test row's feature came from models that learned the training rows' labels, and
each training row's from models that learned the test rows' (CDL001). Made over the training part, with the test
part's from the base model refitted there, or scored themselves, they are clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_predict, train_test_split

df = pd.read_csv("churn.csv")
X, y = df[["a", "b", "c"]], df["churn"]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: out-of-fold predictions of every row, split afterwards, stacked": (
        """
meta = cross_val_predict(RandomForestClassifier(), X, y, cv=5, method="predict_proba")[:, 1:]
m_tr, m_te, y_tr, y_te = train_test_split(meta, y, random_state=1)
stack = LogisticRegression().fit(m_tr, y_tr)
print(roc_auc_score(y_te, stack.predict_proba(m_te)[:, 1]))
""",
        [("preprocessing", 1)],
    ),
    "out-of-fold predictions of the training part, the test part's from the base model refitted there": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=1)
base = RandomForestClassifier()
m_tr = cross_val_predict(base, X_tr, y_tr, cv=5, method="predict_proba")[:, 1:]
m_te = base.fit(X_tr, y_tr).predict_proba(X_te)[:, 1:]
stack = LogisticRegression().fit(m_tr, y_tr)
print(roc_auc_score(y_te, stack.predict_proba(m_te)[:, 1]))
""",
        [],
    ),
    "LEAK: a table of each base model's out-of-fold predictions of every row, split afterwards, stacked": (
        """
base = {"rf": RandomForestClassifier(), "lr": LogisticRegression()}
meta = pd.DataFrame(
    {n: cross_val_predict(m, X, y, cv=5, method="predict_proba")[:, 1] for n, m in base.items()}, index=X.index
)
m_tr, m_te, y_tr, y_te = train_test_split(meta, y, random_state=1)
print(roc_auc_score(y_te, LogisticRegression().fit(m_tr, y_tr).predict_proba(m_te)[:, 1]))
""",
        [("preprocessing", 3)],
    ),
    "a table of each model's predictions of the test part, one column scored": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=1)
base = {"rf": RandomForestClassifier(), "lr": LogisticRegression()}
preds = pd.DataFrame({n: m.fit(X_tr, y_tr).predict_proba(X_te)[:, 1] for n, m in base.items()})
print(roc_auc_score(y_te, preds["rf"]))
""",
        [],
    ),
    "out-of-fold predictions of every row, scored themselves": (
        """
oof = cross_val_predict(RandomForestClassifier(), X, y, cv=5, method="predict_proba")[:, 1]
print(roc_auc_score(y, oof))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_out_of_fold_predictions_stacked(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
