"""Correct code that was read as a leak, each beside the real leak that looks like it: a collection built from
the split's parts (map over them, a dict of them, a starred unpacking), a helper whose statistics are optional,
early stopping that watches the training loss, learners whose state is written out, a window over a series
scaled on its training period, batches bounded by the training rows. Each case is a script and the leaks it
holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import pandas as pd
import torch
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler
"""

_SPLIT = """
        df = pd.read_csv("d.csv")
        X_train, X_test, y_train, y_test = train_test_split(df[["a", "b"]], df["y"], random_state=0)"""

_SCALED_MODEL = """
        clf = LogisticRegression().fit(sc.transform(X_train), y_train)
        print(clf.score(sc.transform(X_test), y_test))
        """

# 1. A collection built from the split's parts, each part kept apart -------------------------------------------
PARTS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a mean loaded from a file subtracted from features that drop the label": (
        """
        df = pd.read_csv("sensors.csv")
        X = df.drop(columns=["label"]).to_numpy(dtype=float)
        y = df["label"].to_numpy()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=1)
        mu = np.load("cache/mu.npy")
        print(LogisticRegression().fit(X_tr - mu, y_tr).score(X_te - mu, y_te))
        """,
        [],
    ),
    "map(np.asarray) over the parts, then a scaler fitted on the training part": (
        _SPLIT
        + """
        X_train, X_test = map(np.asarray, (X_train, X_test))
        sc = StandardScaler().fit(X_train)"""
        + _SCALED_MODEL,
        [],
    ),
    "map(torch.tensor) over features and labels, as in the PyTorch tutorial": (
        _SPLIT
        + """
        X_train, y_train, X_test, y_test = map(
            torch.tensor, (X_train.values, y_train.values, X_test.values, y_test.values)
        )
        sc = StandardScaler().fit(X_train)"""
        + _SCALED_MODEL,
        [],
    ),
    "map of a scaler's transform fitted on the training part": (
        _SPLIT
        + """
        sc = StandardScaler().fit(X_train)
        X_train, X_test = map(sc.transform, (X_train, X_test))
        clf = LogisticRegression().fit(X_train, y_train)
        print(clf.score(X_test, y_test))
        """,
        [],
    ),
    "map of a lambda over the parts": (
        _SPLIT
        + """
        X_train, X_test = map(lambda p: p.to_numpy(), (X_train, X_test))
        sc = StandardScaler().fit(X_train)"""
        + _SCALED_MODEL,
        [],
    ),
    "a dict comprehension over a dict of the parts": (
        _SPLIT
        + """
        parts = {"train": X_train, "test": X_test}
        Xs = {name: np.asarray(part) for name, part in parts.items()}
        sc = StandardScaler().fit(Xs["train"])
        clf = LogisticRegression().fit(sc.transform(Xs["train"]), y_train)
        print(clf.score(sc.transform(Xs["test"]), y_test))
        """,
        [],
    ),
    "a loop over a dict of the parts storing each under its name": (
        _SPLIT
        + """
        parts = {"train": X_train, "test": X_test}
        Xs = {}
        for name, part in parts.items():
            Xs[name] = np.asarray(part)
        sc = StandardScaler().fit(Xs["train"])
        clf = LogisticRegression().fit(sc.transform(Xs["train"]), y_train)
        print(clf.score(sc.transform(Xs["test"]), y_test))
        """,
        [],
    ),
    "a list comprehension over the parts, its first item trained on": (
        _SPLIT
        + """
        sc = StandardScaler().fit(X_train)
        scaled = [sc.transform(p) for p in (X_train, X_test)]
        clf = LogisticRegression().fit(scaled[0], y_train)
        print(clf.score(scaled[1], y_test))
        """,
        [],
    ),
    "a starred unpacking of the split": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, *ys = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        y_tr, y_te = ys
        sc = StandardScaler().fit(X_tr)
        clf = LogisticRegression().fit(sc.transform(X_tr), y_tr)
        print(clf.score(sc.transform(X_te), y_te))
        """,
        [],
    ),
    # the real leaks of the same shape
    "LEAK: a scaler fitted on both parts concatenated": (
        _SPLIT
        + """
        sc = StandardScaler().fit(np.concatenate([X_train, X_test]))"""
        + _SCALED_MODEL,
        [("preprocessing", 3)],
    ),
    "LEAK: map(np.asarray) over the parts, then both stacked for the scaler": (
        _SPLIT
        + """
        X_train, X_test = map(np.asarray, (X_train, X_test))
        sc = StandardScaler().fit(np.vstack((X_train, X_test)))"""
        + _SCALED_MODEL,
        [("preprocessing", 4)],
    ),
    "LEAK: map of a scaler's fit_transform refits it on the test part": (
        _SPLIT
        + """
        sc = StandardScaler()
        X_train, X_test = map(sc.fit_transform, (X_train, X_test))
        clf = LogisticRegression().fit(X_train, y_train)
        print(clf.score(X_test, y_test))
        """,
        [("preprocessing", 4)],
    ),
    "LEAK: a list of both parts concatenated before the fit": (
        _SPLIT
        + """
        both = [X_train, X_test]
        sc = StandardScaler().fit(pd.concat(both))"""
        + _SCALED_MODEL,
        [("preprocessing", 4)],
    ),
    "LEAK: a dict comprehension's values concatenated before the fit": (
        _SPLIT
        + """
        parts = {"train": X_train, "test": X_test}
        Xs = {name: np.asarray(part) for name, part in parts.items()}
        sc = StandardScaler().fit(np.concatenate(list(Xs.values())))"""
        + _SCALED_MODEL,
        [("preprocessing", 5)],
    ),
    "LEAK: a loop over a dict of the parts refitting the scaler on each": (
        _SPLIT
        + """
        parts = {"train": X_train, "test": X_test}
        sc = StandardScaler()
        Xs = {}
        for name, part in parts.items():
            Xs[name] = sc.fit_transform(part)
        clf = LogisticRegression().fit(Xs["train"], y_train)
        print(clf.score(Xs["test"], y_test))
        """,
        [("preprocessing", 7)],
    ),
    "LEAK: a starred unpacking, the scaler fitted on the test part": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, *ys = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        y_tr, y_te = ys
        sc = StandardScaler().fit(X_te)
        clf = LogisticRegression().fit(sc.transform(X_tr), y_tr)
        print(clf.score(sc.transform(X_te), y_te))
        """,
        [("preprocessing", 4)],
    ),
}


