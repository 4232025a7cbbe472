"""Feature lists as competition code writes them: the names of an unlabelled test file's columns, a list read
before a column was added, numeric columns less the label joined with the text ones, the columns with no value
missing or that vary (`df.loc[:, df.notna().all()]`, a label always complete among them). Each holds the label
only where the names it was made from do. Each case is a script and the leaks it holds (kind and line, counted after
HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict, cross_val_score, train_test_split
"""

_FIT = """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

_VARYING = """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        feats = [c for c in {table}.columns if {test}]
        X, y = train[feats], train["target"]
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the training file's columns that vary, the target among them": (
        _VARYING.format(table="train", test='c != "id" and train[c].nunique() > 1') + _FIT,
        [("label_in_features", 6)],
    ),
    "the training file's numeric columns whose spread is not zero, the target among them": (
        _VARYING.format(table="train", test="train[c].std() != 0") + _FIT,
        [("label_in_features", 6)],
    ),
    "the training file's columns that vary, the target left out by name": (
        _VARYING.format(table="train", test='c not in ("id", "target") and train[c].nunique() >= 2') + _FIT,
        [],
    ),
    "an unlabelled test file's columns that vary": (
        _VARYING.format(table="test", test="test[c].nunique() > 1") + _FIT,
        [],
    ),
    "the training file's columns with more than ten values, a test that may leave the target out": (
        _VARYING.format(table="train", test="train[c].nunique() > 10") + _FIT,
        [],
    ),
    "the training file's columns with no value missing, the target among them": (
        _VARYING.format(table="train", test="train[c].notna().all()") + _FIT,
        [("label_in_features", 6)],
    ),
    "the training file's columns missing under a third of their values, the target among them": (
        _VARYING.format(table="train", test="train[c].isna().mean() < 0.3") + _FIT,
        [("label_in_features", 6)],
    ),
    "the training file's columns missing under a third of their values, the target left out by name": (
        _VARYING.format(table="train", test='c != "target" and train[c].isna().mean() < 0.3') + _FIT,
        [],
    ),
    "the features named by an unlabelled test file's columns": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        feats = [c for c in test.columns if c != "id"]
        X, y = train[feats], train["target"]
        """
        + _FIT,
        [],
    ),
    "the features named by the training file's columns, the target forgotten": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        feats = [c for c in train.columns if c != "id"]
        X, y = train[feats], train["target"]
        """
        + _FIT,
        [("label_in_features", 6)],
    ),
    "a list of the training file's columns read before a label of its own was added": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        feats = [c for c in train.columns if c not in ("id", "target")]
        adv = pd.concat([train[feats].assign(is_test=0), test[feats].assign(is_test=1)], ignore_index=True)
        print(cross_val_score(LogisticRegression(), adv[feats], adv["is_test"], cv=5).mean())
        """,
        [],
    ),
    "a list of the columns read after that label was added": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        adv = pd.concat([train.assign(is_test=0), test.assign(is_test=1)], ignore_index=True)
        feats = [c for c in adv.columns if c not in ("id", "target")]
        print(cross_val_score(LogisticRegression(), adv[feats], adv["is_test"], cv=5).mean())
        """,
        [("label_in_features", 4)],
    ),
    "the numeric columns less the label, joined with the text columns or a named one": (
        """
        df = pd.read_csv("loans.csv")
        num = df.select_dtypes("number").columns.drop(["app_id", "bad"]).tolist()
        cat = df.select_dtypes("object").columns.tolist()
        X, y = df[num + cat], df["bad"]
        print(cross_val_score(LogisticRegression(), df[num + ["purpose"]], y, cv=5).mean())
        """
        + _FIT,
        [],
    ),
    "the numeric columns less the id only, joined with the text columns": (
        """
        df = pd.read_csv("loans.csv")
        df["bad"] = (df["status"] == "default").astype(int)
        num = df.select_dtypes("number").columns.drop(["app_id"]).tolist()
        cat = df.select_dtypes("object").columns.tolist()
        X, y = df[num + cat], df["bad"]
        """
        + _FIT,
        [("label_in_features", 8)],
    ),
    "the columns that are not text, less the logged label, beside the price it was computed from": (
        """
        df = pd.read_csv("houses.csv")
        df["log_price"] = np.log1p(df["SalePrice"])
        feats = [c for c in df.columns if c not in ["Id", "log_price"] and df[c].dtype != "object"]
        X, y = df[feats], df["log_price"]
        """
        + _FIT,
        [("label_in_features", 7)],
    ),
    "the columns that are not text, less the logged label and the price": (
        """
        df = pd.read_csv("houses.csv")
        df["log_price"] = np.log1p(df["SalePrice"])
        feats = [c for c in df.columns if c not in ["Id", "log_price", "SalePrice"] and df[c].dtype != "object"]
        X, y = df[feats], df["log_price"]
        """
        + _FIT,
        [],
    ),
    "every column but the id and a named one": (
        """
        df = pd.read_csv("loans.csv")
        X, y = df[[c for c in df.columns if c != "app_id"] + ["purpose"]], df["bad"]
        """
        + _FIT,
        [("label_in_features", 5)],
    ),
}


