"""Choices read where they are made: a threshold picked on a curve of test scores, columns kept by a selector's
mask or a model's importances, a preprocessing step refitted on the test part, a transformer whose fit_transform
is inherited, and a checkpoint kept by its score on the test set. Each case is a script and the leaks it holds
(kind and line), none for correct code that looks like it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, cross_val_predict
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score, f1_score, precision_recall_curve, roc_curve, auc
"""
CLIP_SCALER = """
from sklearn.base import BaseEstimator, TransformerMixin
class ClipScaler(BaseEstimator, TransformerMixin):
    def __init__(self, q=0.99):
        self.q = q

    def fit(self, X, y=None):
        self.hi_ = np.quantile(X, self.q, axis=0)
        self.mu_ = X.mean(axis=0)
        return self

    def transform(self, X):
        return np.minimum(X, self.hi_) - self.mu_
"""
HF = """
from datasets import Dataset, load_dataset
from transformers import AutoModelForSequenceClassification, EarlyStoppingCallback, Trainer, TrainingArguments
model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
"""
# Each case's lines are counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # Thresholds -----------------------------------------------------------------------------------------
    "the best F1 threshold read off a precision-recall curve of the test set": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        proba = RandomForestClassifier().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        p, r, t = precision_recall_curve(y_te, proba)
        f1 = 2 * p * r / (p + r + 1e-9)
        i = np.argmax(f1)
        print("best F1 on test", f1[i], "at threshold", t[i])
        """,
        [("multi_test", 4)],
    ),
    "Youden's threshold taken from a ROC curve of the test set, then scored there": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        fpr, tpr, thr = roc_curve(y_te, proba)
        cut = thr[np.argmax(tpr - fpr)]
        print(accuracy_score(y_te, (proba >= cut).astype(int)))
        """,
        [("multi_test", 4)],
    ),
    "the threshold of a test curve picked through a table's idxmax": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        p, r, t = precision_recall_curve(y_te, proba)
        best = pd.Series(2 * p[:-1] * r[:-1] / (p[:-1] + r[:-1]), index=t).idxmax()
        print(f1_score(y_te, proba >= best))
        """,
        [("multi_test", 4)],
    ),
    "the threshold picked on a validation curve, applied once to the test set": (
        """
        df = pd.read_csv("d.csv")
        X_dev, X_te, y_dev, y_te = train_test_split(df.drop(columns="y"), df["y"])
        X_tr, X_val, y_tr, y_val = train_test_split(X_dev, y_dev)
        rf = RandomForestClassifier().fit(X_tr, y_tr)
        p, r, t = precision_recall_curve(y_val, rf.predict_proba(X_val)[:, 1])
        f1 = 2 * p * r / (p + r + 1e-9)
        cut = t[np.argmax(f1[:-1])]
        print(f1_score(y_te, rf.predict_proba(X_te)[:, 1] >= cut))
        """,
        [],
    ),
    "the threshold picked on out-of-fold predictions of the training part": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        m = LogisticRegression()
        oof = cross_val_predict(m, X_tr, y_tr, method="predict_proba")[:, 1]
        p, r, t = precision_recall_curve(y_tr, oof)
        cut = t[np.argmax(2 * p * r / (p + r + 1e-9))]
        m.fit(X_tr, y_tr)
        print(f1_score(y_te, m.predict_proba(X_te)[:, 1] >= cut))
        """,
        [],
    ),
    "a ROC curve of the test set plotted, its AUC printed and the 0.5 cut-off marked": (
        """
        import matplotlib.pyplot as plt
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        fpr, tpr, thr = roc_curve(y_te, proba)
        plt.plot(fpr, tpr)
        print("AUC", auc(fpr, tpr))
        k = np.argmin(np.abs(thr - 0.5))
        plt.scatter(fpr[k], tpr[k])
        """,
        [],
    ),
    # Columns kept by a learned mask ---------------------------------------------------------------------
    "SelectKBest fitted on every row, its support mask picking the columns": (
        """
        from sklearn.feature_selection import SelectKBest, f_classif
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        skb = SelectKBest(f_classif, k=10).fit(X, y)
        cols = X.columns[skb.get_support()]
        X_tr, X_te, y_tr, y_te = train_test_split(X[cols], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 4)],
    ),
    "RFECV fitted on every row, its support_ taken with .loc": (
        """
        from sklearn.feature_selection import RFECV
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        rfe = RFECV(LogisticRegression(), cv=5).fit(X, y)
        X_tr, X_te, y_tr, y_te = train_test_split(X.loc[:, rfe.support_], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 4)],
    ),
    "a forest's importances on every row choosing the ten best columns": (
        """
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        imp = pd.Series(RandomForestClassifier().fit(X, y).feature_importances_, index=X.columns)
        top = imp.nlargest(10).index
        X_tr, X_te, y_tr, y_te = train_test_split(X[top], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a forest's importances on every row, the columns taken by position": (
        """
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        rf = RandomForestClassifier().fit(X, y)
        idx = np.argsort(rf.feature_importances_)[::-1][:5]
        X_tr, X_te, y_tr, y_te = train_test_split(X.iloc[:, idx], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 4)],
    ),
    "columns kept by their correlation with the label over every row, in a list comprehension": (
        """
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        keep = [c for c in X.columns if abs(X[c].corr(y)) > 0.3]
        X_tr, X_te, y_tr, y_te = train_test_split(X[keep], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
    "columns kept by a comprehension whose condition names a column and a statistic of every row": (
        """
        df = pd.read_csv("d.csv")
        feats = [c for c in df.columns if c != "y" and df[c].corr(df["y"]) ** 2 > 0.01]
        tr, te = train_test_split(df)
        print(LogisticRegression().fit(tr[feats], tr["y"]).score(te[feats], te["y"]))
        """,
        [("preprocessing", 2)],
    ),
    "columns kept by their correlation over the training part, by their type, or by their name": (
        """
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        keep = [c for c in X_tr.columns if abs(X_tr[c].corr(y_tr)) > 0.3]
        print(LogisticRegression().fit(X_tr[keep], y_tr).score(X_te[keep], y_te))
        numeric = [c for c in X.columns if X[c].dtype != object and not c.startswith("id_")]
        X_tr, X_te, y_tr, y_te = train_test_split(X[numeric], y)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "the columns of largest correlation over every row, sorted by a key and taken again by a comprehension": (
        """
        df = pd.read_csv("d.csv")
        corrs = {c: df[c].corr(df["y"]) for c in ["a", "b", "c", "d"]}
        top = [c for c in sorted(corrs, key=lambda k: -abs(corrs[k]))[:2]]
        tr, te = train_test_split(df)
        print(LogisticRegression().fit(tr[top], tr["y"]).score(te[top], te["y"]))
        """,
        [("preprocessing", 2)],
    ),
    "the columns of largest correlation over the training part, or sorted by name, taken by a comprehension": (
        """
        df = pd.read_csv("d.csv")
        tr, te = train_test_split(df)
        corrs = {c: tr[c].corr(tr["y"]) for c in ["a", "b", "c", "d"]}
        top = [c for c in sorted(corrs, key=lambda k: -abs(corrs[k]))[:2]]
        print(LogisticRegression().fit(tr[top], tr["y"]).score(te[top], te["y"]))
        named = [c for c in sorted(df.columns)[:3] if c != "y"]
        print(LogisticRegression().fit(tr[named], tr["y"]).score(te[named], te["y"]))
        """,
        [],
    ),
    "columns kept by numpy's correlation with the label over every row": (
        """
        df = pd.read_csv("d.csv")
        keep = [c for c in ["a", "b", "c"] if abs(np.corrcoef(df[c], df["y"])[0, 1]) > 0.2]
        tr, te = train_test_split(df)
        print(LogisticRegression().fit(tr[keep], tr["y"]).score(te[keep], te["y"]))
        """,
        [("preprocessing", 2)],
    ),
    "numpy's correlation printed, taken of the training part, or of predictions and labels": (
        """
        df = pd.read_csv("d.csv")
        print(np.corrcoef(df["a"], df["y"]))
        tr, te = train_test_split(df)
        keep = [c for c in ["a", "b", "c"] if abs(np.corrcoef(tr[c], tr["y"])[0, 1]) > 0.2]
        m = LogisticRegression().fit(tr[keep], tr["y"])
        print(np.corrcoef(te["y"], m.predict(te[keep]))[0, 1])
        """,
        [],
    ),
    "selectors and importances fitted on the training part, their masks applied to the test part": (
        """
        from sklearn.feature_selection import SelectKBest, f_classif, RFECV
        df = pd.read_csv("d.csv")
        X, y = df.drop(columns="y"), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        skb = SelectKBest(f_classif, k=10).fit(X_tr, y_tr)
        cols = X_tr.columns[skb.get_support()]
        print(LogisticRegression().fit(X_tr[cols], y_tr).score(X_te[cols], y_te))
        rfe = RFECV(LogisticRegression()).fit(X_tr, y_tr)
        print(LogisticRegression().fit(X_tr.loc[:, rfe.support_], y_tr).score(X_te.loc[:, rfe.support_], y_te))
        rf = RandomForestClassifier().fit(X_tr, y_tr)
        top = pd.Series(rf.feature_importances_, index=X.columns).nlargest(10).index
        print(LogisticRegression().fit(X_tr[top], y_tr).score(X_te[top], y_te))
        """,
        [],
    ),
    # A step fitted again on the test part -----------------------------------------------------------------
    "a scaler refitted on the test part": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        sc = StandardScaler()
        X_tr = sc.fit_transform(X_tr)
        X_te = sc.fit_transform(X_te)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 5)],
    ),
    "each part normalised by its own mean and standard deviation": (
        """
        def norm(d):
            return (d - d.mean()) / d.std()
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        X_tr, X_te = norm(X_tr), norm(X_te)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 5)],
    ),
    "a labelled test file imputed with its own medians": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        X_tr = train.drop(columns="y").fillna(train.median())
        X_te = test.drop(columns="y").fillna(test.median())
        m = LogisticRegression().fit(X_tr, train["y"])
        print(accuracy_score(test["y"], m.predict(X_te)))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler fitted on every row applied to the test part only": (
        """
        df = pd.read_csv("d.csv")
        X = df.drop(columns="y")
        everything = StandardScaler().fit(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        X_tr = StandardScaler().fit_transform(X_tr)
        print(LogisticRegression().fit(X_tr, y_tr).score(everything.transform(X_te), y_te))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler refitted on the test part, then predicted from and scored": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        m = LogisticRegression().fit(StandardScaler().fit_transform(X_tr), y_tr)
        print(accuracy_score(y_te, m.predict(StandardScaler().fit_transform(X_te))))
        """,
        [("preprocessing", 4)],
    ),
    "the target's encoder and scale, fitted on every label, undone on the test predictions": (
        """
        from sklearn.preprocessing import LabelEncoder
        from sklearn.linear_model import Ridge
        from sklearn.metrics import mean_squared_error
        df = pd.read_csv("d.csv")
        le = LabelEncoder().fit(df["label"])
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["label", "price"]), le.transform(df["label"]))
        m = LogisticRegression().fit(X_tr, y_tr)
        print(accuracy_score(le.inverse_transform(y_te), le.inverse_transform(m.predict(X_te))))
        ys = StandardScaler().fit(df[["price"]])
        r = Ridge().fit(X_tr, ys.transform(df[["price"]])[: len(X_tr)])
        print(mean_squared_error(df["price"][: len(X_te)], ys.inverse_transform(r.predict(X_te))))
        """,
        [],
    ),
    "the scaler fitted on the training part and applied to the test part": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        sc = StandardScaler()
        X_tr = sc.fit_transform(X_tr)
        X_te = sc.transform(X_te)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "each part normalised by the training part's mean and standard deviation": (
        """
        def norm(d, ref):
            return (d - ref.mean()) / ref.std()
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"])
        X_tr, X_te = norm(X_tr, X_tr), norm(X_te, X_tr)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a test file imputed with the training file's medians": (
        """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        X_tr = train.drop(columns="y").fillna(train.median())
        X_te = test.drop(columns="y").fillna(train.median())
        m = LogisticRegression().fit(X_tr, train["y"])
        print(accuracy_score(test["y"], m.predict(X_te)))
        """,
        [],
    ),
    "a PCA of the test part drawn, the model scored on the test part as it is": (
        """
        from sklearn.decomposition import PCA
        import matplotlib.pyplot as plt
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
        xy = PCA(n_components=2).fit_transform(X_te)
        plt.scatter(xy[:, 0], xy[:, 1], c=y_te)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    # fit_transform inherited from TransformerMixin ------------------------------------------------------
    "the file's transformer, fit_transform inherited, fitted on every row": (
        CLIP_SCALER
        + textwrap.dedent(
            """
        df = pd.read_csv("d.csv")
        X = ClipScaler().fit_transform(df.drop(columns="y").values)
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
        ),
        [("preprocessing", 15)],  # the quantile and the mean, one leak of the call
    ),
    "the file's transformer, fit_transform inherited, fitted on the training part": (
        CLIP_SCALER
        + textwrap.dedent(
            """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y").values, df["y"])
        cs = ClipScaler()
        X_tr = cs.fit_transform(X_tr)
        print(LogisticRegression().fit(X_tr, y_tr).score(cs.transform(X_te), y_te))
        """
        ),
        [],
    ),
    "the file's transformer in a pipeline, cross-validated": (
        CLIP_SCALER
        + textwrap.dedent(
            """
        from sklearn.pipeline import make_pipeline
        from sklearn.model_selection import cross_val_score
        df = pd.read_csv("d.csv")
        pipe = make_pipeline(ClipScaler(), LogisticRegression())
        print(cross_val_score(pipe, df.drop(columns="y").values, df["y"], cv=5).mean())
        """
        ),
        [],
    ),
    "the file's transformer that learns nothing, fit_transform inherited, on every row": (
        """
        from sklearn.base import BaseEstimator, TransformerMixin
        class Log1p(BaseEstimator, TransformerMixin):
            def fit(self, X, y=None):
                return self
            def transform(self, X):
                return np.log1p(X)
        df = pd.read_csv("d.csv")
        X = Log1p().fit_transform(df.drop(columns="y").values)
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    # A checkpoint kept by its score --------------------------------------------------------------------
    "a Trainer keeping its best checkpoint by the Hub data set's test split, then scored on it": (
        HF
        + textwrap.dedent(
            """
            ds = load_dataset("imdb")
            args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
            trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"])
            trainer.train()
            print(trainer.evaluate(ds["test"]))
            """
        ),
        [("multi_test", 8)],  # at trainer.train()
    ),
    "a Trainer stopped early by the test part of a pandas split": (
        HF
        + textwrap.dedent(
            """
            df = pd.read_csv("reviews.csv")
            train_df, test_df = train_test_split(df, test_size=0.2)
            train_ds, test_ds = Dataset.from_pandas(train_df), Dataset.from_pandas(test_df)
            args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch")
            trainer = Trainer(model, args, train_dataset=train_ds, eval_dataset=test_ds,
                              callbacks=[EarlyStoppingCallback(early_stopping_patience=2)])
            trainer.train()
            print(trainer.evaluate(test_ds))
            """
        ),
        [("multi_test", 11)],
    ),
    "a Trainer keeping its best checkpoint by the validation split, the test split scored once": (
        HF
        + textwrap.dedent(
            """
            ds = load_dataset("glue", "sst2")
            args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
            trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["validation"])
            trainer.train()
            print(trainer.evaluate())
            print(trainer.evaluate(ds["test"]))
            """
        ),
        [],
    ),
    "a Trainer keeping its best checkpoint by the validation split, scored only there": (
        HF
        + textwrap.dedent(
            """
            ds = load_dataset("glue", "sst2")
            args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
            trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["validation"])
            trainer.train()
            print(trainer.evaluate())
            """
        ),
        [],
    ),
    "a Trainer watching the test split without keeping the best checkpoint": (
        HF
        + textwrap.dedent(
            """
            ds = load_dataset("imdb")
            args = TrainingArguments("out", eval_strategy="epoch", num_train_epochs=3)
            trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"])
            trainer.train()
            print(trainer.evaluate())
            """
        ),
        [],
    ),
    "a vectorizer fitted on a Hub data set's train split, scored on its test split": (
        """
        from datasets import load_dataset
        from sklearn.feature_extraction.text import TfidfVectorizer
        ds = load_dataset("imdb")
        vec = TfidfVectorizer().fit(ds["train"]["text"])
        clf = LogisticRegression().fit(vec.transform(ds["train"]["text"]), ds["train"]["label"])
        print(clf.score(vec.transform(ds["test"]["text"]), ds["test"]["label"]))
        """,
        [],
    ),
    "a vectorizer fitted on a Hub data set's train and test splits together": (
        """
        from datasets import load_dataset
        from sklearn.feature_extraction.text import TfidfVectorizer
        ds = load_dataset("imdb")
        vec = TfidfVectorizer().fit(ds["train"]["text"] + ds["test"]["text"])
        clf = LogisticRegression().fit(vec.transform(ds["train"]["text"]), ds["train"]["label"])
        print(clf.score(vec.transform(ds["test"]["text"]), ds["test"]["label"]))
        """,
        [("preprocessing", 4)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_choice_is_read_where_it_is_made(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)


def test_a_threshold_chosen_on_a_test_curve_is_said_as_a_threshold(tmp_path: Path) -> None:
    """The finding names the curve and the pick, and its fix says where a threshold is chosen instead."""
    body, _ = CASES["the best F1 threshold read off a precision-recall curve of the test set"]
    (placed,) = read_script(tmp_path, HEAD, body)[0].leaks
    assert "precision_recall_curve" in placed.leak.message and "np.argmax()" in placed.leak.message
    assert "threshold" in placed.leak.message and "validation" in placed.leak.fix


def test_a_step_refitted_on_the_test_part_is_said_as_fitted_on_the_rows_it_scores(tmp_path: Path) -> None:
    """Not 'fitted on every row': the test part's own statistics, and the fix is transform, not fit_transform."""
    body, _ = CASES["a scaler refitted on the test part"]
    (placed,) = read_script(tmp_path, HEAD, body)[0].leaks
    assert placed.leak.serious
    assert "the very rows scored" in placed.leak.message and "test part" in placed.leak.message
    assert "sc.transform(X_test)" in placed.leak.fix
