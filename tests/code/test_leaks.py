"""The reading on small programs, each a mechanism of the walk: how names resolve, how rows, columns and scores
flow, and where a leak is and is not. Each case is a script and the leaks it holds (kind and line), none for
correct code that looks suspicious."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from auditor.code.analysis import analyse_file
from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, cross_val_score, KFold, GridSearchCV
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
"""
# A price regressed as its log, the features the numbers left once {dropped} are dropped: np.log1p shows the price
# is numbers, so select_dtypes keeps it unless it is dropped.
_LOGGED_LABEL = """
        from sklearn.ensemble import RandomForestRegressor
        df = pd.read_csv("d.csv")
        df["log_price"] = np.log1p(df["sale_price"])
        df["age"] = 2024 - df["year_built"]
        X = df.drop(columns=[{dropped}]).select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["log_price"])
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """
# A churn label made numbers, renamed, then the features taken by dropping {dropped} and keeping numbers.
_RENAMED_LABEL = """
        from sklearn.ensemble import RandomForestClassifier
        df = pd.read_csv("d.csv")
        df["Churn"] = df["Churn"].map({{"Yes": 1, "No": 0}})
        df = df.rename(columns={{"Churn": "label"}})
        X = df.drop(columns=["customerID", {dropped}).select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"])
        print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """
# Each case's lines are counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "scaler fitted under an alias of its module": (
        """
        import sklearn.preprocessing as pp
        df = pd.read_csv("d.csv")
        X = pp.StandardScaler().fit_transform(df.drop(columns="y"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        m = LogisticRegression().fit(X_tr, y_tr)
        print(m.score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a function of the file that shadows a library name is the file's": (
        """
        def StandardScaler():
            return None
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        s = StandardScaler()
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        m = LogisticRegression().fit(X_tr, y_tr)
        print(m.score(X_te, y_te))
        """,
        [],
    ),
    "a star import binds the class": (
        """
        from sklearn.preprocessing import *
        df = pd.read_csv("d.csv")
        X = MinMaxScaler().fit_transform(df.drop(columns="y"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "fit then transform on both parts, after the split": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        sc = StandardScaler().fit(X_tr)
        m = LogisticRegression().fit(sc.transform(X_tr), y_tr)
        print(accuracy_score(y_te, m.predict(sc.transform(X_te))))
        """,
        [],
    ),
    "fit before the split, transform after": (
        """
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        sc = StandardScaler().fit(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        m = LogisticRegression().fit(sc.transform(X_tr), y_tr)
        print(accuracy_score(y_te, m.predict(sc.transform(X_te))))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler on every row for a plot only, the model in a pipeline": (
        """
        from sklearn.pipeline import make_pipeline
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        shown = StandardScaler().fit_transform(X)
        print(shown[:5])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        m = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
        print(m.score(X_te, y_te))
        """,
        [],
    ),
    "a pandas mean fill and a z-score of every row": (
        """
        df = pd.read_csv("d.csv")
        df["age"] = df["age"].fillna(df["age"].median())
        X = df.drop(columns="y")
        X = (X - X.mean()) / X.std()
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2), ("preprocessing", 4)],
    ),
    "a constant fill, a division by a constant and a window over earlier rows learn nothing": (
        """
        df = pd.read_csv("d.csv")
        df["age"] = df["age"].fillna(0)
        df["x"] = df["x"] / 255.0
        df["m"] = df["x"].shift(1).rolling(7).mean()
        X = df.drop(columns="y")
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], shuffle=False)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "preprocessing in a function of the file, called on every row": (
        """
        def prepare(frame):
            return StandardScaler().fit_transform(frame)
        df = pd.read_csv("d.csv")
        X = prepare(df.drop(columns="y"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 4)],
    ),
    "the same function called on the training part only": (
        """
        def prepare(frame):
            return StandardScaler().fit_transform(frame)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        print(prepare(X_tr).mean())
        """,
        [],
    ),
    "cross-validation of a model on scaled rows": (
        """
        df = pd.read_csv("d.csv")
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        print(cross_val_score(LogisticRegression(), X, df["y"], cv=5).mean())
        """,
        [("preprocessing", 2)],
    ),
    "cross-validation of a pipeline on raw rows": (
        """
        from sklearn.pipeline import make_pipeline
        df = pd.read_csv("d.csv")
        pipe = make_pipeline(StandardScaler(), LogisticRegression())
        print(cross_val_score(pipe, df.drop(columns="y"), df["y"], cv=5).mean())
        """,
        [],
    ),
    "a model fitted on every row and scored on a sample of them": (
        """
        df = pd.read_csv("d.csv")
        m = LogisticRegression().fit(df.drop(columns="y"), df["y"])
        test = df.sample(frac=0.2, random_state=0)
        print(m.score(test.drop(columns="y"), test["y"]))
        """,
        [("overlap", 2)],
    ),
    "a manual split by sample and drop": (
        """
        df = pd.read_csv("d.csv")
        train = df.sample(frac=0.8, random_state=0)
        test = df.drop(train.index)
        m = LogisticRegression().fit(train.drop(columns="y"), train["y"])
        print(m.score(test.drop(columns="y"), test["y"]))
        """,
        [],
    ),
    "a split by a date mask": (
        """
        df = pd.read_csv("d.csv")
        train, test = df[df.year < 2020], df[df.year >= 2020]
        m = LogisticRegression().fit(train.drop(columns="y"), train["y"])
        print(m.score(test.drop(columns="y"), test["y"]))
        """,
        [],
    ),
    "train and test put back together for the final fit": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        m = LogisticRegression().fit(pd.concat([X_tr, X_te]), pd.concat([y_tr, y_te]))
        print(m.score(X_te, y_te))
        """,
        [("overlap", 3)],
    ),
    "the training score printed beside the test score": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        m = LogisticRegression().fit(X_tr, y_tr)
        print(m.score(X_tr, y_tr), m.score(X_te, y_te))
        """,
        [],
    ),
    "rows repeated before the split": (
        """
        df = pd.read_csv("d.csv")
        df = pd.concat([df, df[df.y == 1]])
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("overlap", 2)],
    ),
    "models in a dict, scored on the test set, the best kept": (
        """
        from sklearn.tree import DecisionTreeClassifier
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        models = {"lr": LogisticRegression(), "tree": DecisionTreeClassifier()}
        scores = {}
        for name, model in models.items():
            model.fit(X_tr, y_tr)
            scores[name] = accuracy_score(y_te, model.predict(X_te))
        best = max(scores, key=scores.get)
        """,
        [("multi_test", 8)],
    ),
    "the best kept by a running comparison": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        best, best_c = 0, None
        for c in [0.1, 1, 10]:
            acc = LogisticRegression(C=c).fit(X_tr, y_tr).score(X_te, y_te)
            if acc > best:
                best, best_c = acc, c
        """,
        [("multi_test", 5)],
    ),
    "the choice on a validation part, one test score after": (
        """
        df = pd.read_csv("d.csv")
        X_tmp, X_te, y_tmp, y_te = train_test_split(df.drop(columns="y"), df["y"])
        X_tr, X_va, y_tr, y_va = train_test_split(X_tmp, y_tmp)
        scores = [LogisticRegression(C=c).fit(X_tr, y_tr).score(X_va, y_va) for c in [0.1, 1, 10]]
        c = [0.1, 1, 10][int(np.argmax(scores))]
        print(LogisticRegression(C=c).fit(X_tmp, y_tmp).score(X_te, y_te))
        """,
        [],
    ),
    "every model reported, none chosen": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        for c in [0.1, 1, 10]:
            print(c, LogisticRegression(C=c).fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a grid search on the training part, scored once": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        gs = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(X_tr, y_tr)
        print(gs.best_score_, gs.score(X_te, y_te))
        """,
        [],
    ),
    "the label kept among the features": (
        """
        df = pd.read_csv("d.csv")
        X = df.drop(columns=["id"])
        y = df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 5)],
    ),
    "the label popped": (
        """
        df = pd.read_csv("d.csv")
        y = df.pop("target")
        X_tr, X_te, y_tr, y_te = train_test_split(df, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a column computed from the label left in": (
        """
        df = pd.read_csv("d.csv")
        df["target_log"] = np.log1p(df["target"])
        X, y = df.drop(columns=["target"]), df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 5)],
    ),
    "a label computed from one column, and another column computed from it left in": (
        """
        df = pd.read_csv("d.csv")
        df["log_price"] = np.log1p(df["price"])
        df["price_per_sqft"] = df["price"] / df["sqft"]
        X, y = df.drop(columns=["price", "log_price"]), df["log_price"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "a label and a category's codes both made from one column, the numbers kept by select_dtypes": (
        """
        df = pd.read_csv("d.csv")
        df["y"] = (df["loan_status"] == "Charged Off").astype(int)
        df["status_code"] = df["loan_status"].astype("category").cat.codes
        df["grade_code"] = df["grade"].astype("category").cat.codes
        X = df.drop(columns=["y", "loan_status"]).select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        X = df.drop(columns=["y", "loan_status", "status_code"]).select_dtypes("number")
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 7)],
    ),
    "a price logged as the label, the price itself kept by select_dtypes": (
        _LOGGED_LABEL.format(dropped='"house_id", "log_price"'),
        [("label_in_features", 7)],
    ),
    "a price in thousands as the label, the price itself kept by select_dtypes": (
        _LOGGED_LABEL.format(dropped='"house_id", "log_price"').replace(
            'np.log1p(df["sale_price"])', 'df["sale_price"] / 1000'
        ),
        [("label_in_features", 7)],
    ),
    "a price logged as the label, the price dropped with its log before select_dtypes": (
        _LOGGED_LABEL.format(dropped='"house_id", "log_price", "sale_price"'),
        [],
    ),
    # the old name dropped (errors="ignore") leaves the renamed label; the new name dropped does not
    "a label mapped to numbers, renamed, dropped by its old name, kept by select_dtypes": (
        _RENAMED_LABEL.format(dropped='"Churn"], errors="ignore"'),
        [("label_in_features", 7)],
    ),
    "a label mapped to numbers, renamed, dropped by its new name before select_dtypes": (
        _RENAMED_LABEL.format(dropped='"label"]'),
        [],
    ),
    "a label stored as a column and a sibling of it listed by name among the features": (
        """
        df = pd.read_csv("d.csv")
        df["passed"] = (df["final_score"] >= 60).astype(int)
        df["score_band"] = df["final_score"] // 10
        X = df[["hours", "score_band", "absences"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["passed"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        X = df[["hours", "absences"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["passed"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "a label computed from two columns beside a feature of one of them, or from one beside an unrelated feature": (
        """
        df = pd.read_csv("d.csv")
        df["late"] = df["delivered"] - df["promised"]
        df["promised_dow"] = df["promised"] % 7
        X, y = df[["promised_dow", "distance"]], df["late"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        df["log_price"] = np.log1p(df["price"])
        df["rooms_per_area"] = df["rooms"] / df["area"]
        X, y = df.drop(columns=["price", "log_price", "late"]), df["log_price"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a lag of the label is a fair feature": (
        """
        df = pd.read_csv("d.csv")
        df["lag"] = df["target"].shift(1)
        X, y = df.drop(columns=["target"]), df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a lead of the label (the next row's) is the answer of a later row": (
        """
        df = pd.read_csv("d.csv")
        df["next"] = df["target"].shift(-1)
        df["lag"] = df["target"].shift(periods=+2)
        X, y = df.drop(columns=["target"]), df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "lags of the label written with a unary sign are fair features": (
        """
        df = pd.read_csv("d.csv")
        df["lag"] = df["target"].shift(+1)
        df["lag2"] = df["target"].shift(periods=-(-2))
        X, y = df.drop(columns=["target"]), df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a feature list from the columns that leaves out the label": (
        """
        df = pd.read_csv("d.csv")
        features = [c for c in df.columns if c not in ("id", "target")]
        X_tr, X_te, y_tr, y_te = train_test_split(df[features], df["target"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a feature list from the columns that forgets the label": (
        """
        df = pd.read_csv("d.csv")
        features = [c for c in df.columns if c != "id"]
        X_tr, X_te, y_tr, y_te = train_test_split(df[features], df["target"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 4)],
    ),
    "a shuffled split of dated rows with lags": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        X_tr, X_te, y_tr, y_te = train_test_split(df[["lag"]], df["sales"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("temporal_shuffle", 3)],
    ),
    "dated rows with lags put in random order, then cut by position": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        df = df.dropna().sample(frac=1.0, random_state=0).reset_index(drop=True)
        n = int(len(df) * 0.8)
        train, test = df.iloc[:n], df.iloc[n:]
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        """,
        [("temporal_shuffle", 5)],
    ),
    "dated rows with lags put in random order, then cut by head and tail": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        df = df.dropna().sample(frac=1.0, random_state=0)
        train, test = df.head(800), df.tail(200)
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        """,
        [("temporal_shuffle", 4)],
    ),
    "dated rows shuffled then sorted again, or cut by a date, or only the training part shuffled": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        again = df.sample(frac=1.0).sort_values("date")
        n = int(len(again) * 0.8)
        train, test = again.iloc[:n], again.iloc[n:]
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        mixed = df.sample(frac=1.0)
        train, test = mixed[mixed["date"] < "2023-01-01"], mixed[mixed["date"] >= "2023-01-01"]
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        train, test = df.iloc[:n], df.iloc[n:]
        train = train.sample(frac=1.0)
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        """,
        [],
    ),
    "dated rows with lags cut at positions drawn by a permutation": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        idx = np.random.permutation(len(df))
        train, test = df.iloc[idx[:800]], df.iloc[idx[800:]]
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        """,
        [("temporal_shuffle", 4)],
    ),
    "dated rows with lags as arrays, cut at positions shuffled in place by a generator": (
        """
        df = pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date")
        df["lag"] = df["sales"].shift(1)
        X, y = df[["lag"]].to_numpy(), df["sales"].to_numpy()
        idx = np.arange(len(X))
        np.random.default_rng(0).shuffle(idx)
        tr, te = idx[:800], idx[800:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("temporal_shuffle", 6)],
    ),
    "positions of a permutation over rows not in time, or positions in order over dated rows": (
        """
        df = pd.read_csv("d.csv")
        idx = np.random.permutation(len(df))
        train, test = df.iloc[idx[:800]], df.iloc[idx[800:]]
        print(LogisticRegression().fit(train[["a"]], train["y"]).score(test[["a"]], test["y"]))
        dated = pd.read_csv("s.csv", parse_dates=["date"]).sort_values("date")
        dated["lag"] = dated["sales"].shift(1)
        order = np.arange(len(dated))
        train, test = dated.iloc[order[:800]], dated.iloc[order[800:]]
        print(LogisticRegression().fit(train[["lag"]], train["sales"]).score(test[["lag"]], test["sales"]))
        """,
        [],
    ),
    "a date column in rows not ordered by it": (
        """
        df = pd.read_csv("d.csv", parse_dates=["signup"])
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a shuffled KFold over dated rows": (
        """
        df = pd.read_csv("d.csv", index_col="date", parse_dates=True).sort_index()
        X, y = df[["a"]], df["sales"]
        print(cross_val_score(LogisticRegression(), X, y, cv=KFold(5, shuffle=True)).mean())
        """,
        [("temporal_shuffle", 3)],
    ),
    "a synthetic table drawn with numpy, scaled before the split": (
        """
        X = np.random.rand(200, 3)
        y = (X[:, 0] > 0.5).astype(int)
        X = StandardScaler().fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a synthetic table drawn with numpy, scaled on its training part": (
        """
        X = np.random.normal(size=(200, 3))
        y = np.random.binomial(1, 0.5, 200)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        scaler = StandardScaler().fit(X_tr)
        m = LogisticRegression().fit(scaler.transform(X_tr), y_tr)
        print(m.score(scaler.transform(X_te), y_te))
        """,
        [],
    ),
    "noise drawn for the training rows after the split, a scaler fitted on them": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        noisy = X_tr + np.random.normal(0, 0.01, size=X_tr.shape)
        scaler = StandardScaler().fit(noisy)
        m = LogisticRegression().fit(scaler.transform(noisy), y_tr)
        print(m.score(scaler.transform(X_te), y_te))
        """,
        [],
    ),
    "noise added to training rows that still hold the label": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df, df["y"])
        noisy = X_tr + np.random.normal(0, 0.01, size=X_tr.shape)
        m = LogisticRegression().fit(noisy, y_tr)
        print(m.score(X_te, y_te))
        """,
        [("label_in_features", 4)],
    ),
    "rows split by a random mask drawn with numpy, a scaler fitted on the training part": (
        """
        df = pd.read_csv("d.csv")
        mask = np.random.rand(len(df)) < 0.8
        train, test = df[mask], df[~mask]
        scaler = StandardScaler().fit(train.drop(columns="y"))
        m = LogisticRegression().fit(scaler.transform(train.drop(columns="y")), train["y"])
        print(m.score(scaler.transform(test.drop(columns="y")), test["y"]))
        """,
        [],
    ),
    "rows split by a random mask drawn with numpy after a scaler saw them all": (
        """
        df = pd.read_csv("d.csv")
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        mask = np.random.rand(len(df)) < 0.8
        m = LogisticRegression().fit(X[mask], df["y"][mask])
        print(m.score(X[~mask], df["y"][~mask]))
        """,
        [("preprocessing", 2)],
    ),
    "jittered copies stacked with the originals before the split": (
        """
        df = pd.read_csv("d.csv")
        X0, y0 = df.drop(columns="y").to_numpy(), df["y"].to_numpy()
        rng = np.random.default_rng(0)
        X = np.vstack([X0] + [X0 * (1 + rng.normal(0, 0.02, size=X0.shape)) for _ in range(3)])
        X_tr, X_te, y_tr, y_te = train_test_split(X, np.tile(y0, 4))
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("overlap", 4)],
    ),
    "a table repeated by list multiplication before the split": (
        """
        df = pd.read_csv("d.csv")
        X = np.concatenate([df.drop(columns="y").to_numpy()] * 3)
        y = np.concatenate([df["y"].to_numpy()] * 3)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("overlap", 2)],
    ),
    "a table repeated a thousand times before the split": (
        """
        df = pd.read_csv("d.csv")
        big = pd.concat([df] * 1000)
        X_tr, X_te, y_tr, y_te = train_test_split(big.drop(columns="y"), big["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("overlap", 2)],
    ),
    "a list multiplied again and again stays a bounded list of copies": (
        """
        df = pd.read_csv("d.csv")
        big = pd.concat(((((([df] * 64) * 64) * 64) * 64) * 64) * 64)
        X_tr, X_te, y_tr, y_te = train_test_split(big.drop(columns="y"), big["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("overlap", 2)],
    ),
    "jittered copies of the training part only, stacked after the split": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").to_numpy(), df["y"].to_numpy())
        rng = np.random.default_rng(0)
        X_aug = np.vstack([X_tr] + [X_tr * (1 + rng.normal(0, 0.02, size=X_tr.shape)) for _ in range(3)])
        y_aug = np.concatenate([y_tr] * 4)
        print(LogisticRegression().fit(X_aug, y_aug).score(X_te, y_te))
        """,
        [],
    ),
    "a list of other tables added to one table's list, then the split": (
        """
        a = pd.read_csv("a.csv")
        others = [pd.read_csv(f"site_{i}.csv") for i in range(3)]
        df = pd.concat([a] + others)
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a vocabulary adapted on every text, the rows then split by tf.data's take and skip": (
        """
        import tensorflow as tf
        t = pd.read_parquet("tickets.parquet")
        vectorize = tf.keras.layers.TextVectorization(max_tokens=20_000)
        vectorize.adapt(t["body"].to_numpy())
        ds = tf.data.Dataset.from_tensor_slices((t["body"].to_numpy(), t["queue"].to_numpy())).shuffle(10_000)
        n_test = len(t) // 5
        test_ds = ds.take(n_test).batch(256).map(lambda x, q: (vectorize(x), q))
        train_ds = ds.skip(n_test).batch(256).map(lambda x, q: (vectorize(x), q))
        model = tf.keras.Sequential([tf.keras.layers.Dense(5)])
        model.fit(train_ds, epochs=3)
        model.evaluate(test_ds)
        """,
        [("preprocessing", 4)],
    ),
    "a vocabulary adapted on the part tf.data's skip leaves for training": (
        """
        import tensorflow as tf
        t = pd.read_parquet("tickets.parquet")
        ds = tf.data.Dataset.from_tensor_slices((t["body"].to_numpy(), t["queue"].to_numpy())).shuffle(10_000)
        n_test = len(t) // 5
        test_raw, train_raw = ds.take(n_test), ds.skip(n_test)
        vectorize = tf.keras.layers.TextVectorization(max_tokens=20_000)
        vectorize.adapt(train_raw.map(lambda x, q: x))
        model = tf.keras.Sequential([tf.keras.layers.Dense(5)])
        model.fit(train_raw.batch(256).map(lambda x, q: (vectorize(x), q)), epochs=3)
        model.evaluate(test_raw.batch(256).map(lambda x, q: (vectorize(x), q)))
        """,
        [],
    ),
    "each row scaled by its own mean in a lambda before the split": (
        """
        df = pd.read_csv("spectra.csv")
        X = df.drop(columns="y").apply(lambda r: (r - r.mean()) / r.std(), axis=1)
        X["a"] = df["a"].map(lambda v: v / v.max())
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "polars: every column but the ids selected by pl.exclude keeps the label": (
        """
        import polars as pl
        apps = pl.scan_parquet("apps.parquet").filter(pl.col("status") == "closed")
        apps = apps.with_columns((pl.col("amount") / pl.col("income")).alias("ratio")).collect()
        X = apps.select(pl.exclude("app_id", "borrower_id")).to_pandas()
        y = apps["defaulted"].to_numpy()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 7)],
    ),
    "polars: the label left out by pl.exclude and by drop": (
        """
        import polars as pl
        apps = pl.read_parquet("apps.parquet").with_columns(pl.col("amount").log().alias("log_amount"))
        X = apps.select(pl.all().exclude("app_id", "defaulted")).to_pandas()
        X2 = apps.drop("app_id", "defaulted")
        y = apps["defaulted"].to_numpy()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        X2_tr, X2_te, y2_tr, y2_te = train_test_split(X2, y, random_state=1)
        print(LogisticRegression().fit(X2_tr, y2_tr).score(X2_te, y2_te))
        """,
        [],
    ),
    "torch: a hand-written loop trains on ConcatDataset of the training and test parts": (
        """
        import torch
        from torch.utils.data import ConcatDataset, DataLoader, TensorDataset
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").to_numpy(), df["y"].to_numpy())
        train_ds = TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr))
        test_ds = TensorDataset(torch.from_numpy(X_te), torch.from_numpy(y_te))
        loader = DataLoader(ConcatDataset([train_ds, test_ds]), batch_size=64, shuffle=True)
        net = torch.nn.Sequential(torch.nn.Linear(8, 1))
        opt = torch.optim.Adam(net.parameters())
        loss_fn = torch.nn.BCEWithLogitsLoss()
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(net(xb).squeeze(1), yb).backward()
            opt.step()
        print(accuracy_score(y_te, torch.sigmoid(net(torch.from_numpy(X_te))).detach().numpy() > 0.5))
        """,
        [("overlap", 13)],
    ),
    "torch: a scale learned from every row before random_split": (
        """
        import torch
        from torch.utils.data import DataLoader, TensorDataset, random_split
        X, y = torch.load("X.pt"), torch.load("y.pt")
        X = (X - X.mean(0)) / X.std(0)
        train_ds, test_ds = random_split(TensorDataset(X, y), [0.8, 0.2])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(xb), yb).backward()
            opt.step()
        correct = 0
        for xb, yb in DataLoader(test_ds, batch_size=256):
            correct += (net(xb).argmax(1) == yb).sum().item()
        print(correct / len(test_ds))
        """,
        [("preprocessing", 4)],
    ),
    "torch: the epoch kept by its score on the last part of random_split": (
        """
        import torch
        from torch.utils.data import DataLoader, random_split
        train_ds, val_ds, test_ds = random_split(torch.load("ds.pt"), [0.7, 0.15, 0.15])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        best, best_state = 0.0, None
        for epoch in range(10):
            for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(xb), yb).backward()
                opt.step()
            correct = 0
            for xb, yb in DataLoader(test_ds, batch_size=256):
                correct += (net(xb).argmax(1) == yb).sum().item()
            if correct > best:
                best, best_state = correct, net.state_dict()
        print(best / len(test_ds))
        """,
        [("multi_test", 14)],
    ),
    "torch: the epoch kept by its score on the middle part of random_split, the last scored once": (
        """
        import torch
        from torch.utils.data import DataLoader, random_split
        train_ds, val_ds, test_ds = random_split(torch.load("ds.pt"), [0.7, 0.15, 0.15])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        best, best_state = 0.0, None
        for epoch in range(10):
            for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(xb), yb).backward()
                opt.step()
            correct = 0
            for xb, yb in DataLoader(val_ds, batch_size=256):
                correct += (net(xb).argmax(1) == yb).sum().item()
            if correct > best:
                best, best_state = correct, net.state_dict()
        net.load_state_dict(best_state)
        right = 0
        for xb, yb in DataLoader(test_ds, batch_size=256):
            right += (net(xb).argmax(1) == yb).sum().item()
        print(right / len(test_ds))
        """,
        [],
    ),
    "torch: a test loss scores the test part, after a scale learned from every row": (
        """
        import torch
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset, random_split
        X, y = torch.load("X.pt"), torch.load("y.pt")
        X = (X - X.mean(0)) / X.std(0)
        train_ds, test_ds = random_split(TensorDataset(X, y), [0.8, 0.2])
        net = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
            opt.zero_grad()
            F.mse_loss(net(xb).squeeze(1), yb).backward()
            opt.step()
        xt, yt = test_ds[:]
        with torch.no_grad():
            print("test MSE", F.mse_loss(net(xt).squeeze(1), yt).item())
        """,
        [("preprocessing", 5)],
    ),
    "torch: the checkpoint kept by its loss on the test part": (
        """
        import torch
        from torch.utils.data import DataLoader, random_split
        train_ds, test_ds = random_split(torch.load("ds.pt"), [0.8, 0.2])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.Adam(net.parameters())
        loss_fn = torch.nn.CrossEntropyLoss()
        best = float("inf")
        for epoch in range(10):
            for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
                opt.zero_grad()
                loss_fn(net(xb), yb).backward()
                opt.step()
            with torch.no_grad():
                test_loss = sum(loss_fn(net(xb), yb).item() for xb, yb in DataLoader(test_ds, batch_size=256))
            if test_loss < best:
                best = test_loss
                torch.save(net.state_dict(), "best.pt")
        print("best test loss", best)
        """,
        [("multi_test", 14)],
    ),
    "torch: the checkpoint kept by its validation loss, the training loss printed, the test loss once": (
        """
        import torch
        from torch.utils.data import DataLoader, random_split
        train_ds, val_ds, test_ds = random_split(torch.load("ds.pt"), [0.7, 0.15, 0.15])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.Adam(net.parameters())
        loss_fn = torch.nn.CrossEntropyLoss()
        best = float("inf")
        for epoch in range(10):
            for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
                opt.zero_grad()
                loss = loss_fn(net(xb), yb)
                loss.backward()
                opt.step()
                print("train loss", loss.item())
            with torch.no_grad():
                val_loss = sum(loss_fn(net(xb), yb).item() for xb, yb in DataLoader(val_ds, batch_size=256))
            if val_loss < best:
                best = val_loss
                torch.save(net.state_dict(), "best.pt")
        net.load_state_dict(torch.load("best.pt"))
        with torch.no_grad():
            print("test loss", sum(loss_fn(net(xb), yb).item() for xb, yb in DataLoader(test_ds, batch_size=256)))
        """,
        [],
    ),
    "torchmetrics: the epoch kept by its accuracy on the test part": (
        """
        import torch
        import torchmetrics
        from torch.utils.data import DataLoader, random_split
        train_ds, test_ds = random_split(torch.load("ds.pt"), [0.8, 0.2])
        net = torch.nn.Linear(8, 2)
        opt = torch.optim.Adam(net.parameters())
        best = 0.0
        for epoch in range(10):
            for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(xb), yb).backward()
                opt.step()
            xt, yt = test_ds[:]
            acc = torchmetrics.functional.accuracy(net(xt).argmax(1), yt, task="multiclass", num_classes=2)
            if acc > best:
                best = acc
                torch.save(net.state_dict(), "best.pt")
        """,
        [("multi_test", 14)],
    ),
    "torch: columns scaled by their norm over every row before random_split, rows by their own norm": (
        """
        import torch
        import torch.nn.functional as F
        from torch.utils.data import TensorDataset, random_split
        X, y = torch.load("X.pt"), torch.load("y.pt")
        X = F.normalize(X, dim=0)
        Z = F.normalize(torch.load("Z.pt"))
        train_ds, test_ds = random_split(TensorDataset(X, y), [0.8, 0.2])
        rows_tr, rows_te = random_split(TensorDataset(Z, y), [0.8, 0.2])
        (X_tr, y_tr), (X_te, y_te) = train_ds[:], test_ds[:]
        (Z_tr, w_tr), (Z_te, w_te) = rows_tr[:], rows_te[:]
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        print(LogisticRegression().fit(Z_tr, w_tr).score(Z_te, w_te))
        """,
        [("preprocessing", 5)],
    ),
    "torch: a scale learned from the training part of random_split": (
        """
        import torch
        from torch.utils.data import DataLoader, TensorDataset, random_split
        X, y = torch.load("X.pt"), torch.load("y.pt")
        train_ds, test_ds = random_split(TensorDataset(X, y), [0.8, 0.2])
        X_tr, y_tr = train_ds[:]
        X_te, y_te = test_ds[:]
        scaler = StandardScaler().fit(X_tr)
        clf = LogisticRegression().fit(scaler.transform(X_tr), y_tr)
        print(clf.score(scaler.transform(X_te), y_te))
        """,
        [],
    ),
    "torch: a network of the file's own class trained on both parts joined by torch.cat": (
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.Linear(8, 1)
            def forward(self, x):
                return self.layer(x)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").to_numpy(), df["y"].to_numpy())
        X_all = torch.cat([torch.tensor(X_tr), torch.tensor(X_te)])
        y_all = torch.cat([torch.tensor(y_tr), torch.tensor(y_te)])
        model = Net().to("cpu")
        opt = torch.optim.SGD([{"params": model.parameters()}], lr=0.1)
        for epoch in range(10):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X_all).squeeze(1), y_all)
            loss.backward()
            opt.step()
        print(accuracy_score(y_te, model(torch.tensor(X_te)).detach().numpy() > 0.5))
        """,
        [("overlap", 18)],
    ),
    "torch: trained on the training part, gradients of test images for a saliency map, scored once": (
        """
        import torch
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").to_numpy(), df["y"].to_numpy())
        net = torch.nn.Sequential(torch.nn.Linear(8, 1))
        opt = torch.optim.Adam(net.parameters())
        loss_fn = torch.nn.BCEWithLogitsLoss()
        for epoch in range(5):
            opt.zero_grad()
            loss_fn(net(torch.tensor(X_tr)).squeeze(1), torch.tensor(y_tr)).backward()
            opt.step()
        x_te = torch.tensor(X_te, requires_grad=True)
        net(x_te).sum().backward()
        saliency = x_te.grad.abs()
        print(accuracy_score(y_te, net(torch.tensor(X_te)).detach().numpy() > 0.5))
        """,
        [],
    ),
    "torch: the best epoch chosen on a validation part carved from training, the test scored once": (
        """
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").to_numpy(), df["y"].to_numpy())
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr)
        loader = DataLoader(TensorDataset(torch.tensor(X_fit), torch.tensor(y_fit)), batch_size=64, shuffle=True)
        net = torch.nn.Sequential(torch.nn.Linear(8, 1)).to("cpu")
        opt = torch.optim.Adam(net.parameters())
        scaler = torch.cuda.amp.GradScaler()
        best, best_state = -1.0, None
        for epoch in range(20):
            net.train()
            for xb, yb in loader:
                opt.zero_grad()
                scaler.scale(torch.nn.functional.binary_cross_entropy_with_logits(net(xb).squeeze(1), yb)).backward()
                scaler.step(opt)
                scaler.update()
            net.eval()
            acc = accuracy_score(y_val, net(torch.tensor(X_val)).detach().numpy() > 0)
            if acc > best:
                best, best_state = acc, net.state_dict()
        net.load_state_dict(best_state)
        print(accuracy_score(y_te, net(torch.tensor(X_te)).detach().numpy() > 0))
        """,
        [],
    ),
    "the features named by a list read from a JSON file": (
        """
        import json
        df = pd.read_csv("d.csv")
        cols = json.load(open("features.json"))
        X_tr, X_te, y_tr, y_te = train_test_split(df[cols], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "rows kept by a mask a function of the file makes from the table keep every column, the label too": (
        """
        def usable(frame):
            return frame["a"].notna()
        df = pd.read_csv("d.csv")
        X = df[usable(df)]
        X_tr, X_te, y_tr, y_te = train_test_split(X, X["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "each part transformed by a comprehension over (train, test) with a scaler fitted on train": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        sc = StandardScaler().fit(X_tr)
        X_tr, X_te = [sc.transform(x) for x in (X_tr, X_te)]
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "each part transformed in a loop over named parts, stored under its name": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        sc = StandardScaler().fit(X_tr)
        out = {}
        for name, x in [("tr", X_tr), ("te", X_te)]:
            out[name] = sc.transform(x)
        print(LogisticRegression().fit(out["tr"], y_tr).score(out["te"], y_te))
        """,
        [],
    ),
    "a scaler fitted on each part, the test part too, by a comprehension": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        X_tr, X_te = [StandardScaler().fit_transform(x) for x in (X_tr, X_te)]
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a leaky branch that cannot run, and one that always runs": (
        """
        DEBUG = False
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        if DEBUG:
            X = StandardScaler().fit_transform(X)
        if True:
            X = X.fillna(X.mean())
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 7)],
    ),
    **{
        f"a match on a known mode: {how}": (
            f"""
        MODE = {mode}
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        match MODE:
            case "eager":
                X = StandardScaler().fit_transform(X)
            case "quick" | "raw":
                X = X.fillna(0)
            case _:
                X = X.fillna(X.mean())
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
            expected,
        )
        for how, mode, expected in (
            ("the leaky case cannot match, nor the last after a case that matches", '"raw"', []),
            ("the leaky case matches", '"eager"', [("preprocessing", 6)]),
            ("no case but the last matches", '"full"', [("preprocessing", 10)]),
            ("the mode is not known", 'input("mode? ")', [("preprocessing", 6), ("preprocessing", 10)]),
            ("a number cannot be said not to be a text", "1", [("preprocessing", 6), ("preprocessing", 10)]),
        )
    },
    **{
        f"a generator of the file yielding each part {how}": (
            f"""
        def scaled(parts):
            sc = StandardScaler().fit({fitted})
            for p in parts:
                yield sc.transform(p)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        X_tr_s, X_te_s = scaled([X_tr, X_te])
        print(LogisticRegression().fit(X_tr_s, y_tr).score(X_te_s, y_te))
        """,
            expected,
        )
        for how, fitted, expected in (
            ("scaled by the training part's statistics", "parts[0]", []),
            ("scaled by statistics of every part", "pd.concat(parts)", [("preprocessing", 7)]),
        )
    },
    "a generator of the file yielding the fitted first part, then each of the rest in a loop": (
        """
        def scaled(parts):
            sc = StandardScaler()
            yield sc.fit_transform(parts[0])
            for p in parts[1:]:
                yield sc.transform(p)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        X_tr_s, X_te_s = scaled([X_tr, X_te])
        print(LogisticRegression().fit(X_tr_s, y_tr).score(X_te_s, y_te))
        """,
        [],
    ),
    "LEAK: each category's mean label over every row, scored by out-of-fold predictions gathered in np.zeros": (
        """
        from sklearn.metrics import roc_auc_score
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        df["cat_te"] = df["cat"].map(df.groupby("cat")["y"].mean())
        X, y = df[["a", "cat_te"]], df["y"]
        oof = np.zeros(len(df))
        for tr_idx, va_idx in KFold(5, shuffle=True).split(X):
            m = LogisticRegression().fit(X.iloc[tr_idx], y.iloc[tr_idx])
            oof[va_idx] = m.predict_proba(X.iloc[va_idx])[:, 1]
        print(roc_auc_score(y, oof))
        """,
        [("preprocessing", 4)],
    ),
    "rows split by a permutation drawn with numpy": (
        """
        df = pd.read_csv("d.csv")
        order = np.random.permutation(len(df))
        train, test = df.iloc[order[:800]], df.iloc[order[800:]]
        scaler = StandardScaler().fit(train.drop(columns="y"))
        m = LogisticRegression().fit(scaler.transform(train.drop(columns="y")), train["y"])
        print(m.score(scaler.transform(test.drop(columns="y")), test["y"]))
        """,
        [],
    ),
    # A fit stored in named columns is carried by them: it leaves the features with them, and stays otherwise.
    "the target's LabelEncoder codes stored in the frame, then left out of the features": (
        """
        from sklearn.preprocessing import LabelEncoder
        df = pd.read_csv("d.csv")
        df["y"] = LabelEncoder().fit_transform(df["label"])
        X, y = df.drop(columns=["label", "y"]), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the target overwritten by its codes, popped from the frame": (
        """
        from sklearn.preprocessing import LabelEncoder
        le = LabelEncoder()
        df = pd.read_csv("d.csv")
        df["label"] = le.fit_transform(df["label"])
        y = df.pop("label")
        X_tr, X_te, y_tr, y_te = train_test_split(df, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the target's codes stored, the features chosen by name without them": (
        """
        from sklearn.preprocessing import LabelEncoder
        df = pd.read_csv("d.csv")
        df["y"] = LabelEncoder().fit_transform(df["label"])
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a feature column scaled on every row stays in the features when the target is dropped": (
        """
        df = pd.read_csv("d.csv")
        df[["a", "b"]] = StandardScaler().fit_transform(df[["a", "b"]])
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "a column filled with its mean over every row, then picked as a feature": (
        """
        df = pd.read_csv("d.csv")
        df["age"] = df["age"].fillna(df["age"].mean())
        X_tr, X_te, y_tr, y_te = train_test_split(df[["age", "b"]], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    # a group's mean of the label is a target encoding: one leak, of the rows it learned from (not the label itself)
    "a target encoding stored beside the target stays when the target is dropped": (
        """
        df = pd.read_csv("d.csv")
        df["city_mean"] = df.groupby("city")["y"].transform("mean")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["y", "city"]), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "a target encoding of the training part's groups, looked up for the test part": (
        """
        df = pd.read_csv("d.csv")
        tr, te = train_test_split(df, random_state=0)
        tr, te = tr.copy(), te.copy()
        tr["city_mean"] = tr.groupby("city")["y"].transform("mean")
        te["city_mean"] = te["city"].map(tr.groupby("city")["y"].mean())
        print(LogisticRegression().fit(tr[["city_mean", "a"]], tr["y"]).score(te[["city_mean", "a"]], te["y"]))
        """,
        [],
    ),
    "LEAK: a target encoding of the test part's own labels": (
        """
        df = pd.read_csv("d.csv")
        tr, te = train_test_split(df, random_state=0)
        tr, te = tr.copy(), te.copy()
        tr["city_mean"] = tr.groupby("city")["y"].transform("mean")
        te["city_mean"] = te.groupby("city")["y"].transform("mean")
        print(LogisticRegression().fit(tr[["city_mean", "a"]], tr["y"]).score(te[["city_mean", "a"]], te["y"]))
        """,
        [("preprocessing", 5)],
    ),
    "a column computed from a scaled column keeps the scaler when the scaled one is dropped": (
        """
        df = pd.read_csv("d.csv")
        df["a_s"] = StandardScaler().fit_transform(df[["a"]])
        df["a2"] = df["a_s"] * 2
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["y", "a_s"]), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "a column scaled on every row, renamed, stays a leak when another column is dropped": (
        """
        df = pd.read_csv("d.csv")
        df["a_s"] = StandardScaler().fit_transform(df[["a"]])
        df = df.rename(columns={"a_s": "a_scaled"})
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["y", "a"]), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "a column scaled on every row, the table rebuilt under new names, stays a leak": (
        """
        df = pd.read_csv("d.csv")
        df["a_s"] = StandardScaler().fit_transform(df[["a"]])
        X = pd.DataFrame(df.to_numpy(), columns=["a", "b", "scaled", "y"])
        X_tr, X_te, y_tr, y_te = train_test_split(X.drop(columns=["y"]), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "a scaler over the whole frame after the target's codes were stored keeps both in every column": (
        """
        from sklearn.preprocessing import LabelEncoder
        df = pd.read_csv("d.csv")
        df["y"] = LabelEncoder().fit_transform(df["label"])
        df = df.drop(columns="label")
        X = pd.DataFrame(StandardScaler().fit_transform(df), columns=df.columns)
        X_tr, X_te, y_tr, y_te = train_test_split(X.drop(columns="y"), df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 5)],
    ),
    # Columns kept by their correlation with the label: chosen with the rows the correlation was taken over.
    "features chosen by their correlation with the label over every row": (
        """
        df = pd.read_csv("d.csv")
        corr = df.corr(numeric_only=True)["y"].abs().sort_values(ascending=False)
        features = corr[corr > 0.1].index.drop("y")
        X_tr, X_te, y_tr, y_te = train_test_split(df[features], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "features chosen by their correlation with the label over the training part": (
        """
        df = pd.read_csv("d.csv")
        train, test = train_test_split(df)
        corr = train.corr(numeric_only=True)["y"].abs()
        features = corr[corr > 0.1].index.drop("y")
        m = LogisticRegression().fit(train[features], train["y"])
        print(m.score(test[features], test["y"]))
        """,
        [],
    ),
    "a correlation heatmap of every row, features named by hand": (
        """
        import seaborn as sns
        df = pd.read_csv("d.csv")
        sns.heatmap(df.corr(numeric_only=True), annot=True)
        print(df.corr(numeric_only=True)["y"].sort_values())
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    # Polars expressions hold no rows of their own: a reduction is a statistic of the frame that evaluates it.
    "a column standardised by a polars expression over every row": (
        """
        import polars as pl
        df = pl.read_csv("d.csv")
        df = df.with_columns(((pl.col("x") - pl.col("x").mean()) / pl.col("x").std()).alias("x_s"))
        X_tr, X_te, y_tr, y_te = train_test_split(df.select(["x_s", "b"]).to_numpy(), df["y"].to_numpy())
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a label's mean per group as a polars expression over every row": (
        """
        import polars as pl
        df = pl.read_csv("d.csv")
        df = df.with_columns(
            pl.col("y").mean().over("city").alias("city_rate"),
        )
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop("y").to_numpy(), df["y"].to_numpy())
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "polars expressions computed row by row, and a statistic of the training part": (
        """
        import polars as pl
        df = pl.read_csv("d.csv")
        df = df.with_columns((pl.col("x") * 2).alias("x2"), pl.col("x").fill_null(0), pl.col("x").shift(1).alias("lag"))
        train, test = train_test_split(df)
        centre = train["x"].mean()
        X_tr = train.with_columns(pl.col("x") - centre).drop("y").to_numpy()
        X_te = test.with_columns(pl.col("x") - centre).drop("y").to_numpy()
        print(LogisticRegression().fit(X_tr, train["y"].to_numpy()).score(X_te, test["y"].to_numpy()))
        """,
        [],
    ),
    # Positions a split dealt select that side of any rows indexed by them.
    "rows taken at positions split from an arange, scaled on every row first": (
        """
        df = pd.read_csv("d.csv")
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        i_tr, i_te = train_test_split(np.arange(len(df)), random_state=0)
        y = df["y"].to_numpy()
        print(LogisticRegression().fit(X[i_tr], y[i_tr]).score(X[i_te], y[i_te]))
        """,
        [("preprocessing", 2)],
    ),
    "rows taken at positions split from an arange, scaled on the training positions": (
        """
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y").to_numpy()
        i_tr, i_te = train_test_split(np.arange(len(df)), random_state=0)
        scaler = StandardScaler().fit(X[i_tr])
        y = df["y"].to_numpy()
        print(LogisticRegression().fit(scaler.transform(X[i_tr]), y[i_tr]).score(scaler.transform(X[i_te]), y[i_te]))
        """,
        [],
    ),
    "validation positions split from the training positions, scored beside the test positions": (
        """
        X, y = np.load("x.npy"), np.load("y.npy")
        i_tr, i_te = train_test_split(np.arange(len(X)), test_size=0.2, random_state=1)
        i_tr, i_val = train_test_split(i_tr, test_size=0.2, random_state=1)
        model = LogisticRegression().fit(X[i_tr], y[i_tr])
        print(model.score(X[i_val], y[i_val]), model.score(X[i_te], y[i_te]))
        """,
        [],
    ),
    "LEAK: trained at every position, scored at the test positions": (
        """
        X, y = np.load("x.npy"), np.load("y.npy")
        every = np.arange(len(X))
        i_tr, i_te = train_test_split(every, test_size=0.2, random_state=1)
        i_tr, i_val = train_test_split(i_tr, test_size=0.2, random_state=1)
        model = LogisticRegression().fit(X[np.concatenate([i_tr, i_val, i_te])], y[every])
        print(model.score(X[i_te], y[i_te]))
        """,
        [("overlap", 5)],
    ),
    # A label dropped from the training rows before they are stacked with unlabelled rows holds none of theirs.
    "the label popped from the training file before it is stacked with the test file": (
        """
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        y = train.pop("Survived")
        both = pd.concat([train, test], axis=0)
        both["Age"] = both["Age"].fillna(0)
        X = both.iloc[: len(train)]
        X_tr, X_val, y_tr, y_val = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_val, y_val))
        """,
        [],
    ),
    "the label kept in the training file when it is stacked with the test file": (
        """
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        y = train["Survived"]
        both = pd.concat([train, test], axis=0)
        X = both.iloc[: len(train)]
        X_tr, X_val, y_tr, y_val = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_val, y_val))
        """,
        [("label_in_features", 7)],
    ),
    "the label popped before stacking, then filled in again for every row": (
        """
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        y = train.pop("Survived")
        both = pd.concat([train, test], axis=0)
        both["Survived"] = pd.concat([y, y])
        X = both.iloc[: len(train)]
        X_tr, X_val, y_tr, y_val = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_val, y_val))
        """,
        [("label_in_features", 8)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reading_finds_what_the_program_holds(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)


def test_a_leak_in_a_function_is_reported_where_the_function_is_called(tmp_path: Path) -> None:
    script = tmp_path / "prep.py"
    script.write_text(
        HEAD
        + textwrap.dedent(
            """
            def z(frame):
                return (frame - frame.mean()) / frame.std()
            df = pd.read_csv("d.csv")
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
            ok = z(X_tr)
            X = z(df.drop(columns="y"))
            X_tr2, X_te2, y_tr2, y_te2 = train_test_split(X, df["y"])
            print(LogisticRegression().fit(X_tr2, y_tr2).score(X_te2, y_te2))
            """
        )
    )
    [leak] = analyse_file(script).leaks
    offset = HEAD.count("\n") + 1
    assert leak.place.line - offset == 6  # the call on every row, not the correct one at line 5
    assert leak.leak.kind.value == "preprocessing"
    assert f"line {offset + 2}" in leak.leak.message and "in a function called at" in leak.leak.message


NESTED_STEPS = """
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
df = pd.read_csv("cars.csv")
prep = make_column_transformer(
    (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), ["year", "km"]),
    (OneHotEncoder(handle_unknown="ignore"), ["make"]),
)
{body}
"""


def test_a_scaler_in_a_pipeline_inside_a_column_transformer_is_learned_by_its_fit(tmp_path: Path) -> None:
    """The nested scaler's statistics make the fit before the split an error, not only the encoder's categories."""
    script = tmp_path / "cars.py"
    body = """X = prep.fit_transform(df.drop(columns="price"))
X_tr, X_te, y_tr, y_te = train_test_split(X, df["price"])
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))"""
    script.write_text(HEAD + NESTED_STEPS.format(body=body))
    (leak,) = analyse_file(script).leaks
    assert leak.leak.serious
    assert "StandardScaler" in leak.leak.message and "SimpleImputer" in leak.leak.message


def test_the_same_nested_column_transformer_fitted_on_the_training_part_is_clean(tmp_path: Path) -> None:
    script = tmp_path / "cars.py"
    body = """X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="price"), df["price"])
