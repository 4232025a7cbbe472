"""A table built from a dict of columns already followed holds those columns' rows and what they went through:
`pd.DataFrame({"a": Z[:, 0], "b": Z[:, 1]})` of a scaler's output is still scaled with every row's statistics,
and a column of a model's in-sample predictions is still those predictions; `pd.Series(model.predict(X_te),
index=...)` is still the model's predictions of those rows. Built from the training part's
columns, or as a table of test labels beside predictions, it is clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("churn.csv")
y = df["churn"]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a scaler fitted on every row, its columns put in a new table, then split": (
        """
Z = StandardScaler().fit_transform(df[["a", "b"]])
X = pd.DataFrame({"a": Z[:, 0], "b": Z[:, 1]})
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=1)
m = LogisticRegression().fit(X_tr, y_tr)
print(roc_auc_score(y_te, m.predict_proba(X_te)[:, 1]))
""",
        [("preprocessing", 1)],
    ),
    "LEAK: in-sample predictions of every row as a stacked feature, then split": (
        """
X = df[["a", "b", "c"]]
meta = pd.DataFrame({"rf": RandomForestClassifier().fit(X, y).predict_proba(X)[:, 1]})
m_tr, m_te, y_tr, y_te = train_test_split(meta, y, random_state=1)
stack = LogisticRegression().fit(m_tr, y_tr)
print(roc_auc_score(y_te, stack.predict_proba(m_te)[:, 1]))
""",
        [("preprocessing", 2)],
    ),
    "the split first, the training part's scaled columns put in a table": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], y, random_state=1)
sc = StandardScaler().fit(X_tr)
Z_tr, Z_te = sc.transform(X_tr), sc.transform(X_te)
T_tr = pd.DataFrame({"a": Z_tr[:, 0], "b": Z_tr[:, 1]})
T_te = pd.DataFrame({"a": Z_te[:, 0], "b": Z_te[:, 1]})
m = LogisticRegression().fit(T_tr, y_tr)
print(roc_auc_score(y_te, m.predict_proba(T_te)[:, 1]))
""",
        [],
    ),
    "a table of the test labels beside the model's predictions, scored": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], y, random_state=1)
m = LogisticRegression().fit(X_tr, y_tr)
res = pd.DataFrame({"y": y_te, "p": m.predict_proba(X_te)[:, 1]})
print(roc_auc_score(res["y"], res["p"]))
""",
        [],
    ),
    "LEAK: a scaler fitted on every row, the predictions wrapped in a Series before the score": (
        """
X = StandardScaler().fit_transform(df[["a", "b"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
p = pd.Series(m.predict_proba(X_te)[:, 1], index=y_te.index)
print(roc_auc_score(y_te, p))
""",
        [("preprocessing", 1)],
    ),
    "LEAK: the predictions of the rows trained on, wrapped in a Series, scored as the test": (
        """
m = LogisticRegression().fit(df[["a", "b"]], y)
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], y, random_state=0)
print(roc_auc_score(y_te, pd.Series(m.predict_proba(X_te)[:, 1], index=X_te.index)))
""",
        [("overlap", 1)],
    ),
    "the split first, the predictions wrapped in a Series before the score": (
        """
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], y, random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
print(roc_auc_score(y_te, pd.Series(m.predict_proba(X_te)[:, 1], index=X_te.index)))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_table_built_from_columns_keeps_what_they_went_through(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize(("start", "expected"), [("[]", [("preprocessing", 4)]), ("[X[:, 0]]", [("preprocessing", 4)])])
def test_columns_appended_to_a_list_in_a_loop_are_stacked_with_it(
    tmp_path: Path, start: str, expected: list[tuple[str, int]]
) -> None:
    """np.column_stack(meta) of a list a loop appended each model's in-sample predictions to (empty, or written
    with a first column): the stacked columns are those predictions, however the list began."""
    body = f"""
X = df[["a", "b"]].to_numpy()
meta = {start}
for m in [RandomForestClassifier(), LogisticRegression()]:
    meta.append(m.fit(X, y).predict_proba(X)[:, 1])
meta_X = np.column_stack(meta)
X_tr, X_te, y_tr, y_te = train_test_split(meta_X, y, random_state=1)
print(roc_auc_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]))
"""
    assert leaks_found(tmp_path, "import numpy as np\n" + HEAD, body) == expected


SERIES_HEAD = """\
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error
from sktime.forecasting.compose import make_reduction
from sktime.forecasting.model_selection import temporal_train_test_split

df = pd.read_csv("d.csv", parse_dates=["date"], index_col="date")
y = df["sales"]
"""


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        # a centred window of the series: this row's sales and next week's among its exogenous columns
        ('{"trend7": y.rolling(7, center=True).mean()}', ["label_in_features"]),
        # lags of the series: earlier rows only
        ('{"lag1": y.shift(1), "lag7": y.shift(7)}', []),
    ],
)
def test_a_table_of_exogenous_columns_given_to_an_sktime_forecaster(
    tmp_path: Path, columns: str, expected: list[str]
) -> None:
    """sktime's `fit(y, X=X)`: the series first, the table of its exogenous columns beside it."""
    body = f"""
X = pd.DataFrame({columns}, index=df.index)
y_tr, y_te, X_tr, X_te = temporal_train_test_split(y, X, test_size=56)
f = make_reduction(LinearRegression(), window_length=28).fit(y_tr, X=X_tr)
print(mean_absolute_error(y_te, f.predict(fh=list(range(1, 57)), X=X_te)))
"""
    assert [kind for kind, _ in leaks_found(tmp_path, SERIES_HEAD, body)] == expected


@pytest.mark.parametrize(
    ("column", "expected"), [("y.rolling(3, min_periods=1).mean()", ["label_in_features"]), ("y.shift(1)", [])]
)
def test_a_column_of_the_label_in_a_table_built_from_a_dict(tmp_path: Path, column: str, expected: list[str]) -> None:
    body = f"""
X = pd.DataFrame({{"a": df["a"], "form": {column}}}).fillna(0)
m = LinearRegression().fit(X, y)
"""
    assert [kind for kind, _ in leaks_found(tmp_path, SERIES_HEAD, body)] == expected
