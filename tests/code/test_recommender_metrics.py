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


MATRIX_HEAD = """\
import numpy as np
import scipy.sparse as sp
from implicit.als import AlternatingLeastSquares
from implicit.evaluation import leave_k_out_split, ndcg_at_k, train_test_split
from lightfm import LightFM
from lightfm.cross_validation import random_train_test_split
from lightfm.evaluation import precision_at_k
from scipy.io import mmread

ui = mmread("plays.mtx").tocsr()
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # implicit's split of the interaction matrix: a model fitted on the whole matrix is scored on its own rows
        (
            "tr, te = train_test_split(ui, train_percentage=0.8)\n"
            "m = AlternatingLeastSquares()\nm.fit(ui)\nprint(ndcg_at_k(m, tr, te, K=10))\n",
            [("overlap", 3)],
        ),
        (
            "tr, te = train_test_split(ui, train_percentage=0.8)\n"
            "m = AlternatingLeastSquares()\nm.fit(tr)\nprint(ndcg_at_k(m, tr, te, K=10))\n",
            [],
        ),
        (
            "tr, te = leave_k_out_split(ui, K=2)\n"
            "m = AlternatingLeastSquares()\nm.fit(ui)\nprint(ndcg_at_k(m, tr, te, K=10))\n",
            [("overlap", 3)],
        ),
        # settings kept by the test matrix's score; by a validation matrix cut from the training one, not
        (
            "tr, te = train_test_split(ui, 0.8)\nscores = {}\nfor f in [16, 64]:\n"
            "    m = AlternatingLeastSquares(factors=f)\n    m.fit(tr)\n    scores[f] = ndcg_at_k(m, tr, te)\n"
            "best = max(scores, key=scores.get)\n",
            [("multi_test", 6)],
        ),
        (
            "rest, te = train_test_split(ui, 0.8)\ntr, va = train_test_split(rest, 0.8)\nscores = {}\n"
            "for f in [16, 64]:\n"
            "    m = AlternatingLeastSquares(factors=f)\n    m.fit(tr)\n    scores[f] = ndcg_at_k(m, tr, va)\n"
            "best = max(scores, key=scores.get)\nfinal = AlternatingLeastSquares(factors=best)\nfinal.fit(rest)\n"
            "print(ndcg_at_k(final, rest, te))\n",
            [],
        ),
        # LightFM's split and metrics, (model, test_interactions, train_interactions=...)
        (
            "tr, te = random_train_test_split(ui, test_percentage=0.2)\n"
            "m = LightFM(loss='warp')\nm.fit(ui, epochs=5)\nprint(precision_at_k(m, te, train_interactions=tr))\n",
            [("overlap", 3)],
        ),
        (
            "tr, te = random_train_test_split(ui, test_percentage=0.2)\n"
            "m = LightFM(loss='warp')\nm.fit(tr, epochs=5)\nprint(precision_at_k(m, te, train_interactions=tr))\n",
            [],
        ),
        # LightFM trained an epoch at a time by fit_partial
        (
            "tr, te = random_train_test_split(ui, test_percentage=0.2)\nm = LightFM(loss='warp')\n"
            "for _ in range(5):\n    m.fit_partial(ui)\nprint(precision_at_k(m, te, train_interactions=tr))\n",
            [("overlap", 4)],
        ),
    ],
)
def test_splits_of_an_interaction_matrix(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, MATRIX_HEAD, body) == expected


SURPRISE_HEAD = """\
import pandas as pd
from surprise import NMF, SVD, Dataset, Reader, accuracy
from surprise.model_selection import train_test_split

data = Dataset.load_from_df(pd.read_csv("r.csv")[["u", "i", "r"]], Reader(rating_scale=(1, 5)))
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # fitted on every rating, scored on a test set drawn from them
        (
            "algo = SVD().fit(data.build_full_trainset())\n_, testset = train_test_split(data, test_size=0.2)\n"
            "print(accuracy.rmse(algo.test(testset)))\n",
            ["overlap"],
        ),
        # the algorithm kept by its test RMSE
        (
            "trainset, testset = train_test_split(data, test_size=0.2)\n"
            "res = {n: accuracy.rmse(a.fit(trainset).test(testset)) for n, a in {'svd': SVD(), 'nmf': NMF()}.items()}\n"
            "best = min(res, key=res.get)\n",
            ["multi_test"],
        ),
        # fitted on every rating, scored on a test set written as a list of zipped columns of some of them
        (
            "df = pd.read_csv('r.csv')\ntest = df[df.day >= 100]\nalgo = SVD().fit(data.build_full_trainset())\n"
            "print(accuracy.rmse(algo.test(list(zip(test.u, test.i, test.r)))))\n",
            ["overlap"],
        ),
        # fitted on the training ratings, scored once on the held-out ones; a training score; a refit to serve
        (
            "trainset, testset = train_test_split(data, test_size=0.2)\nalgo = SVD().fit(trainset)\n"
            "print(accuracy.rmse(algo.test(testset)), accuracy.mae(algo.test(trainset.build_testset())))\n"
            "prod = SVD().fit(data.build_full_trainset())\n",
            [],
        ),
    ],
)
def test_the_surprise_library(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, SURPRISE_HEAD, body)] == expected