_TABLE = """
        df = pd.read_csv("train.csv")
        y = df["target"]
        """

COMPLETE: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the columns with no value missing, by loc and a mask of the table": (
        _TABLE + "X = df.loc[:, df.notna().all()]" + _FIT,
        [("label_in_features", 5)],
    ),
    "LEAK: the columns missing under a third of their values, named by the table's columns": (
        _TABLE + "X = df[df.columns[df.isna().mean() < 0.3]]" + _FIT,
        [("label_in_features", 5)],
    ),
    "LEAK: the columns that vary, by loc and a mask of the table": (
        _TABLE + "X = df.loc[:, df.nunique() > 1]" + _FIT,
        [("label_in_features", 5)],
    ),
    "LEAK: the columns with nothing missing, ~isna().any()": (
        _TABLE + "X = df.loc[:, ~df.isna().any()]" + _FIT,
        [("label_in_features", 5)],
    ),
    "the label dropped, then the columns with no value missing": (
        _TABLE + 'X = df.drop(columns=["target"])\n        X = X.loc[:, X.notna().all()]' + _FIT,
        [],
    ),
    "the complete columns kept, then the label dropped": (
        _TABLE + 'full = df.loc[:, df.notna().all()]\n        X = full.drop(columns="target")' + _FIT,
        [],
    ),
    "the rows with no value missing, the label dropped": (
        _TABLE + 'full = df[df.notna().all(axis=1)]\n        X, y = full.drop(columns="target"), full["target"]' + _FIT,
        [],
    ),
}


@pytest.mark.parametrize("case", list(COMPLETE))
def test_complete_columns_keep_the_label(tmp_path: Path, case: str) -> None:
    body, expected = COMPLETE[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize("case", CASES)
def test_feature_lists(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_OWN_STEP = """
        class {name}(BaseEstimator, TransformerMixin):
            def __init__(self, cols=None):
                self.cols = cols

            def fit(self, X, y=None):
                self.medians_ = X.median(numeric_only=True)
                return self

            def transform(self, X):
                {body}

        df = pd.read_csv("d.csv")
        train, test = train_test_split(df, random_state=0)
        pipe = Pipeline([("first", {name}({cols})), ("clf", LogisticRegression())])
        pipe.fit(train, train["y"])
        print(pipe.score(test, test["y"]))
        """

_LEARNED_PICK = "out = X[self.medians_.index]\n                return out.fillna(self.medians_)"

OWN_STEPS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a pipeline whose first step, a class of the file, returns the columns it was given": (
        _OWN_STEP.format(name="Select", body="return X[self.cols]", cols='["a", "b"]'),
        [],
    ),
    "a pipeline whose first step returns columns written in its transform": (
        _OWN_STEP.format(name="Select", body='return X.loc[:, ["a", "b"]]', cols=""),
        [],
    ),
    "a pipeline whose first step picks columns by a list it learned, then computes on them": (
        _OWN_STEP.format(name="Builder", body=_LEARNED_PICK, cols=""),
        [],
    ),
    "a pipeline whose first step returns the columns it was given, the label among them": (
        _OWN_STEP.format(name="Select", body="return X[self.cols]", cols='["a", "b", "y"]'),
        [("label_in_features", 15)],
    ),
    "a pipeline whose first step, a class of the file, passes every column on": (
        _OWN_STEP.format(name="Impute", body="return X.fillna(self.medians_)", cols=""),
        [("label_in_features", 15)],
    ),
}


