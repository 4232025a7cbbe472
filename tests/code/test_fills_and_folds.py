"""Values filled from later rows before a cut in time (bfill, interpolate, shift(-k), a centred window, a forward
`merge_asof`): the last training rows hold the first test rows' values. Beside it, correct code that looks like
it: a fill from earlier rows (ffill, shift(1), a backward `merge_asof`), a fill within each part after the cut.
Each case is a script and the leaks it holds (kind and line), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
"""

# Readings of a sensor, sorted by time, a column filled, cut at a date, a model scored on the later part.
SENSOR = """
df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
{fill}
train = df[df.ts < "2024-01-01"]; test = df[df.ts >= "2024-01-01"]
m = Ridge().fit(train[["temp", "pressure"]], train["load"])
print(m.score(test[["temp", "pressure"]], test["load"]))
"""

# The same readings cut by position (the first 800 rows trained on).
SLICED = """
df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
{fill}
train, test = df.iloc[:800], df.iloc[800:]
m = Ridge().fit(train[["temp"]], train["load"])
print(m.score(test[["temp"]], test["load"]))
"""

FILLED_FROM_LATER = {
    "bfill": 'df["pressure"] = df["pressure"].bfill()',
    "interpolate": 'df["temp"] = df["temp"].interpolate()',
    "fillna_bfill": 'df = df.fillna(method="bfill")',
    "backfill": 'df["temp"] = df["temp"].backfill()',
    "shift_back": 'df["temp"] = df["temp"].shift(-1)',
    "centred_window": 'df["temp"] = df["temp"].rolling(3, center=True).mean()',
    "fillna_of_next": 'df["temp"] = df["temp"].fillna(df["temp"].shift(-1))',
    "combine_first_of_bfill": 'df["temp"] = df["temp"].combine_first(df["temp"].bfill())',
    "where_else_next": 'df["temp"] = df["temp"].where(df["temp"] > 0, df["temp"].shift(-1))',
    "group_lambda_bfill": 'df["temp"] = df.groupby("site")["temp"].transform(lambda s: s.bfill())',
    "group_lambda_interpolate": 'df["temp"] = df.groupby("site")["temp"].transform(lambda s: s.interpolate())',
    "merge_asof_forward": 'df = pd.merge_asof(df, pd.read_csv("grid.csv"), on="ts", direction="forward")',
    "merge_asof_nearest": 'df = pd.merge_asof(df, pd.read_csv("grid.csv"), on="ts", direction="nearest")',
    "reversed_trailing_window": 'df["temp"] = df["temp"][::-1].rolling(3, min_periods=1).mean()[::-1]',
    "reversed_running_max": 'df["temp"] = df["temp"][::-1].cummax()[::-1]',
}


@pytest.mark.parametrize("fill", FILLED_FROM_LATER.values(), ids=FILLED_FROM_LATER.keys())
def test_values_from_later_rows_before_a_date_cut_reach_training(tmp_path: Path, fill: str) -> None:
    assert leaks_found(tmp_path, HEAD, SENSOR.format(fill=fill)) == [("overlap", 2)]


def test_values_from_later_rows_before_a_positional_cut_reach_training(tmp_path: Path) -> None:
    assert leaks_found(tmp_path, HEAD, SLICED.format(fill='df["temp"] = df["temp"].bfill()')) == [("overlap", 2)]


FILLED_FROM_EARLIER = {
    "ffill": 'df["temp"] = df["temp"].ffill()',
    "fillna_ffill": 'df = df.fillna(method="ffill")',
    "interpolate_pad": 'df["temp"] = df["temp"].interpolate(method="pad")',
    "lag": 'df["temp"] = df["temp"].shift(1)',
    "trailing_window": 'df["temp"] = df["temp"].rolling(3).mean()',
    "fillna_of_previous": 'df["temp"] = df["temp"].fillna(df["temp"].shift(1))',
    "where_else_previous": 'df["temp"] = df["temp"].where(df["temp"] > 0, df["temp"].ffill())',
    "group_lambda_ffill": 'df["temp"] = df.groupby("site")["temp"].transform(lambda s: s.ffill())',
    "merge_asof_backward": 'df = pd.merge_asof(df, pd.read_csv("grid.csv"), on="ts")',
    "reversed_twice_then_window": 'df["temp"] = df["temp"][::-1][::-1].rolling(3).mean()',
}


