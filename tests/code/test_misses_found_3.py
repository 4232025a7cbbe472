"""Leaks the reading used to pass as clean, each beside correct code that looks like it: the column a label was
computed from listed among the features by name; cluster ids of every row among the features; rows taken out
as outliers by a detector fitted on every row; a FunctionTransformer whose function takes the mean and std of the
rows it is given; a data set's part files read in a loop, then a learner fitted on both; an Optuna objective
written as a callable class, given the test part; a label brought in by `a.merge(b)` or `a.join(b)`.
Each case is a script and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds
none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.cluster import DBSCAN, KMeans
from sklearn.covariance import EllipticEnvelope
from sklearn.ensemble import IsolationForest, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GroupKFold, cross_val_score, train_test_split
from sklearn.neighbors import LocalOutlierFactor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
"""

_HOUSES_FIT = """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """

_SALES_FIT = """
        df = df.dropna()
        X = df[["sales", "price", "store"]]
        y = df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """

# 1. The column a label was computed from, among features listed by name ---------------------------------------
LABEL_SOURCES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a label thresholded from price, price listed among the features": (
        """
        df = pd.read_csv("houses.csv")
        df["expensive"] = (df["price"] > 300000).astype(int)
        X = df[["price", "rooms", "area"]]
        y = df["expensive"]"""
        + _HOUSES_FIT,
        [("label_in_features", 6)],
    ),
    "a label thresholded from price, the features listed without it": (
        """
        df = pd.read_csv("houses.csv")
        df["expensive"] = (df["price"] > 300000).astype(int)
        X = df[["rooms", "area", "age"]]
        y = df["expensive"]"""
        + _HOUSES_FIT,
        [],
    ),
    "a label thresholded from price, price in a list of names given to loc": (
        """
        df = pd.read_csv("houses.csv")
        df["expensive"] = (df["price"] > 300000).astype(int)
        features = ["price", "rooms", "area"]
        X = df.loc[:, features]
        y = df["expensive"]"""
        + _HOUSES_FIT,
        [("label_in_features", 7)],
    ),
    "a label that sums two counts, both counts listed among the features": (
        """
        df = pd.read_csv("bikes.csv")
        df["total"] = df["casual"] + df["registered"]
        y = df["total"]
        X = df[["temp", "hum", "casual", "registered"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "a label that sums two counts, one count listed among the features": (
        """
        df = pd.read_csv("bikes.csv")
        df["total"] = df["casual"] + df["registered"]
        y = df["total"]
        X = df[["temp", "hum", "casual"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 6)],
    ),
    "a label that sums two counts, the features listed without either": (
        """
        df = pd.read_csv("bikes.csv")
        df["total"] = df["casual"] + df["registered"]
        y = df["total"]
        X = df[["temp", "hum", "season", "hr"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    # a forecast: the label is the next row's sales, today's sales are a fair feature
    "the next day's sales as the label, today's sales listed among the features": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = df["sales"].shift(-1)"""
        + _SALES_FIT,
        [],
    ),
    "the next day's sales in each store as the label, today's sales listed among the features": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = df.groupby("store")["sales"].transform(lambda s: s.shift(-1))"""
        + _SALES_FIT,
        [],
    ),
    "whether tomorrow's price is higher as the label, today's price listed among the features": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = (df["price"].shift(-1) > df["price"]).astype(int)"""
        + _SALES_FIT,
        [],
    ),
    "the change to the next day's sales as the label, today's sales listed among the features": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = df["sales"].diff(-1)"""
        + _SALES_FIT,
        [],
    ),
    "the next day's sales as the label, the features taken by dropping it": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = df.groupby("store")["sales"].shift(-1)
        df = df.dropna()
        X = df.drop(columns=["target"])
        y = df["target"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "today's sales doubled as the label, today's sales listed among the features": (
        """
        df = pd.read_csv("sales.csv")
        df["target"] = df["sales"] * 2"""
        + _SALES_FIT,
        [("label_in_features", 7)],
    ),
}


@pytest.mark.parametrize("body, expected", LABEL_SOURCES.values(), ids=LABEL_SOURCES.keys())
def test_the_source_of_the_label_among_listed_features(
    tmp_path: Path, body: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_CUSTOMERS = """
        df = pd.read_csv("customers.csv")
        feats = ["recency", "frequency", "monetary"]"""

_CHURN_SCORED = """
        X = df[feats + ["segment"]]
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["churned"], random_state=0)
        print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """

# 2. Cluster ids among the features ------------------------------------------------------------------------------
CLUSTERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "KMeans fit_predict on every row, its cluster ids a feature": (
        _CUSTOMERS
        + """
        df["segment"] = KMeans(n_clusters=6, n_init=10).fit_predict(df[feats])"""
        + _CHURN_SCORED,
        [("preprocessing", 3)],
    ),
    "KMeans fitted on every row, its labels_ a feature": (
        _CUSTOMERS
        + """
        df["segment"] = KMeans(n_clusters=6, n_init=10).fit(df[feats]).labels_"""
        + _CHURN_SCORED,
        [("preprocessing", 3)],
    ),
    "KMeans fitted on every row, then each row's cluster predicted as a feature": (
        _CUSTOMERS
        + """
        km = KMeans(n_clusters=6, n_init=10).fit(df[feats])
        df["segment"] = km.predict(df[feats])"""
        + _CHURN_SCORED,
        [("preprocessing", 3)],
    ),
    "DBSCAN fit_predict on every row, its cluster ids a feature": (
        _CUSTOMERS
        + """
        df["segment"] = DBSCAN(eps=0.5).fit_predict(df[feats])"""
        + _CHURN_SCORED,
        [("preprocessing", 3)],
    ),
    "KMeans fitted on the training part, each part's clusters predicted": (
        _CUSTOMERS
        + """
        tr, te = train_test_split(df, random_state=0)
        tr, te = tr.copy(), te.copy()
        km = KMeans(n_clusters=6, n_init=10).fit(tr[feats])
        tr["segment"] = km.predict(tr[feats])
        te["segment"] = km.predict(te[feats])
        cols = feats + ["segment"]
        print(RandomForestClassifier().fit(tr[cols], tr["churned"]).score(te[cols], te["churned"]))
        """,
        [],
    ),
    "KMeans on every row to describe each segment, the model on the other columns": (
        _CUSTOMERS
        + """
        df["segment"] = KMeans(n_clusters=6, n_init=10).fit(df[feats]).labels_
        print(df.groupby("segment")[feats].mean())
        X_tr, X_te, y_tr, y_te = train_test_split(df[feats], df["churned"], random_state=0)
        print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "KMeans on every row's place, its clusters the groups of a GroupKFold": (
        """
        df = pd.read_csv("plots.csv")
        blocks = KMeans(n_clusters=10, n_init=10).fit_predict(df[["lat", "lon"]])
        X, y = df[["elev", "rain"]], df["yield"]
        print(cross_val_score(RandomForestRegressor(), X, y, groups=blocks, cv=GroupKFold(5)).mean())
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", CLUSTERS.values(), ids=CLUSTERS.keys())
def test_cluster_ids_among_the_features(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_FLATS = """
        df = pd.read_csv("flats.csv")
        feats = ["area", "rooms", "floor", "year"]"""

_PRICE_SCORED = """
        X_tr, X_te, y_tr, y_te = train_test_split(df[feats], df["price"], random_state=0)
        print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
        """

# 3. Outliers taken out by a detector fitted on every row -------------------------------------------------------
OUTLIERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "IsolationForest on every row, the label among its columns, a named mask keeps the inliers": (
        _FLATS
        + """
        mask = IsolationForest(contamination=0.05).fit_predict(df[feats + ["price"]]) == 1
        df = df[mask]"""
        + _PRICE_SCORED,
        [("preprocessing", 3)],
    ),
    "LocalOutlierFactor on every row, inliers kept in place": (
        _FLATS
        + """
        df = df[LocalOutlierFactor().fit_predict(df[feats]) != -1]"""
        + _PRICE_SCORED,
        [("preprocessing", 3)],
    ),
    "EllipticEnvelope's flags of every row kept, then compared": (
        _FLATS
        + """
        flags = EllipticEnvelope().fit_predict(df[feats])
        df = df[flags == 1]"""
        + _PRICE_SCORED,
        [("preprocessing", 3)],
    ),
    "a z-score filter of every row, named first": (
        _FLATS
        + """
        keep = (np.abs((df[feats] - df[feats].mean()) / df[feats].std()) < 3).all(axis=1)
        df = df[keep]"""
        + _PRICE_SCORED,
        [("preprocessing", 3)],
    ),
    "IsolationForest on the training part only, its inliers kept": (
        _FLATS
        + """
        tr, te = train_test_split(df, random_state=0)
        keep = IsolationForest(contamination=0.05).fit_predict(tr[feats + ["price"]]) == 1
        tr = tr[keep]
        print(RandomForestRegressor().fit(tr[feats], tr["price"]).score(te[feats], te["price"]))
        """,
        [],
    ),
    "IsolationForest on every row, its flags only plotted": (
        _FLATS
        + """
        df["outlier"] = IsolationForest(random_state=0).fit_predict(df[feats])
        print(df.groupby("outlier")["price"].describe())"""
        + _PRICE_SCORED,
        [],
    ),
    "rows with a missing price taken out by a named mask": (
        _FLATS
        + """
        keep = df["price"].notna() & (df["area"] > 10)
        df = df[keep]"""
        + _PRICE_SCORED,
        [],
    ),
    "a named mask at a learned quantile of the year, one side trained on and the other scored": (
        _FLATS
        + """
        early = df["year"] < df["year"].quantile(0.8)
        train, test = df[early], df[~early]
        print(RandomForestRegressor().fit(train[feats], train["price"]).score(test[feats], test["price"]))
        """,
        [],
    ),
    "IsolationForest fit_predict on every row, its flags scored against known frauds": (
        """
        df = pd.read_csv("fraud.csv")
        pred = IsolationForest(contamination=0.01).fit_predict(df.drop(columns=["is_fraud"]))
        print(accuracy_score(df["is_fraud"], pred == -1))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", OUTLIERS.values(), ids=OUTLIERS.keys())
def test_outliers_taken_out_by_a_detector(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_CANCER = """
        from sklearn.datasets import load_breast_cancer
        X, y = load_breast_cancer(return_X_y=True)"""

_CANCER_SPLIT_SCORED = """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

# 4. A FunctionTransformer whose function takes statistics of the rows --------------------------------------------
FUNCTION_TRANSFORMERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a lambda that standardises by the rows' mean and std, applied to every row before the split": (
        _CANCER
        + """
        X = FunctionTransformer(lambda A: (A - A.mean(axis=0)) / A.std(axis=0)).fit_transform(X)"""
        + _CANCER_SPLIT_SCORED,
        [("preprocessing", 3)],
    ),
    "a lambda that standardises by the rows' mean and std, in a pipeline scored on the test part": (
        _CANCER
        + """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        zscore = FunctionTransformer(lambda A: (A - A.mean(0)) / A.std(0))
        model = make_pipeline(zscore, LogisticRegression()).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [("preprocessing", 6)],
    ),
    "a function of the file that centres by np.mean, fitted on the training part, applied to the test part": (
        _CANCER
        + """
        def centre(A):
            return A - np.mean(A, axis=0)

        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        ft = FunctionTransformer(centre).fit(X_tr)
        model = LogisticRegression().fit(ft.transform(X_tr), y_tr)
        print(model.score(ft.transform(X_te), y_te))
        """,
        [("preprocessing", 9)],
    ),
    "np.log1p applied to every row before the split": (
        _CANCER
        + """
        X = FunctionTransformer(np.log1p).fit_transform(X)"""
        + _CANCER_SPLIT_SCORED,
        [],
    ),
    "a lambda that scales each row by its own maximum, applied to every row before the split": (
        _CANCER
        + """
        X = FunctionTransformer(lambda A: A / A.max(axis=1, keepdims=True)).fit_transform(X)"""
        + _CANCER_SPLIT_SCORED,
        [],
    ),
    "a lambda that clips at fixed bounds, applied to every row before the split": (
        _CANCER
        + """
        X = FunctionTransformer(lambda A: np.clip(A, 0, 100)).fit_transform(X)"""
        + _CANCER_SPLIT_SCORED,
        [],
    ),
    "np.log1p then a scaler in a pipeline fitted on the training part": (
        _CANCER
        + """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = make_pipeline(FunctionTransformer(np.log1p), StandardScaler(), LogisticRegression())
        print(model.fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", FUNCTION_TRANSFORMERS.values(), ids=FUNCTION_TRANSFORMERS.keys())
def test_a_function_transformer_that_takes_statistics(
    tmp_path: Path, body: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_READ_IN_A_LOOP = """
        from sklearn.feature_extraction.text import TfidfVectorizer
        data = {}
        for split in ["train", "test"]:
            df = pd.read_csv(f"data/{split}.csv")
            data[split] = (df["text"], df["label"])"""

_TEXTS_SCORED = """
        clf = LogisticRegression().fit(vec.transform(data["train"][0]), data["train"][1])
        print(accuracy_score(data["test"][1], clf.predict(vec.transform(data["test"][0]))))
        """

_TABLES_IN_A_LOOP = """
        parts = {}
        for name in ("train", "valid", "test"):
            parts[name] = pd.read_csv("data/" + name + ".csv")
        cols = ["a", "b"]"""

# 5. A data set's part files read in a loop --------------------------------------------------------------------
PART_FILES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a vectorizer fitted on the training and test files read in a loop into a dict": (
        _READ_IN_A_LOOP
        + """
        vec = TfidfVectorizer().fit(pd.concat([data["train"][0], data["test"][0]]))"""
        + _TEXTS_SCORED,
        [("preprocessing", 6)],
    ),
    "a scaler fitted on the training and test tables read in a loop, stored by name": (
        _TABLES_IN_A_LOOP
        + """
        sc = StandardScaler().fit(pd.concat([parts["train"], parts["test"]])[cols])
        model = LogisticRegression().fit(sc.transform(parts["train"][cols]), parts["train"]["y"])
        print(model.score(sc.transform(parts["test"][cols]), parts["test"]["y"]))
        """,
        [("preprocessing", 5)],
    ),
    "a vectorizer fitted on the training file read in a loop into a dict": (
        _READ_IN_A_LOOP
        + """
        vec = TfidfVectorizer().fit(data["train"][0])"""
        + _TEXTS_SCORED,
        [],
    ),
    "a scaler fitted on the training table read in a loop, the other parts scored in a loop": (
        _TABLES_IN_A_LOOP
        + """
        sc = StandardScaler().fit(parts["train"][cols])
        model = LogisticRegression().fit(sc.transform(parts["train"][cols]), parts["train"]["y"])
        for name in ("valid", "test"):
            print(name, model.score(sc.transform(parts[name][cols]), parts[name]["y"]))
        """,
        [],
    ),
    "the part files read in a loop and stacked, then split anew and scaled on the training part": (
        """
        frames = []
        for split in ["train", "test"]:
            frames.append(pd.read_csv(f"data/{split}.csv"))
        df = pd.concat(frames)
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        sc = StandardScaler().fit(X_tr)
        print(LogisticRegression().fit(sc.transform(X_tr), y_tr).score(sc.transform(X_te), y_te))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", PART_FILES.values(), ids=PART_FILES.keys())
def test_part_files_read_in_a_loop(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_OBJECTIVE_CLASS = """
        import optuna
        from sklearn.datasets import load_wine
        from sklearn.svm import SVC

        class Objective:
            def __init__(self, X_fit, y_fit, X_ev, y_ev):
                self.X_fit, self.y_fit, self.X_ev, self.y_ev = X_fit, y_fit, X_ev, y_ev

            def __call__(self, trial):
                c = trial.suggest_float("C", 1e-3, 1e3, log=True)
                clf = SVC(C=c).fit(self.X_fit, self.y_fit)
                return accuracy_score(self.y_ev, clf.predict(self.X_ev))

        X, y = load_wine(return_X_y=True)
        study = optuna.create_study(direction="maximize")"""

# 6. An Optuna objective written as a callable class ------------------------------------------------------------
OBJECTIVE_CLASSES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a callable class objective given the test part, its best value printed": (
        _OBJECTIVE_CLASS
        + """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        study.optimize(Objective(X_tr, y_tr, X_te, y_te), n_trials=50)
        print("best test accuracy", study.best_value)
        """,
        [("multi_test", 17)],
    ),
    "a callable class objective given a validation part, the test part scored once": (
        _OBJECTIVE_CLASS
        + """
        X_tmp, X_te, y_tmp, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_tmp, y_tmp, random_state=0)
        study.optimize(Objective(X_tr, y_tr, X_val, y_val), n_trials=50)
        final = SVC(**study.best_params).fit(X_tr, y_tr)
        print("test accuracy", accuracy_score(y_te, final.predict(X_te)))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", OBJECTIVE_CLASSES.values(), ids=OBJECTIVE_CLASSES.keys())
def test_an_objective_written_as_a_class(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# A function that assigns a module's name after `global`: the module reads what the call left there.
GLOBALS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a scaler fitted on every row by a function that rebinds the module's X, then a split": (
        """
        df = pd.read_csv("seeds.csv")
        X, y = df.drop(columns="y").values, df["y"].values
        def normalise():
            global X
            X = StandardScaler().fit_transform(X)
        normalise()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 6)],
    ),
    "a function that rebinds both parts after the split with a scaler fitted on the training part": (
        """
        df = pd.read_csv("seeds.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        def normalise():
            global X_tr, X_te
            sc = StandardScaler().fit(X_tr)
            X_tr, X_te = sc.transform(X_tr), sc.transform(X_te)
        normalise()
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a function that scales a local X of its own (no global), the module's X split raw": (
        """
        df = pd.read_csv("seeds.csv")
        X, y = df.drop(columns="y").values, df["y"].values
        def preview():
            X = StandardScaler().fit_transform(df.drop(columns="y").values)
            return X.mean()
        print(preview())
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", GLOBALS.values(), ids=GLOBALS.keys())
def test_a_name_rebound_through_global(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# A dict of a data set's parts: each changed in place through the loop's name for it, or read per part's name.
PART_DICTS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "parts in a dict filled in place by an imputer fitted on every part": (
        """
        from sklearn.impute import SimpleImputer
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        parts = {"train": train, "test": test}
        imp = SimpleImputer().fit(pd.concat([train[["a", "b"]], test[["a", "b"]]]))
        for name, part in parts.items():
            part[["a", "b"]] = imp.transform(part[["a", "b"]])
        m = LogisticRegression().fit(parts["train"][["a", "b"]], parts["train"]["y"])
        print(m.score(parts["test"][["a", "b"]], parts["test"]["y"]))
        """,
        [("preprocessing", 4)],
    ),
    "parts read by a dict comprehension over their names, an imputer fitted on all of them": (
        """
        from sklearn.impute import SimpleImputer
        parts = {n: pd.read_csv(f"data/{n}.csv") for n in ("train", "valid", "test")}
        imp = SimpleImputer().fit(pd.concat([parts[n][["a", "b"]] for n in parts]))
        for name, part in parts.items():
            part[["a", "b"]] = imp.transform(part[["a", "b"]])
        m = LogisticRegression().fit(parts["train"][["a", "b"]], parts["train"]["y"])
        print(m.score(parts["test"][["a", "b"]], parts["test"]["y"]))
        """,
        [("preprocessing", 3)],
    ),
    "parts read by a dict comprehension, filled in place by an imputer fitted on the training part": (
        """
        from sklearn.impute import SimpleImputer
        parts = {n: pd.read_csv(f"data/{n}.csv") for n in ("train", "test")}
        imp = SimpleImputer().fit(parts["train"][["a", "b"]])
        for name, part in parts.items():
            part[["a", "b"]] = imp.transform(part[["a", "b"]])
        m = LogisticRegression().fit(parts["train"][["a", "b"]], parts["train"]["y"])
        print(m.score(parts["test"][["a", "b"]], parts["test"]["y"]))
        """,
        [],
    ),
    "each part in a dict given its own copy by the loop's name (the dict keeps its parts as they were)": (
        """
        from sklearn.impute import SimpleImputer
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        parts = {"train": train, "test": test}
        imp = SimpleImputer().fit(pd.concat([train[["a", "b"]], test[["a", "b"]]]))
        for name, part in parts.items():
            part = part.copy()
            part[["a", "b"]] = imp.transform(part[["a", "b"]])
            print(name, part.shape)
        m = LogisticRegression().fit(parts["train"][["a", "b"]], parts["train"]["y"])
        print(m.score(parts["test"][["a", "b"]], parts["test"]["y"]))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", PART_DICTS.values(), ids=PART_DICTS.keys())
def test_parts_held_in_a_dict(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# Keywords a function takes as **kwargs and passes on: each reaches the inner call under its own name.
PASSED_ON: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the test part given as eval_set through a helper's **fit_kwargs, early stopping on it": (
        """
        import lightgbm as lgb
        def train(X, y, **fit_kwargs):
            return lgb.LGBMRegressor(n_estimators=5000).fit(X, y, **fit_kwargs)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        m = train(X_tr, y_tr, eval_set=[(X_te, y_te)], callbacks=[lgb.early_stopping(100)])
        print(accuracy_score(y_te, m.predict(X_te)))
        """,
        [("multi_test", 6)],
    ),
    "a validation part carved from training given as eval_set through **fit_kwargs": (
        """
        import lightgbm as lgb
        def train(X, y, **fit_kwargs):
            return lgb.LGBMRegressor(n_estimators=5000).fit(X, y, **fit_kwargs)
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=1)
        m = train(X_fit, y_fit, eval_set=[(X_val, y_val)], callbacks=[lgb.early_stopping(100)])
        print(accuracy_score(y_te, m.predict(X_te)))
        """,
        [],
    ),
    "a shuffled KFold given through a helper's **cv_kw to rows in time order with rolling features": (
        """
        from sklearn.model_selection import KFold
        def evaluate(model, X, y, **cv_kw):
            return cross_val_score(model, X, y, **cv_kw).mean()
        df = pd.read_csv("d.csv", parse_dates=["t"]).sort_values("t")
        df["vol"] = df["r"].rolling(20).std()
        df = df.dropna()
        print(evaluate(LogisticRegression(), df[["vol"]], df["y"], cv=KFold(5, shuffle=True), scoring="roc_auc"))
        """,
        [("temporal_shuffle", 7)],
    ),
}


@pytest.mark.parametrize("body, expected", PASSED_ON.values(), ids=PASSED_ON.keys())
def test_keywords_passed_on_by_a_helper(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# A class body runs where the class is defined; an instance of the file's class is called through its __call__.
CLASSES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a class body that reduces every row, its attribute split": (
        """
        from sklearn.decomposition import PCA
        class Data:
            raw = pd.read_csv("sonar.csv")
            y = raw.pop("label")
            X = PCA(n_components=5).fit_transform(raw)
        X_tr, X_te, y_tr, y_te = train_test_split(Data.X, Data.y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 5)],
    ),
    "a scaler held as a class attribute, fitted on every row by a function": (
        """
        class Cfg:
            target = "y"
            scaler = StandardScaler()
        def prepare(frame):
            X = frame.drop(columns=[Cfg.target])
            return Cfg.scaler.fit_transform(X), frame[Cfg.target]
        X, y = prepare(pd.read_csv("d.csv"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 7)],
    ),
    "a scaler held as a class attribute, fitted on the training part, read on an instance too": (
        """
        class Cfg:
            target = "y"
            scaler = StandardScaler()
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=[Cfg.target]), df[Cfg.target], random_state=0)
        Cfg.scaler.fit(X_tr)
        cfg = Cfg()
        m = LogisticRegression().fit(cfg.scaler.transform(X_tr), y_tr)
        print(m.score(Cfg.scaler.transform(X_te), y_te))
        """,
        [],
    ),
    "an instance of the file's class called on every text, its __call__ fitting a vectorizer": (
        """
        from sklearn.feature_extraction.text import TfidfVectorizer
        class Featurizer:
            def __init__(self, **kw):
                self.vec = TfidfVectorizer(**kw)
            def __call__(self, texts):
                return self.vec.fit_transform(texts)
        df = pd.read_csv("reviews.csv")
        X = Featurizer(min_df=3)(df["text"])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 8)],
    ),
    "an instance of the file's class called on each part, its __call__ applying a fit of the training texts": (
        """
        from sklearn.feature_extraction.text import TfidfVectorizer
        class Featurizer:
            def __init__(self):
                self.vec = TfidfVectorizer()
            def fit(self, texts):
                self.vec.fit(texts)
                return self
            def __call__(self, texts):
                return self.vec.transform(texts)
        df = pd.read_csv("reviews.csv")
        tr, te = train_test_split(df, random_state=0)
        featurize = Featurizer().fit(tr["text"])
        print(LogisticRegression().fit(featurize(tr["text"]), tr["y"]).score(featurize(te["text"]), te["y"]))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", CLASSES.values(), ids=CLASSES.keys())
def test_class_bodies_and_called_instances(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# A table an object holds (`self.df`), changed in place by its methods: a builder adding one feature.
_BUILDER = """
class Builder:
    def __init__(self, frame):
        self.df = frame.copy()
    def add(self):
        self.df["{name}"] = {value}
        return self
    def matrix(self, target):
        return self.df.drop(columns=[target]), self.df[target]
X, y = Builder(pd.read_csv("homes.csv")).add().matrix("price")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
"""

HELD_TABLES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a builder whose method adds a feature computed from the label to the table it holds": (
        _BUILDER.format(name="per_sqft", value='self.df["price"] / self.df["sqft"]'),
        [("label_in_features", 11)],
    ),
    "a builder whose method adds a feature of two other columns to the table it holds": (
        _BUILDER.format(name="rooms_per_floor", value='self.df["rooms"] / self.df["floors"]'),
        [],
    ),
}


@pytest.mark.parametrize("body, expected", HELD_TABLES.values(), ids=HELD_TABLES.keys())
def test_a_table_held_by_an_object(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_a_class_attribute_leaves_the_module_name_of_the_same_name(tmp_path: Path) -> None:
    """`X = 5` in a class body is the class's X: a function called later still reads the module's X, a table
    scaled on every row."""
    body = """
        df = pd.read_csv("d.csv")
        X, y = StandardScaler().fit_transform(df[["a", "b"]]), df["y"]
        class Cfg:
            X = 5
        def split():
            return train_test_split(X, y, random_state=0)
        X_tr, X_te, y_tr, y_te = split()
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    assert leaks_found(tmp_path, HEAD, body) == [("preprocessing", 2)]


MERGED_TABLES = {
    "the label brought in by a.merge(b), then every other column kept": (
        """
        customers, labels = pd.read_csv("customers.csv"), pd.read_csv("labels.csv")
        df = customers.merge(labels, on="customer_id")
        X, y = df.drop(columns=["customer_id"]), df["churned"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 5)],
    ),
    "the label brought in by a.join(b), then dropped with the id": (
        """
        customers, labels = pd.read_csv("customers.csv"), pd.read_csv("labels.csv")
        df = customers.join(labels.set_index("customer_id"), on="customer_id")
        X, y = df.drop(columns=["customer_id", "churned"]), df["churned"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a label computed from a spend column merged in from grouped orders, the spend listed among the features": (
        """
        customers, orders = pd.read_csv("customers.csv"), pd.read_csv("orders.csv")
        agg = orders.groupby("customer_id").agg(spend=("amount", "sum"), n=("order_id", "count")).reset_index()
        df = customers.merge(agg, on="customer_id", how="left").fillna({"spend": 0, "n": 0})
        df["high_value"] = (df["spend"] > 1000).astype(int)
        X, y = df[["spend", "n", "age"]], df["high_value"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("label_in_features", 7)],
    ),
    "a label computed from a spend column merged in from grouped orders, other columns listed as features": (
        """
        customers, orders = pd.read_csv("customers.csv"), pd.read_csv("orders.csv")
        agg = orders.groupby("customer_id").agg(spend=("amount", "sum"), n=("order_id", "count")).reset_index()
        df = customers.merge(agg, on="customer_id", how="left").rename(columns={"n": "n_orders"})
        df["high_value"] = (df["spend"] > 1000).astype(int)
        X, y = df[["n_orders", "age", "tenure"]], df["high_value"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", MERGED_TABLES.values(), ids=MERGED_TABLES.keys())
def test_tables_merged_by_a_method(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected
