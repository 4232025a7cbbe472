"""A group's method named as text to `transform` is that method: `g.transform("shift")` is `g.shift()`, each
row's value from the row before it in its group, and `g.transform("cumsum")` a running total, not a statistic
learned from every row of the group. `g.transform("mean")` stays one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

df = pd.read_csv("orders.csv").sort_values(["user", "date"])
"""

BODY = """
df["f"] = df.groupby("user")["{column}"].transform({given})
train, test = df[df.year < 2023], df[df.year >= 2023]
m = LogisticRegression().fit(train[["a", "f"]], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[["a", "f"]])[:, 1]))
"""


@pytest.mark.parametrize(
    ("column", "given", "expected"),
    [
        ("a", '"shift"', []),
        ("a", '"diff"', []),
        ("a", '"ffill"', []),
        ("a", '"cumsum"', []),
        ("a", '"cumcount"', []),
        ("a", '"cummax"', []),
        # a statistic of every row of the group, the test years' rows among them
        ("a", '"mean"', [("preprocessing", 1)]),
        # the next row's value, the last training rows holding the first test rows'
        ("a", '"bfill"', [("overlap", 1)]),
        ("a", '"shift", -1', [("overlap", 1)]),
        ("a", '"shift", periods=-1', [("overlap", 1)]),
        # the label's running total holds the row's own label
        ("y", '"cumsum"', [("label_in_features", 3)]),
    ],
)
def test_a_groups_method_named_to_transform_is_that_method(
    tmp_path: Path, column: str, given: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(column=column, given=given)) == expected


@pytest.mark.parametrize(("reduced", "expected"), [('"min"', []), ("min", []), ('"max"', [("preprocessing", 2)])])
def test_a_groups_earliest_time_is_of_rows_at_or_before_each_one(
    tmp_path: Path, reduced: str, expected: list[tuple[str, int]]
) -> None:
    """Each user's first order time, `transform("min")` of a date column, is the earliest of the rows at or before
    each row (as cummin() is): no later row's value. Its latest, `"max"`, is the time of the user's last order,
    a test-period order among them."""
    body = f"""
df["ts"] = pd.to_datetime(df["ts"])
first = df.groupby("user")["ts"].transform({reduced})
df["tenure"] = (df["ts"] - first).dt.days
train, test = df[df["ts"] < "2023-10-01"], df[df["ts"] >= "2023-10-01"]
m = LogisticRegression().fit(train[["tenure"]], train["y"])
print(roc_auc_score(test["y"], m.predict_proba(test[["tenure"]])[:, 1]))
"""
    assert leaks_found(tmp_path, HEAD, body) == expected