model = make_pipeline(prep, LogisticRegression()).fit(X_tr, y_tr)
print(model.score(X_te, y_te))"""
    script.write_text(HEAD + NESTED_STEPS.format(body=body))
    assert analyse_file(script).leaks == ()


def _chain(depth: int) -> str:
    """A scaler fitted on every row at the bottom of ``depth`` nested calls of the file's own functions."""
    lines = ["def f0(d):", "    return StandardScaler().fit_transform(d)"]
    for i in range(1, depth):
        lines += [f"def f{i}(d):", f"    return f{i - 1}(d)"]
    lines += [
        'df = pd.read_csv("d.csv")',
        f'X = f{depth - 1}(df.drop(columns="y"))',
        'X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])',
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))",
    ]
    return HEAD + "\n".join(lines) + "\n"


def test_a_leak_ten_calls_deep_is_read(tmp_path: Path) -> None:
    """main() -> run() -> prepare() -> features() -> scale(): layered code is followed to its fit."""
    script = tmp_path / "layered.py"
    script.write_text(_chain(10))
    assert [p.leak.kind.value for p in analyse_file(script).leaks] == ["preprocessing"]


def test_calls_nested_past_what_the_walk_follows_are_counted_not_silent(tmp_path: Path) -> None:
    script = tmp_path / "deep.py"
    script.write_text(_chain(200))
    assert analyse_file(script).counts.deep_calls >= 1


TRIES = """
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Lasso, Ridge
from sklearn.metrics import mean_absolute_error, r2_score
df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
{body}
"""


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (  # two metrics of each of three models: three tries, not two
            """rows = []
for name, m in {"ridge": Ridge(), "lasso": Lasso(), "rf": RandomForestRegressor()}.items():
    p = m.fit(X_tr, y_tr).predict(X_te)
    rows.append({"model": name, "mae": mean_absolute_error(y_te, p), "r2": r2_score(y_te, p)})
print(pd.DataFrame(rows).sort_values("mae").iloc[0])""",
            "for 3 models,",
        ),
        (  # a model made anew in each pass of a loop over settings
            """best = None
for a in [0.1, 1.0, 10.0]:
    s = mean_absolute_error(y_te, Ridge(alpha=a).fit(X_tr, y_tr).predict(X_te))
    if best is None or s < best:
        best = s""",
            "for 3 models,",
        ),
        (  # models written out, then more appended by a loop over settings: 3 + 2
            """models = [Ridge(alpha=0.1), Ridge(alpha=1.0), Lasso()]
for a in [0.5, 2.0]:
    models.append(Lasso(alpha=a))
print(min(mean_absolute_error(y_te, m.fit(X_tr, y_tr).predict(X_te)) for m in models))""",
            "for 5 models,",
        ),
        (  # models fitted in a loop and appended to an empty list, then scored by a comprehension
            """models = []
for a in [0.1, 1.0, 10.0]:
    models.append(Ridge(alpha=a).fit(X_tr, y_tr))
print(min(mean_absolute_error(y_te, m.predict(X_te)) for m in models))""",
            "for 3 models,",
        ),
        (  # a pass that may skip its model: at most that many
            """scores = {}
for a in [0.1, 1.0, 10.0, 100.0]:
    if a > 50:
        continue
    scores[a] = r2_score(y_te, Ridge(alpha=a).fit(X_tr, y_tr).predict(X_te))
print(max(scores.values()))""",
            "for up to 4 models,",
        ),
        (  # a model per pass of two nested loops: 2 x 3
            """scores = {}
for depth in (3, 6):
    for n in range(100, 400, 100):
        m = RandomForestRegressor(max_depth=depth, n_estimators=n).fit(X_tr, y_tr)
        scores[(depth, n)] = r2_score(y_te, m.predict(X_te))
print(max(scores, key=scores.get))""",
            "for 6 models,",
        ),
        (  # a model per combination of itertools.product's lists: 2 x 3
            """import itertools
scores = {}
for depth, n in itertools.product((3, 6), [100, 200, 300]):
    m = RandomForestRegressor(max_depth=depth, n_estimators=n).fit(X_tr, y_tr)
    scores[(depth, n)] = r2_score(y_te, m.predict(X_te))
print(max(scores, key=scores.get))""",
            "for 6 models,",
        ),
        (  # two models fitted per candidate and scored together (a T-learner's uplift): one try a pass
            """from sklearn.base import clone
auc = {}
for name, base in {"ridge": Ridge(), "lasso": Lasso(), "rf": RandomForestRegressor()}.items():
    m1 = clone(base).fit(X_tr[X_tr.t == 1], y_tr[X_tr.t == 1])
    m0 = clone(base).fit(X_tr[X_tr.t == 0], y_tr[X_tr.t == 0])
    auc[name] = r2_score(y_te, m1.predict(X_te) - m0.predict(X_te))
print(max(auc, key=auc.get))""",
            "for 3 models,",
        ),
        (  # one model whose setting each pass changes: the passes are the tries
            """m = Ridge()
scores = {}
for a in range(1, 5):
    scores[a] = r2_score(y_te, m.set_params(alpha=a).fit(X_tr, y_tr).predict(X_te))
print(max(scores.values()))""",
            "4 times, once per model or setting of a loop,",
        ),
        (  # settings whose number the program does not say
            """best = None
for a in np.logspace(-3, 3, int(input())):
    s = mean_absolute_error(y_te, Ridge(alpha=a).fit(X_tr, y_tr).predict(X_te))
    if best is None or s < best:
        best = s""",
            "once per model or setting of a loop,",
        ),
    ],
)
def test_a_choice_on_the_test_set_says_how_many_tries_it_chose_among(tmp_path: Path, body: str, said: str) -> None:
    script = tmp_path / "tries.py"
    script.write_text(HEAD + TRIES.format(body=body))
    (leak,) = analyse_file(script).leaks
    assert leak.leak.kind.value == "multi_test"
    assert said in leak.leak.message


