"""A function that builds a model or a list returns a new one at each call: two calls are two objects, so what
one of them is trained on, or given, is not the other's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import joblib
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split


def make_rf():
    return RandomForestClassifier(n_estimators=500)


df = pd.read_csv("eyes.csv")
train, test = train_test_split(df, test_size=0.2, random_state=0)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # the held-out model scored, then a second model of the factory trained on every row for serving, the
        # first one's score saved beside it
        (
            """
            rf = make_rf().fit(train[["a", "b"]], train["y"])
            proba = rf.predict_proba(test[["a", "b"]])[:, 1]
            print(roc_auc_score(test["y"], proba))
            deploy = make_rf().fit(df[["a", "b"]], df["y"])
            joblib.dump({"model": deploy, "auc": roc_auc_score(test["y"], proba)}, "m.joblib")
            """,
            [],
        ),
        # two lists of the factory: what one holds is not in the other
        (
            """
            def empty():
                return []


            parts, extra = empty(), empty()
            parts.append(train)
            extra.append(test)
            m = make_rf().fit(pd.concat(parts)[["a", "b"]], pd.concat(parts)["y"])
            print(roc_auc_score(test["y"], m.predict_proba(test[["a", "b"]])[:, 1]))
            """,
            [],
        ),
        # the factory's model trained on every row and scored on the test part: still found
        (
            """
            rf = make_rf().fit(df[["a", "b"]], df["y"])
            print(roc_auc_score(test["y"], rf.predict_proba(test[["a", "b"]])[:, 1]))
            """,
            ["overlap"],
        ),
        # one model the function hands out each time (a module's model): one object, trained twice
        (
            """
            MODEL = RandomForestClassifier()


            def get_model():
                return MODEL


            rf = get_model().fit(train[["a", "b"]], train["y"])
            get_model().fit(df[["a", "b"]], df["y"])
            print(roc_auc_score(test["y"], rf.predict_proba(test[["a", "b"]])[:, 1]))
            """,
            ["overlap"],
        ),
    ],
)
def test_a_factory_s_calls_are_new_objects(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
