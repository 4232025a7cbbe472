"""The implicit library's ranking metrics (`ndcg_at_k(model, train_user_items, test_user_items, K)`) score the
model on the held-out interactions they are given: settings a study keeps by them on the test matrix are chosen on
the test set; kept by them on a validation matrix cut from the training period, they are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import optuna
import pandas as pd
import scipy.sparse as sp
from implicit.als import AlternatingLeastSquares
from implicit.evaluation import ndcg_at_k

plays = pd.read_parquet("plays.parquet")
plays["ts"] = pd.to_datetime(plays["ts"])
train = plays[plays["ts"] < "2024-02-01"]
val = plays[(plays["ts"] >= "2024-02-01") & (plays["ts"] < "2024-03-01")]
test = plays[plays["ts"] >= "2024-03-01"]


def to_csr(frame):
    return sp.csr_matrix((np.ones(len(frame)), (frame["u"], frame["i"])))


ui_train, ui_val, ui_test = to_csr(train), to_csr(val), to_csr(test)
"""

BODY = """
def objective(trial):
    model = AlternatingLeastSquares(factors=trial.suggest_int("factors", 32, 256))
    model.fit(ui_train)
    return ndcg_at_k(model, ui_train, {tuned_on}, K=20)


study = optuna.create_study(direction="maximize")
study.optimize(objective, n_trials=60)
best = AlternatingLeastSquares(**study.best_params)
best.fit(ui_train)
print(ndcg_at_k(best, ui_train, ui_test, K=20))
"""


@pytest.mark.parametrize(("tuned_on", "expected"), [("ui_test", ["multi_test"]), ("ui_val", [])])
def test_ranking_metrics_of_a_recommender_are_scores(tmp_path: Path, tuned_on: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, BODY.format(tuned_on=tuned_on))] == expected
