"""One model's test score per segment (a loop over the groups of the test rows, or over a listed few segments),
its weakest named, is a report of one model on other rows each time, not a choice; predictions put in a column of
the table and scored from it are that model's predictions. Each case is a script and the leaks it holds (kind and
line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from sklearn.model_selection import train_test_split
"""

_MODEL = """
        df = pd.read_parquet("d.parquet")
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        model = LogisticRegression().fit(train[["a", "b"]], train["y"])
        p = model.predict_proba(test[["a", "b"]])[:, 1]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "one model's AUC per segment of the test rows by groupby, the weakest printed": (
        _MODEL
        + """
        by_segment = {}
        for seg, part in test.assign(p=p).groupby("segment"):
            by_segment[seg] = roc_auc_score(part["y"], part["p"])
        print("weakest", min(by_segment, key=by_segment.get), min(by_segment.values()))
        """,
        [],
    ),
    "one model's AUC per listed segment by a mask, the weakest named": (
        _MODEL
        + """
        scored = test.assign(p=p)
        auc = {s: roc_auc_score(scored.loc[scored.segment == s, "y"], scored.loc[scored.segment == s, "p"])
               for s in ["retail", "sme", "private"]}
        print("weakest", min(auc, key=auc.get))
        """,
        [],
    ),
    "a model card: metrics of one model, its AUC per segment, the strongest metric named": (
        _MODEL
        + """
        flag = (p >= 0.35).astype(int)
        card = {"auc": roc_auc_score(test["y"], p), "accuracy": accuracy_score(test["y"], flag),
                "f1": f1_score(test["y"], flag)}
        card["segments"] = {s: roc_auc_score(g["y"], g["p"]) for s, g in test.assign(p=p).groupby("segment")}
        print(max(["accuracy", "f1"], key=lambda m: card[m]))
        """,
        [],
    ),
    "a setting per pass, each model's predictions put in a column and scored from it, the best kept": (
        """
        df = pd.read_parquet("d.parquet")
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        scores = {}
        for C in [0.1, 1.0, 10.0]:
            model = LogisticRegression(C=C).fit(train[["a", "b"]], train["y"])
            test["pred"] = model.predict(test[["a", "b"]])
            scores[C] = accuracy_score(test["y"], test["pred"])
        print(max(scores, key=scores.get))
        """,
        [("multi_test", 7)],
    ),
    "a model fitted on every row, its predictions put in a column of the test part and scored from it": (
        """
        df = pd.read_parquet("d.parquet")
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        model = LogisticRegression().fit(df[["a", "b"]], df["y"])
        test["pred"] = model.predict(test[["a", "b"]])
        print(accuracy_score(test["y"], test["pred"]))
        """,
        [("overlap", 3)],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_scores_by_segment(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