@pytest.mark.parametrize("case", OWN_STEPS)
def test_a_pipeline_whose_first_step_is_a_class_of_the_file(tmp_path: Path, case: str) -> None:
    body, expected = OWN_STEPS[case]
    head = HEAD + "from sklearn.base import BaseEstimator, TransformerMixin\nfrom sklearn.pipeline import Pipeline\n"
    assert leaks_found(tmp_path, head, body) == expected


_PICKER = """
        FEATS = ["a", "b"]
        {change}

        def pick(X):
            return {body}

        df = pd.read_csv("d.csv")
        train, test = train_test_split(df, random_state=0)
        pipe = Pipeline([("first", FunctionTransformer({func})), ("clf", LogisticRegression())])
        pipe.fit(train, train["y"])
        print(pipe.score(test, test["y"]))
        """

_READ = 'df = pd.read_csv("d.csv")\n'
_LISTED = "        FEATS = [c for c in df.columns if c not in {}]\n"

PICKERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a FunctionTransformer of a function returning the columns of a list held by a name": (
        _PICKER.format(change="", body="X[FEATS]", func="pick"),
        [],
    ),
    "a FunctionTransformer of a lambda returning the columns of a list written in it": (
        _PICKER.format(change="", body="X", func='lambda X: X.loc[:, ["a", "b"]]'),
        [],
    ),
    "a FunctionTransformer of a function returning the columns of a list it is not known to hold": (
        _PICKER.format(change="FEATS = json.load(open('f.json'))", body="X[FEATS]", func="pick"),
        [],
    ),
    "a FunctionTransformer of a function returning the columns of a list the label was appended to": (
        _PICKER.format(change='FEATS.append("y")', body="X[FEATS]", func="pick"),
        [("label_in_features", 10)],
    ),
    "a FunctionTransformer of a function returning the columns of a list extended with the label": (
        _PICKER.format(change='FEATS.extend(["c", "y"])', body="X[FEATS]", func="pick"),
        [("label_in_features", 10)],
    ),
    "a FunctionTransformer of a function returning the columns of a list the label was removed from": (
        _PICKER.format(change='FEATS.append("y")\n        FEATS.remove("y")', body="X[FEATS]", func="pick"),
        [],
    ),
    "a FunctionTransformer of a function returning the columns of a list of the table's names less the label": (
        _PICKER.format(change="", body="X[FEATS]", func="pick").replace(_READ, _READ + _LISTED.format('("id", "y")')),
        [],
    ),
    "a FunctionTransformer of a function returning the columns of a list of the table's names less the id": (
        _PICKER.format(change="", body="X[FEATS]", func="pick").replace(_READ, _READ + _LISTED.format('("id",)')),
        [("label_in_features", 11)],
    ),
    "a FunctionTransformer of a function that passes every column on": (
        _PICKER.format(change="", body="X.fillna(0)", func="pick"),
        [("label_in_features", 10)],
    ),
}


@pytest.mark.parametrize("case", PICKERS)
def test_a_pipeline_whose_first_step_is_a_function_transformer(tmp_path: Path, case: str) -> None:
    body, expected = PICKERS[case]
    head = (
        HEAD
        + "import json\nfrom sklearn.pipeline import Pipeline\nfrom sklearn.preprocessing import FunctionTransformer\n"
    )
    assert leaks_found(tmp_path, head, body) == expected


_APPENDED = """
        df = pd.read_csv("d.csv")
        train, test = df[df.t < 5], df[df.t >= 5]
        feats = ["a", "b"]
        {change}
        model = LogisticRegression().fit(train[feats], train["y"])
        print(model.score(test[feats], test["y"]))
        """

APPENDED: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a list of feature names the label was appended to": (
        _APPENDED.format(change='feats.append("y")'),
        [("label_in_features", 5)],
    ),
    "a list of feature names another column was inserted into": (
        _APPENDED.format(change='feats.insert(0, "c")'),
        [],
    ),
    "a list of feature names extended with the label's name held by a name": (
        _APPENDED.format(change='target = "y"\n        feats.extend([target])'),
        [("label_in_features", 6)],
    ),
}


