"""Leaks the reading used to pass as clean, each beside correct code that looks like it: positions drawn by
Python's random module, rows kept by a statistic of every row, a sample whose index is reset before the rest is
taken, values filled from later rows in place or before a time-series cross-validation. Each case is a script
and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import random
import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import TimeSeriesSplit, cross_val_score, train_test_split
from sklearn.preprocessing import StandardScaler
"""

_SONAR = """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]"""

# 1. Positions drawn by Python's random module, then sliced or indexed with ---------------------------------------
STDLIB_RANDOM: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a scaler on every row, then positions shuffled by random.shuffle and sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = list(range(len(X)))
        random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions shuffled by random.shuffle and sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = list(range(len(X)))
        random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a vectorizer on every text, then positions shuffled by a random.Random": (
        """
        df = pd.read_csv("reviews.csv")
        X = TfidfVectorizer().fit_transform(df["text"])
        y = df["label"].values
        idx = list(range(len(df)))
        random.Random(0).shuffle(idx)
        cut = int(0.8 * len(idx))
        tr, te = idx[:cut], idx[cut:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 2)],
    ),
    "positions shuffled by a random.Random, the vectorizer fitted on the training texts": (
        """
        df = pd.read_csv("reviews.csv")
        y = df["label"].values
        rng = random.Random(0)
        idx = list(range(len(df)))
        rng.shuffle(idx)
        cut = int(0.8 * len(idx))
        tr, te = idx[:cut], idx[cut:]
        vec = TfidfVectorizer().fit(df["text"].iloc[tr])
        clf = LogisticRegression().fit(vec.transform(df["text"].iloc[tr]), y[tr])
        print(clf.score(vec.transform(df["text"].iloc[te]), y[te]))
        """,
        [],
    ),
    "an imputer on every row, then test positions by random.sample and the rest by a comprehension": (
        _SONAR
        + """
        X = SimpleImputer().fit_transform(X)
        te = random.sample(range(len(X)), 40)
        tr = [i for i in range(len(X)) if i not in te]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "test positions by random.sample, the rest by a comprehension, the imputer fitted on the rest": (
        _SONAR
        + """
        te = random.sample(range(len(X)), 40)
        tr = [i for i in range(len(X)) if i not in set(te)]
        imp = SimpleImputer().fit(X[tr])
        print(LogisticRegression().fit(imp.transform(X[tr]), y[tr]).score(imp.transform(X[te]), y[te]))
        """,
        [],
    ),
    "an imputer on every row, then test positions by random.sample and the rest by np.setdiff1d": (
        _SONAR
        + """
        X = SimpleImputer().fit_transform(X)
        te = random.sample(range(len(X)), k=40)
        tr = np.setdiff1d(np.arange(len(X)), te)
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler on every row, then every position drawn by random.sample (a shuffle) and sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = random.sample(range(len(X)), len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "every position drawn by random.sample (a shuffle) and sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = random.sample(range(len(X)), len(X))
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    # the rest of numpy's drawn sample written as a comprehension was read as every row: a false overlap
    "test positions by np.random.choice, the rest by a comprehension": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        tr = [i for i in range(len(X)) if i not in te]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [],
    ),
    "a model trained on every row, scored on positions random.sample drew": (
        _SONAR
        + """
        te = random.sample(range(len(X)), 40)
        m = LogisticRegression().fit(X, y)
        print(m.score(X[te], y[te]))
        """,
        [("overlap", 4)],
    ),
}


@pytest.mark.parametrize("body, expected", STDLIB_RANDOM.values(), ids=STDLIB_RANDOM.keys())
def test_positions_drawn_by_pythons_random_module(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


# 2. Rows kept by a threshold learned from every row, before the split --------------------------------------------
def _houses(kept: str) -> str:
    """Houses kept by ``kept`` (line 2), split at random, a model trained and scored."""
    return f"""
        df = pd.read_csv("houses.csv")
        {kept}
        train, test = train_test_split(df, random_state=0)
        m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
        print(m.score(test[["area", "rooms"]], test["price"]))
        """


LEARNED_THRESHOLDS = {
    "a quantile": "df = df[df.price < df.price.quantile(0.99)]",
    "a quantile named first": 'q = df["price"].quantile(0.99); df = df[df["price"] < q]',
    "the mean and three deviations": "df = df[df.price < df.price.mean() + 3 * df.price.std()]",
    "a quantile by .loc": "df = df.loc[df.price < df.price.quantile(0.99)]",
    "np.percentile": "df = df[df.price < np.percentile(df.price, 99)]",
    "between two quantiles": "df = df[df.price.between(df.price.quantile(0.01), df.price.quantile(0.99))]",
    "the rows above a quantile dropped": "df = df.drop(df[df.price > df.price.quantile(0.99)].index)",
    "the rows above a quantile dropped in place": "df.drop(df[df.price > df.price.quantile(0.99)].index, inplace=True)",
    "the interquartile range": (
        "q1, q3 = df.price.quantile(0.25), df.price.quantile(0.75); iqr = q3 - q1; "
        "df = df[(df.price >= q1 - 1.5 * iqr) & (df.price <= q3 + 1.5 * iqr)]"
    ),
}


@pytest.mark.parametrize("kept", LEARNED_THRESHOLDS.values(), ids=LEARNED_THRESHOLDS.keys())
def test_rows_kept_by_a_threshold_learned_from_every_row_before_the_split(tmp_path: Path, kept: str) -> None:
    # as outliers taken out by a z-score of every row: the test rows helped choose which rows are kept
    assert leaks_found(tmp_path, HEAD, _houses(kept)) == [("preprocessing", 2)]


def test_rows_kept_by_a_learned_threshold_before_a_cross_validation(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("houses.csv")
    df = df[df.price < df.price.quantile(0.99)]
    print(cross_val_score(LinearRegression(), df[["area", "rooms"]], df["price"], cv=5).mean())
    """
    assert leaks_found(tmp_path, HEAD, body) == [("preprocessing", 2)]


THRESHOLDS_THAT_CHOOSE_NO_TEST_ROW: dict[str, str] = {
    "a threshold written out": _houses("df = df[df.price < 1000]"),
    "the quantile of the training part, applied to both parts": """
        df = pd.read_csv("houses.csv")
        train, test = train_test_split(df, random_state=0)
        q = train.price.quantile(0.99)
        train, test = train[train.price < q], test[test.price < q]
        m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
        print(m.score(test[["area", "rooms"]], test["price"]))
        """,
    "the training part's outliers taken out by a function of the file": """
        def clip(d):
            return d[d.price < d.price.quantile(0.99)]
        df = pd.read_csv("houses.csv")
        train, test = train_test_split(df, random_state=0)
        train = clip(train)
        m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
        print(m.score(test[["area", "rooms"]], test["price"]))
        """,
    "a cut at a quantile, one side trained on and the other scored": """
        df = pd.read_csv("houses.csv")
        q = df.area.quantile(0.8)
        train, test = df[df.area <= q], df[df.area > q]
        m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
        print(m.score(test[["area", "rooms"]], test["price"]))
        """,
    "the rows past a quantile held out, the rest dropped from them": """
        df = pd.read_csv("houses.csv")
        test = df[df.area > df.area.quantile(0.8)]
        train = df.drop(test.index)
        m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
        print(m.score(test[["area", "rooms"]], test["price"]))
        """,
    "a label made by cutting at the median, no row taken out": """
        df = pd.read_csv("houses.csv")
        df["expensive"] = (df.price > df.price.median()).astype(int)
        train, test = train_test_split(df, random_state=0)
        m = LogisticRegression().fit(train[["area", "rooms"]], train["expensive"])
        print(m.score(test[["area", "rooms"]], test["expensive"]))
        """,
    # was read as the last date learned from every row (CDL001)
    "a cut-off at the last date less 30 days": """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        cutoff = df.date.max() - pd.Timedelta(days=30)
        train, test = df[df.date <= cutoff], df[df.date > cutoff]
        m = LinearRegression().fit(train[["price", "promo"]], train["units"])
        print(m.score(test[["price", "promo"]], test["units"]))
        """,
    # the window's start depends on the test rows only through the last date: no row chosen by its values
    "the last year of rows kept, then split at random": """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        df = df[df.date > df.date.max() - pd.Timedelta("365D")]
        train, test = train_test_split(df, random_state=0)
        m = LinearRegression().fit(train[["price", "promo"]], train["units"])
        print(m.score(test[["price", "promo"]], test["units"]))
        """,
}


@pytest.mark.parametrize("body", THRESHOLDS_THAT_CHOOSE_NO_TEST_ROW.values(), ids=THRESHOLDS_THAT_CHOOSE_NO_TEST_ROW)
def test_thresholds_that_choose_no_test_row_are_clean(tmp_path: Path, body: str) -> None:
    assert leaks_found(tmp_path, HEAD, body) == []


# 3. The rest of a sample taken by its labels after they were numbered anew -----------------------------------------
def _sampled(*parts: str) -> str:
    """Houses sampled into a training part and the rest (``parts``, lines 2-4), a model trained and scored."""
    lines = "\n".join(parts + ("pass",) * (3 - len(parts)))
    return (
        'df = pd.read_csv("houses.csv")\n'
        + lines
        + """
m = LinearRegression().fit(train[["area", "rooms"]], train["price"])
print(m.score(test[["area", "rooms"]], test["price"]))
"""
    )


RENUMBERED_BEFORE_THE_REST = {
    "reset_index before drop": (
        "train = df.sample(frac=0.8, random_state=0).reset_index(drop=True)",
        "test = df.drop(train.index)",
    ),
    "reset_index in place before drop": (
        "train = df.sample(frac=0.8, random_state=0)",
        "train.reset_index(drop=True, inplace=True)",
        "test = df.drop(train.index)",
    ),
    "ignore_index before a negated isin": (
        "train = df.sample(frac=0.8, random_state=0, ignore_index=True)",
        "test = df[~df.index.isin(train.index)]",
    ),
}


@pytest.mark.parametrize("parts", RENUMBERED_BEFORE_THE_REST.values(), ids=RENUMBERED_BEFORE_THE_REST.keys())
def test_the_rest_taken_by_labels_numbered_anew_holds_training_rows(tmp_path: Path, parts: tuple[str, ...]) -> None:
    # the labels taken out are 0..n-1: the first rows of df, not the sample, so most of the sample is scored
    assert leaks_found(tmp_path, HEAD, _sampled(*parts)) == [("overlap", 5)]


RENUMBERED_AFTER_THE_REST = {
    "reset_index after drop": (
        "train = df.sample(frac=0.8, random_state=0)",
        "test = df.drop(train.index).reset_index(drop=True)",
        "train = train.reset_index(drop=True)",
    ),
    "both reset together after drop": (
        "train = df.sample(frac=0.8, random_state=0)",
        "test = df.drop(train.index)",
        "train, test = train.reset_index(drop=True), test.reset_index(drop=True)",
    ),
    "the table shuffled and numbered anew before the sample": (
        "df = df.sample(frac=1, random_state=0).reset_index(drop=True)",
        "train = df.sample(frac=0.8, random_state=0)",
        "test = df.drop(train.index)",
    ),
    "rows filtered and numbered anew before the sample": (
        "df = df[df.price > 0].reset_index(drop=True)",
        "train = df.sample(frac=0.8, random_state=0)",
        "test = df[~df.index.isin(train.index)]",
    ),
}


@pytest.mark.parametrize("parts", RENUMBERED_AFTER_THE_REST.values(), ids=RENUMBERED_AFTER_THE_REST.keys())
def test_labels_numbered_anew_after_the_rest_is_taken_are_clean(tmp_path: Path, parts: tuple[str, ...]) -> None:
    assert leaks_found(tmp_path, HEAD, _sampled(*parts)) == []


# 4. Values filled from later rows in place, by assign, or before a time-series cross-validation -------------------
# Readings of a sensor sorted by time, a column filled (line 2), cut at a date or by position, the later part scored.
SENSOR = """
df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
{fill}
{cut}
m = Ridge().fit(train[["temp", "pressure"]], train["load"])
print(m.score(test[["temp", "pressure"]], test["load"]))
"""
CUTS = {
    "date": 'train = df[df.ts < "2024-01-01"]; test = df[df.ts >= "2024-01-01"]',
    "position": "train, test = df.iloc[:800], df.iloc[800:]",
}

FILLED_FROM_LATER_ROWS = {
    "a column's bfill in place": 'df["temp"].bfill(inplace=True)',
    "an attribute column's bfill in place": "df.pressure.bfill(inplace=True)",
    "a column's fillna(method='bfill') in place": 'df["temp"].fillna(method="bfill", inplace=True)',
    "a column's interpolate in place": 'df["temp"].interpolate(inplace=True)',
    "the table's fillna(method='bfill') in place": 'df.fillna(method="bfill", inplace=True)',
    "a bfill given to assign": "df = df.assign(temp=df.temp.bfill())",
    "an interpolation given to assign": 'df = df.assign(pressure=df["pressure"].interpolate())',
    "a lambda given to assign": "df = df.assign(temp=lambda d: d.temp.bfill())",
}


@pytest.mark.parametrize("cut", CUTS.values(), ids=CUTS.keys())
@pytest.mark.parametrize("fill", FILLED_FROM_LATER_ROWS.values(), ids=FILLED_FROM_LATER_ROWS.keys())
def test_values_filled_from_later_rows_in_place_or_by_assign_reach_training(
    tmp_path: Path, fill: str, cut: str
) -> None:
    assert leaks_found(tmp_path, HEAD, SENSOR.format(fill=fill, cut=cut)) == [("overlap", 2)]


FILLED_FROM_EARLIER_ROWS = {
    "a column's ffill in place": 'df["temp"].ffill(inplace=True)',
    "an attribute column's fillna(method='ffill') in place": 'df.pressure.fillna(method="ffill", inplace=True)',
    "the table's ffill in place": "df.ffill(inplace=True)",
    "a ffill given to assign": "df = df.assign(temp=df.temp.ffill())",
    "a lag given to assign": "df = df.assign(temp=df.temp.shift(1))",
}


@pytest.mark.parametrize("cut", CUTS.values(), ids=CUTS.keys())
@pytest.mark.parametrize("fill", FILLED_FROM_EARLIER_ROWS.values(), ids=FILLED_FROM_EARLIER_ROWS.keys())
def test_values_filled_from_earlier_rows_in_place_or_by_assign_are_clean(tmp_path: Path, fill: str, cut: str) -> None:
    assert leaks_found(tmp_path, HEAD, SENSOR.format(fill=fill, cut=cut)) == []


def test_a_bfill_in_place_within_each_part_after_the_cut_is_clean(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    train, test = df.iloc[:800].copy(), df.iloc[800:].copy()
    train["temp"].bfill(inplace=True); test["temp"].bfill(inplace=True)
    m = Ridge().fit(train[["temp", "pressure"]], train["load"])
    print(m.score(test[["temp", "pressure"]], test["load"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


def test_a_column_filled_in_place_with_its_mean_over_every_row_is_found(tmp_path: Path) -> None:
    # the column changed in place is the table's column: as df["age"] = df["age"].fillna(df["age"].mean())
    body = """
    df = pd.read_csv("titanic.csv")
    df["age"].fillna(df["age"].mean(), inplace=True)
    train, test = train_test_split(df, random_state=0)
    m = LogisticRegression().fit(train[["age", "fare"]], train["survived"])
    print(m.score(test[["age", "fare"]], test["survived"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == [("preprocessing", 2)]


def test_a_column_filled_in_place_with_the_training_mean_is_clean(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("titanic.csv")
    train, test = train_test_split(df, random_state=0)
    mean_age = train["age"].mean()
    train["age"].fillna(mean_age, inplace=True); test["age"].fillna(mean_age, inplace=True)
    m = LogisticRegression().fit(train[["age", "fare"]], train["survived"])
    print(m.score(test[["age", "fare"]], test["survived"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


# Readings filled (line 2), then cross-validated by folds that keep time order (line 4).
FOLDS_IN_TIME = """
df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
{fill}
X, y = df[["temp", "pressure"]], df["load"]
print(cross_val_score(Ridge(), X, y, cv={cv}).mean())
"""


@pytest.mark.parametrize("fill", FILLED_FROM_LATER_ROWS.values(), ids=FILLED_FROM_LATER_ROWS.keys())
def test_values_filled_from_later_rows_before_a_time_series_cross_validation_reach_training(
    tmp_path: Path, fill: str
) -> None:
    body = FOLDS_IN_TIME.format(fill=fill, cv="TimeSeriesSplit(n_splits=5)")
    assert leaks_found(tmp_path, HEAD, body) == [("overlap", 2)]


def test_a_centred_window_before_a_named_time_series_splitter_reaches_training(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    df["temp_smooth"] = df["temp"].rolling(5, center=True).mean()
    tscv = TimeSeriesSplit(n_splits=5)
    print(cross_val_score(Ridge(), df[["temp_smooth", "pressure"]], df["load"], cv=tscv).mean())
    """
    assert leaks_found(tmp_path, HEAD, body) == [("overlap", 2)]


def test_a_covariate_known_in_advance_before_a_time_series_cross_validation_is_clean(tmp_path: Path) -> None:
    # next week's promotion is planned ahead: a lead of it, shift(-1), is a fair feature of each fold
    body = """
    df = pd.read_csv("weekly.csv", parse_dates=["week"]).sort_values("week")
    df["promo_next_week"] = df["promo"].shift(-1).fillna(0)
    X, y = df[["promo", "promo_next_week"]], df["units"]
    print(cross_val_score(Ridge(), X, y, cv=TimeSeriesSplit(n_splits=5)).mean())
    """
    assert leaks_found(tmp_path, HEAD, body) == []


@pytest.mark.parametrize("fill", FILLED_FROM_EARLIER_ROWS.values(), ids=FILLED_FROM_EARLIER_ROWS.keys())
def test_values_filled_from_earlier_rows_before_a_time_series_cross_validation_are_clean(
    tmp_path: Path, fill: str
) -> None:
    assert leaks_found(tmp_path, HEAD, FOLDS_IN_TIME.format(fill=fill, cv="TimeSeriesSplit(n_splits=5)")) == []


def test_a_bfill_before_a_cross_validation_that_does_not_keep_time_order_is_not_read_as_a_cut_in_time(
    tmp_path: Path,
) -> None:
    # as a bfill before a shuffled split: the folds are not cut in time (their own order is another finding's)
    assert leaks_found(tmp_path, HEAD, FOLDS_IN_TIME.format(fill='df["temp"].bfill(inplace=True)', cv="5")) == []


def test_a_target_taken_from_the_next_row_before_a_time_series_cross_validation_is_clean(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    df["next_load"] = df["load"].shift(-1)
    df = df.dropna()
    print(cross_val_score(Ridge(), df[["temp", "load"]], df["next_load"], cv=TimeSeriesSplit(5)).mean())
    """
    assert leaks_found(tmp_path, HEAD, body) == []


def test_values_filled_from_later_rows_within_each_time_series_fold_are_clean(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    X, y = df[["temp", "pressure"]], df["load"]
    for tr, te in TimeSeriesSplit(n_splits=5).split(X):
        X_tr, X_te = X.iloc[tr].bfill(), X.iloc[te].bfill()
        m = Ridge().fit(X_tr, y.iloc[tr])
        print(m.score(X_te, y.iloc[te]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []
