"""A statistic per group computed over every row, then cross-validated or split by those same groups: each group's
statistic is of rows on one side only, so it is no leak, unless it is of the label or the split keys other groups."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    cross_val_predict,
    cross_val_score,
    train_test_split,
)
"""

_CV = """
        tx = pd.read_csv("card_tx.csv")
        tx["amt_vs_card"] = tx["amount"] / tx.groupby("card_id")["amount"].transform("mean")
        tx["card_n"] = tx.groupby(by="card_id")["amount"].transform("size")
        feats = ["amount", "amt_vs_card", "card_n"]
        print(cross_val_score(GradientBoostingClassifier(), tx[feats], tx["fraud"], groups={groups}, cv={cv}))
        """

_HELD_OUT = """
        tx = pd.read_csv("card_tx.csv")
        tx["card_mean"] = tx.groupby("card_id")["amount"].transform("mean")
        X, y = tx[["amount", "card_mean"]], tx["fraud"]
        train_idx, test_idx = next({splitter}.split(X, y, groups=tx["{key}"]))
        model = GradientBoostingClassifier().fit(X.iloc[train_idx], y.iloc[train_idx])
        print(model.score(X.iloc[test_idx], y.iloc[test_idx]))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "per-card statistics, GroupKFold by card": (_CV.format(groups='tx["card_id"]', cv="GroupKFold(5)"), []),
    "per-card statistics, GroupKFold by card as an attribute": (_CV.format(groups="tx.card_id", cv="GroupKFold()"), []),
    "per-card statistics, a group split by card, held out once": (
        _HELD_OUT.format(splitter="GroupShuffleSplit(test_size=0.2)", key="card_id"),
        [],
    ),
    "per-card statistics, the folds of GroupKFold's split() by card given as cv": (
        _CV.format(groups="None", cv='GroupKFold(5).split(tx, tx["fraud"], groups=tx["card_id"])'),
        [],
    ),
    "per-card statistics, a list of the folds of GroupKFold's split() by card given as cv": (
        _CV.format(groups="None", cv='list(GroupKFold(5).split(tx, tx["fraud"], groups=tx["card_id"]))'),
        [],
    ),
    "LEAK: per-card statistics, the folds of GroupKFold's split() by merchant given as cv": (
        _CV.format(groups="None", cv='GroupKFold(5).split(tx, tx["fraud"], groups=tx["merchant"])'),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "LEAK: per-card statistics, the folds of KFold's split() given as cv": (
        _CV.format(groups="None", cv="KFold(5, shuffle=True).split(tx)"),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "per-card-and-day statistics, GroupKFold by card (each card's days within its card)": (
        _CV.replace('groupby("card_id")', 'groupby(["card_id", "day"])').format(
            groups='tx["card_id"]', cv="GroupKFold(5)"
        ),
        [],
    ),
    "per-card statistics, out-of-fold predictions of GroupKFold by card, scored": (
        _CV.replace(
            'print(cross_val_score(GradientBoostingClassifier(), tx[feats], tx["fraud"], groups={groups}, cv={cv}))',
            'pred = cross_val_predict(GradientBoostingClassifier(), tx[feats], tx["fraud"], groups={groups}, cv={cv})'
            '\n        print(roc_auc_score(tx["fraud"], pred))',
        ).format(groups='tx["card_id"]', cv="GroupKFold(5)"),
        [],
    ),
    "LEAK: per-card statistics, out-of-fold predictions of KFold, scored": (
        _CV.replace(
            'print(cross_val_score(GradientBoostingClassifier(), tx[feats], tx["fraud"], groups={groups}, cv={cv}))',
            'pred = cross_val_predict(GradientBoostingClassifier(), tx[feats], tx["fraud"], groups={groups}, cv={cv})'
            '\n        print(roc_auc_score(tx["fraud"], pred))',
        ).format(groups="None", cv="KFold(5, shuffle=True)"),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "LEAK: per-day statistics, GroupKFold by card": (
        _CV.replace('groupby("card_id")', 'groupby("day")')
        .replace('groupby(by="card_id")', 'groupby(by="day")')
        .format(groups='tx["card_id"]', cv="GroupKFold(5)"),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "LEAK: per-card statistics, KFold": (
        _CV.format(groups="None", cv="KFold(5, shuffle=True)"),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "LEAK: per-card statistics, GroupKFold by merchant": (
        _CV.format(groups='tx["merchant"]', cv="GroupKFold(5)"),
        [("preprocessing", 2), ("preprocessing", 3)],
    ),
    "LEAK: per-card statistics, a group split by merchant": (
        _HELD_OUT.format(splitter="GroupShuffleSplit(test_size=0.2)", key="merchant"),
        [("preprocessing", 2)],
    ),
    "LEAK: each card's fraud rate, GroupKFold by card (the test rows' own labels in their feature)": (
        _CV.replace('["amount"].transform("mean")', '["fraud"].transform("mean")').format(
            groups='tx["card_id"]', cv="GroupKFold(5)"
        ),
        [("preprocessing", 2)],
    ),
    "LEAK: per-card statistics, a random split": (
        """
        tx = pd.read_csv("card_tx.csv")
        tx["card_mean"] = tx.groupby("card_id")["amount"].transform("mean")
        X_tr, X_te, y_tr, y_te = train_test_split(tx[["amount", "card_mean"]], tx["fraud"])
        print(GradientBoostingClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    **{
        f"per-subject z-scores of {how}, GroupKFold by subject": (
            f"""
        w = pd.read_csv("wearable.csv")
        cols = ["eda", "hr"]
        w[cols] = w.groupby("subject")[{chosen}].transform(lambda s: (s - s.mean()) / s.std())
        print(cross_val_score(GradientBoostingClassifier(), w[cols], w["stress"], groups=w["subject"], cv=GroupKFold()))
        """,
            [],
        )
        for how, chosen in (("a list of columns", '["eda", "hr"]'), ("a list held in a name", "cols"))
    },
    "LEAK: per-subject means of a list of columns with the label among them, GroupKFold by subject": (
        """
        w = pd.read_csv("wearable.csv")
        w[["eda_m", "stress_m"]] = w.groupby("subject")[["eda", "stress"]].transform("mean")
        feats = ["eda", "eda_m", "stress_m"]
        model = GradientBoostingClassifier()
        print(cross_val_score(model, w[feats], w["stress"], groups=w["subject"], cv=GroupKFold()))
        """,
        [("preprocessing", 2)],
    ),
    "LEAK: per-subject means of a list of columns, KFold": (
        """
        w = pd.read_csv("wearable.csv")
        w[["eda_m", "hr_m"]] = w.groupby("subject")[["eda", "hr"]].transform("mean")
        feats = ["eda", "eda_m", "hr_m"]
        print(cross_val_score(GradientBoostingClassifier(), w[feats], w["stress"], cv=KFold(5, shuffle=True)))
        """,
        [("preprocessing", 2)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_statistic_per_group_and_a_split_by_groups(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert [(kind, line) for kind, line in leaks_found(tmp_path, HEAD, body) if kind == "preprocessing"] == expected


_CUT = """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        df["share"] = df.groupby({key})[{column}].transform("mean")
        tr = df[{train}]
        te = df[{test}]
        model = GradientBoostingClassifier().fit(tr[["promo", "share"]], tr["y"])
        print(model.score(te[["promo", "share"]], te["y"]))
        """

_BEFORE = 'df["date"] < "2024-05-01"'
_AFTER = 'df["date"] >= "2024-05-01"'

CUTS: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a statistic per day, the rows cut at a date": (
        _CUT.format(key='"date"', column='"promo"', train=_BEFORE, test=_AFTER),
        [],
    ),
    "a statistic per store and day, the rows cut at a date": (
        _CUT.format(key='["store", "date"]', column='"promo"', train=_BEFORE, test=_AFTER),
        [],
    ),
    "a statistic per year, the rows cut at a year": (
        _CUT.format(key='"year"', column='"promo"', train="df.year < 2024", test="df.year == 2024"),
        [],
    ),
    "statistics per card aggregated and merged back, the rows cut by a function of the card": (
        """
        df = pd.read_csv("tx.csv")
        agg = df.groupby("card")["amount"].agg(["mean", "std"]).add_prefix("card_").reset_index()
        df = df.merge(agg, on="card", how="left")
        tr, te = df[df.card % 5 != 0], df[df.card % 5 == 0]
        model = GradientBoostingClassifier().fit(tr[["amount", "card_mean"]], tr["y"])
        print(model.score(te[["amount", "card_mean"]], te["y"]))
        """,
        [],
    ),
    "LEAK: statistics per card aggregated and merged back, the rows cut by another column": (
        """
        df = pd.read_csv("tx.csv")
        agg = df.groupby("card")["amount"].agg(["mean", "std"]).add_prefix("card_").reset_index()
        df = df.merge(agg, on="card", how="left")
        tr, te = df[df.day < 20], df[df.day >= 20]
        model = GradientBoostingClassifier().fit(tr[["amount", "card_mean"]], tr["y"])
        print(model.score(te[["amount", "card_mean"]], te["y"]))
        """,
        [("preprocessing", 2)],
    ),
    "a statistic per day, the rows cut by the year computed from the day": (
        """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        df["year"] = df["date"].dt.year
        df["day_temp"] = df.groupby("date")["temp"].transform("mean")
        tr, te = df[df.year < 2023], df[df.year >= 2023]
        model = GradientBoostingClassifier().fit(tr[["promo", "day_temp"]], tr["y"])
        print(model.score(te[["promo", "day_temp"]], te["y"]))
        """,
        [],
    ),
    "a day's statistic aggregated and merged back, the rows cut by the year computed from the day": (
        """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        daily = df.groupby("date")["temp"].agg(["mean"]).add_prefix("day_").reset_index()
        df = df.merge(daily, on="date")
        df["year"] = df["date"].dt.year
        tr, te = df[df.year < 2023], df[df.year >= 2023]
        model = GradientBoostingClassifier().fit(tr[["promo", "day_mean"]], tr["y"])
        print(model.score(te[["promo", "day_mean"]], te["y"]))
        """,
        [],
    ),
    "LEAK: a statistic per day, the rows cut by a column computed from the day and another column": (
        """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        df["period"] = df["date"].dt.year * 100 + df["store"]
        df["day_temp"] = df.groupby("date")["temp"].transform("mean")
        tr, te = df[df.period < 202300], df[df.period >= 202300]
        model = GradientBoostingClassifier().fit(tr[["promo", "day_temp"]], tr["y"])
        print(model.score(te[["promo", "day_temp"]], te["y"]))
        """,
        [("preprocessing", 3)],
    ),
    "LEAK: a statistic per store, the rows cut by the year computed from the day": (
        """
        df = pd.read_csv("sales.csv", parse_dates=["date"])
        df["year"] = df["date"].dt.year
        df["store_temp"] = df.groupby("store")["temp"].transform("mean")
        tr, te = df[df.year < 2023], df[df.year >= 2023]
        model = GradientBoostingClassifier().fit(tr[["promo", "store_temp"]], tr["y"])
        print(model.score(te[["promo", "store_temp"]], te["y"]))
        """,
        [("preprocessing", 3)],
    ),
    "LEAK: a statistic per store, the rows cut at a date": (
        _CUT.format(key='"store"', column='"promo"', train=_BEFORE, test=_AFTER),
        [("preprocessing", 2)],
    ),
    "LEAK: a statistic per day, the rows cut by another column": (
        _CUT.format(key='"date"', column='"promo"', train="df.week < 20", test="df.week >= 20"),
        [("preprocessing", 2)],
    ),
    "LEAK: a statistic of the label per day, the rows cut at a date": (
        _CUT.format(key='"date"', column='"y"', train=_BEFORE, test=_AFTER),
        [("preprocessing", 2)],
    ),
}


@pytest.mark.parametrize("name", CUTS)
def test_a_statistic_per_group_and_a_cut_by_the_groups_columns(tmp_path: Path, name: str) -> None:
    """A cut by a mask that reads only the group's columns keeps each group's rows on one side of it."""
    body, expected = CUTS[name]
    assert leaks_found(tmp_path, HEAD, body) == expected


_RATE = """
        df = pd.read_csv("policies.csv")
        {made}
        df["rate"] = df["agent"].map(rate)
        X, y = df[["premium", "rate"]], df["claim"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(GradientBoostingClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """

_TRAIN_RATE = """
        df = pd.read_csv("policies.csv")
        train, test = train_test_split(df, random_state=0)
        {made}
        for part in (train, test):
            part["rate"] = part["agent"].map(rate).fillna(0.0)
        model = GradientBoostingClassifier().fit(train[["premium", "rate"]], train["claim"])
        print(model.score(test[["premium", "rate"]], test["claim"]))
        """

_LOOP = """rate = {{}}
        for agent, book in {table}.groupby("agent"):
            rate[agent] = book["{column}"].mean()"""

RATES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: each agent's claim rate over every row, a loop over the groups": (
        _RATE.format(made=_LOOP.format(table="df", column="claim")),
        [("preprocessing", 4)],
    ),
    "LEAK: each agent's claim rate over every row, a dict comprehension over the groups": (
        _RATE.format(made='rate = {a: g["claim"].mean() for a, g in df.groupby("agent")}'),
        [("preprocessing", 2)],
    ),
    "LEAK: each agent's claim rate over every row, apply of a lambda to each group": (
        _RATE.format(made='rate = df.groupby("agent").apply(lambda g: g["claim"].mean())'),
        [("preprocessing", 2)],
    ),
    "LEAK: each agent's claim rate over every row, apply to each group's label": (
        _RATE.format(made='rate = df.groupby("agent")["claim"].apply(lambda s: s.mean())'),
        [("preprocessing", 2)],
    ),
    "LEAK: the claim rate over every row in a dict of one key": (
        _RATE.format(made='rate = {}\n        rate["all"] = df["claim"].mean()'),
        [("preprocessing", 3)],
    ),
    "each agent's claim rate over the training part, a loop over its groups": (
        _TRAIN_RATE.format(made=_LOOP.format(table="train", column="claim")),
        [],
    ),
    "each agent's claim rate over the training part, apply to each group": (
        _TRAIN_RATE.format(made='rate = train.groupby("agent").apply(lambda g: g["claim"].mean())'),
        [],
    ),
    "a dict of constants looked up by agent": (
        _RATE.format(made='rate = {"a1": 0.1, "a2": 0.3}'),
        [],
    ),
    "each agent's claim rate over every row, only printed": (
        """
        df = pd.read_csv("policies.csv")
        for agent, book in df.groupby("agent"):
            print(agent, book["claim"].mean())
        X_tr, X_te, y_tr, y_te = train_test_split(df[["premium"]], df["claim"], random_state=0)
        print(GradientBoostingClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "each card's mean amount over every row, a loop over the groups, folds by card": (
        """
        tx = pd.read_csv("card_tx.csv")
        mean = {}
        for card, rows in tx.groupby("card_id"):
            mean[card] = rows["amount"].mean()
        tx["card_mean"] = tx["card_id"].map(mean)
        X = tx[["amount", "card_mean"]]
        print(cross_val_score(GradientBoostingClassifier(), X, tx["fraud"], groups=tx["card_id"], cv=GroupKFold(5)))
        """,
        [],
    ),
}


@pytest.mark.parametrize("name", RATES)
def test_a_statistic_per_group_looked_up_by_key(tmp_path: Path, name: str) -> None:
    """A statistic of each group's rows (a loop over the groups, a comprehension, apply) looked up by the key."""
    body, expected = RATES[name]
    assert leaks_found(tmp_path, HEAD, body) == expected


_PATTERN = """
        df = pd.read_csv("ltr.csv")
        raw = [c for c in df.columns if c.startswith("{prefix}")]
        for c in raw:
            mean = df.groupby("qid")[c].transform("mean")
            df[c + "_qz"] = (df[c] - mean) / df.groupby("qid")[c].transform("std")
        {split}
        train, test = df.iloc[tr], df.iloc[te]
        feats = raw + [c + "_qz" for c in raw]
        m = GradientBoostingClassifier().fit(train[feats], train["grade"])
        print(roc_auc_score(test["grade"], m.predict_proba(test[feats])[:, 1]))
        """
_BY_QUERY = 'tr, te = next(GroupShuffleSplit(n_splits=1).split(df, groups=df["qid"]))'
_AT_RANDOM = "tr, te = train_test_split(range(len(df)), random_state=0)"


@pytest.mark.parametrize(
    ("prefix", "split", "expected"),
    [
        # per-query statistics of the columns a pattern keeps, none of them the label, split by query
        ("f_", _BY_QUERY, []),
        # the pattern keeps the label too ("grade"): its per-query mean is read from the test queries' labels
        ("g", _BY_QUERY, ["preprocessing"]),
        # split at random: a query's statistics are of rows on both sides
        ("f_", _AT_RANDOM, ["preprocessing"]),
    ],
)
def test_a_statistic_per_group_of_the_columns_a_pattern_keeps(
    tmp_path: Path, prefix: str, split: str, expected: list[str]
) -> None:
    found = leaks_found(tmp_path, HEAD, _PATTERN.format(prefix=prefix, split=split))
    assert sorted({kind for kind, _ in found}) == expected


@pytest.mark.parametrize(("cv", "expected"), [("GroupKFold(5)", []), ("KFold(5, shuffle=True)", ["preprocessing"])])
def test_a_statistic_per_group_of_many_columns_named_by_number(tmp_path: Path, cv: str, expected: list[str]) -> None:
    """Forty names made of a range's numbers are forty known columns, none of them the label: each speaker's own
    normalisation under a split by speaker reads no other speaker's rows."""
    body = f"""
        FEATURES = [f"mfcc_{{i}}" for i in range(40)]
        clips = pd.read_csv("clips.csv")
        clips[FEATURES] = clips.groupby("speaker_id")[FEATURES].transform(lambda s: (s - s.mean()) / s.std())
        m = GradientBoostingClassifier()
        print(cross_val_score(m, clips[FEATURES], clips["emotion"], groups=clips["speaker_id"], cv={cv}).mean())
        """
    assert sorted({kind for kind, _ in leaks_found(tmp_path, HEAD, body)}) == expected
