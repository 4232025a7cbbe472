"""A ranking scored by hand: the labels of the rows a model ranks first (`y_te[np.argsort(-p)[:k]]`, a table sorted
by its column of predictions then `head(k)`, or `nlargest(k, "p")`) are a score of the model on those rows, a
precision at k or a lift; the k of a slice set in each pass of a loop is a setting, so picking the best k by those
scores is a choice on the test set. A ranking scored once, or a k picked on a validation part, is clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

df = pd.read_csv("coupons.csv")
"""

_TOP_K = """
        {split}
        model = LogisticRegression().fit(X_tr, y_tr)
        p = model.predict_proba({scored_x})[:, 1]
        labels = {scored_y}.to_numpy()
        profits = []
        for f in np.arange(0.05, 1.0, 0.05):
            top = np.argsort(-p)[: int(f * len(p))]
            profits.append(len(top) * (labels[top].mean() * 18.0 - 2.0))
        best = int(np.argmax(profits))
        print("target the top", best, "with precision", labels[np.argsort(-p)[:100]].mean())
        """

_SPLIT = 'X_tr, X_te, y_tr, y_te = train_test_split(df[["recency", "freq"]], df["converted"], random_state=0)'
_SPLIT_VAL = _SPLIT + "\n        X_tr, X_val, y_tr, y_val = train_test_split(X_tr, y_tr, random_state=1)"

_LIFT = """
        train, test = train_test_split(df, test_size=0.3, random_state=5)
        {train}
        m = LogisticRegression().fit(train[["recency", "freq"]], train["converted"])
        test = test.copy()
        test["p"] = m.predict_proba(test[["recency", "freq"]])[:, 1]
        top = {top}
        print("lift@10%", top["converted"].mean() / test["converted"].mean())
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the share of customers to target picked by its profit on the test part": (
        _TOP_K.format(split=_SPLIT, scored_x="X_te", scored_y="y_te"),
        [("multi_test", 8)],
    ),
    "the share of customers to target picked on a validation part, the test part's precision read once": (
        _TOP_K.format(split=_SPLIT_VAL, scored_x="X_val", scored_y="y_val"),
        [],
    ),
    **{
        f"LEAK: test rows put back into training, scored by a lift of {how}": (
            _LIFT.format(train='train = pd.concat([train, test[test["recency"] > 30]])', top=top),
            [("overlap", 3)],
        )
        for how, top in (
            ("the rows sorted by their predictions", 'test.sort_values("p", ascending=False).head(len(test) // 10)'),
            ("nlargest", 'test.nlargest(len(test) // 10, "p")'),
        )
    },
    "a lift of the rows sorted by their predictions, the model trained on the training part": (
        _LIFT.format(train="", top='test.sort_values("p", ascending=False).head(len(test) // 10)'),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_ranking_scored_by_hand(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_UPLIFT = """
        train, test = train_test_split(df, test_size=0.3, random_state=1)
        train, val = train_test_split(train, test_size=0.25, random_state=2)
        learners = {{"lr": LogisticRegression(), "lr_strong": LogisticRegression(C=10.0)}}
        y, t = {scored}["converted"].values, {scored}["treated"].values
        results = {{}}
        for name, m in learners.items():
            m.fit(train[["recency", "freq"]], train["converted"])
            p = m.predict_proba({scored}[["recency", "freq"]])[:, 1]
            order = np.argsort(-p)[: int(0.3 * len(p))]
            yy, tt = y[order], t[order]
            results[name] = {uplift}
        {then}
        """

_UPLIFT_MASKED = "yy[tt == 1].mean() - yy[tt == 0].mean()"
_BEST = "best = max(results, key=results.get)\n        print(best, results[best])"


@pytest.mark.parametrize(
    ("scored", "uplift", "then", "expected"),
    [
        # the uplift among the top-ranked rows, treated against untreated: a score of each model; the best kept
        ("test", _UPLIFT_MASKED, _BEST, [("multi_test", 11)]),
        ("test", "yy[tt == 1].mean()", _BEST, [("multi_test", 11)]),
        # the best kept by its uplift on a validation part
        ("val", _UPLIFT_MASKED, _BEST, []),
        # every model's uplift printed, none kept: no choice
        ("test", _UPLIFT_MASKED, "print(results)", []),
    ],
    ids=[
        "LEAK: the best uplift kept",
        "LEAK: the treated's rate kept",
        "kept on a validation part",
        "every uplift printed",
    ],
)
def test_an_uplift_of_the_top_ranked_rows_is_a_score(
    tmp_path: Path, scored: str, uplift: str, then: str, expected: list[tuple[str, int]]
) -> None:
    """`yy[tt == 1].mean()` of `yy, tt = y[order], t[order]`: the labels of the top-ranked rows, masked by the
    treatment flag ranked the same way, are still those labels, so their mean scores the model."""
    found = leaks_found(tmp_path, HEAD, _UPLIFT.format(scored=scored, uplift=uplift, then=then))
    assert found == expected


_HEADS = """
        train, test = train_test_split(df, test_size=0.3, random_state=1)
        m = LogisticRegression().fit(train[["recency", "freq"]], train["converted"])
        y = {scored}["converted"].values
        order = np.argsort(-m.predict_proba({scored}[["recency", "freq"]])[:, 1])
        yy = y[order]
        rates = [yy[: int(f * len(yy))].mean() for f in (0.1, 0.2, 0.3)]
        {then}
        """


@pytest.mark.parametrize(
    ("scored", "then", "expected"),
    [
        ("test", "best = (0.1, 0.2, 0.3)[int(np.argmax(rates))]", [("multi_test", 6)]),
        ("train", "best = (0.1, 0.2, 0.3)[int(np.argmax(rates))]", []),
        ("test", "print(rates)", []),
    ],
    ids=["LEAK: the share kept by the test rate", "kept on the training rows", "every rate printed"],
)
def test_a_head_of_the_labels_in_the_models_order_is_a_ranking_scored(
    tmp_path: Path, scored: str, then: str, expected: list[tuple[str, int]]
) -> None:
    """`yy[:k]` of `yy = y[order]`: the labels of the k rows the model ranks first, as `y[order[:k]]` is, so a
    share kept by their rate is chosen on the rows scored."""
    assert leaks_found(tmp_path, HEAD, _HEADS.format(scored=scored, then=then)) == expected
