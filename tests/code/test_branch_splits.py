"""A loop whose if/else adds each item to one list or the other deals the items to two sides, as a splitter
does: a scaffold split (`train_idx.extend(group)` while under a size, else `test_idx.extend(group)`) keeps the
molecules of each side apart, so a selector fitted on every molecule before it learned from the test side, and
one fitted on the training side did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.feature_selection import SelectKBest, f_regression
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error

df = pd.read_csv("mols.csv")
X, y = df[["f1", "f2", "f3"]].to_numpy(), df["y"].to_numpy()
"""

_DEALT = """
train_idx, test_idx = [], []
for group in df.groupby("scaffold").indices.values():
    if len(train_idx) + len(group) <= 800:
        train_idx.extend(group)
    else:
        test_idx.extend(group)
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a selector fitted on every molecule, then a scaffold split": (
        "\nX = SelectKBest(f_regression, k=2).fit_transform(X, y)"
        + _DEALT
        + """model = Ridge().fit(X[train_idx], y[train_idx])
print(mean_squared_error(y[test_idx], model.predict(X[test_idx])))
""",
        [("preprocessing", 1)],
    ),
    "a scaffold split, the selector fitted on the training molecules": (
        _DEALT
        + """sel = SelectKBest(f_regression, k=2).fit(X[train_idx], y[train_idx])
model = Ridge().fit(sel.transform(X[train_idx]), y[train_idx])
print(mean_squared_error(y[test_idx], model.predict(sel.transform(X[test_idx]))))
""",
        [],
    ),
    "LEAK: a scaffold split, the model fitted on every molecule": (
        _DEALT
        + """model = Ridge().fit(X, y)
print(mean_squared_error(y[test_idx], model.predict(X[test_idx])))
""",
        [("overlap", 7)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_loop_dealing_items_to_two_lists_is_a_split(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
