"""The arrays of one `.npz` archive are each their own rows, those whose keys name one part (`X_test`, `y_test`) the
same rows, named by that part: a test part kept in an archive is a test set as `X_test.npy` is. Keys that name no
part (`X`, `y`) are the archive's rows, named by its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import lightgbm as lgb
import numpy as np
from sklearn.linear_model import LogisticRegression

data = np.load("imu.npz")
X_train, y_train = data["X_train"], data["y_train"]
X_val, y_val = data["X_val"], data["y_val"]
X_test, y_test = data["X_test"], data["y_test"]
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # stopped by its score on the test arrays, then scored on them
        (
            "m = lgb.LGBMClassifier(n_estimators=1000)\n"
            "m.fit(X_train, y_train, eval_set=[(X_test, y_test)], callbacks=[lgb.early_stopping(50)])\n"
            "print(m.score(X_test, y_test))\n",
            ["multi_test"],
        ),
        # the test arrays stacked into the training ones
        (
            "m = LogisticRegression().fit(np.vstack([X_train, X_test]), np.r_[y_train, y_test])\n"
            "print(m.score(X_test, y_test))\n",
            ["overlap"],
        ),
        # a setting kept by its test score
        (
            "best = 0\nfor C in [0.1, 1.0, 10.0]:\n"
            "    s = LogisticRegression(C=C).fit(X_train, y_train).score(X_test, y_test)\n"
            "    if s > best:\n        best, best_C = s, C\n",
            ["multi_test"],
        ),
        # stopped on the validation arrays, the test arrays scored once; trained and scored on their own parts
        (
            "m = lgb.LGBMClassifier(n_estimators=1000)\n"
            "m.fit(X_train, y_train, eval_set=[(X_val, y_val)], callbacks=[lgb.early_stopping(50)])\n"
            "print(m.score(X_test, y_test))\n",
            [],
        ),
        ("print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))\n", []),
        # an archive named as the test set, its arrays keyed by role only
        (
            "te = np.load('test.npz')\n"
            "m = LogisticRegression().fit(te['X'], te['y'])\nprint(m.score(te['X'], te['y']))\n",
            ["overlap"],
        ),
    ],
)
def test_the_arrays_of_an_archive(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