@pytest.mark.parametrize("case", APPENDED)
def test_a_list_of_features_changed_in_place(tmp_path: Path, case: str) -> None:
    body, expected = APPENDED[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_STEPWISE = """
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["target"]), df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        res = sm.Logit({y}, sm.add_constant({x})).fit(disp=0)
        print(res.summary())
        pv = res.pvalues.drop("const")
        kept = pv[pv < 0.05].index
        print(LogisticRegression().fit(X_tr[kept], y_tr).score(X_te[kept], y_te))
        """

STEPWISE: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "columns kept by a statsmodels fit's p-values on every row": (
        _STEPWISE.format(y="y", x="X"),
        [("preprocessing", 6)],
    ),
    "columns kept by a statsmodels fit's p-values on the training part": (
        _STEPWISE.format(y="y_tr", x="X_tr"),
        [],
    ),
    "a statsmodels fit on every row, its summary only printed": (
        _STEPWISE.format(y="y", x="X").replace("X_tr[kept]", "X_tr").replace("X_te[kept]", "X_te"),
        [],
    ),
}


@pytest.mark.parametrize("case", STEPWISE)
def test_columns_kept_by_a_statsmodels_fit(tmp_path: Path, case: str) -> None:
    body, expected = STEPWISE[case]
    assert leaks_found(tmp_path, HEAD + "import statsmodels.api as sm\n", body) == expected


_STARS = """
        df = pd.read_csv("reviews.csv")
        df["positive"] = ({label}).astype(int)
        num_cols = [c for c in df.select_dtypes("number").columns if c not in {dropped}]
        X, y = df[num_cols], df["positive"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        {model}
        print(model.fit(X_tr, y_tr).score(X_te, y_te))
        """
_PLAIN = "model = LogisticRegression()"
_COLUMNS = 'model = make_pipeline(ColumnTransformer([("num", StandardScaler(), num_cols)]), LogisticRegression())'

NUMERIC: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the numeric columns less the label, the stars it was cut from among them": (
        _STARS.format(label='df["stars"] >= 4', dropped='("positive",)', model=_PLAIN),
        [("label_in_features", 7)],
    ),
    "LEAK: the same, chosen again by a column transformer given the list": (
        _STARS.format(label='df["stars"] >= 4', dropped='("positive",)', model=_COLUMNS),
        [("label_in_features", 7)],
    ),
    "LEAK: a column transformer given the numeric columns less the label, the halved stars among them": (
        _STARS.format(label='df["stars"] / 2 >= 2', dropped='("positive",)', model=_COLUMNS),
        [("label_in_features", 7)],
    ),
    "LEAK: the numeric columns less the label, the hours it was cut from at a product among them": (
        _STARS.format(label='df["hours"] > 24 * 7', dropped='("positive",)', model=_PLAIN),
        [("label_in_features", 7)],
    ),
    "LEAK: the numeric columns less the label, the stars it was cut from at a number held in a name among them": (
        "\n        cut = 4" + _STARS.format(label='df["stars"] >= cut', dropped='("positive",)', model=_PLAIN),
        [("label_in_features", 8)],
    ),
    "LEAK: the numeric columns less the label, the stars it was cut from by .ge() among them": (
        _STARS.format(label='df["stars"].ge(4)', dropped='("positive",)', model=_PLAIN),
        [("label_in_features", 7)],
    ),
    "LEAK: the columns that are not text less the label, the stars it was cut from among them": (
        _STARS.format(label='df["stars"] >= 4', dropped='("positive",)', model=_PLAIN).replace(
            'select_dtypes("number")', 'select_dtypes(exclude="object")'
        ),
        [("label_in_features", 7)],
    ),
    "the numeric columns beside a label of text, a logistic regression (a classifier)": (
        """
        df = pd.read_csv("reviews.csv")
        X, y = df.select_dtypes("number"), df["sentiment"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the columns that are not text, beside a label of text": (
        """
        df = pd.read_csv("reviews.csv")
        X, y = df.select_dtypes(exclude="object"), df["sentiment"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the numeric columns less the label and the stars it was cut from, in a column transformer": (
        _STARS.format(label='df["stars"] >= 4', dropped='("positive", "stars")', model=_COLUMNS),
        [],
    ),
    "the numeric columns less the label, which was made from a text column": (
        _STARS.format(label='df["sentiment"] == "pos"', dropped='("positive",)', model=_PLAIN),
        [],
    ),
    "the numeric columns less the label, which was made from dates compared with a date": (
        _STARS.format(label='df["posted"] >= "2023-01-01"', dropped='("positive",)', model=_COLUMNS),
        [],
    ),
}


