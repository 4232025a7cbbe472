"""A class's own methods called on the class (`Prep.run(df)`: a static method, a class method) and a method
that fills its object's columns in place (`for c in self.cols: df[c].fillna(..., inplace=True)`), each beside
correct code that looks like it: the same methods given the training part's statistics.
Each case is a script and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds
none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
"""

_SPLIT_AND_SCORE = """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""

_PREP = """
class Prep:
    @staticmethod
    def run(df):
        df["age"] = (df["age"] - df["age"].mean()) / df["age"].std()
        return df

    @staticmethod
    def stats(df):
        return df["age"].mean(), df["age"].std()

    @staticmethod
    def apply(df, stats):
        mu, sd = stats
        df["age"] = (df["age"] - mu) / sd
        return df

    @classmethod
    def scale(cls, df):
        return (df - df.mean()) / df.std()

    @classmethod
    def from_rows(cls, df):
        made = cls()
        made.means = df.mean(numeric_only=True)
        return made


df = pd.read_csv("titanic.csv")
"""

_CLEANER = """
class Cleaner:
    def __init__(self, cols):
        self.cols = cols
        self.means = {}

    def run(self, df):
        for c in self.cols:
            df[c].fillna(df[c].mean(), inplace=True)

    def fit(self, df):
        for c in self.cols:
            self.means[c] = df[c].mean()
        return self

    def transform(self, df):
        for c in self.cols:
            df[c].fillna(self.means[c], inplace=True)

    def zero(self, df):
        for c in self.cols:
            df[c].fillna(0, inplace=True)


df = pd.read_csv("titanic.csv")
cleaner = Cleaner(["age", "fare"])
"""

_FEATURES = 'X = df[["age", "fare"]]\ny = df["survived"]'

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a static method called on its class scales every row, its result kept": (
        _PREP + f"df = Prep.run(df)\n{_FEATURES}" + _SPLIT_AND_SCORE,
        [("preprocessing", 29)],
    ),
    "a static method called on its class changes the table in place": (
        _PREP + f"Prep.run(df)\n{_FEATURES}" + _SPLIT_AND_SCORE,
        [("preprocessing", 29)],
    ),
    "a class method called on its class scales every row": (
        _PREP + 'X = Prep.scale(df[["age", "fare"]])\ny = df["survived"]' + _SPLIT_AND_SCORE,
        [("preprocessing", 29)],
    ),
    "static and class methods given the training part's statistics": (
        _PREP
        + _FEATURES
        + """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
s = Prep.stats(X_tr)
X_tr = Prep.apply(X_tr, s)
X_te = Prep.apply(X_te, s)
X_te = X_te.fillna(Prep.from_rows(X_tr).means)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
""",
        [],
    ),
    "a method fills its object's columns in place with every row's mean": (
        _CLEANER + f"cleaner.run(df)\n{_FEATURES}" + _SPLIT_AND_SCORE,
        [("preprocessing", 26)],
    ),
    "a method fills its object's columns with a constant; the training means fill both parts": (
        _CLEANER
        + "cleaner.zero(df)\n"
        + _FEATURES
        + """
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
cleaner.fit(X_tr)
cleaner.transform(X_tr)
cleaner.transform(X_te)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
""",
        [],
    ),
}


@pytest.mark.parametrize("body, expected", CASES.values(), ids=CASES.keys())
def test_methods_called_on_their_class_and_columns_filled_in_place(
    tmp_path: Path, body: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected
