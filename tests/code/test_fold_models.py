"""`cross_validate(..., return_estimator=True)` hands back each fold's fitted model: models trained on the rows it
was given. Scored on the test part and the best kept, the test set chose among them; fitted on every row, the
test rows were among their training rows. Averaged into one ensemble, or scored each and all printed, they are
one model's estimate, as a correct script writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.model_selection import KFold, cross_validate, train_test_split
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("d.csv")
X, y = df.drop(columns="y"), df["y"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # the fold whose model scores best on the test part kept
        (
            "cv = cross_validate(DecisionTreeClassifier(), X_tr, y_tr, cv=5, return_estimator=True)\n"
            "scores = [accuracy_score(y_te, e.predict(X_te)) for e in cv['estimator']]\n"
            "best = cv['estimator'][int(np.argmax(scores))]\n",
            ["multi_test"],
        ),
        (
            "cv = cross_validate(DecisionTreeClassifier(), X_tr, y_tr, cv=KFold(n_splits=4), return_estimator=True)\n"
            "scores = []\nfor i in range(4):\n"
            "    scores.append(accuracy_score(y_te, cv['estimator'][i].predict(X_te)))\n"
            "best = np.argmax(scores)\n",
            ["multi_test"],
        ),
        # the folds cut from every row: each fold's model trained on most of the test part
        (
            "cv = cross_validate(DecisionTreeClassifier(), X, y, cv=5, return_estimator=True)\n"
            "print(accuracy_score(y_te, cv['estimator'][0].predict(X_te)))\n",
            ["overlap"],
        ),
        # the fold models averaged into one ensemble, scored once; or each scored and every score shown
        (
            "cv = cross_validate(DecisionTreeClassifier(), X_tr, y_tr, cv=5, return_estimator=True)\n"
            "print(cv['test_score'].mean())\n"
            "proba = np.mean([e.predict_proba(X_te)[:, 1] for e in cv['estimator']], axis=0)\n"
            "print(accuracy_score(y_te, proba > 0.5))\n",
            [],
        ),
        (
            "cv = cross_validate(DecisionTreeClassifier(), X_tr, y_tr, cv=5, return_estimator=True)\n"
            "print([accuracy_score(y_te, e.predict(X_te)) for e in cv['estimator']])\n",
            [],
        ),
        # the label among the features of a cross-validation that returns its fold models: one finding, its own
        (
            "cv = cross_validate(DecisionTreeClassifier(), df, y, cv=5, return_estimator=True)\n"
            "print(cv['test_score'].mean())\n",
            ["label_in_features"],
        ),
        # without the models: the cross-validated scores alone, as before
        ("cv = cross_validate(DecisionTreeClassifier(), X, y, cv=5)\nprint(cv['test_score'].mean())\n", []),
    ],
)
def test_the_models_of_each_fold(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