@pytest.mark.parametrize("case", list(PARTS))
def test_parts_kept_apart(tmp_path: Path, case: str) -> None:
    body, expected = PARTS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# 2. A helper whose statistics are optional: fitted only when none are given ------------------------------------
_NORM_WITH = """
        def norm(df, mean=None, std=None):
            {fit}
            return (df - mean) / std, mean, std

        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        X_tr, mu, sd = norm(X_tr)
        {{test}}
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
_NORM = _NORM_WITH.format(fit="if mean is None:\n                mean, std = df.mean(), df.std()")

_SCALE = """
        def scale(df, stats=None):
            if stats is not None:
                mean, std = stats
            else:
                mean, std = df.mean(), df.std()
            return (df - mean) / std, (mean, std)

        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        X_tr, st = scale(X_tr)
        {test}
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

_TERNARY = _NORM_WITH.format(
    fit="mean = df.mean() if mean is None else mean\n            std = std if std is not None else df.std()"
)

_BY_NAME = """
        TRAIN = "train"
        vec = TfidfVectorizer()

        def featurize(texts, split):
            {how}

        df = pd.read_csv("d.csv")
        tr, te = train_test_split(df, random_state=0)
        X_tr = featurize(tr["text"], "train")
        X_te = featurize(te["text"], {test_name})
        print(LogisticRegression().fit(X_tr, tr["y"]).score(X_te, te["y"]))
        """

