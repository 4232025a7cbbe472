"""Windows over one series (`[s[i - win:i] for i in range(win, n)]`) hold the values of the rows before the one
each stands for, as a lag does: a shuffled split of them puts test targets inside training windows (CDL005, an
error). Beside it, the same windows cut in time, or split unshuffled, which stay clean, and the targets alone.
Each case is a script and its leaks (kind, line counted after HEAD, whether an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_graded

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, TimeSeriesSplit, cross_val_score, train_test_split
"""

SERIES = """
load = pd.read_csv("load.csv", parse_dates=["ts"]).sort_values("ts")
s = (load["mw"].values / 12000.0).astype("float32")
win = 48
X = {windows}
y = np.array([s[i] for i in range(win, len(s))])
{split}
"""

_STACKED = "np.stack([s[i - win:i] for i in range(win, len(s))])"
_FROM_ZERO = "np.array([s[i:i + win] for i in range(len(s) - win)])"
_SHUFFLED = """X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))"""
_CUT = """cut = int(len(X) * 0.8)
print(Ridge().fit(X[:cut], y[:cut]).score(X[cut:], y[cut:]))"""
_UNSHUFFLED = """X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, shuffle=False)
print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))"""
_FOLDS = "print(cross_val_score(Ridge(), X, y, cv=TimeSeriesSplit(5)).mean())"
_SHUFFLED_FOLDS = "print(cross_val_score(Ridge(), X, y, cv=KFold(5, shuffle=True)).mean())"

CASES: dict[str, tuple[str, str, list[tuple[str, int, bool]]]] = {
    "windows back from each position, split shuffled": (_STACKED, _SHUFFLED, [("temporal_shuffle", 6, True)]),
    "windows forward from each position, split shuffled": (_FROM_ZERO, _SHUFFLED, [("temporal_shuffle", 6, True)]),
    "windows in shuffled folds": (_STACKED, _SHUFFLED_FOLDS, [("temporal_shuffle", 6, True)]),
    "windows cut in time": (_STACKED, _CUT, []),
    "windows split unshuffled": (_STACKED, _UNSHUFFLED, []),
    "windows in folds that keep time order": (_STACKED, _FOLDS, []),
    # one value per position, no window: the rows are only sorted by time, a warning as before
    "the values at each position, split shuffled": (
        "np.array([s[i] for i in range(win, len(s))])",
        _SHUFFLED,
        [("temporal_shuffle", 6, False)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_windows_over_a_series(tmp_path: Path, name: str) -> None:
    windows, split, expected = CASES[name]
    body = SERIES.format(windows=windows, split=split)
    assert leaks_graded(tmp_path, HEAD, body) == expected
