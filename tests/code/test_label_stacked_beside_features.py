"""The label put beside the features as a column of its own is among them: `pd.concat([X, df["label"]],
axis=1)`, `np.hstack([X, y[:, None]])`, `np.column_stack([df["f1"], df["f2"], y])`. A lag of the label, a
statistic made from it, or the features alone stacked are not the label."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

nodes = pd.read_csv("nodes.csv")
y = nodes["label"]
train, test = (nodes["split"] == "train").to_numpy(), (nodes["split"] == "test").to_numpy()
"""

BODY = """
feats = {stacked}
clf = LogisticRegression().fit(feats[train], y[train])
print(accuracy_score(y[test], clf.predict(feats[test])))
"""


@pytest.mark.parametrize(
    ("stacked", "expected"),
    [
        ('pd.concat([nodes[["f1", "f2"]], nodes["label"]], axis=1)', [("label_in_features", 2)]),
        ('np.hstack([nodes[["f1", "f2"]].to_numpy(), y.to_numpy()[:, None]])', [("label_in_features", 2)]),
        ('np.column_stack([nodes["f1"], nodes["f2"], y])', [("label_in_features", 2)]),
        ('np.c_[nodes[["f1", "f2"]].to_numpy(), y.to_numpy()]', [("label_in_features", 2)]),
        ('np.insert(nodes[["f1", "f2"]].to_numpy(), 2, y.to_numpy(), axis=1)', [("label_in_features", 2)]),
        ('nodes[["f1", "f2"]].join(nodes["label"])', [("label_in_features", 2)]),
        # a window of the label that holds each row's own label
        ('pd.concat([nodes[["f1", "f2"]], y.rolling(3, min_periods=1).mean()], axis=1)', [("label_in_features", 2)]),
        ('np.c_[nodes[["f1", "f2"]].to_numpy(), nodes["f3"].to_numpy()]', []),
        ('nodes[["f1", "f2"]].join(nodes["f3"])', []),
        ('pd.concat([nodes[["f1", "f2"]], nodes["f3"]], axis=1)', []),
        ('np.column_stack([nodes["f1"], nodes["f2"]])', []),
        # the label of the row before, in time order: a fair feature
        ('pd.concat([nodes[["f1", "f2"]], nodes["label"].shift(1)], axis=1).fillna(0)', []),
        ('nodes[["f1", "f2"]].assign(label_lag=y.shift(1)).fillna(0)', []),
        # a table of an array whose columns cannot be named (a lag among them): not said to hold the label
        ('pd.DataFrame(np.column_stack([nodes["f1"], nodes["f3"].shift(1).fillna(0)]))', []),
    ],
)
def test_the_label_stacked_beside_the_features_is_among_them(
    tmp_path: Path, stacked: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(stacked=stacked)) == expected


@pytest.mark.parametrize(
    ("listed", "expected"), [("list(expr.columns)", []), ("list(data.columns)", ["label_in_features"])]
)
def test_columns_listed_from_one_table_of_a_join(tmp_path: Path, listed: str, expected: list[str]) -> None:
    """`clin.join(expr)[list(expr.columns)]`: the columns of the expression table, not every column of the join, so
    the clinical label is not said to be among them; every column of the join holds it."""
    body = f"""
clin = pd.read_csv("clinical.csv", index_col="pid")
expr = pd.read_csv("expression.csv", index_col="pid")
data = clin.join(expr, how="inner")
X_tr, X_te, y_tr, y_te = train_test_split(data[{listed}], data["event"], random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
print(accuracy_score(y_te, m.predict(X_te)))
"""
    head = HEAD + "from sklearn.model_selection import train_test_split\n"
    assert [kind for kind, _ in leaks_found(tmp_path, head, body)] == expected


@pytest.mark.parametrize(
    ("feature", "expected"), [('nodes["w"] / 10', ["label_in_features"]), ('nodes["f3"] / 10', [])]
)
def test_a_column_computed_from_one_computed_from_the_label(tmp_path: Path, feature: str, expected: list[str]) -> None:
    """`w = label * 2`, then `r = w / 10`: r is computed from the label too, two steps away."""
    body = f"""
nodes["w"] = nodes["label"] * 2
nodes["r"] = {feature}
feats = nodes[["f1", "r"]]
clf = LogisticRegression().fit(feats[train], y[train])
print(accuracy_score(y[test], clf.predict(feats[test])))
"""
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected


POSITION_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split