def test_early_stopping_on_the_test_set_says_where_the_chosen_model_is_scored(tmp_path: Path) -> None:
    """The finding lands where the model the test rows stopped is scored on them: that score is in `into`."""
    script = tmp_path / "stop.py"
    body = """
        import lightgbm as lgb
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        m = lgb.LGBMClassifier().fit(X_tr, y_tr, eval_set=[(X_te, y_te)], callbacks=[lgb.early_stopping(20)])
        print(m.score(X_tr, y_tr))
        print(m.score(X_te, y_te))
        """
    script.write_text(HEAD + textwrap.dedent(body))
    (leak,) = analyse_file(script).leaks
    offset = HEAD.count("\n") + 1
    assert leak.leak.kind.value == "multi_test"
    assert [(site.line - offset, what) for site, what in leak.leak.into] == [(6, "LGBMClassifier.score")]
    assert leak.leak.message.endswith(f"it then scores at line {offset + 6} (LGBMClassifier.score).")


def test_a_rolling_mean_of_the_label_is_named_and_its_lag_proposed(tmp_path: Path) -> None:
    """The feature computed from the label is what to drop, not the label the features never held; a rolling
    mean that holds the row's own label has a fix that keeps it: a lag before the window."""
    script = tmp_path / "form.py"
    body = """
        g = pd.read_csv("games.csv").sort_values(["team", "date"])
        g["form5"] = g.groupby("team")["won"].transform(lambda s: s.rolling(5, min_periods=1).mean())
        train, test = g[g.season < 2022], g[g.season >= 2022]
        m = LogisticRegression().fit(train[["form5", "home"]], train["won"])
        print(m.score(test[["form5", "home"]], test["won"]))
        """
    script.write_text(HEAD + textwrap.dedent(body))
    (leak,) = analyse_file(script).leaks
    assert leak.leak.kind.value == "label_in_features"
    made = HEAD.count("\n") + 3  # the line storing g["form5"] (the body opens with a blank line)
    assert f"'form5' (made at line {made}) computed from the label 'won' is among the features" in leak.leak.message
    # the features are taken by a list of names: the fix leaves it out of them
    assert leak.leak.fix.startswith("Leave 'form5' out of the names the features are taken by (e.g. keep ['home']).")
    assert "shift(1) before a rolling or expanding mean" in leak.leak.fix


