"""Statistics of a table's rows written with pandas' own verbs, before the split: a group's mean given to
fillna, a function of the file passed to pipe, a lambda or a dict given to assign, a function applied to each
column, learned bin edges and ranks, a dict of statistics given to fillna, a column inserted or updated in
place. Each leak beside correct code that looks like it: values computed row by
row (a ratio, a row's own mean), bins cut at edges written out, statistics taken of the training part only.
Each case is a script and the leaks it holds (kind and line), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.code.analysis import FileResult
from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import pandas as pd
from scipy.stats import zscore
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split
"""

# A column computed from the table before a shuffled split, then a model scored on the test part.
PATIENTS = """
df = pd.read_csv("patients.csv")
{line}
X_tr, X_te, y_tr, y_te = train_test_split(df[["bmi", "age"]], df["disease"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""

# The file's own function of a table, then a shuffled split of what it returns.
CARS = """
def add(d):
    {body}

df = pd.read_csv("cars.csv"){call}
train, test = train_test_split(df, test_size=0.25, random_state=0)
lr = LinearRegression().fit(train[["weight_n"]], train["mpg"])
print(lr.score(test[["weight_n"]], test["mpg"]))
"""

# The features made from the whole table, then a shuffled split.
FEATURES = """
df = pd.read_csv("data.csv")
X = {features}
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


def _patients(line: str) -> str:
    return PATIENTS.format(line=line)


def _cars(body: str, call: str) -> str:
    return CARS.format(body=body, call=call)


def _features(features: str) -> str:
    return FEATURES.format(features=features)


NORM = 'd["weight_n"] = (d["weight"] - d["weight"].mean()) / d["weight"].std()\n    return d'
RATIO = 'd["weight_n"] = d["weight"] / d["hp"]\n    return d'

