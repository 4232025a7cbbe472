"""A running total of the label holds the row's own label (`g.cumsum()`, `g.transform(lambda s: s.cumsum())`, a
window's sum); less that label (`g.cumsum() - df["y"]`, `expanding().sum() - y`), or divided by the count of
earlier rows as a prior rate, it is the earlier rows' labels only: a fair feature."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

df = pd.read_csv("d.csv").sort_values(["user", "date"])
g = df.groupby("user")["y"]
"""

BODY = """
df["f"] = {feature}
train, test = df[df.year < 2023], df[df.year >= 2023]
m = LogisticRegression().fit(train[["a", "f"]], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[["a", "f"]])[:, 1]))
"""


@pytest.mark.parametrize(
    ("feature", "expected"),
    [
        ('g.cumsum() - df["y"]', []),
        ('g.cumsum().sub(df["y"])', []),
        ('(g.cumsum() - df["y"]) / df["a"]', []),
        ('(df["y"].expanding().sum() - df["y"]) / (df["y"].expanding().count() - 1).clip(lower=1)', []),
        ('g.shift(1).fillna(0) + df["a"]', []),
        ('g.cumsum() / df["a"]', [("label_in_features", 3)]),
        ('df["y"].cumsum() - df["y"]', []),
        ("g.transform(lambda s: s.cumsum() - s)", []),
        ("g.transform(lambda s: s.expanding().sum() - s)", []),
        ('(g.cumsum() - df["y"]) / g.cumcount().replace(0, np.nan)', []),
        ("g.transform(lambda s: s.shift(1).cumsum())", []),
        ("g.cumsum()", [("label_in_features", 3)]),
        ("g.transform(lambda s: s.cumsum())", [("label_in_features", 3)]),
        ("g.cumsum() / (g.cumcount() + 1)", [("label_in_features", 3)]),
        ('g.cumsum() - df["a"]', [("label_in_features", 3)]),
    ],
)
def test_a_running_total_less_the_rows_own_label_is_a_fair_feature(
    tmp_path: Path, feature: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(feature=feature)) == expected


def test_a_running_total_less_the_own_label_beside_a_lag_column_stored_before(tmp_path: Path) -> None:
    """A lag stored in the table first (`df["a_d"] = df["a"].diff()`) leaves the label column itself the row's own
    value: the prior count less it is still a fair feature."""
    body = """
df["a_d"] = df["a"].diff()
df["f"] = g.cumsum() - df["y"]
train, test = df[df.year < 2023], df[df.year >= 2023]
m = LogisticRegression().fit(train[["a_d", "f"]], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[["a_d", "f"]])[:, 1]))
"""
    assert leaks_found(tmp_path, HEAD, body) == []