_CENTER = """
        def center(X, ref=None):
            return X - (ref.mean(0) if ref is not None else X.mean(0))

        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        X_tr_c = center(X_tr)
        X_te_c = center(X_te, {given})
        print(LogisticRegression().fit(X_tr_c, y_tr).score(X_te_c, y_te))
        """

OPTIONAL_STATISTICS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "fitted when the part is named train, `... if split == 'train' else ...`": (
        _BY_NAME.format(
            how='return vec.fit_transform(texts) if split == "train" else vec.transform(texts)', test_name='"test"'
        ),
        [],
    ),
    "fitted when the part is named train, an `if split == TRAIN:` statement": (
        _BY_NAME.format(
            how="""if split == TRAIN:
                return vec.fit_transform(texts)
            return vec.transform(texts)""",
            test_name='"test"',
        ),
        [],
    ),
    "fitted unless the part is one of the held-out names, `split not in (...)`": (
        _BY_NAME.format(
            how='return vec.transform(texts) if split in ("val", "test") else vec.fit_transform(texts)',
            test_name='"test"',
        ),
        [],
    ),
    "LEAK: the test part named train, so fitted on it too": (
        _BY_NAME.format(
            how='return vec.fit_transform(texts) if split == "train" else vec.transform(texts)', test_name='"train"'
        ),
        [("preprocessing", 10)],
    ),
    "fitted when asked and not refitting, `fit and not refit` of the flags given": (
        _BY_NAME.format(
            how='return vec.fit_transform(texts) if split == "train" and not REFIT else vec.transform(texts)',
            test_name='"test"',
        ).replace('TRAIN = "train"', "REFIT = False"),
        [],
    ),
    "the test part centred on the training rows given as the reference, `ref is not None`": (
        _CENTER.format(given="ref=X_tr"),
        [],
    ),
    "LEAK: the test part centred on its own mean, no reference given": (
        _CENTER.format(given="ref=None"),
        [("preprocessing", 7)],
    ),
    "the test part normalised with the training part's statistics, `a if mean is None else mean` given them": (
        _TERNARY.format(test="X_te, _, _ = norm(X_te, mu, sd)"),
        [],
    ),
    "LEAK: the test part normalised by its own statistics, `a if mean is None else mean` given none": (
        _TERNARY.format(test="X_te, _, _ = norm(X_te)"),
        [("preprocessing", 9)],  # its mean and its standard deviation, one leak of the call
    ),
    "the test part normalised with the training part's statistics, `if mean is None` skipped": (
        _NORM.format(test="X_te, _, _ = norm(X_te, mu, sd)"),
        [],
    ),
    "the test part scaled with the training part's statistics, `if stats is not None` taken": (
        _SCALE.format(test="X_te, _ = scale(X_te, st)"),
        [],
    ),
    "LEAK: the test part normalised by its own statistics, none given": (
        _NORM.format(test="X_te, _, _ = norm(X_te)"),
        [("preprocessing", 9)],
    ),
    "LEAK: the test part given statistics of its own": (
        _NORM.format(test="X_te, _, _ = norm(X_te, X_te.mean(), X_te.std())"),
        [("preprocessing", 9)],
    ),
    "LEAK: the test part scaled by its own statistics, none given": (
        _SCALE.format(test="X_te, _ = scale(X_te)"),
        [("preprocessing", 11)],
    ),
}


@pytest.mark.parametrize("case", list(OPTIONAL_STATISTICS))
def test_optional_statistics(tmp_path: Path, case: str) -> None:
    body, expected = OPTIONAL_STATISTICS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# 3. Early stopping that watches the training loss: the validation data only logged ------------------------------
KERAS_HEAD = """\
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tensorflow import keras
"""

_KERAS = """
        X, y = load_digits(return_X_y=True)
        x_train, x_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
        model = keras.Sequential([keras.layers.Dense(10, activation="softmax")])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        stop = keras.callbacks.{callback}
        model.fit(x_train, y_train, epochs=100, validation_data=(x_test, y_test), callbacks=[stop])
        print(model.evaluate(x_test, y_test))
        """

