"""Rows taken back by their labels from the split's parts put together: `.loc[train.index]` of
`pd.concat([train, test])` is the training part again, as `.iloc[:len(train)]` is; labels numbered anew by the
concatenation name rows of either part. Each case is a script and the leaks it holds (kind and line, counted after
HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
"""

_TAKEN_BACK = """
        df = pd.read_parquet("d.parquet")
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        X_all = pd.get_dummies(pd.concat([train, test]{numbered})[["a", "segment"]])
        X_tr, X_te = X_all.loc[{fitted}.index], X_all.loc[test.index]
        rf = RandomForestClassifier().fit(X_tr, {fitted}["y"])
        print(roc_auc_score(test["y"], rf.predict_proba(X_te)[:, 1]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "dummies of both parts, each part taken back by its labels": (
        _TAKEN_BACK.format(numbered="", fitted="train"),
        [],
    ),
    "dummies of both parts, the test part's labels taken back to train on": (
        _TAKEN_BACK.format(numbered="", fitted="test"),
        [("overlap", 5)],
    ),
    "dummies of both parts numbered anew, then rows taken by the training part's old labels": (
        _TAKEN_BACK.format(numbered=", ignore_index=True", fitted="train"),
        [("overlap", 5)],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_rows_taken_back_by_their_labels(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
