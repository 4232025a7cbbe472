"""Correct code that was read as a leak, each beside the real leak that looks like it: the rest of the rows
taken out other than by `df.drop(train.index)`, a group's function that takes nothing from earlier rows, the
pieces of `np.array_split`, the features of a loader's `return_X_y`, one model per data set read in its own
pass. Each case is a script and the leaks it holds (kind and line), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.code.analysis import FileResult
from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import pandas as pd
import polars as pl
from sklearn.datasets import fetch_california_housing
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
"""

# The rows left once a sample is taken out, then a model trained on the sample and scored on them.
SAMPLE = """
df = pd.read_csv("data.csv")
train = df.sample(frac=0.8, random_state=0)
{rest}
clf = LogisticRegression().fit(train[["a", "b"]], train["y"])
print(clf.score(test[["a", "b"]], test["y"]))
"""


def _sample(rest: str) -> str:
    return SAMPLE.format(rest=rest)


# A group's column computed by a function of the group's rows, then a shuffled split.
GROUPED = """
df = pd.read_csv("patients.csv")
df["bmi"] = df.groupby("sex")["bmi"].transform({function})
X_tr, X_te, y_tr, y_te = train_test_split(df[["bmi", "age"]], df["disease"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


def _grouped(function: str) -> str:
    return GROUPED.format(function=function)


# Each line is counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # A. the rest of a sample, taken out other than by df.drop(train.index)
    "the rest of a sample by a negated index membership": (
        _sample("test = df[~df.index.isin(train.index)]"),
        [],
    ),
    "the rest of a sample by the index's difference": (
        _sample("test = df.loc[df.index.difference(train.index)]"),
        [],
    ),
    "the rest of a sample by a negated membership of an id column": (
        _sample('test = df[~df["id"].isin(train["id"])]'),
        [],
    ),
    "the rest of a sample by a merge's indicator, left only": (
        _sample(
            'm = df.merge(train[["id"]], on="id", how="left", indicator=True)\n'
            'test = m[m["_merge"] == "left_only"].drop(columns="_merge")'
        ),
        [],
    ),
    "the rest of a polars sample by an anti-join": (
        """
        df = pl.read_csv("data.csv").with_row_index("rid")
        train = df.sample(fraction=0.8, seed=0)
        test = df.join(train, on="rid", how="anti")
        clf = LogisticRegression().fit(train.select(["a", "b"]).to_numpy(), train["y"].to_numpy())
        print(clf.score(test.select(["a", "b"]).to_numpy(), test["y"].to_numpy()))
        """,
        [],
    ),
    "the rest of a sample by np.setdiff1d of the index": (
        _sample("test = df.loc[np.setdiff1d(df.index, train.index)]"),
        [],
    ),
    "the rest of a polars sample by a filter on a negated membership": (
        """
        df = pl.read_csv("data.csv").with_row_index("rid")
        train = df.sample(fraction=0.8, seed=0)
        test = df.filter(~pl.col("rid").is_in(train["rid"]))
        clf = LogisticRegression().fit(train.select(["a", "b"]).to_numpy(), train["y"].to_numpy())
        print(clf.score(test.select(["a", "b"]).to_numpy(), test["y"].to_numpy()))
        """,
        [],
    ),
    "a polars filter on a membership of another column of the sample": (
        """
        df = pl.read_csv("data.csv").with_row_index("rid")
        train = df.sample(fraction=0.8, seed=0)
        test = df.filter(~pl.col("rid").is_in(train["other"]))
        clf = LogisticRegression().fit(train.select(["a", "b"]).to_numpy(), train["y"].to_numpy())
        print(clf.score(test.select(["a", "b"]).to_numpy(), test["y"].to_numpy()))
        """,
        [("overlap", 4)],
    ),
    "np.setdiff1d of the index of another sample than the one trained on": (
        _sample("other = df.sample(frac=0.5, random_state=1)\ntest = df.loc[np.setdiff1d(df.index, other.index)]"),
        [("overlap", 5)],
    ),
    "the sample itself scored, found by a membership of its index": (
        _sample("test = df[df.index.isin(train.index)]"),
        [("overlap", 4)],
    ),
    "the rest of another sample than the one trained on": (
        _sample("other = df.sample(frac=0.8, random_state=1)\ntest = df[~df.index.isin(other.index)]"),
        [("overlap", 5)],
    ),
    "the rows a merge's indicator finds on both sides": (
        _sample('m = df.merge(train[["id"]], on="id", how="left", indicator=True)\ntest = m[m["_merge"] == "both"]'),
        [("overlap", 5)],
    ),
    "a membership of one column in another column of the sample": (
        _sample('test = df[~df["id"].isin(train["other_id"])]'),
        [("overlap", 4)],
    ),
    "the rest put back with the sample before training": (
        _sample("test = df[~df.index.isin(train.index)]\ntrain = pd.concat([train, test])"),
        [("overlap", 5)],
    ),
    "the rest dropped from a sample, put back with it before training": (
        _sample("test = df.drop(train.index)\ntrain = pd.concat([train, test])"),
        [("overlap", 5)],
    ),
    "the rest of a split's training part is its test part: trained on, then scored": (
        """
        df = pd.read_csv("data.csv")
        tr, te = train_test_split(df, random_state=0)
        rest = df[~df["id"].isin(tr["id"])]
        clf = LogisticRegression().fit(rest[["a", "b"]], rest["y"])
        print(clf.score(te[["a", "b"]], te["y"]))
        """,
        [("overlap", 4)],
    ),
    "a scaler fitted on every row before a polars sample and its anti-join": (
        """
        df = pl.read_csv("data.csv").with_row_index("rid")
        X = StandardScaler().fit_transform(df.select(["a", "b"]).to_numpy())
        df = df.with_columns(pl.Series("a_s", X[:, 0]), pl.Series("b_s", X[:, 1]))
        train = df.sample(fraction=0.8, seed=0)
        test = df.join(train, on="rid", how="anti")
        clf = LogisticRegression().fit(train.select(["a_s", "b_s"]).to_numpy(), train["y"].to_numpy())
        print(clf.score(test.select(["a_s", "b_s"]).to_numpy(), test["y"].to_numpy()))
        """,
        [("preprocessing", 2)],
    ),
    # B. a group's transform of a function: a lag only when it takes earlier rows
    "a group's transform that fills and clips each value": (
        _grouped("lambda s: s.fillna(0).clip(10, 60)"),
        [],
    ),
    "a group's transform that doubles each value": (
        _grouped("lambda s: s * 2"),
        [],
    ),
    "a group's transform of a library's function of each value": (
        _grouped("np.log1p"),
        [],
    ),
    "a group's transform that fills with the group's mean": (
        _grouped("lambda s: s.fillna(s.mean())"),
        [("preprocessing", 2)],
    ),
    "a group's transform that lags each value": (
        _grouped("lambda s: s.shift(1).rolling(3).mean()"),
        [("temporal_shuffle", 3)],
    ),
    "a group's transform that takes a running total": (
        _grouped("lambda s: s.cumsum()"),
        [("temporal_shuffle", 3)],
    ),
    "a group's transform of the file's function that centres on the group's mean": (
        "\ndef centred(s):\n    return s - s.mean()\n" + _grouped("centred"),
        [("preprocessing", 5)],
    ),
    # C. np.array_split: pieces that share no row
    "a hold-out piece of np.array_split, the others joined for training": (
        """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        folds = np.array_split(np.random.default_rng(0).permutation(len(X)), 5)
        test_idx = folds[0]
        train_idx = np.concatenate(folds[1:])
        clf = LogisticRegression().fit(X[train_idx], y[train_idx])
        print(accuracy_score(y[test_idx], clf.predict(X[test_idx])))
        """,
        [],
    ),
    "np.split at two cuts into training, validation and test pieces": (
        """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        n = len(X)
        tr, va, te = np.split(np.random.default_rng(0).permutation(n), [int(0.7 * n), int(0.85 * n)])
        clf = LogisticRegression().fit(X[tr], y[tr])
        print(clf.score(X[va], y[va]), clf.score(X[te], y[te]))
        """,
        [],
    ),
    "a loop over the pieces of np.array_split, each held out once": (
        """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        folds = np.array_split(np.random.default_rng(0).permutation(len(X)), 5)
        accs = []
        for i in range(5):
            test_idx = folds[i]
            train_idx = np.concatenate([folds[j] for j in range(5) if j != i])
            sc = StandardScaler().fit(X[train_idx])
            clf = LogisticRegression().fit(sc.transform(X[train_idx]), y[train_idx])
            accs.append(accuracy_score(y[test_idx], clf.predict(sc.transform(X[test_idx]))))
        print(np.mean(accs))
        """,
        [],
    ),
    "the hold-out piece among the pieces joined for training": (
        """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        folds = np.array_split(np.random.default_rng(0).permutation(len(X)), 5)
        test_idx = folds[0]
        train_idx = np.concatenate(folds[0:4])
        clf = LogisticRegression().fit(X[train_idx], y[train_idx])
        print(accuracy_score(y[test_idx], clf.predict(X[test_idx])))
        """,
        [("overlap", 6)],
    ),
    "a scaler fitted on every row before the pieces of np.array_split": (
        """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        X = StandardScaler().fit_transform(X)
        folds = np.array_split(np.random.default_rng(0).permutation(len(X)), 5)
        test_idx = folds[0]
        train_idx = np.concatenate(folds[1:])
        clf = LogisticRegression().fit(X[train_idx], y[train_idx])
        print(accuracy_score(y[test_idx], clf.predict(X[test_idx])))
        """,
        [("preprocessing", 3)],
    ),
    # D. a loader's return_X_y: X holds no target
    "the numeric columns of a loader's X, its y apart": (
        """
        X, y = fetch_california_housing(return_X_y=True, as_frame=True)
        X = X.select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the numeric columns of a loader's X after its y is stored in it": (
        """
        X, y = fetch_california_housing(return_X_y=True, as_frame=True)
        X["target"] = y
        X = X.select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 5)],
    ),
    "the numeric columns of a loader's whole frame, target included": (
        """
        frame = fetch_california_housing(as_frame=True).frame
        X = frame.select_dtypes("number")
        y = frame["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 5)],
    ),
    # E. one model per data set, each read in its own pass; the scores sorted for display
    "one model per data set read in each pass, its scores sorted": (
        """
        results = {}
        for name in ["bank.csv", "credit.csv", "adult.csv"]:
            df = pd.read_csv(name)
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
            results[name] = LogisticRegression(max_iter=1000).fit(X_tr, y_tr).score(X_te, y_te)
        print(pd.Series(results).sort_values(ascending=False))
        """,
        [],
    ),
    "one model per data set, each read by the file's function called in each pass": (
        """
        def evaluate(path):
            df = pd.read_csv(path)
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
            return LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te)
        results = {}
        for name in ["bank.csv", "credit.csv", "adult.csv"]:
            results[name] = evaluate(name)
        print(pd.Series(results).sort_values())
        """,
        [],
    ),
    "settings given to the file's function that reads one file in each pass": (
        """
        def evaluate(path, C):
            df = pd.read_csv(path)
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
            return LogisticRegression(C=C).fit(X_tr, y_tr).score(X_te, y_te)
        results = {}
        for C in [0.1, 1.0, 10.0]:
            results[C] = evaluate("bank.csv", C)
        print(pd.Series(results).sort_values())
        """,
        [("multi_test", 7)],
    ),
    "settings tried on one file read again in each pass, the best kept": (
        """
        results = {}
        for C in [0.01, 0.1, 1.0]:
            path = "bank.csv"
            df = pd.read_csv(path)
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
            results[C] = LogisticRegression(C=C).fit(X_tr, y_tr).score(X_te, y_te)
        print(pd.Series(results).sort_values(ascending=False))
        """,
        [("multi_test", 6)],
    ),
    "settings tried on each data set's test part, all the scores sorted": (
        """
        results = {}
        for name in ["bank.csv", "credit.csv"]:
            df = pd.read_csv(name)
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
            for C in [0.01, 0.1, 1.0]:
                results[(name, C)] = LogisticRegression(C=C).fit(X_tr, y_tr).score(X_te, y_te)
        print(pd.Series(results).sort_values(ascending=False))
        """,
        [("multi_test", 6)],
    ),
}


def _read(tmp_path: Path, body: str) -> tuple[FileResult, int]:
    return read_script(tmp_path, HEAD, body)


@pytest.mark.parametrize("name", CASES)
def test_correct_code_is_clean_and_the_leak_beside_it_is_found(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)


def test_the_rest_put_back_with_the_sample_is_said_so(tmp_path: Path) -> None:
    result, _ = _read(tmp_path, _sample("test = df[~df.index.isin(train.index)]\ntrain = pd.concat([train, test])"))
    (leak,) = result.leaks
    assert "the training and test parts put back together" in leak.leak.message


def test_a_group_statistic_in_a_function_is_one_finding_named_by_the_transform(tmp_path: Path) -> None:
    """The function's own `s.mean()` is not a second finding: the transform is the statement a reader accepts."""
    result, _ = _read(tmp_path, _grouped("lambda s: s.fillna(s.mean())"))
    (leak,) = result.leaks
    assert leak.leak.what == "df.groupby('sex')['bmi'].transform()"
    assert "a statistic per group" in leak.leak.message
