"""Rows lagged or led within each entity (a customer's quarters) and split by that entity keep every timeline in one
part: not CDL005. Split at random instead, or by group with a date index over every entity, they are. Each case is
a script and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, GroupShuffleSplit, ShuffleSplit, cross_val_score

df = pd.read_csv("customer_quarters.csv").sort_values(["customer_id", "quarter"])
df["orders_prev"] = df.groupby("customer_id")["orders"].shift(1)
df["churn_next"] = df.groupby("customer_id")["churned"].shift(-1)
df = df.dropna(subset=["orders_prev", "churn_next"])
X, y = df[["orders", "orders_prev", "tenure"]], df["churn_next"].astype(int)
"""

_ONE_SPLIT = """
    tr, te = next({splitter}.split(X, y{groups}))
    rf = RandomForestClassifier(random_state=0).fit(X.iloc[tr], y.iloc[tr])
    print(roc_auc_score(y.iloc[te], rf.predict_proba(X.iloc[te])[:, 1]))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "each customer's quarters in one part: GroupShuffleSplit by customer": (
        _ONE_SPLIT.format(
            splitter="GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0)", groups=', groups=df["customer_id"]'
        ),
        [],
    ),
    "each customer's quarters in one fold: GroupKFold by customer, cross-validated": (
        """
    print(cross_val_score(RandomForestClassifier(), X, y, cv=GroupKFold(5), groups=df["customer_id"]).mean())
""",
        [],
    ),
    "group splitters that shuffle the groups (shuffle=True), given the groups in cross_val_score": (
        """
    from sklearn.model_selection import StratifiedGroupKFold
    cv = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)
    print(cross_val_score(RandomForestClassifier(), X, y, groups=df["customer_id"], cv=cv).mean())
""",
        [],
    ),
    "LEAK: the same rows split at random, a customer's quarters on both sides": (
        _ONE_SPLIT.format(splitter="ShuffleSplit(n_splits=1, test_size=0.2, random_state=0)", groups=""),
        [("temporal_shuffle", 1)],
    ),
    "LEAK: a group splitter not given the groups": (
        _ONE_SPLIT.format(splitter="GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0)", groups=""),
        [("temporal_shuffle", 1)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_group_time_splits(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