df = pd.read_csv("energy.csv")
X = df[["temp", "humidity"]].to_numpy()
y = df["kwh"].to_numpy()
data = np.hstack([X, y[:, None]])
n_tr = int(0.8 * len(data))
train, test = data[:n_tr], data[n_tr:]
tr, te = train_test_split(df, test_size=0.2)
m = RandomForestRegressor()
"""


@pytest.mark.parametrize(
    ("fit", "expected"),
    [
        # the label given by its position in the table whose every column is a feature
        ("m.fit(train, train[:, -1])", ["label_in_features"]),
        ("m.fit(tr, tr.iloc[:, -1])", ["label_in_features"]),
        ("m.fit(tr, tr.iloc[:, 0])", ["label_in_features"]),
        # the label's column left out of X by position, or taken from the named arrays
        ("m.fit(train[:, :-1], train[:, -1])", []),
        ("m.fit(np.delete(train, -1, axis=1), train[:, -1])", []),
        ("m.fit(tr.drop(columns='kwh'), tr.iloc[:, -1])", []),
        # an array read by numpy, its columns not named: the same
        ("arr = np.loadtxt('energy.csv', delimiter=',')\nm.fit(arr, arr[:, 0])", ["label_in_features"]),
        ("arr = np.load('energy.npy')\nX, y = arr, arr[:, -1]\nm.fit(X, y)", ["label_in_features"]),
        ("arr = np.loadtxt('energy.csv', delimiter=',')\nm.fit(arr[:, 1:], arr[:, 0])", []),
        # a table drawn at random, its label made from it to be learned: a synthetic task, no answer leaked
        ("arr = np.random.rand(100, 3)\nm.fit(arr, arr[:, 0] > 0.5)", []),
        ("arr = np.loadtxt('energy.csv', delimiter=',')\nm.fit(np.delete(arr, 0, axis=1), arr[:, 0])", []),
        # the next row's value of a column from this row's: a forecast, the rows are not the same
        ("m.fit(df.iloc[:-1], df.iloc[1:, 0])", []),
        ("arr = np.loadtxt('energy.csv', delimiter=',')\nm.fit(arr[:-1], arr[1:, 0])", []),
        ("m.fit(df.shift(1).iloc[1:], df.iloc[1:, 0])", []),
    ],
)
def test_a_label_given_by_its_position(tmp_path: Path, fit: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, POSITION_HEAD, fit + "\n")] == expected


@pytest.mark.parametrize(
    ("fit", "expected"),
    [
        # a row's features and the next row's target: overlapping slices, not a split's two sides unpacked crossed
        ("m.fit(series[:-1], series[1:, 0])", []),
        ("past, nxt = series[:-1], series[1:]\nm.fit(past, nxt[:, 0])", []),
        ("m.fit(series[:-30], series[-30:, 0])", ["overlap"]),
    ],
)
def test_a_step_ahead_target_from_overlapping_slices(tmp_path: Path, fit: str, expected: list[str]) -> None:
    head = POSITION_HEAD + 'series = np.loadtxt("series.csv", delimiter=",")\nm = LinearRegression()\n'
    assert [kind for kind, _ in leaks_found(tmp_path, head, fit + "\n")] == expected


MATCH_HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

m = pd.read_csv("matches.csv").sort_values("date")
m["home_win"] = (m["hg"] > m["ag"]).astype(int)
m["odds"] = 1 / m["b365h"]
"""


@pytest.mark.parametrize(
    ("features", "expected"),
    [
        # each column the label was computed from is in a feature that holds the row's own value
        (
            'm["gf5"] = m.groupby("home")["hg"].transform(lambda s: s.rolling(5, min_periods=1).mean())\n'
            'm["ga5"] = m.groupby("home")["ag"].transform(lambda s: s.rolling(5, min_periods=1).mean())\n',
            ["label_in_features"],
        ),
        ('m["gf5"] = m["hg"].rolling(5, min_periods=1).mean()\nm["ga5"] = m["ag"] * 1.0\n', ["label_in_features"]),
        # the windows of earlier matches only: fair form
        (
            'm["gf5"] = m.groupby("home")["hg"].transform(lambda s: s.shift(1).rolling(5, min_periods=1).mean())\n'
            'm["ga5"] = m.groupby("home")["ag"].transform(lambda s: s.shift(1).rolling(5, min_periods=1).mean())\n',
            [],
        ),
        # one of the two only: each alone is not the label
        ('m["gf5"] = m["hg"].rolling(5, min_periods=1).mean()\nm["ga5"] = m["b365a"] * 1.0\n', []),
    ],
)
def test_a_label_of_two_columns_each_in_a_feature(tmp_path: Path, features: str, expected: list[str]) -> None:
    body = features + 'LogisticRegression().fit(m[["odds", "gf5", "ga5"]], m["home_win"])\n'
    assert [kind for kind, _ in leaks_found(tmp_path, MATCH_HEAD, body)] == expected


def test_a_label_by_position_names_the_table_it_was_taken_from(tmp_path: Path) -> None:
    """`y = df.iloc[:, 0]`, split with X = df: the column is one of `df`'s, not of the split's parts."""
    from tests.code.reading import read_script

    body = (
        "from sklearn.linear_model import LogisticRegression\n"
        "X, y = df, df.iloc[:, 0]\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
        "LogisticRegression().fit(X_tr, y_tr)\n"
    )
    result, _ = read_script(tmp_path, POSITION_HEAD, body)
    [leak] = result.leaks
    assert "learns y, a column of 'df' given by its position" in leak.leak.message
    assert leak.leak.fix.endswith("(df[:, :-1] beside df[:, -1], df.iloc[:, 1:] beside df.iloc[:, 0]).")


@pytest.mark.parametrize(
    "stacked",
    [
        'np.c_[nodes[["f1", "f2"]].to_numpy(), np.log1p(y.to_numpy())]',
        'np.column_stack([nodes["f1"], nodes["f2"], y])',
        'pd.concat([nodes[["f1", "f2"]], nodes["label"]], axis=1)',
    ],
)
def test_a_label_stacked_beside_the_features_is_told_where_it_was_stacked(tmp_path: Path, stacked: str) -> None:
    """The fix names the stack to leave the label out of, not a drop of a column the table never had."""
    from tests.code.reading import read_script

    result, offset = read_script(tmp_path, HEAD, BODY.format(stacked=stacked))
    [placed] = result.leaks
    line = offset + 1  # `feats = ...`, the body's first line
    assert f"a column of the label 'label' is stacked beside the features at line {line}" in placed.leak.message
    assert (
        placed.leak.fix
        == f"Leave the label 'label' (and what is computed from it) out of the columns stacked at line {line}."
    )
