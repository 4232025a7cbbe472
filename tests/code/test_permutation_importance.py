"""Columns kept by their permutation importance on some rows were chosen with those rows' labels: on the test part
that is then scored, a leak; on a validation part, or only reported, none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X, y = df.drop(columns=["y"]), df["y"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
"""

_KEPT = """
        {carve}
        rf = RandomForestClassifier().fit({fit_x}, {fit_y})
        r = permutation_importance(rf, {rows}, n_repeats=10, random_state=0)
        {keep}
        rf2 = RandomForestClassifier().fit(X_tr[keep], y_tr)
        print(rf2.score(X_te[keep], y_te))
        """

_BY_IMPORTANCE = "keep = X.columns[r.importances_mean > 0]"

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: columns kept by their importance on the test part, which is then scored": (
        _KEPT.format(carve="", fit_x="X_tr", fit_y="y_tr", rows="X_te, y_te", keep=_BY_IMPORTANCE),
        [("preprocessing", 2)],
    ),
    "columns kept by their importance on a validation part of the training part": (
        _KEPT.format(
            carve="X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=1)",
            fit_x="X_fit",
            fit_y="y_fit",
            rows="X_val, y_val",
            keep=_BY_IMPORTANCE,
        ),
        [],
    ),
    "importances on the test part only reported, every column kept": (
        _KEPT.format(
            carve="",
            fit_x="X_tr",
            fit_y="y_tr",
            rows="X_te, y_te",
            keep="print(r.importances_mean)\n        keep = list(X.columns)",
        ),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_columns_kept_by_permutation_importance(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
