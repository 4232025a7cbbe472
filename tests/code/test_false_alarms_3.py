"""Correct code that was read as a leak, each beside the real leak that looks like it: blend weights normalised
inside an optimiser's objective (a vector, not rows); a column transformer fitted on its own, which keeps only the
columns it names; and a ranking metric given one query's labels and scores each wrapped in a list, which was read
as no score. Each case is a script and the leaks it holds (kind and line, counted after HEAD), none for correct
code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.preprocessing import StandardScaler
"""

_OOF = """
        df = pd.read_csv("train.csv")
        X, y = df[["a", "b"]], df["y"]
        oof = cross_val_predict(LogisticRegression(), X, y, cv=5, method="predict_proba")
        """

BLENDS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "blend weights normalised in an objective no call reaches, out-of-fold predictions scored": (
        _OOF
        + """
        def blend_loss(w):
            w = w / w.sum()
            return log_loss(y, oof @ w)
        """,
        [],
    ),
    "blend weights normalised in the objective minimize is given": (
        _OOF
        + """
        def blend_loss(w):
            w = np.abs(w) / np.abs(w).sum()
            return log_loss(y, oof @ w)
        best = minimize(blend_loss, np.ones(2) / 2, method="Nelder-Mead").x
        print(best / best.sum())
        """,
        [],
    ),
    "LEAK: a function scales the rows it is given and scores a model on them": (
        """
        def score_on(frame):
            X = StandardScaler().fit_transform(frame[["a", "b"]])
            model = LogisticRegression().fit(X[:800], frame["y"][:800])
            return model.score(X[800:], frame["y"][800:])
        """,
        [("preprocessing", 2)],
    ),
    "LEAK: components of every row's centred values, the projection then split": (
        """
        df = pd.read_csv("train.csv")
        X, y = df.drop(columns=["y"]).values, df["y"].values
        Xc = X - X.mean(axis=0)
        U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
        Z = Xc @ Vt[:5].T
        Z_tr, Z_te, y_tr, y_te = train_test_split(Z, y, random_state=0)
        print(LogisticRegression().fit(Z_tr, y_tr).score(Z_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
}


@pytest.mark.parametrize("case", list(BLENDS))
def test_blend_weights_are_not_rows(tmp_path: Path, case: str) -> None:
    body, expected = BLENDS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_CREDIT = """
        from sklearn.compose import ColumnTransformer, make_column_selector
        from sklearn.impute import SimpleImputer
        from sklearn.metrics import roc_auc_score
        df = pd.read_csv("loans.csv")
        train, test = train_test_split(df, random_state=0)
        """

_PREPARED = """
        X_train = prep.fit_transform(train)
        X_test = prep.transform(test)
        clf = LogisticRegression().fit(X_train, train["default"])
        print(roc_auc_score(test["default"], clf.predict_proba(X_test)[:, 1]))
        """

COLUMN_TRANSFORMERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a column transformer of named columns fitted on its own on the training table": (
        _CREDIT + 'prep = ColumnTransformer([("num", SimpleImputer(), ["income", "age"])])' + _PREPARED,
        [],
    ),
    "LEAK: a column transformer that passes the other columns through, the label among them": (
        _CREDIT
        + 'prep = ColumnTransformer([("num", SimpleImputer(), ["income"])], remainder="passthrough")'
        + _PREPARED,
        [("label_in_features", 9)],
    ),
    "LEAK: a column transformer whose list names the label": (
        _CREDIT + 'prep = ColumnTransformer([("num", SimpleImputer(), ["income", "default"])])' + _PREPARED,
        [("label_in_features", 9)],
    ),
    "LEAK: a column transformer of every numeric column, the price it predicts among them": (
        _CREDIT
        + 'prep = ColumnTransformer([("num", SimpleImputer(), make_column_selector(dtype_include=np.number))])'
        + """
        from sklearn.linear_model import Ridge
        reg = Ridge().fit(prep.fit_transform(train), train["price"])
        print(reg.score(prep.transform(test), test["price"]))
        """,
        [("label_in_features", 8)],
    ),
    "LEAK: a pipeline whose column transformer takes every numeric column, the price it predicts among them": (
        _CREDIT
        + """
        from sklearn.linear_model import Ridge
        from sklearn.pipeline import make_pipeline
        numeric = make_column_selector(dtype_include=np.number)
        model = make_pipeline(ColumnTransformer([("num", SimpleImputer(), numeric)]), Ridge())
        model.fit(train, train["price"])
        print(model.score(test, test["price"]))
        """,
        [("label_in_features", 11)],
    ),
    "a pipeline whose column transformer takes every text column, a price predicted": (
        _CREDIT
        + """
        from sklearn.linear_model import Ridge
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder
        texts = make_column_selector(dtype_exclude=np.number)
        model = make_pipeline(ColumnTransformer([("cat", OneHotEncoder(), texts)]), Ridge())
        model.fit(train, train["price"])
        print(model.score(test, test["price"]))
        """,
        [],
    ),
    "a column transformer of every numeric column of a table whose label was taken out": (
        _CREDIT.replace('df = pd.read_csv("loans.csv")', 'df = pd.read_csv("loans.csv")\n        y = df.pop("default")')
        + 'prep = ColumnTransformer([("num", SimpleImputer(), make_column_selector(dtype_include=np.number))])'
        + """
        X_train = prep.fit_transform(train)
        clf = LogisticRegression().fit(X_train, y.loc[train.index])
        print(roc_auc_score(y.loc[test.index], clf.predict_proba(prep.transform(test))[:, 1]))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(COLUMN_TRANSFORMERS))
def test_a_column_transformer_on_its_own_keeps_the_columns_it_names(tmp_path: Path, case: str) -> None:
    body, expected = COLUMN_TRANSFORMERS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_RANKED = """
        import lightgbm as lgb
        from sklearn.metrics import ndcg_score
        df = pd.read_parquet("judgments.parquet")
        {prior}
        train, test = df[df.qid % 5 != 0], df[df.qid % 5 == 0]
        ranker = lgb.LGBMRanker().fit(train[F], train["rel"], group=train.groupby("qid").size().to_numpy())
        scores = [ndcg_score([g["rel"].to_numpy()], [ranker.predict(g[F])], k=10) for _, g in test.groupby("qid")]
        print(np.mean(scores))
        """

RANKINGS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: each document's mean label over every query, each test query's ranking scored as a list of one": (
        _RANKED.format(
            prior='df["prior"] = df["doc"].map(df.groupby("doc")["rel"].mean())\n        F = ["bm25", "prior"]'
        ),
        [("preprocessing", 4)],
    ),
    "each test query's ranking scored as a list of one, the features of each row alone": (
        _RANKED.format(prior='F = ["bm25", "pagerank"]'),
        [],
    ),
}


@pytest.mark.parametrize("case", list(RANKINGS))
def test_a_ranking_metric_given_lists_of_one_query(tmp_path: Path, case: str) -> None:
    body, expected = RANKINGS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
