"""`np.where(mask)[0]`, `np.flatnonzero(mask)` and `np.nonzero(mask)[0]` are the positions of the rows where the
mask holds, and `np.isin(qid, test_qids)` is a mask as `qid.isin(test_qids)` is: the rows at those positions lie on
the mask's side, so a model fitted on the other side and scored on some of them saw none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error

df = pd.read_parquet("ltr.parquet")
X, y, qid = df[["f1", "f2"]].to_numpy(), df["rel"].to_numpy(), df["qid"].to_numpy()
is_te = np.isin(qid, np.unique(qid)[:100])
"""


@pytest.mark.parametrize(
    ("positions", "fitted", "scored", "expected"),
    [
        ("tr, te = np.where(~is_te)[0], np.where(is_te)[0]", "tr", "te[:50]", []),
        ("tr, te = np.flatnonzero(~is_te), np.flatnonzero(is_te)", "tr", "te[qid[te] == qid[te][0]]", []),
        ("tr, te = np.nonzero(~is_te)[0], np.nonzero(is_te)[0]", "tr", "te", []),
        # fitted on every row, then some of them scored
        ("te = np.where(is_te)[0]", "slice(None)", "te", ["overlap"]),
        ("te = np.flatnonzero(is_te)", "slice(None)", "te[:50]", ["overlap"]),
    ],
)
def test_positions_of_a_mask(tmp_path: Path, positions: str, fitted: str, scored: str, expected: list[str]) -> None:
    body = f"""
        {positions}
        m = Ridge().fit(X[{fitted}], y[{fitted}])
        print(mean_absolute_error(y[{scored}], m.predict(X[{scored}])))
        """
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
