"""A column of True and False given as the rows to keep (`df[df["is_test"]]`, `df[~df["is_test"]]`, `.loc[...]`)
is a mask of that column, as `df["is_test"] == True` is: it keeps some rows, not every one, so it says which rows
two parts share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_graded

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
"""

_PARTS = """
        df = pd.read_csv("loans.csv")
        train = {train}
        test = {test}
        rf = RandomForestClassifier().fit(train[["a", "b"]], train["y"])
        print(roc_auc_score(test["y"], rf.predict_proba(test[["a", "b"]])[:, 1]))
        """

CASES = {
    # every row trained on, some of them scored: an error, as with `== True` written out
    "every row trained on, the flagged rows scored": ("df", 'df[df["is_test"]]', [("overlap", 4, True)]),
    "every row trained on, the flagged rows scored by .loc": ("df", "df.loc[df.is_test]", [("overlap", 4, True)]),
    "the unflagged rows trained on and the flagged scored": ('df[~df["is_test"]]', 'df[df["is_test"]]', []),
    "the flag's zero trained on and the flagged scored": ("df[df.is_test == 0]", "df[df.is_test]", []),
    "the flag's one trained on and the flagged scored": (
        "df[df.is_test == 1]",
        "df[df.is_test]",
        [("overlap", 4, True)],
    ),
    # a flag beside a mask of another column: only the data says which rows both hold
    "another column's mask trained on": ('df[df["fold"] != 4]', 'df[df["is_test"]]', [("overlap", 4, False)]),
}


@pytest.mark.parametrize("name", CASES)
def test_a_flag_column_keeps_the_rows_it_marks(tmp_path: Path, name: str) -> None:
    train, test, expected = CASES[name]
    assert leaks_graded(tmp_path, HEAD, _PARTS.format(train=train, test=test)) == expected