# Each line is counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # 1. a group's statistic, named by a string, given to fillna
    "fillna with the group mean by transform('mean')": (
        _patients('df["bmi"] = df["bmi"].fillna(df.groupby("sex")["bmi"].transform("mean"))'),
        [("preprocessing", 2)],
    ),
    "fillna with a group median kept in a name first": (
        _patients('m = df.groupby("sex")["bmi"].transform("median")\ndf["bmi"] = df["bmi"].fillna(m)'),
        [("preprocessing", 2)],
    ),
    "where with the group mean in place of the missing": (
        _patients('df["bmi"] = df["bmi"].where(df["bmi"].notna(), df.groupby("sex")["bmi"].transform("mean"))'),
        [("preprocessing", 2)],
    ),
    "fillna with another column of the same row": (
        _patients('df["bmi"] = df["bmi"].fillna(df["bmi_reported"])'),
        [],
    ),
    "fillna with the group mean of the training part only": (
        """
        df = pd.read_csv("patients.csv")
        train, test = train_test_split(df, random_state=0)
        train["bmi"] = train["bmi"].fillna(train.groupby("sex")["bmi"].transform("mean"))
        test["bmi"] = test["bmi"].fillna(train["bmi"].mean())
        clf = LogisticRegression().fit(train[["bmi", "age"]], train["disease"])
        print(clf.score(test[["bmi", "age"]], test["disease"]))
        """,
        [],
    ),
    # 2. the file's own function given to pipe
    "pipe of a function that standardises a column": (_cars(NORM, ".pipe(add)"), [("preprocessing", 5)]),
    "pipe with more arguments, given on": (
        _cars(
            'return d.assign(**{col + "_n": (d[col] - d[col].mean()) / d[col].std()})', '.pipe(add, col="weight")'
        ).replace("def add(d):", "def add(d, col):"),
        [("preprocessing", 4)],
    ),
    "pipe of a function given with the keyword its table goes to": (
        _cars(NORM, '.pipe((add, "d"))'),
        [("preprocessing", 5)],
    ),
    "pipe of a function that computes a ratio in each row": (_cars(RATIO, ".pipe(add)"), []),
    "pipe of a lambda that computes a ratio in each row": (
        _cars(RATIO, '.pipe(lambda t: t.assign(weight_n=t["weight"] / t["hp"]))'),
        [],
    ),
    # 3. assign given a lambda or a dict of names made at run time
    "assign of a lambda that standardises a column": (
        _features('df.drop(columns="y").assign(z=lambda t: (t.x - t.x.mean()) / t.x.std())'),
        [("preprocessing", 2)],
    ),
    "a lambda given a name that standardises the table, called before the split": (
        _features('standardize(df.drop(columns="y"))').replace(
            'df = pd.read_csv("data.csv")',
            'standardize = lambda t: (t - t.mean()) / t.std()\ndf = pd.read_csv("data.csv")',
        ),
        [("preprocessing", 3)],
    ),
    "a lambda given a name that computes a ratio in each row, or scales by statistics given to it": (
        _features('ratio(df)[["r"]]').replace(
            'df = pd.read_csv("data.csv")',
            'ratio = lambda t: t.assign(r=t["a"] / t["b"])\nscale = lambda t, m, s: (t - m) / s\n'
            'df = pd.read_csv("data.csv")\nm, s = 0.5, 2.0\ndf = scale(df, m, s)',
        ),
        [],
    ),
    "assign of a dict with a name made from a variable": (
        _features('df.drop(columns="y").assign(**{"x" + "_n": (df["x"] - df["x"].mean()) / df["x"].std()})'),
        [("preprocessing", 2)],
    ),
    "assign of a lambda that computes a ratio in each row": (
        _features('df.drop(columns="y").assign(r=lambda t: t.x / t.w)'),
        [],
    ),
    "assign of a dict of ratios in each row": (
        _features('df.drop(columns="y").assign(**{"x" + "_r": df["x"] / df["w"]})'),
        [],
    ),
    # 4. a function applied to each column
    "apply of scipy's zscore to each column": (
        _features('df.drop(columns="y").apply(zscore)'),
        [("preprocessing", 2)],
    ),
    "apply of a lambda that standardises each column": (
        _features('df.drop(columns="y").apply(lambda c: (c - c.mean()) / c.std())'),
        [("preprocessing", 2)],
    ),
    "apply of the file's function that centres each column": (
        "\ndef centred(c):\n    return c - c.mean()\n" + _features('df.drop(columns="y").apply(centred)'),
        [("preprocessing", 5)],
    ),
    "apply along each row of a lambda that standardises the row": (
        _features('df.drop(columns="y").apply(lambda r: (r - r.mean()) / r.std(), axis=1)'),
        [],
    ),
    "apply of a lambda that changes each value alone": (
        _features('df.drop(columns="y").apply(lambda c: np.log1p(c))'),
        [],
    ),
    "transform of a lambda that fills each column with its median": (
        _features('df.drop(columns="y").transform(lambda c: c.fillna(c.median()))'),
        [("preprocessing", 2)],
    ),
    "transform of a lambda that clips each value alone": (
        _features('df.drop(columns="y").transform(lambda c: c.clip(lower=0))'),
        [],
    ),
    "transform of one column by a lambda that fills it with its median": (
        _patients('df["bmi"] = df["bmi"].transform(lambda s: s.fillna(s.median()))'),
        [("preprocessing", 2)],
    ),
    "transform of one column by a lambda that changes each value alone": (
        _patients('df["bmi"] = df["bmi"].transform(lambda v: v * 2)'),
        [],
    ),
    "transform of one column by numpy's log": (
        _patients('df["bmi"] = df["bmi"].transform(np.log1p)'),
        [],
    ),
    # 5. bins and ranks
    "qcut of a column into quantiles": (
        _patients('df["age"] = pd.qcut(df["age"], 5, labels=False)'),
        [("preprocessing", 2)],
    ),
    "cut of a column into a number of bins": (
        _patients('df["age"] = pd.cut(df["age"], 5, labels=False)'),
        [("preprocessing", 2)],
    ),
    "rank of a column as a percentile": (
        _patients('df["bmi"] = df["bmi"].rank(pct=True)'),
        [("preprocessing", 2)],
    ),
    "cut of a column at edges written out": (
        _patients('df["age"] = pd.cut(df["age"], [0, 30, 50, 120], labels=False)'),
        [],
    ),
    "cut of a column at edges given by keyword": (
        _patients('df["age"] = pd.cut(df["age"], bins=[0, 30, 50, 120], labels=False)'),
        [],
    ),
    # 6. rows kept by a statistic of every row
    "outliers taken out by a z-score of every row": (
        _features('df[(np.abs(zscore(df.select_dtypes("number"))) < 3).all(axis=1)].drop(columns="y")'),
        [("preprocessing", 2)],
    ),
    "outliers taken out of the training part by its own z-score": (
        """
        df = pd.read_csv("data.csv")
        train, test = train_test_split(df, random_state=0)
        train = train[(np.abs(zscore(train[["a", "b"]])) < 3).all(axis=1)]
        clf = LogisticRegression().fit(train[["a", "b"]], train["y"])
        print(clf.score(test[["a", "b"]], test["y"]))
        """,
        [],
    ),
    "classes too rare to stratify taken out by their count over every row": (
        """
        df = pd.read_csv("patients.csv")
        df = df[df.groupby("cls")["cls"].transform("count") >= 2]
        X_tr, X_te, y_tr, y_te = train_test_split(df[["bmi", "age"]], df["cls"], stratify=df["cls"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    # 7. each value's count: frequency encoding
    "frequency encoding by value_counts over every row": (
        _patients('df["bmi"] = df["ward"].map(df["ward"].value_counts(normalize=True))'),
        [("preprocessing", 2)],
    ),
    "frequency encoding by value_counts over the training and test parts put together": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        freq = pd.concat([train["ward"], test["ward"]]).value_counts()
        train["f"], test["f"] = train["ward"].map(freq), test["ward"].map(freq)
        clf = LogisticRegression().fit(train[["f", "age"]], train["y"])
        print(clf.score(test[["f", "age"]], test["y"]))
        """,
        [("preprocessing", 2)],
    ),
    "frequency encoding by the training part's value_counts": (
        """
        df = pd.read_csv("data.csv")
        train, test = train_test_split(df, random_state=0)
        freq = train["ward"].value_counts(normalize=True)
        train["f"], test["f"] = train["ward"].map(freq), test["ward"].map(freq).fillna(0)
        clf = LogisticRegression().fit(train[["f", "age"]], train["y"])
        print(clf.score(test[["f", "age"]], test["y"]))
        """,
        [],
    ),
    "value_counts printed, and rare wards taken out by their count over every row": (
        """
        df = pd.read_csv("patients.csv")
        print(df["ward"].value_counts().head(), df["disease"].value_counts(normalize=True))
        counts = df["ward"].value_counts()
        df = df[df["ward"].isin(counts[counts >= 10].index)]
        X_tr, X_te, y_tr, y_te = train_test_split(df[["bmi", "age"]], df["disease"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "rows kept by a threshold written out": (
        _features('df[(df["a"] < 1000) & (df["b"] > 0)].drop(columns="y")'),
        [],
    ),
    # 6. a loop over columns filling each in place
    "each column filled in place with its mean over every row, in a loop": (
        _patients('for c in ["bmi", "age"]:\n    df[c].fillna(df[c].mean(), inplace=True)'),
        [("preprocessing", 3)],
    ),
    "each column of both parts filled in place with the training part's mean, in a loop": (
        """
df = pd.read_csv("patients.csv")
train, test = train_test_split(df, random_state=0)
for c in ["bmi", "age"]:
    test[c].fillna(train[c].mean(), inplace=True)
    train[c].fillna(train[c].mean(), inplace=True)
lr = LogisticRegression().fit(train[["bmi", "age"]], train["disease"])
print(lr.score(test[["bmi", "age"]], test["disease"]))
""",
        [],
    ),
    "each column filled in place with a constant, in a loop": (
        _patients('for c in ["bmi", "age"]:\n    df[c].fillna(0, inplace=True)'),
        [],
    ),
    # 5. a dict of statistics, one per column, given to the table's fillna
    "fillna of a dict of every row's mean": (
        _patients('df = df.fillna({"bmi": df["bmi"].mean()})'),
        [("preprocessing", 2)],
    ),
    "fillna in place of a dict of medians and means, given as value=": (
        _patients('df.fillna(value={"bmi": df["bmi"].median(), "age": df["age"].mean()}, inplace=True)'),
        [("preprocessing", 2)],
    ),
    "fillna of a dict of statistics kept in a name first": (
        _patients('means = {"bmi": df["bmi"].mean()}\ndf = df.fillna(means)'),
        [("preprocessing", 2)],
    ),
    "fillna of a dict of constants": (_patients('df = df.fillna({"bmi": 0, "age": -1})'), []),
    "fillna in place of a dict of a statistic of a column that is not a feature": (
        _patients('df.fillna({"cabin": df["cabin"].mode()[0]}, inplace=True)'),
        [],
    ),
    "fillna of a dict of statistics of a column that is not a feature and one that is": (
        _patients('df = df.fillna({"cabin": df["cabin"].mode()[0], "age": df["age"].median()})'),
        [("preprocessing", 2)],
    ),
    "fillna of a dict of a reference table's medians": (
        _patients('ref = pd.read_csv("census_2019.csv")\ndf = df.fillna({"bmi": ref["bmi"].median()})'),
        [],
    ),
    # 6. a table changed in place by insert and update
    "insert of a column standardised over every row": (
        _patients('df.insert(0, "bmi_z", (df["bmi"] - df["bmi"].mean()) / df["bmi"].std())').replace(
            '"bmi", "age"', '"bmi_z", "age"'
        ),
        [("preprocessing", 2)],
    ),
    "insert given its column and values by keyword": (
        _patients('df.insert(1, column="bmi_c", value=df["bmi"] - df["bmi"].median())').replace(
            '"bmi", "age"', '"bmi_c", "age"'
        ),
        [("preprocessing", 2)],
    ),
    "insert of a column standardised over every row that is not among the features": (
        _patients('df.insert(0, "bmi_z", (df["bmi"] - df["bmi"].mean()) / df["bmi"].std())'),
        [],
    ),
    "update with a column filled with every row's mean": (
        _patients('df.update(df[["bmi"]].fillna(df["bmi"].mean()))'),
        [("preprocessing", 2)],
    ),
    "insert of a ratio in each row": (
        _patients('df.insert(0, "bmi_age", df["bmi"] / df["age"])').replace('"bmi", "age"', '"bmi_age", "age"'),
        [],
    ),
    "update with a column filled with a constant": (_patients('df.update(df[["bmi"]].fillna(0))'), []),
    "update with a column that is not a feature filled with every row's median": (
        _patients('df.update(df[["smoker"]].fillna(df["smoker"].median()))'),
        [],
    ),
    "insert into each part of a column standardised by the training part": (
        """
df = pd.read_csv("patients.csv")
train, test = train_test_split(df, random_state=0)
mu, sd = train["bmi"].mean(), train["bmi"].std()
train.insert(0, "bmi_z", (train["bmi"] - mu) / sd)
test.insert(0, "bmi_z", (test["bmi"] - mu) / sd)
test.update(test[["age"]].fillna(train["age"].median()))
params = {"C": 1.0}
params.update({"max_iter": 200})
lr = LogisticRegression(**params).fit(train[["bmi_z", "age"]], train["disease"])
print(lr.score(test[["bmi_z", "age"]], test["disease"]))
""",
        [],
    ),
    "both parts filled from a dict of the training part's statistics": (
        """
df = pd.read_csv("patients.csv")
train, test = train_test_split(df, random_state=0)
fill = {"bmi": train["bmi"].median(), "age": train["age"].mean()}
train = train.fillna(fill)
test = test.fillna(fill)
lr = LogisticRegression().fit(train[["bmi", "age"]], train["disease"])
print(lr.score(test[["bmi", "age"]], test["disease"]))
""",
        [],
    ),
}


def _read(tmp_path: Path, body: str) -> tuple[FileResult, int]:
    return read_script(tmp_path, HEAD, body)


@pytest.mark.parametrize("name", CASES)
def test_a_statistic_of_every_row_is_found_and_the_look_alike_is_clean(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)


def test_a_function_applied_to_each_column_is_one_finding_named_by_the_apply(tmp_path: Path) -> None:
    """The lambda's own `c.mean()` and `c.std()` are not findings of their own: the apply is what a reader sees."""
    result, _ = _read(tmp_path, _features('df.drop(columns="y").apply(lambda c: (c - c.mean()) / c.std())'))
    (leak,) = result.leaks
    assert leak.leak.what == "df.drop(columns='y').apply()"
    assert "a statistic of each column" in leak.leak.message


def test_a_function_piped_twice_names_each_statistic_once(tmp_path: Path) -> None:
    """Two pipes of one function (one column each) take its statistics twice, at the same place: said once."""
    body = _cars(
        'return d.assign(**{col + "_n": (d[col] - d[col].mean()) / d[col].std()})',
        '.pipe(add, "weight").pipe(add, "hp")',
    ).replace("def add(d):", "def add(d, col):")
    result, _ = _read(tmp_path, body)
    (leak,) = result.leaks
    assert leak.leak.what == "d[col].mean() and d[col].std()"