@pytest.mark.parametrize("fill", FILLED_FROM_EARLIER.values(), ids=FILLED_FROM_EARLIER.keys())
def test_values_from_earlier_rows_before_a_cut_are_clean(tmp_path: Path, fill: str) -> None:
    assert leaks_found(tmp_path, HEAD, SENSOR.format(fill=fill)) == []
    assert leaks_found(tmp_path, HEAD, SLICED.format(fill=fill)) == []


def test_values_filled_within_each_part_after_the_cut_are_clean(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    train = df[df.ts < "2024-01-01"].copy(); test = df[df.ts >= "2024-01-01"].copy()
    train["pressure"] = train["pressure"].bfill(); test["pressure"] = test["pressure"].bfill()
    train["temp"] = train["temp"].interpolate(); test["temp"] = test["temp"].interpolate()
    m = Ridge().fit(train[["temp", "pressure"]], train["load"])
    print(m.score(test[["temp", "pressure"]], test["load"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


def test_a_shuffled_split_after_a_bfill_is_not_read_as_a_cut_in_time(tmp_path: Path) -> None:
    # rows that are not ordered in time, shuffled: a neighbour's value is not the test period's
    body = """
    df = pd.read_csv("survey.csv")
    df["income"] = df["income"].bfill()
    train, test = train_test_split(df, random_state=0)
    m = Ridge().fit(train[["income"]], train["spend"])
    print(m.score(test[["income"]], test["spend"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


def test_a_target_taken_from_the_next_row_before_a_cut_is_clean(tmp_path: Path) -> None:
    # a forecast of tomorrow's load: the label is meant to be the next row's value; the features are today's
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    df["next_load"] = df["load"].shift(-1)
    df["load_lag1"] = df["load"].shift(1)
    df = df.dropna()
    train, test = df.iloc[:800], df.iloc[800:]
    m = Ridge().fit(train[["temp", "load_lag1"]], train["next_load"])
    print(m.score(test[["temp", "load_lag1"]], test["next_load"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


@pytest.mark.parametrize(
    ("from_index", "feature", "found"),
    [
        # the weekday read from the index after a next-day target is stored: the labels hold no column's values
        ('df["dow"] = df.index.dayofweek', "dow", []),
        ('df["month"] = df.index.month', "month", []),
        # a feature filled from later rows beside it still is one
        ('df["dow"] = df.index.dayofweek; df["temp"] = df["temp"].bfill()', "dow", [("overlap", 3)]),
    ],
)
def test_a_feature_read_from_the_index_holds_no_target_taken_from_the_next_row(
    tmp_path: Path, from_index: str, feature: str, found: list[tuple[str, int]]
) -> None:
    body = f"""
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts").set_index("ts")
    df["next_load"] = df["load"].shift(-1)
    {from_index}
    df = df.dropna()
    train, test = df.iloc[:800], df.iloc[800:]
    m = Ridge().fit(train[["temp", "{feature}"]], train["next_load"])
    print(m.score(test[["temp", "{feature}"]], test["next_load"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == found


def test_a_feature_computed_from_a_column_filled_from_later_rows_reaches_training(tmp_path: Path) -> None:
    body = """
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    df["temp"] = df["temp"].bfill()
    df["temp_f"] = df["temp"] * 1.8 + 32
    train, test = df.iloc[:800], df.iloc[800:]
    m = Ridge().fit(train[["temp_f"]], train["load"])
    print(m.score(test[["temp_f"]], test["load"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == [("overlap", 2)]


# A k-fold written by hand: np.array_split of shuffled positions, each piece held out in turn by its number.
FOLDS_HEAD = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.preprocessing import StandardScaler
"""

KFOLD = """
data = np.loadtxt("sonar.csv", delimiter=",")
X, y = data[:, :-1], data[:, -1]
{before}
idx = np.random.default_rng(0).permutation(len(X))
folds = np.array_split(idx, 5)
accs = []
for i in range(5):
    test_idx = folds[i]
    train_idx = np.concatenate([folds[j] for j in range(5) if {keep}])
    {inside}
    clf = LogisticRegression().fit(X_tr, y[train_idx])
    accs.append(accuracy_score(y[test_idx], clf.predict(X_te)))
print(np.mean(accs))
"""

SCALED_OUTSIDE = {
    "before": "X = StandardScaler().fit_transform(X)",
    "inside": "X_tr, X_te = X[train_idx], X[test_idx]",
}
SCALED_INSIDE = {
    "before": "",
    "inside": "sc = StandardScaler().fit(X[train_idx]); X_tr, X_te = sc.transform(X[train_idx]), "
    "sc.transform(X[test_idx])",
}


def test_a_scaler_fitted_before_a_hand_written_kfold_over_numbered_pieces_is_found(tmp_path: Path) -> None:
    body = KFOLD.format(keep="j != i", **SCALED_OUTSIDE)
    assert leaks_found(tmp_path, FOLDS_HEAD, body) == [("preprocessing", 3)]


def test_a_scaler_fitted_within_each_hand_written_fold_is_clean(tmp_path: Path) -> None:
    assert leaks_found(tmp_path, FOLDS_HEAD, KFOLD.format(keep="j != i", **SCALED_INSIDE)) == []
    assert leaks_found(tmp_path, FOLDS_HEAD, KFOLD.format(keep="i != j", **SCALED_INSIDE)) == []


def test_a_hand_written_fold_that_keeps_its_test_piece_in_training_is_found(tmp_path: Path) -> None:
    # every piece joined, the held-out one too: the model is trained on the rows it is scored on
    leaks = leaks_found(tmp_path, FOLDS_HEAD, KFOLD.format(keep="j == j", **SCALED_INSIDE))
    assert ("overlap", 11) in leaks


@pytest.mark.parametrize(
    ("joined", "feats", "found"),
    [
        # the next day's direction, named and joined beside today's features: a label, not a feature
        ('X.join(y_next.rename("y"))', ["mom"], []),
        ('pd.concat([X, y_next.rename("y")], axis=1)', ["mom"], []),
        ('pd.concat([X, y_next.to_frame("y")], axis=1)', ["mom"], []),
        # a feature filled from later rows, named and joined: still a feature that holds later values
        ('X.join(y_next.rename("y")).join(df["temp"].bfill().rename("temp_f"))', ["mom", "temp_f"], [("overlap", 4)]),
    ],
)
def test_a_target_taken_from_the_next_row_joined_by_name_is_no_feature(
    tmp_path: Path, joined: str, feats: list[str], found: list[tuple[str, int]]
) -> None:
    body = f"""
    df = pd.read_csv("sensor.csv", index_col="ts", parse_dates=True).sort_index()
    y_next = (df["load"].shift(-1) > df["load"]).astype(int)
    X = pd.DataFrame({{"mom": df["load"] / df["load"].shift(24) - 1}})
    data = {joined}.dropna()
    train, test = data[data.index < "2024-01-01"], data[data.index >= "2024-01-01"]
    m = Ridge().fit(train[{feats}], train["y"])
    print(m.score(test[{feats}], test["y"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == found


@pytest.mark.parametrize(
    ("step", "found"),
    [
        # a list of columns clipped in place beside a next-row target: the target's later values stay its own
        ('df[["ret"]] = df[["ret"]].clip(-0.1, 0.1)', []),
        # a list of columns filled from later rows in place: those columns hold later values
        ('df[["ret"]] = df[["ret"]].bfill()', [("overlap", 4)]),
    ],
)
def test_a_list_of_columns_taken_beside_a_next_row_target(
    tmp_path: Path, step: str, found: list[tuple[str, int]]
) -> None:
    body = f"""
    df = pd.read_csv("px.csv", parse_dates=["date"]).sort_values("date")
    df["ret"] = df["close"].pct_change()
    df["target"] = df["close"].pct_change().shift(-1)
    {step}
    train, test = df[df["date"] < "2021-01-01"], df[df["date"] >= "2021-01-01"]
    model = Ridge().fit(train[["ret"]].fillna(0), train["target"].fillna(0))
    print(model.score(test[["ret"]].fillna(0), test["target"].fillna(0)))
    """
    assert leaks_found(tmp_path, HEAD, body) == found


PURGED_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

df = pd.read_csv("bars.csv")
X, y = df[["f1", "f2"]].to_numpy(), df["label"].to_numpy()
n = len(df)
gap = int(0.01 * n)
shift = int(df["lag"].min())
"""


@pytest.mark.parametrize(
    ("train_idx", "found"),
    [
        # the positions around the test block, joined: a purged fold's training part
        ("np.concatenate([np.arange(0, a - 10), np.arange(b + 10, n)])", []),
        ("np.hstack([np.arange(0, a), np.arange(b, n)])", []),
        ("np.r_[0:a, b:n]", []),
        # each end clamped to the table: no row outside the unclamped ranges
        ("np.concatenate([np.arange(0, max(a - 10, 0)), np.arange(min(b + 10, n), n)])", []),
        # an embargo or a purge held in a name that is never negative (a share of the rows' count)
        ("np.concatenate([np.arange(0, max(a - gap, 0)), np.arange(min(b + gap, n), n)])", []),
        ("np.r_[0:a - gap, b + gap:n]", []),
        # one never negative taken the other way: the ranges reach into the test block
        ("np.r_[0:a + gap, b:n]", [("overlap", 6)]),
        ("np.r_[0:a, b - gap:n]", [("overlap", 6)]),
        ("np.r_[0:a, b + shift:n]", [("overlap", 6)]),
        # ranges that reach into the test block
        ("np.concatenate([np.arange(0, a + 10), np.arange(b, n)])", [("overlap", 6)]),
        ("np.r_[0:a, b - 10:n]", [("overlap", 6)]),
        ("np.concatenate([np.arange(0, max(a + 10, 0)), np.arange(min(b + 10, n), n)])", [("overlap", 6)]),
    ],
)
def test_training_positions_joined_from_ranges_around_the_test_block(
    tmp_path: Path, train_idx: str, found: list[tuple[str, int]]
) -> None:
    body = f"""
    scores = []
    for k in range(5):
        a, b = k * n // 5, (k + 1) * n // 5
        test_idx = np.arange(a, b)
        train_idx = {train_idx}
        clf = LogisticRegression().fit(X[train_idx], y[train_idx])
        scores.append(roc_auc_score(y[test_idx], clf.predict_proba(X[test_idx])[:, 1]))
    print(np.mean(scores))
    """
    assert leaks_found(tmp_path, PURGED_HEAD, body) == found


@pytest.mark.parametrize(
    ("joined", "expected"),
    [
        ('later = grid[["ts", "price"]].rename(columns={"price": "price_later"})', []),
        ('later = grid[["ts", "price", "temp_later"]].rename(columns={"price": "price_later"})', [("overlap", 4)]),
    ],
    ids=["the later column only the label's source", "LEAK: a later column among the features"],
)
def test_a_forward_merge_asof_marks_the_columns_it_joins(
    tmp_path: Path, joined: str, expected: list[tuple[str, int]]
) -> None:
    """Only the right table's columns come from later rows: one that builds the label is no feature."""
    body = f"""
    df = pd.read_csv("sensor.csv", parse_dates=["ts"]).sort_values("ts")
    grid = pd.read_csv("grid.csv", parse_dates=["ts"]).sort_values("ts")
    {joined}
    df = pd.merge_asof(df, later, on="ts", direction="forward")
    df["rise"] = df["price_later"] - df["load"]
    train, test = df[df.ts < "2024-01-01"], df[df.ts >= "2024-01-01"]
    feats = ["temp", "pressure"] + (["temp_later"] if "temp_later" in df else [])
    m = Ridge().fit(train[feats], train["rise"])
    print(m.score(test[feats], test["rise"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_a_next_row_label_beside_a_feature_list_the_reading_cannot_name_is_clean(tmp_path: Path) -> None:
    """y = r.shift(-1) is the target: a list of features read from a file may name anything, but were it to hold
    the label that would be the label among the features, not values from later rows."""
    body = """
    import json
    df = pd.read_csv("fx.csv", parse_dates=["ts"])
    df["r"] = df["close"].pct_change()
    df["y"] = df["r"].shift(-1)
    df = df.dropna()
    feats = json.load(open("features.json"))
    train, test = df[df.ts < "2020-01-01"], df[df.ts >= "2020-01-01"]
    m = Ridge().fit(train[feats], train["y"])
    print(m.score(test[feats], test["y"]))
    """
    assert leaks_found(tmp_path, HEAD, body) == []


# Daily sales per store, the label H days ahead, a promotion known H days ahead as a feature, then a cut in time.
AHEAD = """
H = 7
df = pd.read_csv("sales.csv", parse_dates=["date"]).sort_values(["store", "date"])
g = df.groupby("store")
df["y"] = g["sales"].shift(-H)
df["promo_ahead"] = g["promo"].shift({lead})
df = df.dropna()
cut = pd.Timestamp("2024-06-01")
train = df[df["date"] {before}]
test = df[df["date"] >= cut]
m = Ridge().fit(train[["sales", "promo_ahead"]], train["y"])
print(m.score(test[["sales", "promo_ahead"]], test["y"]))
"""


@pytest.mark.parametrize(
    ("lead", "before", "expected"),
    [
        # training stops H days before the cut: a lead of H daily rows reads up to the cut, never past it
        ("-H", "< cut - pd.Timedelta(days=H)", []),
        ("-1", '< cut - pd.Timedelta("7D")', []),
        ("-2", "< cut - pd.Timedelta(weeks=2)", []),
        # no gap, or one shorter than the lead, or its last day held on both sides
        ("-H", "< cut", [("overlap", 5)]),
        ("-14", "< cut - pd.Timedelta(days=H)", [("overlap", 5)]),
        ("-H", "<= cut - pd.Timedelta(days=H)", [("overlap", 5)]),
        # a gap whose count no lead reads as rows (3 days against leads of 7 and 2 rows): how far apart the rows
        # are is not said, so weekly rows may reach past it
        ("-2", "< cut - pd.Timedelta(days=3)", [("overlap", 5)]),
    ],
)
def test_a_lead_within_the_gap_left_before_the_cut_is_clean(
    tmp_path: Path, lead: str, before: str, expected: list[tuple[str, int]]
) -> None:
    """`shift(-H)` of daily rows with training stopped `cut - pd.Timedelta(days=H)`: its last rows read up to the
    cut. The rows are taken as one unit of the span apart only where a lead counts as many rows as the span does
    units (the label's `shift(-H)` beside `days=H`)."""
    assert leaks_found(tmp_path, HEAD, AHEAD.format(lead=lead, before=before)) == expected


def test_a_lead_within_a_gap_left_on_the_test_side_is_clean(tmp_path: Path) -> None:
    """The gap may be left after the cut instead: training up to `cut`, the test from `cut + pd.Timedelta(days=H)`."""
    body = AHEAD.format(lead="-H", before="< cut").replace(
        'test = df[df["date"] >= cut]', 'test = df[df["date"] >= cut + pd.Timedelta(days=H)]'
    )
    assert leaks_found(tmp_path, HEAD, body) == []


@pytest.mark.parametrize(
    ("train_idx", "test_idx", "found"),
    [
        # one range written with np.r_, as np.arange(a, b) is, beside a slice or another range
        ("np.r_[0:900]", "900:", []),
        ("np.r_[:900]", "np.r_[900:1000]", []),
        ("np.r_[0:900]", "np.r_[800:1000]", [("overlap", 2)]),
        ("np.arange(0, 900)", "np.r_[800:1000]", [("overlap", 2)]),
    ],
)
def test_one_range_of_np_r_is_the_positions_of_its_slice(
    tmp_path: Path, train_idx: str, test_idx: str, found: list[tuple[str, int]]
) -> None:
    body = f"""
    tr = {train_idx}
    clf = LogisticRegression().fit(X[tr], y[tr])
    print(roc_auc_score(y[{test_idx}], clf.predict_proba(X[{test_idx}])[:, 1]))
    """
    assert leaks_found(tmp_path, PURGED_HEAD, body) == found
