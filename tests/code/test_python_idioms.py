"""Python's ways of passing values on, read as the values they pass: `f(*data)` puts the items of a known tuple in
their places, `functools.partial(f, ...)` called is `f` called with its arguments first, and a `@dataclass` or a
`NamedTuple` of the file holds each value in its field, and functions spread into `assign(**{...})` are called
with the table. Each leak beside its correct use."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("d.csv")
"""

_RECORD = """
        {kind}
        class Parts{base}:
            X_train: pd.DataFrame
            X_test: pd.DataFrame
            y_train: pd.Series
            y_test: pd.Series
        s = Parts(*train_test_split(df[["a", "b"]], df["y"]))
        m = LogisticRegression().fit({x}, {y})
        print(m.score(s.X_test, s.y_test))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a helper's result unpacked into another helper's arguments, imputed before the split": (
        """
        def load():
            return SimpleImputer().fit_transform(df[["a", "b"]]), df["y"]
        def split(X, y):
            return train_test_split(X, y)
        X_tr, X_te, y_tr, y_te = split(*load())
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 5)],
    ),
    "LEAK: rows passed on through *args to a step that learns from them": (
        """
        def apply_step(step, *args, **kwargs):
            return step.fit_transform(*args, **kwargs)
        X = apply_step(StandardScaler(), df[["a", "b"]])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "LEAK: a search fitted on the test part given as *parts": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(*(X_te, y_te))
        print(search.score(X_te, y_te))
        """,
        [("overlap", 2)],
    ),
    "a search fitted on the training part given as *parts": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(*(X_tr, y_tr))
        print(search.score(X_te, y_te))
        """,
        [],
    ),
    "LEAK: a partial of the file's function that scales every row": (
        """
        def scale(frame, cols, scaler):
            out = frame.copy()
            out[cols] = scaler.fit_transform(out[cols])
            return out
        prep = partial(scale, cols=["a", "b"], scaler=StandardScaler())
        X_tr, X_te, y_tr, y_te = train_test_split(prep(df)[["a", "b"]], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 6)],
    ),
    "a partial of train_test_split, a scaler fitted on the training part": (
        """
        split = partial(train_test_split, test_size=0.2, random_state=0)
        X_tr, X_te, y_tr, y_te = split(df[["a", "b"]], df["y"])
        sc = StandardScaler().fit(X_tr)
        print(LogisticRegression().fit(sc.transform(X_tr), y_tr).score(sc.transform(X_te), y_te))
        """,
        [],
    ),
    **{
        f"{'LEAK: ' if leak else ''}columns assigned by lambdas spread from {how}": (
            f"""
        zcols = {{"a_z": lambda d: (d.a - d.a.mean()) / d.a.std(), "b_z": lambda d: d.b / d.b.std()}}
        fixed = {{"a_z": lambda d: d.a * 2, "b_z": lambda d: d.b + 1}}
        df = df.assign(**{spread})
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a_z", "b_z"]], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
            [("preprocessing", 3)] if leak else [],
        )
        for how, spread, leak in (
            ("a dict", '{"a_z": lambda d: (d.a - d.a.mean()) / d.a.std(), "b_z": lambda d: d.b / d.b.std()}', True),
            ("a comprehension", '{f"{c}_z": (lambda d, c=c: (d[c] - d[c].mean())) for c in ["a", "b"]}', True),
            ("a dict, each a fixed function of its row", '{"a_z": lambda d: d.a * 2, "b_z": lambda d: d.b + 1}', False),
            # the dict held in a name first, then spread
            ("a dict held in a name", "zcols", True),
            ("a dict of fixed functions held in a name", "fixed", False),
        )
    },
    **{
        f"LEAK: the parts kept in a {kind}, the final model fitted on both": (
            _RECORD.format(
                kind=decorator, base=base, x="pd.concat([s.X_train, s.X_test])", y="pd.concat([s.y_train, s.y_test])"
            ),
            [("overlap", line)],
        )
        for kind, decorator, base, line in (
            ("dataclass", "@dataclass", "", 8),
            ("NamedTuple", "", "(NamedTuple)", 7),  # no decorator line
        )
    },
    **{
        f"the parts kept in a {kind}, the model fitted on the training part": (
            _RECORD.format(kind=decorator, base=base, x="s.X_train", y="s.y_train"),
            [],
        )
        for kind, decorator, base in (("dataclass", "@dataclass", ""), ("NamedTuple", "", "(NamedTuple)"))
    },
}


@pytest.mark.parametrize("case", list(CASES))
def test_values_passed_on_by_python_idioms(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


RECORD_COPIES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a NamedTuple's field given anew by _replace, scaled by the training part": (
        """
        class Parts(NamedTuple):
            X_train: pd.DataFrame
            X_test: pd.DataFrame
            y_train: pd.Series
            y_test: pd.Series
        p = Parts(*train_test_split(df[["a", "b"]], df["y"]))
        sc = StandardScaler().fit(p.X_train)
        p = p._replace(X_train=sc.transform(p.X_train), X_test=sc.transform(p.X_test))
        print(LogisticRegression().fit(p.X_train, p.y_train).score(p.X_test, p.y_test))
        """,
        [],
    ),
    "LEAK: a dataclass's field given anew by dataclasses.replace with both parts": (
        """
        import dataclasses
        @dataclass
        class Parts:
            X_train: pd.DataFrame
            X_test: pd.DataFrame
            y_train: pd.Series
            y_test: pd.Series
        p = Parts(*train_test_split(df[["a", "b"]], df["y"]))
        p = dataclasses.replace(p, X_train=pd.concat([p.X_train, p.X_test]), y_train=pd.concat([p.y_train, p.y_test]))
        print(LogisticRegression().fit(p.X_train, p.y_train).score(p.X_test, p.y_test))
        """,
        [("overlap", 10)],
    ),
    "a per-subject centring by a lambda whose column is a default argument, folds grouped by subject": (
        """
        from sklearn.model_selection import GroupKFold, cross_val_score
        df = df.assign(**{"a_c": lambda d, c="a": d[c] - d.groupby("subject")[c].transform("mean")})
        print(cross_val_score(LogisticRegression(), df[["a_c"]], df["y"], groups=df["subject"], cv=GroupKFold(5)))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(RECORD_COPIES))
def test_copies_of_records_and_default_arguments(tmp_path: Path, case: str) -> None:
    body, expected = RECORD_COPIES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