@pytest.mark.parametrize("case", list(NUMERIC))
def test_a_column_compared_with_a_number_holds_numbers(tmp_path: Path, case: str) -> None:
    """`df["stars"] >= 4` shows stars holds numbers, so select_dtypes("number") keeps it; a column transformer
    given a list made from the table's names keeps what the list holds."""
    head = HEAD + (
        "from sklearn.compose import ColumnTransformer\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
    )
    body, expected = NUMERIC[case]
    assert leaks_found(tmp_path, head, body) == expected


_GRADES = """
df = pd.read_csv("grades.csv")
{label}
X = df.select_dtypes("number")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ('y = (df["grade"] <= "B").astype(int)', []),
        ('y = df["grade"].map({"A": 1, "B": 1, "C": 0})', []),
        ('y = df["grade"] == "A"', []),
        ('y = (df["grade"] == "A").astype(int)', []),
        ('y = (df["grade"] != "F").astype(int)', []),
        ('y = df["grade"].isin(["A", "B"]).astype(int)', []),
        ('y = df["grade"].str.startswith("A").astype(int)', []),
        ('df["grade"] = df["grade"].map({"A": 1, "B": 1, "C": 0})\ny = df["grade"]', [("label_in_features", 6)]),
        ('df["grade"] = (df["grade"] == "A").astype(int)\ny = df["grade"]', [("label_in_features", 6)]),
        ('y = (df["grade"] == 1).astype(int)', [("label_in_features", 5)]),
        ('y = (df["score"] >= 60).astype(int)', [("label_in_features", 5)]),
    ],
    ids=[
        "numbers made of a text ordered against a text",
        "numbers mapped from texts",
        "a text compared for equality",
        "numbers made of a text compared for equality with a word",
        "numbers made of a text compared for inequality with a word",
        "numbers made of a text's membership in words",
        "numbers made of a text's .str method",
        "LEAK: the column itself mapped to numbers in its table",
        "LEAK: the column itself made numbers by a comparison with a word, in its table",
        "LEAK: a column compared with a number holds numbers",
        "LEAK: a numeric score thresholded, the score among the numeric columns",
    ],
)
def test_a_label_made_numbers_from_a_column_of_text_is_not_among_the_numeric_columns(
    tmp_path: Path, label: str, expected: list[tuple[str, int]]
) -> None:
    """select_dtypes("number") keeps the table's numeric columns: a text column stays text in its table whatever
    numbers y was made of it, unless they are written back into it."""
    assert leaks_found(tmp_path, HEAD, _GRADES.format(label=label)) == expected


_NUMBERED = """
        df = pd.read_csv("fields.csv")
        cols = {made} + {more}
        X, y = df[cols], df["yield_t"]
        """

NUMBERED: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "names made of the numbers of a range, the label added by name": (
        _NUMBERED.format(made='[f"band_{i}" for i in range(3)]', more='["yield_t"]') + _FIT,
        [("label_in_features", 6)],
    ),
    "names joined from a text and each number, the label added by name": (
        _NUMBERED.format(made='["lag_" + str(k) for k in range(3)]', more='["yield_t"]') + _FIT,
        [("label_in_features", 6)],
    ),
    "names made of the numbers of a longer range, the label among them": (
        """
        df = pd.read_csv("fields.csv")
        X, y = df[[f"band_{i}" for i in range(12)]], df["band_11"]
        """
        + _FIT,
        [("label_in_features", 5)],
    ),
    "the label named by a count worked out, among names of a range of a count worked out": (
        """
        df = pd.read_csv("fields.csv")
        N_BANDS = 4
        X, y = df[[f"band_{i}" for i in range(N_BANDS - 1 + 1)]], df[f"band_{N_BANDS - 1}"]
        """
        + _FIT,
        [("label_in_features", 6)],
    ),
    "the label among names of a range between two names": (
        """
        df = pd.read_csv("fields.csv")
        LO, HI = 2, 6
        X, y = df[["lag_" + str(k) for k in range(LO, HI)]], df["lag_5"]
        """
        + _FIT,
        [("label_in_features", 6)],
    ),
    "names made of the numbers of a range, another column added": (
        _NUMBERED.format(made='[f"band_{i}" for i in range(3)]', more='["ndvi"]') + _FIT,
        [],
    ),
}


@pytest.mark.parametrize("case", NUMBERED)
def test_names_made_of_numbers(tmp_path: Path, case: str) -> None:
    body, expected = NUMBERED[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_CONVERTED = """
        fields = pd.read_csv("field_seasons.csv")
        fields["other"] = {made}
        X = fields.select_dtypes("number").drop(columns=["yield_t_ha", "year"])
        y = fields["yield_t_ha"]
        """


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        # the label in other units, by a number: a number, kept by select_dtypes("number")
        ('fields["yield_t_ha"] * 14.87', [("label_in_features", 7)]),
        ('fields["yield_t_ha"] / 0.0673', [("label_in_features", 7)]),
        ('fields["yield_t_ha"] + 0.5', [("label_in_features", 7)]),
        # text repeated, or a date moved, are no numbers: select_dtypes("number") leaves them out
        ('fields["variety"] * 2', []),
        ('fields["sown"] + pd.Timedelta(days=1)', []),
    ],
)
def test_a_column_of_numbers_made_by_arithmetic_with_a_number(
    tmp_path: Path, made: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, _CONVERTED.format(made=made) + _FIT) == expected


_LAGS = """
        df = pd.read_csv("store_daily.csv").sort_values("date")
        N_LAGS = 4
        LAGS = range(N_LAGS)
        for k in {numbers}:
            df[{name}] = df["sales"].{made}
        X = df[["lag_" + str(k) for k in {numbers}] + ["promo"]]
        y = df["sales"]
        X_tr, X_te, y_tr, y_te = X[:800], X[800:], y[:800], y[800:]
        model = LogisticRegression().fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """


@pytest.mark.parametrize(
    ("numbers", "name", "made", "expected"),
    [
        # k = 0 is the label itself: a loop over a range walked number by number makes lag_0 a copy of it
        ("range(N_LAGS)", '"lag_" + str(k)', "shift(k)", [("label_in_features", 9)]),
        ("range(N_LAGS)", 'f"lag_{k}"', "shift(k)", [("label_in_features", 9)]),
        ("range(0, 3)", '"lag_%d" % k', "shift(k)", [("label_in_features", 9)]),
        ("LAGS", 'f"lag_{k}"', "shift(k)", [("label_in_features", 9)]),
        # every lag at least one row back, or a window of past rows only: no copy of the label
        ("range(1, N_LAGS + 1)", '"lag_" + str(k)', "shift(k)", []),
        ("range(N_LAGS)", 'f"lag_{k}"', "shift(k + 1)", []),
        ("range(N_LAGS)", 'f"lag_{k}"', "shift(1).rolling(k + 2).mean()", []),
    ],
)
def test_lag_columns_made_in_a_loop_over_a_range(
    tmp_path: Path, numbers: str, name: str, made: str, expected: list[tuple[str, int]]
) -> None:
    body = _LAGS.format(numbers=numbers, name=name, made=made)
    assert leaks_found(tmp_path, HEAD, body) == expected


_LAGS_BY_DICT = """
        df = pd.read_csv("store_daily.csv").sort_values("date")
        N_LAGS = 4
        lags = {{f"lag_{{k}}": df["sales"].{made} for k in {numbers}}}
        {put}
        X = df[[f"lag_{{k}}" for k in {numbers}] + ["promo"]]
        y = df["sales"]
        X_tr, X_te, y_tr, y_te = X[:800], X[800:], y[:800], y[800:]
        model = LogisticRegression().fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """


@pytest.mark.parametrize("put", ["df = df.assign(**lags)", "df = df.join(pd.DataFrame(lags))"])
@pytest.mark.parametrize(
    ("numbers", "made", "expected"),
    [
        # lag_0 is the label: a dict comprehension's keys known number by number, as a loop's are
        ("range(N_LAGS)", "shift(k)", [("label_in_features", 8)]),
        ("[0, 1, 7]", "shift(k)", [("label_in_features", 8)]),
        # every lag at least one row back
        ("range(1, N_LAGS + 1)", "shift(k)", []),
        ("range(N_LAGS)", "shift(k + 1)", []),
    ],
)
def test_lag_columns_made_by_a_dict_comprehension(
    tmp_path: Path, put: str, numbers: str, made: str, expected: list[tuple[str, int]]
) -> None:
    body = _LAGS_BY_DICT.format(numbers=numbers, made=made, put=put)
    assert leaks_found(tmp_path, HEAD, body) == expected


_NEXT_WEEK = """
        wk = pd.read_csv("weekly.csv", parse_dates=["date"]).set_index("date")
        wk["lag1"] = wk["views"].shift(1)
        y = {label}
        X = {features}
        train, test = wk.index < "2017-03-01", wk.index >= "2017-03-01"
        m = LogisticRegression().fit(X[train], y[train])
        print(m.score(X[test], y[test]))
        """


@pytest.mark.parametrize(
    ("label", "features", "expected"),
    [
        # next week's views learned from this week's: a forecast, the column holds each row's own value
        ('wk["views"].shift(-1)', 'wk[["views", "lag1"]]', []),
        ('wk["views"].shift(-2)', 'wk[["views", "lag1"]]', []),
        # LEAK: this week's views learned from themselves
        ('wk["views"]', 'wk[["views", "lag1"]]', [("label_in_features", 6)]),
        # LEAK: the same lead among the features
        ('wk["views"].shift(-1)', 'wk[["lag1"]].assign(nxt=wk["views"].shift(-1))', [("label_in_features", 6)]),
    ],
)
def test_a_label_that_leads_its_own_column(
    tmp_path: Path, label: str, features: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, _NEXT_WEEK.format(label=label, features=features)) == expected


_APPENDED = """
        df = pd.read_csv("wiki.csv").sort_values("date")
        cols = []
        for k in {lags}:
            df[f"lag_{{k}}"] = df["views"].shift(k)
            cols.append(f"lag_{{k}}")
        df["dow"] = pd.to_datetime(df["date"]).dt.dayofweek
        cols.append("dow")
        train, test = df[df["date"] < "2017-06-01"], df[df["date"] >= "2017-06-01"]
        m = LogisticRegression().fit(train[cols], train["views"])
        print(m.score(test[cols], test["views"]))
        """


@pytest.mark.parametrize(("lags", "expected"), [("[0, 1, 7]", [("label_in_features", 9)]), ("[1, 7]", [])])
def test_names_appended_by_a_loop_over_written_items(
    tmp_path: Path, lags: str, expected: list[tuple[str, int]]
) -> None:
    """A loop over written items makes each pass once, in order: the names it appends are the list's, and so is
    one appended after it (`lag_0`, a copy of the label, among them)."""
    assert leaks_found(tmp_path, HEAD, _APPENDED.format(lags=lags)) == expected


@pytest.mark.parametrize(
    ("made", "said"),
    [
        # one line makes lag_0 (a loop's every pass): the finding names it
        ('df[f"lag_{k}"] = df["sales"].shift(k)', "'lag_0' (made at line 5) computed from"),
        # made at two lines: no one line is where it was made
        ('df[f"lag_{k}"] = df["sales"].shift(k)\n        df["lag_0"] = df["sales"]', "'lag_0' computed from"),
    ],
)
def test_a_column_computed_from_the_label_is_named_with_the_line_that_made_it(
    tmp_path: Path, made: str, said: str
) -> None:
    body = _LAGS.format(numbers="range(N_LAGS)", name='f"lag_{k}"', made="shift(k)").replace(
        'df[f"lag_{k}"] = df["sales"].shift(k)', made
    )
    result, offset = read_script(tmp_path, HEAD, body)
    [placed] = result.leaks
    assert said.replace("line 5", f"line {offset + 5}") in placed.leak.message


@pytest.mark.parametrize("put", ["df = df.assign(**lags)", "df = df.join(pd.DataFrame(lags))"])
def test_a_column_of_a_dict_given_to_a_table_is_named_with_the_line_that_made_it(tmp_path: Path, put: str) -> None:
    body = _LAGS_BY_DICT.format(numbers="range(N_LAGS)", made="shift(k)", put=put)
    result, offset = read_script(tmp_path, HEAD, body)
    [placed] = result.leaks
    assert f"'lag_0' (made at line {offset + 4}) computed from" in placed.leak.message
