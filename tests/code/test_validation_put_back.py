"""A validation part carved from the training part, put back for the final fit and scored beside a test part kept
apart, is a training score of it, no test row seen; scored as the only held-out part, it is the leak it looks like."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X, y = df.drop(columns=["y"]), df["y"]
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # carved from the training part, put back, scored beside the test part
        (
            """
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
            X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2, random_state=0)
            m = LogisticRegression().fit(pd.concat([X_fit, X_val]), pd.concat([y_fit, y_val]))
            print("val (seen)", accuracy_score(y_val, m.predict(X_val)))
            print("test", accuracy_score(y_te, m.predict(X_te)))
            """,
            [],
        ),
        # the only held-out part, put back, then published as the hold-out score
        (
            """
            X_train, X_valid, y_train, y_valid = train_test_split(X, y, test_size=0.15, random_state=0)
            m = LogisticRegression().fit(pd.concat([X_train, X_valid]), pd.concat([y_train, y_valid]))
            print("holdout", accuracy_score(y_valid, m.predict(X_valid)))
            """,
            ["overlap"],
        ),
        # the test part put back, then scored
        (
            """
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
            m = LogisticRegression().fit(pd.concat([X_tr, X_te]), pd.concat([y_tr, y_te]))
            print("test", accuracy_score(y_te, m.predict(X_te)))
            """,
            ["overlap"],
        ),
    ],
)
def test_a_validation_part_put_back(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