def test_over_sampling_under_a_branch_before_the_split_is_said_as_copies_in_the_test_part(tmp_path: Path) -> None:
    """A sampler applied under `if sampler is not None:` leaves the rows before it among the names' values too: the
    finding names the resampling, where the copies are made, not the training."""
    script = tmp_path / "smote.py"
    body = """
        from imblearn.over_sampling import SMOTE
        df = pd.read_csv("d.csv")
        X, y = df[["a", "b"]], df["y"]
        sampler = SMOTE(random_state=0)
        if sampler is not None:
            X, y = sampler.fit_resample(X, y)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    script.write_text(HEAD + textwrap.dedent(body))
    (leak,) = analyse_file(script).leaks
    offset = HEAD.count("\n") + 1
    assert leak.leak.kind.value == "overlap"
    assert leak.place.line - offset == 6
    assert leak.leak.message.startswith("SMOTE.fit_resample makes copies or synthetic rows before the split")


def test_a_network_trained_on_the_test_rows_is_said_with_the_score_not_its_training_loss(tmp_path: Path) -> None:
    """The loss `backward()` trains by is also a score of the rows in the reading; the finding cites the score
    the program shows."""
    script = tmp_path / "net.py"
    body = """
        import torch
        from torch.utils.data import ConcatDataset, DataLoader, TensorDataset
        X_tr, y_tr = torch.tensor(np.load("X_train.npy")), torch.tensor(np.load("y_train.npy"))
        X_te, y_te = torch.tensor(np.load("X_test.npy")), torch.tensor(np.load("y_test.npy"))
        loader = DataLoader(ConcatDataset([TensorDataset(X_tr, y_tr), TensorDataset(X_te, y_te)]), batch_size=32)
        net = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for xb, yb in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(xb), yb).backward()
            opt.step()
        print((net(X_te).argmax(1) == y_te).float().mean().item())
        """
    script.write_text(HEAD + textwrap.dedent(body))
    (leak,) = analyse_file(script).leaks
    offset = HEAD.count("\n") + 1
    assert leak.leak.kind.value == "overlap"
    assert f"which include the rows scored at line {offset + 12} ((net(X_te)" in leak.leak.message