EARLY_STOPPING: dict[str, tuple[str, list[tuple[str, int]]]] = {
    'EarlyStopping(monitor="loss") with the test set only logged': (
        _KERAS.format(callback='EarlyStopping(monitor="loss", patience=5, restore_best_weights=True)'),
        [],
    ),
    'EarlyStopping(monitor="train_loss") with the test set only logged': (
        _KERAS.format(callback='EarlyStopping(monitor="train_loss", patience=5)'),
        [],
    ),
    'ModelCheckpoint(monitor="accuracy") with the test set only logged': (
        _KERAS.format(callback='ModelCheckpoint("m.keras", monitor="accuracy", save_best_only=True)'),
        [],
    ),
    "LEAK: EarlyStopping watching the default val_loss of the test set": (
        _KERAS.format(callback="EarlyStopping(patience=5, restore_best_weights=True)"),
        [("multi_test", 6)],
    ),
    'LEAK: EarlyStopping(monitor="val_accuracy") of the test set': (
        _KERAS.format(callback='EarlyStopping(monitor="val_accuracy", patience=5, restore_best_weights=True)'),
        [("multi_test", 6)],
    ),
}


@pytest.mark.parametrize("case", list(EARLY_STOPPING))
def test_early_stopping_monitor(tmp_path: Path, case: str) -> None:
    body, expected = EARLY_STOPPING[case]
    assert leaks_found(tmp_path, KERAS_HEAD, body) == expected


