"""What a name or a conversion holds is read as written out: a span of time in a name moves the date it is added
to (`CUT + BUFFER` overlaps `>= CUT`; `CUT - GAP` leaves a gap); a mask converted to an array, `.to_numpy()`,
still cuts the rows it is applied to (a slice of the training part is then a slice of that part, not of the
file); a table transposed with `.T` keeps unknown columns, as `.transpose()` does, and what it reduces along its
first axis is each of the table's rows' own (`(X.T / X.T.sum()).T` scales each sample by its own total)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
"""

_STAYS = """
        icu = pd.read_parquet("icu.parquet")
        CUT = pd.Timestamp("2019-01-01")
        BUFFER = {span}
        train = icu[icu["intime"] < {end}]
        test = icu[icu["intime"] >= CUT]
        m = LogisticRegression().fit(train[["hr", "lactate"]], train["sepsis"])
        print(roc_auc_score(test["sepsis"], m.predict_proba(test[["hr", "lactate"]])[:, 1]))
        """

_CLIPS = """
        meta = pd.read_csv("clips.csv")
        feats = np.load("mfcc_stats.npy")
        is_test = (meta["split"] == "test").to_numpy()
        X_train, X_test = feats[~is_test], feats[is_test]
        y_train, y_test = meta["label"].to_numpy()[~is_test], meta["label"].to_numpy()[is_test]
        clf = LogisticRegression().fit({x}, {y})
        print(accuracy_score(y_test, clf.predict(X_test)))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    **{
        f"LEAK: the training end moved past the cut by a span held in a name ({how})": (
            _STAYS.format(span=span, end="CUT + BUFFER"),
            [("overlap", 6)],
        )
        for how, span in (
            ("Timedelta", "pd.Timedelta(days=30)"),
            ("DateOffset", "pd.DateOffset(days=30)"),
            ("a text", 'pd.to_timedelta("30D")'),
        )
    },
    "LEAK: the training end held in a name, moved by a span held in another": (
        _STAYS.format(span="pd.Timedelta(days=30)", end="TRAIN_END").replace(
            "        train =", "        TRAIN_END = CUT + BUFFER\n        train ="
        ),
        [("overlap", 7)],
    ),
    **{
        f"{'LEAK: ' if leak else ''}a test window between instants held in names, {how}": (
            f"""
        icu = pd.read_parquet("icu.parquet")
        CUT = pd.Timestamp("2019-01-01"); GAP = pd.Timedelta(days=7); END = pd.Timestamp("2019-06-01")
        train = icu[icu["intime"] <= CUT]
        test = icu[icu["intime"].between({start}, END)]
        m = LogisticRegression().fit(train[["hr", "lactate"]], train["sepsis"])
        print(roc_auc_score(test["sepsis"], m.predict_proba(test[["hr", "lactate"]])[:, 1]))
        """,
            [("overlap", 5)] if leak else [],
        )
        for how, start, leak in (
            ("starting a gap before the training end", "CUT - GAP", True),
            ("starting a gap after it", "CUT + GAP", False),
        )
    },
    "a gap held in a name before the cut": (_STAYS.format(span="pd.Timedelta(days=30)", end="CUT - BUFFER"), []),
    "a mask made an array, the training part sliced for a quick run": (
        _CLIPS.format(x="X_train[:5000]", y="y_train[:5000]"),
        [],
    ),
    "a mask made an array, the training part whole": (_CLIPS.format(x="X_train", y="y_train"), []),
    "LEAK: a mask made an array, then every row trained on": (
        _CLIPS.format(x="feats", y='meta["label"].to_numpy()'),
        [("overlap", 6)],
    ),
    **{
        f"LEAK: columns selected on every sample of a table transposed by {how}": (
            f"""
        expr = pd.read_csv("genes_by_samples.csv", index_col=0){how}
        y = pd.read_csv("labels.csv", index_col=0)["response"]
        genes = expr.columns[SelectKBest(f_classif, k=300).fit(expr, y).get_support()]
        X_tr, X_te, y_tr, y_te = train_test_split(expr[genes], y, test_size=0.3)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
            [("preprocessing", 3)],
        )
        for how in (".T", ".transpose()")
    },
    **{
        f"each sample scaled by its own {how} through the transpose": (
            f"""
        X = pd.read_csv("counts_by_sample.csv", index_col=0)
        y = pd.read_csv("samples.csv", index_col=0)["response"]
        X = {scaled}
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=5)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
            [],
        )
        for how, scaled in (
            ("total", "(X.T / X.T.sum()).T"),
            ("ranks", "X.T.rank().T"),
            ("mean", "(X.T - X.T.mean()).T"),
        )
    },
    "LEAK: each gene scaled by its total over every sample, the transpose reduced across": (
        """
        X = pd.read_csv("counts_by_sample.csv", index_col=0)
        y = pd.read_csv("samples.csv", index_col=0)["response"]
        X = (X.T / X.T.sum(axis=1).to_numpy()[:, None]).T
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=5)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 3)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_values_held_in_names_and_conversions(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
