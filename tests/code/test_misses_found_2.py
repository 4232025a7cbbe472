"""Leaks the reading used to pass as clean, each beside correct code that looks like it: a loop over the parts
(`for d in [train, test]`) that fills each with a statistic; a table of statistics from `describe()` or `agg()`; a Keras
`Normalization` layer adapted to every row inside the model; early stopping on the test set renamed as a validation
set or sliced; Keras' `validation_split` scored after a step fitted on every row; a window of the label
within each group that holds the row's own label; columns kept by their scores against the label; a
torch `Dataset` of the file's own that normalises the rows it holds; a statsmodels formula model.
Each case is a script and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds
none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
"""

_TITANIC = """
        df = pd.read_csv("titanic.csv")
        train, test = train_test_split(df, random_state=0)"""

_SCORED = """
        rf = RandomForestClassifier().fit(train[["Age", "Pclass"]], train["Survived"])
        print(accuracy_score(test["Survived"], rf.predict(test[["Age", "Pclass"]])))
        """

# 1. A loop over the parts changes each in place ----------------------------------------------------------------
PARTS_LOOP: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "each part filled with its own median in a loop over [train, test]": (
        _TITANIC
        + """
        for d in [train, test]:
            d["Age"] = d["Age"].fillna(d["Age"].median())"""
        + _SCORED,
        [("preprocessing", 4)],
    ),
    "each part filled with its own median, in place, in a loop over a list named combine": (
        _TITANIC
        + """
        combine = [train, test]
        for dataset in combine:
            dataset["Age"].fillna(dataset["Age"].median(), inplace=True)"""
        + _SCORED,
        [("preprocessing", 5)],
    ),
    "each part filled with the mean of every row in a loop over the parts": (
        _TITANIC
        + """
        for d in (train, test):
            d["Age"] = d["Age"].fillna(df["Age"].mean())"""
        + _SCORED,
        [("preprocessing", 4)],
    ),
    "each part filled with the training part's median in a loop over the parts": (
        _TITANIC
        + """
        med = train["Age"].median()
        for d in [train, test]:
            d["Age"] = d["Age"].fillna(med)"""
        + _SCORED,
        [],
    ),
    "categories mapped by a fixed dict in a loop over the parts": (
        _TITANIC
        + """
        combine = [train, test]
        for dataset in combine:
            dataset["Sex"] = dataset["Sex"].map({"female": 1, "male": 0}).astype(int)
            dataset["Age"] = dataset["Age"].fillna(30)"""
        + _SCORED,
        [],
    ),
    "each part rebound to a copy filled with its own median: the parts themselves are left as they were": (
        _TITANIC
        + """
        for d in [train, test]:
            d = d.fillna(d.median())"""
        + _SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", PARTS_LOOP.values(), ids=PARTS_LOOP.keys())
def test_a_loop_over_the_parts(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_AUTO = """
        df = pd.read_csv("auto.csv")
        X = df.drop(columns=["mpg"])
        y = df["mpg"]"""

_SPLIT_SCORED = """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
        """

_TUTORIAL = """
        df = pd.read_csv("auto.csv")
        train_dataset = df.sample(frac=0.8, random_state=0)
        test_dataset = df.drop(train_dataset.index)
        train_labels = train_dataset.pop("mpg")
        test_labels = test_dataset.pop("mpg")"""

_TUTORIAL_SCORED = """
        def norm(x):
            return (x - train_stats["mean"]) / train_stats["std"]
        m = LogisticRegression().fit(norm(train_dataset), train_labels)
        print(m.score(norm(test_dataset), test_labels))
        """

# 2. A table of each column's statistics, read back by name ----------------------------------------------------
SUMMARY_TABLES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "every row scaled by the mean and std of describe() before the split": (
        _AUTO
        + """
        st = X.describe()
        X = (X - st.loc["mean"]) / st.loc["std"]"""
        + _SPLIT_SCORED,
        [("preprocessing", 4)],
    ),
    "every row scaled by agg(['mean', 'std']) before the split": (
        _AUTO
        + """
        st = X.agg(["mean", "std"])
        X = (X - st.loc["mean"]) / st.loc["std"]"""
        + _SPLIT_SCORED,
        [("preprocessing", 4)],
    ),
    "the parts scaled by describe().transpose() of every row": (
        _TUTORIAL
        + """
        train_stats = df.describe().transpose()"""
        + _TUTORIAL_SCORED,
        [("preprocessing", 6)],
    ),
    "the parts scaled by describe().transpose() of the training part": (
        _TUTORIAL
        + """
        train_stats = train_dataset.describe().transpose()"""
        + _TUTORIAL_SCORED,
        [],
    ),
    "describe() of every row printed, the scaler fitted on the training part": (
        _AUTO
        + """
        print(X.describe())
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        sc = StandardScaler().fit(X_train)
        print(LogisticRegression().fit(sc.transform(X_train), y_train).score(sc.transform(X_test), y_test))
        """,
        [],
    ),
    "the numeric columns named by describe().columns of every row": (
        _AUTO
        + """
        X = X[X.describe().columns]"""
        + _SPLIT_SCORED,
        [],
    ),
    "each row's own mean and std by agg(axis=1): one value per row": (
        _AUTO
        + """
        X[["row_mean", "row_std"]] = X.agg(["mean", "std"], axis=1)"""
        + _SPLIT_SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", SUMMARY_TABLES.values(), ids=SUMMARY_TABLES.keys())
def test_a_table_of_statistics(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_KERAS_DATA = """
        import tensorflow as tf
        from tensorflow.keras import layers
        df = pd.read_csv("auto.csv")
        X = df.drop(columns=["mpg"]).values
        y = df["mpg"].values"""

_KERAS_SCORED = """
        model.compile(optimizer="adam", loss="mse")
        model.fit(X_train, y_train, epochs=10)
        print(model.evaluate(X_test, y_test))
        """

# 3. A Keras Normalization layer adapted to rows, inside the model ---------------------------------------------
KERAS_LAYERS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a Normalization layer adapted to every row, first layer of a Sequential": (
        _KERAS_DATA
        + """
        norm = tf.keras.layers.Normalization(axis=-1)
        norm.adapt(X)
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        model = tf.keras.Sequential([norm, layers.Dense(64, activation="relu"), layers.Dense(1)])"""
        + _KERAS_SCORED,
        [("preprocessing", 7)],
    ),
    "a Normalization layer adapted to every row, added to a Sequential": (
        _KERAS_DATA
        + """
        norm = layers.Normalization()
        norm.adapt(X)
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        model = tf.keras.Sequential()
        model.add(norm)
        model.add(layers.Dense(1))"""
        + _KERAS_SCORED,
        [("preprocessing", 7)],
    ),
    "a Normalization layer adapted to every row, called on the inputs of a functional model": (
        _KERAS_DATA
        + """
        norm = layers.Normalization()
        norm.adapt(X)
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        inputs = tf.keras.Input(shape=(9,))
        h = layers.Dense(64, activation="relu")(norm(inputs))
        model = tf.keras.Model(inputs, layers.Dense(1)(h))"""
        + _KERAS_SCORED,
        [("preprocessing", 7)],
    ),
    "a Normalization layer adapted to every row after the Sequential is built with it": (
        _KERAS_DATA
        + """
        norm = layers.Normalization()
        model = tf.keras.Sequential([norm, layers.Dense(1)])
        norm.adapt(X)
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)"""
        + _KERAS_SCORED,
        [("preprocessing", 8)],
    ),
    "a Normalization layer adapted to the training part after the Sequential is built with it": (
        _KERAS_DATA
        + """
        norm = layers.Normalization()
        model = tf.keras.Sequential([norm, layers.Dense(1)])
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        norm.adapt(X_train)"""
        + _KERAS_SCORED,
        [],
    ),
    "a Normalization layer adapted to the training part, first layer of a Sequential": (
        _KERAS_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        norm = tf.keras.layers.Normalization(axis=-1)
        norm.adapt(X_train)
        model = tf.keras.Sequential([norm, layers.Dense(64, activation="relu"), layers.Dense(1)])"""
        + _KERAS_SCORED,
        [],
    ),
    "a Normalization layer adapted to the training part, called on the inputs of a functional model": (
        _KERAS_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        norm = layers.Normalization()
        norm.adapt(X_train)
        inputs = tf.keras.Input(shape=(9,))
        model = tf.keras.Model(inputs, layers.Dense(1)(norm(inputs)))"""
        + _KERAS_SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", KERAS_LAYERS.values(), ids=KERAS_LAYERS.keys())
def test_an_adapted_layer_inside_the_model(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_ES_DATA = """
        import tensorflow as tf
        import xgboost as xgb
        from tensorflow.keras.callbacks import EarlyStopping
        df = pd.read_csv("d.csv")
        X = df.drop(columns=["y"]).values
        y = df["y"].values
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")"""

_STOPS = "callbacks=[EarlyStopping(restore_best_weights=True)]"

# 4. Early stopping on the test set under another name ---------------------------------------------------------
STOPPED_ON_TEST: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the test set renamed X_val, watched by early stopping, then scored": (
        _ES_DATA
        + f"""
        X_val, y_val = X_test, y_test
        model.fit(X_train, y_train, validation_data=(X_val, y_val), {_STOPS})
        print(model.evaluate(X_test, y_test))
        """,
        [("multi_test", 11)],
    ),
    "the test part renamed from X_te to X_val, watched by early stopping, then scored": (
        _ES_DATA
        + f"""
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        X_val, y_val = X_te, y_te
        model.fit(X_tr, y_tr, validation_data=(X_val, y_val), {_STOPS})
        print(model.evaluate(X_te, y_te))
        """,
        [("multi_test", 12)],
    ),
    "the first rows of the test part watched by early stopping, then the whole test part scored": (
        _ES_DATA
        + f"""
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        model.fit(X_tr, y_tr, validation_data=(X_te[:50], y_te[:50]), {_STOPS})
        print(model.evaluate(X_te, y_te))
        """,
        [("multi_test", 11)],
    ),
    "the first rows of the test part as XGBoost's eval_set with early stopping, then the whole test part scored": (
        _ES_DATA
        + """
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        booster = xgb.XGBClassifier(early_stopping_rounds=10)
        booster.fit(X_tr, y_tr, eval_set=[(X_te[:50], y_te[:50])])
        print(accuracy_score(y_te, booster.predict(X_te)))
        """,
        [("multi_test", 12)],
    ),
    "the whole test part watched by XGBoost's early stopping, then its first rows scored": (
        _ES_DATA
        + """
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        booster = xgb.XGBClassifier(early_stopping_rounds=10)
        booster.fit(X_tr, y_tr, eval_set=[(X_te, y_te)])
        print(accuracy_score(y_te[:100], booster.predict(X_te[:100])))
        """,
        [("multi_test", 12)],
    ),
    "the first rows of the test part watched by early stopping, the rest of it scored: a validation carved off": (
        _ES_DATA
        + """
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        booster = xgb.XGBClassifier(early_stopping_rounds=10)
        booster.fit(X_tr, y_tr, eval_set=[(X_te[:50], y_te[:50])])
        print(accuracy_score(y_te[50:], booster.predict(X_te[50:])))
        """,
        [],
    ),
    "X_val split from a table named latest, watched by early stopping and scored: a validation set": (
        f"""
        import tensorflow as tf
        from tensorflow.keras.callbacks import EarlyStopping
        df_latest = pd.read_csv("latest.csv")
        X = df_latest.drop(columns=["y"]).values
        y = df_latest["y"].values
        X_fit, X_val, y_fit, y_val = train_test_split(X, y, random_state=0)
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(X_fit, y_fit, validation_data=(X_val, y_val), {_STOPS})
        print(model.evaluate(X_val, y_val))
        """,
        [],
    ),
    "X_val carved from the training part by a second split, watched by early stopping": (
        _ES_DATA
        + f"""
        X_train, X_val, y_train, y_val = train_test_split(X_train, y_train, random_state=0)
        model.fit(X_train, y_train, validation_data=(X_val, y_val), {_STOPS})
        print(model.evaluate(X_test, y_test))
        """,
        [],
    ),
    "the first rows of the test part watched by early stopping, the other rows scored": (
        _ES_DATA
        + f"""
        X_tr, X_te, y_tr, y_te = X_train, X_test, y_train, y_test
        model.fit(X_tr, y_tr, validation_data=(X_te[:50], y_te[:50]), {_STOPS})
        print(model.evaluate(X_te[50:], y_te[50:]))
        """,
        [],
    ),
    "X_val split from the test part, watched by early stopping, the rest of the test part scored": (
        _ES_DATA
        + f"""
        X_val, X_test, y_val, y_test = train_test_split(X_test, y_test, test_size=0.5, random_state=0)
        model.fit(X_train, y_train, validation_data=(X_val, y_val), {_STOPS})
        print(model.evaluate(X_test, y_test))
        """,
        [],
    ),
    "in a function: a held-out part watched by early stopping, then scored, under a name that says neither": (
        """
        import xgboost as xgb

        def run(path):
            df = pd.read_csv(path)
            X, y = df.drop(columns=["y"]), df["y"]
            X_fit, X_hold, y_fit, y_hold = train_test_split(X, y, test_size=0.2, random_state=3)
            booster = xgb.XGBClassifier(n_estimators=5000, early_stopping_rounds=100)
            booster.fit(X_fit, y_fit, eval_set=[(X_hold, y_hold)], verbose=False)
            print(accuracy_score(y_hold, booster.predict(X_hold)))

        run("d.csv")
        """,
        [("multi_test", 8)],  # at the fit in run(), its only call
    ),
    "in a function: a held-out part watched by early stopping, another held-out part scored": (
        """
        import xgboost as xgb

        def run(path):
            df = pd.read_csv(path)
            X, y = df.drop(columns=["y"]), df["y"]
            X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=0.4, random_state=3)
            X_hold, X_last, y_hold, y_last = train_test_split(X_rest, y_rest, test_size=0.5, random_state=3)
            booster = xgb.XGBClassifier(n_estimators=5000, early_stopping_rounds=100)
            booster.fit(X_fit, y_fit, eval_set=[(X_hold, y_hold)], verbose=False)
            print(accuracy_score(y_last, booster.predict(X_last)))

        run("d.csv")
        """,
        [],
    ),
    "LightGBM early-stopped on the test part, its best_score_ shown as the result": (
        """
        import lightgbm as lgb
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
        clf = lgb.LGBMClassifier(n_estimators=10000)
        clf.fit(X_tr, y_tr, eval_set=[(X_te, y_te)], eval_metric="auc", callbacks=[lgb.early_stopping(200)])
        print("best AUC", clf.best_score_["valid_0"]["auc"])
        """,
        [("multi_test", 6)],
    ),
    "LightGBM early-stopped on a part carved from the training rows, best_score_ shown, the test part scored": (
        """
        import lightgbm as lgb
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
        X_fit, X_es, y_fit, y_es = train_test_split(X_tr, y_tr, test_size=0.2, random_state=0)
        clf = lgb.LGBMClassifier(n_estimators=10000)
        clf.fit(X_fit, y_fit, eval_set=[(X_es, y_es)], callbacks=[lgb.early_stopping(200)])
        print(clf.best_score_, accuracy_score(y_te, clf.predict(X_te)))
        """,
        [],
    ),
    **{
        f"LightGBM early-stopped on each fold's validation rows held as {name}, out-of-fold predictions scored": (
            f"""
        import lightgbm as lgb
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        oof = np.zeros(len(df))
        for trn_idx, val_idx in KFold(5, shuffle=True, random_state=0).split(X):
            dtrn = lgb.Dataset(X.iloc[trn_idx], y.iloc[trn_idx])
            {name} = lgb.Dataset(X.iloc[val_idx], y.iloc[val_idx])
            booster = lgb.train({{}}, dtrn, 5000, valid_sets=[{name}], callbacks=[lgb.early_stopping(100)])
            oof[val_idx] = booster.predict(X.iloc[val_idx])
        print(accuracy_score(y, oof > 0.5))
        """,
            [],
        )
        for name in ("dval", "d_va", "X_va", "dvalid")
    },
    **{
        f"LightGBM early-stopped on each fold's validation rows written {form}, out-of-fold predictions scored": (
            f"""
        import lightgbm as lgb
        from sklearn.model_selection import {splitter}
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        oof = np.zeros(len(df))
        for tr, va in {splitter}(5).split(X, y):
            part = (X.iloc[va], y.iloc[va])
            m = lgb.LGBMClassifier(n_estimators=5000).fit(X.iloc[tr], y.iloc[tr], eval_set=[{rows}],
                                                          callbacks=[lgb.early_stopping(100)])
            oof[va] = m.predict_proba(X.iloc[va])[:, 1]
        print(accuracy_score(y, oof > 0.5))
        """,
            [],
        )
        for form, splitter, rows in (
            ("inline", "KFold", "(X.iloc[va], y.iloc[va])"),
            ("inline, stratified", "StratifiedKFold", "(X.iloc[va], y.iloc[va])"),
            ("under a name that says nothing", "KFold", "part"),
            ("as positions of the array", "TimeSeriesSplit", "(X.values[va], y.values[va])"),
        )
    },
    "LightGBM early-stopped on each fold's validation rows of a list of the folds, out-of-fold predictions scored": (
        """
        import lightgbm as lgb
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        oof = np.zeros(len(df))
        folds = list(KFold(5, shuffle=True, random_state=0).split(X))
        for tr, va in folds:
            m = lgb.LGBMClassifier(n_estimators=5000).fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[va], y.iloc[va])],
                                                          callbacks=[lgb.early_stopping(100)])
            oof[va] = m.predict_proba(X.iloc[va])[:, 1]
        print(accuracy_score(y, oof > 0.5))
        """,
        [],
    ),
    "LightGBM early-stopped on the test part in each pass of a fold loop, the test part scored": (
        """
        import lightgbm as lgb
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
        for tr, va in KFold(5).split(X_tr):
            m = lgb.LGBMClassifier(n_estimators=5000).fit(X_tr.iloc[tr], y_tr.iloc[tr], eval_set=[(X_te, y_te)],
                                                          callbacks=[lgb.early_stopping(100)])
            print(accuracy_score(y_te, m.predict(X_te)))
        """,
        [("multi_test", 7)],
    ),
    "LightGBM early-stopped on a fold of the test part, the whole test part scored": (
        """
        import lightgbm as lgb
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
        for tr, va in KFold(3).split(X_te):
            m = lgb.LGBMClassifier(n_estimators=5000).fit(X_tr, y_tr, eval_set=[(X_te.iloc[va], y_te.iloc[va])],
                                                          callbacks=[lgb.early_stopping(100)])
            print(accuracy_score(y_te, m.predict(X_te)))
        """,
        [("multi_test", 7)],
    ),
    **{
        f"XGBoost early-stopped on the held-out side of {how}, that side scored": (
            f"""
        import xgboost as xgb
        from sklearn.model_selection import GroupKFold, GroupShuffleSplit, KFold, ShuffleSplit
        df = pd.read_csv("d.csv")
        {take}
        train, test = df.iloc[tr], df.iloc[te]
        m = xgb.XGBClassifier(n_estimators=2000, early_stopping_rounds=100)
        m.fit(train[["a", "b"]], train["y"], eval_set=[(test[["a", "b"]], test["y"])])
        print(accuracy_score(test["y"], m.predict(test[["a", "b"]])))
        """,
            [("multi_test", 7 + take.count("\n"))],
        )
        for how, take in (
            (
                "the one split next() takes of a group splitter",
                'tr, te = next(GroupShuffleSplit(n_splits=1, test_size=0.2).split(df, groups=df["pid"]))',
            ),
            ("the one split next() takes of five folds", 'tr, te = next(GroupKFold(5).split(df, groups=df["pid"]))'),
            (
                "the one split next(iter()) takes of five folds",
                'tr, te = next(iter(GroupKFold(5).split(df, groups=df["pid"])))',
            ),
            ("the first of a list of five folds", "tr, te = list(KFold(5).split(df))[0]"),
            (
                "a splitter of one split walked by a loop",
                "for tr, te in ShuffleSplit(1, test_size=0.2).split(df):\n            pass",
            ),
        )
    },
    "LightGBM early-stopped on a PredefinedSplit's held-out fold, the test rows it was told, then scored there": (
        """
        import lightgbm as lgb
        from sklearn.model_selection import PredefinedSplit
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        fold = np.where(df["is_test"] == 1, 0, -1)
        for tr, te in PredefinedSplit(fold).split(X):
            m = lgb.LGBMClassifier(n_estimators=5000).fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[te], y.iloc[te])],
                                                          callbacks=[lgb.early_stopping(100)])
            print(accuracy_score(y.iloc[te], m.predict(X.iloc[te])))
        """,
        [("multi_test", 7)],
    ),
}


@pytest.mark.parametrize("body, expected", STOPPED_ON_TEST.values(), ids=STOPPED_ON_TEST.keys())
def test_early_stopping_on_the_test_set(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_KERAS_CLASSIFIER = """
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])"""

# 5. Keras' validation_split: its last rows held out and scored when the history is read ------------------------
VALIDATION_SPLIT: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a scaler on every row, then validation_split's score read from the history": (
        _KERAS_DATA
        + """
        X = StandardScaler().fit_transform(X)"""
        + _KERAS_CLASSIFIER
        + """
        h = model.fit(X, y, epochs=10, validation_split=0.2)
        print(h.history["val_accuracy"][-1])
        """,
        [("preprocessing", 6)],
    ),
    "a Normalization layer adapted to every row inside the model, validation_split's score read": (
        _KERAS_DATA
        + """
        norm = layers.Normalization()
        norm.adapt(X)
        model = tf.keras.Sequential([norm, layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
        history = model.fit(X, y, epochs=10, validation_split=0.2)
        print(max(history.history["val_accuracy"]))
        """,
        [("preprocessing", 7)],
    ),
    "no step fitted on the rows, validation_split's score read from the history": (
        _KERAS_DATA
        + _KERAS_CLASSIFIER
        + """
        h = model.fit(X, y, epochs=10, validation_split=0.2)
        print(h.history["val_accuracy"][-1])
        """,
        [],
    ),
    "validation_split's score read, the model also scored on every row it was given (a training score)": (
        _KERAS_DATA
        + _KERAS_CLASSIFIER
        + """
        h = model.fit(X, y, epochs=10, validation_split=0.2)
        print(model.evaluate(X, y), h.history["val_accuracy"][-1])
        """,
        [],
    ),
    "a layer adapted to the training part, validation_split on that part, the test part scored": (
        _KERAS_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        norm = layers.Normalization()
        norm.adapt(X_train)
        model = tf.keras.Sequential([norm, layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
        history = model.fit(X_train, y_train, epochs=10, validation_split=0.2)
        print(history.history["val_accuracy"][-1])
        print(model.evaluate(X_test, y_test))
        """,
        [],
    ),
    "a layer adapted to the rows of a fold, validation_split on them, the other fold kept and scored": (
        """
        import tensorflow as tf
        from tensorflow.keras import layers
        meta = pd.read_csv("meta.csv")
        train, test = meta[meta["fold"] != 5], meta[meta["fold"] == 5]
        X_train, y_train = train[["a", "b"]].values, train["y"].values
        norm = layers.Normalization()
        norm.adapt(X_train)
        model = tf.keras.Sequential([norm, layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
        history = model.fit(X_train, y_train, epochs=10, validation_split=0.2)
        print(max(history.history["val_accuracy"]))
        print(model.evaluate(test[["a", "b"]].values, test["y"].values))
        """,
        [],
    ),
    "LEAK: a layer adapted to the adults' rows, validation_split on them, no other rows kept": (
        """
        import tensorflow as tf
        from tensorflow.keras import layers
        meta = pd.read_csv("meta.csv")
        adults = meta[meta["age"] > 18]
        X_train, y_train = adults[["a", "b"]].values, adults["y"].values
        norm = layers.Normalization()
        norm.adapt(X_train)
        model = tf.keras.Sequential([norm, layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
        history = model.fit(X_train, y_train, epochs=10, validation_split=0.2)
        print(max(history.history["val_accuracy"]))
        """,
        [("preprocessing", 7)],
    ),
    "a scaler fitted on the training part, validation_split on that part, the test part scored": (
        _KERAS_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        sc = StandardScaler().fit(X_train)"""
        + _KERAS_CLASSIFIER
        + """
        h = model.fit(sc.transform(X_train), y_train, epochs=10, validation_split=0.2)
        print(h.history["val_accuracy"][-1], model.evaluate(sc.transform(X_test), y_test))
        """,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", VALIDATION_SPLIT.values(), ids=VALIDATION_SPLIT.keys())
def test_keras_validation_split(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_GAMES = """
        df = pd.read_csv("games.csv")"""

_WON_SCORED = """
        X = df[["winrate", "elo"]]
        y = df["won"]
        X_train, X_test, y_train, y_test = train_test_split(X, y, shuffle=False)
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
        """

# 6. A window of the label within each group ---------------------------------------------------------------------
LABEL_WINDOWS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "each team's rolling mean of the label, not shifted, given to transform": (
        _GAMES
        + """
        df["winrate"] = df.groupby("team")["won"].transform(lambda s: s.rolling(5, min_periods=1).mean())"""
        + _WON_SCORED,
        [("label_in_features", 6)],
    ),
    "each team's expanding mean of the label, not shifted, by a function of the file": (
        _GAMES
        + """
        def form(s):
            return s.expanding().mean()
        df["winrate"] = df.groupby("team")["won"].transform(form)"""
        + _WON_SCORED,
        [("label_in_features", 8)],
    ),
    "each team's rolling mean of the label, shifted first": (
        _GAMES
        + """
        df["winrate"] = df.groupby("team")["won"].transform(lambda s: s.shift(1).rolling(5, min_periods=1).mean())"""
        + _WON_SCORED,
        [],
    ),
    "each team's rolling mean of the label, in a window closed on the left": (
        _GAMES
        + """
        df["winrate"] = df.groupby("team")["won"].transform(lambda s: s.rolling(5, closed="left").mean())"""
        + _WON_SCORED,
        [],
    ),
    "each team's rolling mean of another column, not shifted": (
        _GAMES
        + """
        df["winrate"] = df.groupby("team")["points"].transform(lambda s: s.rolling(5, min_periods=1).mean())"""
        + _WON_SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", LABEL_WINDOWS.values(), ids=LABEL_WINDOWS.keys())
def test_a_window_of_the_label_in_each_group(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_SELECTION_DATA = """
        from sklearn.feature_selection import chi2, f_classif, mutual_info_classif
        df = pd.read_csv("d.csv")
        X = df.drop(columns=["y"])
        y = df["y"]"""

# 7. Columns kept by a test of each column against the label ----------------------------------------------------
COLUMN_SCORES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the top columns by mutual_info_classif over every row, then split": (
        _SELECTION_DATA
        + """
        mi = pd.Series(mutual_info_classif(X, y), index=X.columns)
        top = mi.nlargest(10).index"""
        + _SPLIT_SCORED.replace("(X, y", "(X[top], y"),
        [("preprocessing", 5)],
    ),
    "the top columns by f_classif's F over every row, then split": (
        _SELECTION_DATA
        + """
        F, p = f_classif(X, y)
        top = X.columns[np.argsort(F)[-10:]]"""
        + _SPLIT_SCORED.replace("(X, y", "(X[top], y"),
        [("preprocessing", 5)],
    ),
    "the columns whose chi2 p-value over every row is small, then split": (
        _SELECTION_DATA
        + """
        scores, pvalues = chi2(X, y)
        top = X.columns[pvalues < 0.05]"""
        + _SPLIT_SCORED.replace("(X, y", "(X[top], y"),
        [("preprocessing", 5)],
    ),
    "the columns whose correlation with the label over every row is high, kept by a mask": (
        _SELECTION_DATA
        + """
        corr = df.corr()["y"].abs()
        top = X.columns[corr[X.columns] > 0.1]"""
        + _SPLIT_SCORED.replace("(X, y", "(X[top], y"),
        [("preprocessing", 5)],
    ),
    "the top columns by mutual_info_classif on the training part": (
        _SELECTION_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        mi = pd.Series(mutual_info_classif(X_train, y_train), index=X.columns)
        top = mi.sort_values(ascending=False).index[:10]
        print(LogisticRegression().fit(X_train[top], y_train).score(X_test[top], y_test))
        """,
        [],
    ),
    "the columns whose chi2 p-value on the training part is small": (
        _SELECTION_DATA
        + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        scores, pvalues = chi2(X_train, y_train)
        top = X.columns[pvalues < 0.05]
        print(LogisticRegression().fit(X_train[top], y_train).score(X_test[top], y_test))
        """,
        [],
    ),
    "columns kept by a mask of their fraction missing, no label involved: not read as scores of the columns": (
        _SELECTION_DATA
        + """
        X = X.loc[:, X.isnull().mean() < 0.5]"""
        + _SPLIT_SCORED,
        [],
    ),
    "mutual_info_classif over every row printed, every column kept": (
        _SELECTION_DATA
        + """
        print(pd.Series(mutual_info_classif(X, y), index=X.columns).sort_values())"""
        + _SPLIT_SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", COLUMN_SCORES.values(), ids=COLUMN_SCORES.keys())
def test_columns_kept_by_their_scores(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_TORCH_IMPORTS = """
        import torch
        from torch import nn
        from torch.utils.data import DataLoader, Dataset, random_split"""

_NORMALISING_DATASET = """
        class DS(Dataset):
            def __init__(self, path):
                d = np.loadtxt(path, delimiter=",")
                x = torch.tensor(d[:, :-1], dtype=torch.float32)
                self.x = (x - x.mean(0)) / x.std(0)
                self.y = torch.tensor(d[:, -1], dtype=torch.float32)
            def __len__(self):
                return len(self.x)
            def __getitem__(self, i):
                return self.x[i], self.y[i]"""

_GIVEN_STATISTICS_DATASET = """
        class DS(Dataset):
            def __init__(self, x, y, mean, std):
                self.x = (x - mean) / std
                self.y = y
            def __len__(self):
                return len(self.x)
            def __getitem__(self, i):
                return self.x[i], self.y[i]
        d = np.loadtxt("data.csv", delimiter=",")
        x = torch.tensor(d[:, :-1], dtype=torch.float32)
        y = torch.tensor(d[:, -1], dtype=torch.float32)
        idx = torch.randperm(len(x))
        tr, te = idx[:800], idx[800:]"""

_TORCH_TRAINED_SCORED = """
        net = nn.Linear(8, 1)
        opt = torch.optim.Adam(net.parameters())
        loss_fn = nn.MSELoss()
        for xb, yb in DataLoader(train_ds, batch_size=32, shuffle=True):
            opt.zero_grad()
            loss = loss_fn(net(xb).squeeze(), yb)
            loss.backward()
            opt.step()
        with torch.no_grad():
            for xb, yb in DataLoader(test_ds, batch_size=256):
                print(loss_fn(net(xb).squeeze(), yb).item())
        """

# 8. A torch Dataset of the file's own that normalises the rows it holds ------------------------------------------
DATASET_CLASSES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a Dataset normalised in __init__ by its own rows, then random_split": (
        _TORCH_IMPORTS
        + _NORMALISING_DATASET
        + """
        train_ds, test_ds = random_split(DS("data.csv"), [0.8, 0.2])"""
        + _TORCH_TRAINED_SCORED,
        [("preprocessing", 14)],
    ),
    "a Dataset given the mean and std of every row, each part built from its positions": (
        _TORCH_IMPORTS
        + _GIVEN_STATISTICS_DATASET
        + """
        mean, std = x.mean(0), x.std(0)
        train_ds, test_ds = DS(x[tr], y[tr], mean, std), DS(x[te], y[te], mean, std)"""
        + _TORCH_TRAINED_SCORED,
        [("preprocessing", 17)],
    ),
    "a Dataset given the mean and std of the training positions": (
        _TORCH_IMPORTS
        + _GIVEN_STATISTICS_DATASET
        + """
        mean, std = x[tr].mean(0), x[tr].std(0)
        train_ds, test_ds = DS(x[tr], y[tr], mean, std), DS(x[te], y[te], mean, std)"""
        + _TORCH_TRAINED_SCORED,
        [],
    ),
    "a Dataset holding the whole table and the positions of its part, its items the rows at those positions": (
        _TORCH_IMPORTS
        + """
        class DS(Dataset):
            def __init__(self, df, idx):
                self.df = df
                self.idx = idx
            def __len__(self):
                return len(self.idx)
            def __getitem__(self, i):
                row = self.df.loc[self.idx[i]]
                return torch.tensor(row[["a", "b"]].values), torch.tensor(row["y"])
        df = pd.read_csv("d.csv")
        train_df, test_df = train_test_split(df, random_state=0)
        df[["a", "b"]] = StandardScaler().fit(train_df[["a", "b"]]).transform(df[["a", "b"]])
        train_ds, test_ds = DS(df, train_df.index), DS(df, test_df.index)"""
        + _TORCH_TRAINED_SCORED.replace("nn.Linear(8, 1)", "nn.Linear(2, 1)"),
        [],
    ),
}


@pytest.mark.parametrize("body, expected", DATASET_CLASSES.values(), ids=DATASET_CLASSES.keys())
def test_a_dataset_class_of_the_file(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


_FORMULA_DATA = """
        import statsmodels.api as sm
        import statsmodels.formula.api as smf
        from sklearn.metrics import roc_auc_score
        df = pd.read_csv("d.csv")"""

_FORMULA_SCORED = """
        print(roc_auc_score(test["target"], res.predict(test)))
        """

# 9. statsmodels' formula API ------------------------------------------------------------------------------------
FORMULAS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a column standardised over every row, then smf.logit on the training part scored on the test part": (
        _FORMULA_DATA
        + """
        df["age"] = (df["age"] - df["age"].mean()) / df["age"].std()
        train, test = train_test_split(df, random_state=0)
        res = smf.logit("target ~ age", data=train).fit()"""
        + _FORMULA_SCORED,
        [("preprocessing", 5)],
    ),
    "a column standardised over every row, then Logit.from_formula with a categorical term": (
        _FORMULA_DATA
        + """
        df["age"] = (df["age"] - df["age"].mean()) / df["age"].std()
        train, test = train_test_split(df, random_state=0)
        res = sm.Logit.from_formula("target ~ age + C(sex)", data=train).fit()"""
        + _FORMULA_SCORED,
        [("preprocessing", 5)],
    ),
    "a column standardised by the training part's mean and std, then smf.logit": (
        _FORMULA_DATA
        + """
        train, test = train_test_split(df, random_state=0)
        mu, sd = train["age"].mean(), train["age"].std()
        train["age"] = (train["age"] - mu) / sd
        test["age"] = (test["age"] - mu) / sd
        res = smf.logit("target ~ age", data=train).fit()"""
        + _FORMULA_SCORED,
        [],
    ),
    "a column encoded by the label over every row that the formula leaves out, the whole test table predicted": (
        _FORMULA_DATA
        + """
        df["city_rate"] = df.groupby("city")["target"].transform("mean")
        train, test = train_test_split(df, random_state=0)
        res = smf.logit("target ~ age + C(sex)", data=train).fit()"""
        + _FORMULA_SCORED,
        [],
    ),
}


@pytest.mark.parametrize("body, expected", FORMULAS.values(), ids=FORMULAS.keys())
def test_a_statsmodels_formula(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_two_early_stoppings_on_two_data_sets_test_parts_are_two_findings(tmp_path: Path) -> None:
    """A second data set's test part scored after the first's is no test kept apart for the first: each early
    stopping on its own test part is found."""
    body = """
        import xgboost as xgb
        df = pd.read_csv("load.csv")
        train, test = df[df.year < 2023], df[df.year >= 2023]
        m = xgb.XGBRegressor(early_stopping_rounds=50)
        m.fit(train[["a", "b"]], train["y"], eval_set=[(test[["a", "b"]], test["y"])])
        print(m.score(test[["a", "b"]], test["y"]))
        lab = pd.read_csv("other.csv")
        tr2, te2 = lab[lab.year < 2023], lab[lab.year >= 2023]
        m2 = xgb.XGBRegressor(early_stopping_rounds=50)
        m2.fit(tr2[["a", "b"]], tr2["y"], eval_set=[(te2[["a", "b"]], te2["y"])])
        print(m2.score(te2[["a", "b"]], te2["y"]))
        """
    assert leaks_found(tmp_path, HEAD, body) == [("multi_test", 5), ("multi_test", 10)]
