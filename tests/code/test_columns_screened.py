"""Columns kept by how the label varies across their values (an information-value screen: each value's mean of
the label, `df.groupby(c)["y"].mean()`, spread enough) were chosen with the rows that statistic saw: screened on
every row, the test rows helped choose them (CDL001); screened on the training part, they did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("loans.csv")
cands = ["a", "b", "c", "d"]
"""

_SCREENED_ALL = """
keep = [c for c in cands if df.groupby(c)["y"].mean().std() > 0.02]
X_tr, X_te, y_tr, y_te = train_test_split(df[keep], df["y"], random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
"""

_SCREENED_TRAIN = """
train, test = train_test_split(df, random_state=0)
keep = [c for c in cands if train.groupby(c)["y"].mean().std() > 0.02]
m = LogisticRegression().fit(train[keep], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[keep])[:, 1]))
"""


@pytest.mark.parametrize(("body", "expected"), [(_SCREENED_ALL, ["preprocessing"]), (_SCREENED_TRAIN, [])])
def test_columns_screened_by_the_label_rate_of_their_values(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
