"""A grouped aggregation makes a table of one row per group (`orders.groupby("customer_id").agg(...)`): split and
learned from, its rows are rows of their own, so a scaler fitted on all of them before the split saw the test ones;
merged back into other rows, it gives them columns, not rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

orders = pd.read_csv("orders.csv")
"""

_SPLIT = """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
print(m.score(X_te, y_te))
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a row per customer, scaled as a whole, then split
        (
            'feats = orders.groupby("customer_id")[["n", "spend", "churned"]].max()\n'
            'X, y = StandardScaler().fit_transform(feats[["n", "spend"]]), feats["churned"]\n',
            ["preprocessing"],
        ),
        (
            'feats = orders.groupby("customer_id", as_index=False).agg(n=("n", "sum"), churned=("churned", "max"))\n'
            'X, y = StandardScaler().fit_transform(feats[["n"]]), feats["churned"]\n',
            ["preprocessing"],
        ),
        # every column of the table, the label among them
        (
            'feats = orders.groupby("customer_id")[["n", "spend", "churned"]].max().reset_index()\n'
            'X, y = feats.drop(columns=["customer_id"]), feats["churned"]\n',
            ["label_in_features"],
        ),
        # split first, the scaler fitted on the training customers
        (
            'feats = orders.groupby("customer_id")[["n", "spend", "churned"]].max()\n'
            'X, y = feats[["n", "spend"]], feats["churned"]\n'
            "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)\n"
            "sc = StandardScaler().fit(X_tr)\n"
            "print(LogisticRegression().fit(sc.transform(X_tr), y_tr).score(sc.transform(X_te), y_te))\n",
            [],
        ),
    ],
)
def test_a_table_of_groups_is_rows_of_its_own(tmp_path: Path, body: str, expected: list[str]) -> None:
    script = body if "print(" in body else body + _SPLIT
    assert sorted({kind for kind, _ in leaks_found(tmp_path, HEAD, script)}) == expected
