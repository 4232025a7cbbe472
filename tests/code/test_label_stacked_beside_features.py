"""The label put beside the features as a column of its own is among them: `pd.concat([X, df["label"]],
axis=1)`, `np.hstack([X, y[:, None]])`, `np.column_stack([df["f1"], df["f2"], y])`. A lag of the label, a
statistic made from it, or the features alone stacked are not the label."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

nodes = pd.read_csv("nodes.csv")
y = nodes["label"]
train, test = (nodes["split"] == "train").to_numpy(), (nodes["split"] == "test").to_numpy()
"""

BODY = """
feats = {stacked}
clf = LogisticRegression().fit(feats[train], y[train])
print(accuracy_score(y[test], clf.predict(feats[test])))
"""


@pytest.mark.parametrize(
    ("stacked", "expected"),
    [
        ('pd.concat([nodes[["f1", "f2"]], nodes["label"]], axis=1)', [("label_in_features", 2)]),
        ('np.hstack([nodes[["f1", "f2"]].to_numpy(), y.to_numpy()[:, None]])', [("label_in_features", 2)]),
        ('np.column_stack([nodes["f1"], nodes["f2"], y])', [("label_in_features", 2)]),
        ('pd.concat([nodes[["f1", "f2"]], nodes["f3"]], axis=1)', []),
        ('np.column_stack([nodes["f1"], nodes["f2"]])', []),
        # the label of the row before, in time order: a fair feature
        ('pd.concat([nodes[["f1", "f2"]], nodes["label"].shift(1)], axis=1).fillna(0)', []),
    ],
)
def test_the_label_stacked_beside_the_features_is_among_them(
    tmp_path: Path, stacked: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(stacked=stacked)) == expected
