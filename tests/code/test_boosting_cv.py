"""A boosting library's own cross-validation (`lgb.cv`, `xgb.cv`) that stops early chooses the number of rounds by
its folds' scores, as a search chooses its settings: run on every row, then given to a model scored on the test
part, the test rows chose the setting they score. Run on the training part, it is a choice on training folds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import lightgbm as lgb
import pandas as pd
import xgboost as xgb
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X, y = df.drop(columns=["y"]), df["y"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: lgb.cv with an early-stopping callback on every row, its rounds given to lgb.train": (
        """
        res = lgb.cv({"objective": "binary"}, lgb.Dataset(X, y), num_boost_round=1000,
                     callbacks=[lgb.early_stopping(50)])
        rounds = len(res["valid binary_logloss-mean"])
        model = lgb.train({"objective": "binary"}, lgb.Dataset(X_tr, y_tr), num_boost_round=rounds)
        print(roc_auc_score(y_te, model.predict(X_te)))
        """,
        [("multi_test", 1)],
    ),
    "LEAK: xgb.cv with early_stopping_rounds on every row, its rounds given to xgb.train": (
        """
        hist = xgb.cv({"objective": "binary:logistic"}, xgb.DMatrix(X, label=y), num_boost_round=1000,
                      nfold=5, early_stopping_rounds=50)
        bst = xgb.train({"objective": "binary:logistic"}, xgb.DMatrix(X_tr, label=y_tr), num_boost_round=len(hist))
        print(roc_auc_score(y_te, bst.predict(xgb.DMatrix(X_te))))
        """,
        [("multi_test", 1)],
    ),
    "lgb.cv with an early-stopping callback on the training part, its rounds given to lgb.train": (
        """
        res = lgb.cv({"objective": "binary"}, lgb.Dataset(X_tr, y_tr), num_boost_round=1000,
                     callbacks=[lgb.early_stopping(50)])
        rounds = len(res["valid binary_logloss-mean"])
        model = lgb.train({"objective": "binary"}, lgb.Dataset(X_tr, y_tr), num_boost_round=rounds)
        print(roc_auc_score(y_te, model.predict(X_te)))
        """,
        [],
    ),
    "lgb.cv of every row with no early stopping, its score printed, a fixed number of rounds trained": (
        """
        res = lgb.cv({"objective": "binary"}, lgb.Dataset(X, y), num_boost_round=200)
        print(res["valid binary_logloss-mean"][-1])
        model = lgb.train({"objective": "binary"}, lgb.Dataset(X_tr, y_tr), num_boost_round=200)
        print(roc_auc_score(y_te, model.predict(X_te)))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_boosting_librarys_own_cross_validation(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