# 4. Learners whose state is written out in the code: fitting them learns nothing from the rows -------------------
_TEXTS = """
        df = pd.read_csv("mail.csv")
        KEYWORDS = ["free", "win", "cash", "prize"]
        X = {vectorizer}.fit_transform(df["text"])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["spam"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

_GENRES = """
        from sklearn.preprocessing import MultiLabelBinarizer
        df = pd.read_csv("movies.csv")
        GENRES = ["action", "comedy", "drama", "horror"]
        X = {encoder}.fit_transform(df["genres"].str.split("|"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["hit"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

_DAYS = """
        df = pd.read_csv("visits.csv")
        DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        X = {encoder}.fit_transform(df[["day"]])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["came"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

WRITTEN_OUT: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "CountVectorizer(vocabulary=KEYWORDS) on every text": (
        _TEXTS.format(vectorizer="CountVectorizer(vocabulary=KEYWORDS)"),
        [],
    ),
    "TfidfVectorizer(vocabulary=KEYWORDS, use_idf=False) on every text": (
        _TEXTS.format(vectorizer="TfidfVectorizer(vocabulary=KEYWORDS, use_idf=False)"),
        [],
    ),
    "OneHotEncoder(categories=[DAYS]) on every row": (
        _DAYS.format(encoder="OneHotEncoder(categories=[DAYS])"),
        [],
    ),
    "OneHotEncoder(categories=[DAYS], handle_unknown='ignore') on every row": (
        _DAYS.format(encoder='OneHotEncoder(categories=[DAYS], handle_unknown="ignore")'),
        [],
    ),
    "MultiLabelBinarizer(classes=GENRES) on every row": (
        _GENRES.format(encoder="MultiLabelBinarizer(classes=GENRES)"),
        [],
    ),
    "LEAK: MultiLabelBinarizer learning its classes from every row": (
        _GENRES.format(encoder="MultiLabelBinarizer()"),
        [("preprocessing", 4)],
    ),
    "LEAK: MultiLabelBinarizer given classes read from every row": (
        _GENRES.replace(
            '["action", "comedy", "drama", "horror"]', 'sorted(set(df["genres"].str.cat(sep="|").split("|")))'
        ).format(encoder="MultiLabelBinarizer(classes=GENRES)"),
        [("preprocessing", 4)],
    ),
    "LEAK: CountVectorizer learning its vocabulary from every text": (
        _TEXTS.format(vectorizer="CountVectorizer()"),
        [("preprocessing", 3)],
    ),
    "LEAK: TfidfVectorizer(vocabulary=KEYWORDS) still learns idf from every text": (
        _TEXTS.format(vectorizer="TfidfVectorizer(vocabulary=KEYWORDS)"),
        [("preprocessing", 3)],
    ),
    "LEAK: CountVectorizer given a vocabulary read from every text": (
        _TEXTS.replace('["free", "win", "cash", "prize"]', 'sorted(set(" ".join(df["text"]).split()))').format(
            vectorizer="CountVectorizer(vocabulary=KEYWORDS)"
        ),
        [("preprocessing", 3)],
    ),
    'LEAK: OneHotEncoder(categories="auto") on every row': (
        _DAYS.format(encoder='OneHotEncoder(categories="auto")'),
        [("preprocessing", 3)],
    ),
    "LEAK: OneHotEncoder given categories read from every row": (
        _DAYS.replace('["mon", "tue", "wed", "thu", "fri", "sat", "sun"]', 'sorted(df["day"].unique())').format(
            encoder="OneHotEncoder(categories=[DAYS])"
        ),
        [("preprocessing", 3)],
    ),
    "LEAK: OneHotEncoder(categories=[DAYS], min_frequency=5) still counts every row": (
        _DAYS.format(encoder="OneHotEncoder(categories=[DAYS], min_frequency=5)"),
        [("preprocessing", 3)],
    ),
}


@pytest.mark.parametrize("case", list(WRITTEN_OUT))
def test_state_written_out(tmp_path: Path, case: str) -> None:
    body, expected = WRITTEN_OUT[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# 6. Batches of the training rows, each ending at the training rows' end or before ---------------------------------
_BATCHES = """
        df = pd.read_csv("d.csv")
        X, y = df[["a", "b"]].values, df["y"].values
        n_train = int(0.8 * len(X))
        B = 64
        sc, clf = StandardScaler(), SGDClassifier()
        for start in range(0, n_train, B):
            end = {end}
            sc.partial_fit(X[start:end])
            clf.partial_fit(sc.transform(X[start:end]), y[start:end], classes=[0, 1])
        print(clf.score(sc.transform(X[n_train:]), y[n_train:]))
        """

BATCHES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "batches ending at min(start + B, n_train)": (_BATCHES.format(end="min(start + B, n_train)"), []),
    "batches ending at min(n_train, start + B)": (_BATCHES.format(end="min(n_train, start + B)"), []),
    "batches with the bound written in the slice": (
        _BATCHES.replace("X[start:end]", "X[start : min(start + B, n_train)]")
        .replace("y[start:end]", "y[start : min(start + B, n_train)]")
        .format(end="None"),
        [],
    ),
    "LEAK: batches ending at start + B, past the training rows": (
        _BATCHES.format(end="start + B"),
        [("overlap", 9), ("preprocessing", 8)],
    ),
    "LEAK: batches ending at min(start + B, len(X)), the test rows among them": (
        _BATCHES.format(end="min(start + B, len(X))").replace("range(0, n_train, B)", "range(0, len(X), B)"),
        [("overlap", 9), ("preprocessing", 8)],
    ),
    "LEAK: batches ending at max(start + B, n_train)": (
        _BATCHES.format(end="max(start + B, n_train)"),
        [("overlap", 9), ("preprocessing", 8)],
    ),
}


@pytest.mark.parametrize("case", list(BATCHES))
def test_batches_of_the_training_rows(tmp_path: Path, case: str) -> None:
    body, expected = BATCHES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# 5. A sliding-window forecast, the scaler fitted on the training period ------------------------------------------
_WINDOWS = """
        s = pd.read_csv("load.csv")[["mw"]].values
        cut, win = {cut}, 30
        sc = MinMaxScaler().fit({fitted})
        scaled = sc.transform(s)
        X = np.array([scaled[i - win : i, 0] for i in range(win, len(scaled))])
        y = np.array([scaled[i, 0] for i in range(win, len(scaled))])
        X_train, X_test, y_train, y_test = X[:{end}], X[{start}:], y[:{end}], y[{start}:]
        model = LinearRegression().fit(X_train, y_train)
        print(model.score(X_test, y_test))
        """


def _windows(cut: str = "800", fitted: str = "s[:cut]", end: str = "cut - win", start: str = "cut - win") -> str:
    return _WINDOWS.format(cut=cut, fitted=fitted, end=end, start=start)


WINDOWS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "windows cut where the training period ends, the scaler fitted on it": (_windows(), []),
    "windows cut at a cut computed from the series' length": (_windows(cut="int(len(s) * 0.8)"), []),
    "LEAK: the scaler fitted on the whole series": (_windows(fitted="s"), [("preprocessing", 3)]),
    "LEAK: the scaler fitted past the training period": (_windows(fitted="s[: cut + 50]"), [("preprocessing", 3)]),
    "LEAK: test windows whose targets lie in the training period": (
        _windows(start="cut - 2 * win"),
        [("overlap", 8), ("preprocessing", 3)],
    ),
    "LEAK: training windows past the cut": (_windows(end="cut - win + 10"), [("overlap", 8)]),
    "windows cut at two bounds named apart, a validation period between the training and test windows": (
        """
        s = np.load("series.npy")
        n, win = len(s), 14
        X = np.array([s[i - win:i] for i in range(win, n)])
        y = np.array([s[i] for i in range(win, n)])
        a, b = n - 120 - win, n - 60 - win
        m = LinearRegression().fit(X[:a], y[:a])
        print(m.score(X[a:b], y[a:b]), m.score(X[b:], y[b:]))
        """,
        [],
    ),
    "LEAK: the windows' parts unpacked in the wrong order (the test targets train the model)": (
        _windows().replace("X_train, X_test, y_train, y_test =", "X_train, X_test, y_test, y_train ="),
        [("overlap", 3)],  # reported at the first slice of the series, where its slices' split is placed
    ),
}


@pytest.mark.parametrize("case", list(WINDOWS))
def test_sliding_windows(tmp_path: Path, case: str) -> None:
    body, expected = WINDOWS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# One-step-ahead samples made of two shifted slices of a series (features `s[:-1]`, targets `s[1:]`), cut by sample:
# a sample's target is the next sample's feature, which is no test row in training. Overlapping cuts still leak.
LAGS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "one-step": (
        """
        s = np.load("series.npy")
        X, y = s[:-1].reshape(-1, 1), s[1:]
        n = int(0.8 * len(X))
        m = LinearRegression().fit(X[:n], y[:n])
        print(m.score(X[n:], y[n:]))
        """,
        [],
    ),
    "two-lags-scaled": (
        """
        p = np.load("prices.npy")
        r = p[1:] / p[:-1] - 1
        X, y = np.column_stack([r[:-2], r[1:-1]]), r[2:]
        cut = int(0.8 * len(y))
        sc = StandardScaler().fit(X[:cut])
        m = LinearRegression().fit(sc.transform(X[:cut]), y[:cut])
        print(m.score(sc.transform(X[cut:]), y[cut:]))
        """,
        [],
    ),
    "LEAK: overlapping-cuts": (
        """
        s = np.load("series.npy")
        X, y = s[:-1].reshape(-1, 1), s[1:]
        n = int(0.8 * len(X))
        m = LinearRegression().fit(X[:n], y[:n])
        print(m.score(X[n - 50:], y[n - 50:]))
        """,
        [("overlap", 4)],
    ),
    "windows-from-i": (
        """
        s = np.load("series.npy").reshape(-1, 1)
        cut, win = int(len(s) * 0.8), 10
        sc = MinMaxScaler().fit(s[:cut])
        scaled = sc.transform(s)
        X = np.array([scaled[i : i + win, 0] for i in range(len(scaled) - win)])
        y = np.array([scaled[i + win, 0] for i in range(len(scaled) - win)])
        m = LinearRegression().fit(X[: cut - win], y[: cut - win])
        print(m.score(X[cut - win :], y[cut - win :]))
        """,
        [],
    ),
    "LEAK: windows-from-i-scaled-on-all": (
        """
        s = np.load("series.npy").reshape(-1, 1)
        cut, win = int(len(s) * 0.8), 10
        sc = MinMaxScaler().fit(s)
        scaled = sc.transform(s)
        X = np.array([scaled[i : i + win, 0] for i in range(len(scaled) - win)])
        y = np.array([scaled[i + win, 0] for i in range(len(scaled) - win)])
        m = LinearRegression().fit(X[: cut - win], y[: cut - win])
        print(m.score(X[cut - win :], y[cut - win :]))
        """,
        [("preprocessing", 3)],
    ),
    "LEAK: windows-from-i-test-targets-in-training": (
        """
        s = np.load("series.npy").reshape(-1, 1)
        cut, win = int(len(s) * 0.8), 10
        X = np.array([s[i : i + win, 0] for i in range(len(s) - win)])
        y = np.array([s[i + win, 0] for i in range(len(s) - win)])
        m = LinearRegression().fit(X[: cut - win], y[: cut - win])
        print(m.score(X[cut - 3 * win :], y[cut - 3 * win :]))
        """,
        [("overlap", 5)],
    ),
}


@pytest.mark.parametrize("case", list(LAGS))
def test_lagged_samples_cut_by_sample(tmp_path: Path, case: str) -> None:
    body, expected = LAGS[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


# The words of a finding: a fix that names a pipeline step only for a class, plain words for a part of the rows,
# a verb that agrees with the statistics named ------------------------------------------------------------------
def _said(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    """(message, fix) of each leak found in ``body``."""
    result, _ = read_script(tmp_path, HEAD, body)
    return [(p.leak.message, p.leak.fix) for p in result.leaks]


@pytest.mark.parametrize(
    ("statistic", "named"),
    [
        ('df["a"] - df[target].mean()', "df[target].mean()"),
        ('np.log(df["a"]) - np.mean(np.log(df["a"]))', "np.mean("),
    ],
)
def test_fix_of_a_statistic_names_no_pipeline_step(tmp_path: Path, statistic: str, named: str) -> None:
    body = f"""
        df = pd.read_csv("d.csv")
        target = "y"
        df["a"] = {statistic}
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df[target], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    ((_, fix),) = _said(tmp_path, body)
    assert named in fix and "make_pipeline" not in fix and "Pipeline step" in fix


def test_fix_of_a_learner_class_names_its_pipeline_step(tmp_path: Path) -> None:
    body = """
        df = pd.read_csv("d.csv")
        X = StandardScaler().fit_transform(df[["a", "b"]])
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    ((_, fix),) = _said(tmp_path, body)
    assert "make_pipeline(StandardScaler(), model)" in fix


def test_two_statistics_learn(tmp_path: Path) -> None:
    body = """
        df = pd.read_csv("d.csv")
        X = (df[["a", "b"]] - df[["a", "b"]].mean()) / df[["a", "b"]].std()
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    ((message, _),) = _said(tmp_path, body)
    assert ".std() learn the mean" in message


def test_a_slice_said_as_written(tmp_path: Path) -> None:
    ((message, _), (overlap, _)) = _said(tmp_path, _BATCHES.format(end="start + B"))
    assert "the rows [start:end] of read_csv('d.csv')" in message and "the rows [start:end]" in overlap
    assert "part of slice" not in message + overlap


def test_concat_keys_and_masks_said_in_plain_words(tmp_path: Path) -> None:
    body = """
        train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        both = pd.concat([train, test], keys=["train", "test"])
        sc = StandardScaler().fit(both[["a", "b"]])
        clf = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])
        print(clf.score(sc.transform(test[["a", "b"]]), test["y"]))
        """
    ((message, _),) = _said(tmp_path, body)
    assert "the rows put under the key 'test' by a concat of read_csv('test.csv')" in message
    assert "keys:" not in message
    body = """
        df = pd.read_csv("d.csv")
        old, new = df[df.year < 2020], df[df.year >= 2020]
        sc = StandardScaler().fit(df[df.year >= 2019][["a"]])
        clf = LogisticRegression().fit(sc.transform(old[["a"]]), old["y"])
        print(clf.score(sc.transform(new[["a"]]), new["y"]))
        """
    ((message, _),) = _said(tmp_path, body)
    assert "the rows of read_csv('d.csv') where df.year >= 2019" in message


def test_a_mask_is_quoted_with_the_spaces_inside_its_texts(tmp_path: Path) -> None:
    body = """
        df = pd.read_csv("d.csv", parse_dates=["t"])
        sc = StandardScaler().fit(df[df.t >= "2023-06-01 12:00"][["a"]])
        old, new = df[df.t < "2023-06-01 12:00"], df[df.t >= "2023-06-01 12:00"]
        clf = LogisticRegression().fit(sc.transform(old[["a"]]), old["y"])
        print(clf.score(sc.transform(new[["a"]]), new["y"]))
        """
    ((message, _),) = _said(tmp_path, body)
    assert "where df.t >= '2023-06-01 12:00'" in message


def test_a_long_mask_is_cut_short_only_where_it_is_quoted(tmp_path: Path) -> None:
    column = "transaction_timestamp_in_the_warehouse_time_zone_as_the_till_recorded_it_at_checkout"
    body = f"""
        df = pd.read_csv("d.csv", parse_dates=["{column}"])
        sc = StandardScaler().fit(df[df["{column}"] >= pd.Timestamp("2023-06-01 00:00:00")][["a"]])
        old = df[df["{column}"] < pd.Timestamp("2023-06-01 00:00:00")]
        new = df[df["{column}"] >= pd.Timestamp("2023-06-01 00:00:00")]
        clf = LogisticRegression().fit(sc.transform(old[["a"]]), old["y"])
        print(clf.score(sc.transform(new[["a"]]), new["y"]))
        """
    ((message, _),) = _said(tmp_path, body)
    condition = f"df['{column}'] >= pd.Timestamp('2023-06-01 00:00:00')"
    assert f"where {condition[:119]}…, which include" in message


def test_slices_by_long_names_alike_at_first_are_not_one_bound(tmp_path: Path) -> None:
    first = "number_of_rows_kept_for_training_in_the_first_experiment_run_a"
    body = f"""
        df = pd.read_csv("d.csv")
        {first} = int(len(df) * 0.5)
        {first[:-1]}b = int(len(df) * 0.8)
        train, test = df[:{first} + 10], df[{first[:-1]}b:]
        clf = LogisticRegression().fit(train[["a"]], train["y"])
        print(clf.score(test[["a"]], test["y"]))
        """
    assert _said(tmp_path, body) == []


def test_an_overlap_names_the_scored_rows_condition_beside_the_trained_one(tmp_path: Path) -> None:
    body = """
        df = pd.read_csv("d.csv")
        old, new = df[df.year < 2021], df[df.year >= 2019]
        clf = LogisticRegression().fit(old[["a"]], old["y"])
        print(clf.score(new[["a"]], new["y"]))
        """
    ((message, _),) = _said(tmp_path, body)
    assert "trains on the rows of read_csv('d.csv') where df.year < 2021, which include" in message
    assert "(LogisticRegression.score) on the rows of read_csv('d.csv') where df.year >= 2019: the score" in message
    both = """
        df = pd.read_csv("d.csv")
        old = df[(df.year < 2021) & (df.store != 3)]
        new = df[np.logical_and(df.year >= 2019, df.store != 3)]
        clf = LogisticRegression().fit(old[["a"]], old["y"])
        print(clf.score(new[["a"]], new["y"]))
        """
    ((message, _),) = _said(tmp_path, both)
    assert "trains on the rows of read_csv('d.csv') where (df.year < 2021) & (df.store != 3), which" in message
    assert "on the rows of read_csv('d.csv') where (df.year >= 2019) & (df.store != 3): the score" in message
    sliced = """
        df = pd.read_csv("d.csv")
        clf = LogisticRegression().fit(df[:900][["a"]], df[:900]["y"])
        print(clf.score(df[800:][["a"]], df[800:]["y"]))
        """
    ((message, _),) = _said(tmp_path, sliced)
    assert "(LogisticRegression.score) on the rows [800:] of read_csv('d.csv'): the score" in message
