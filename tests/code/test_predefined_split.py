"""A search cross-validated by a PredefinedSplit whose held-out fold is the test part chooses its settings on the
test rows (CDL003); the same search on a validation part carved from the training rows, scored at the end on a test
part it never saw, is the splitter's intended use and clean, as is one model scored once on such a fold. Each case
is a script and its leaks (kind, line counted after HEAD)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, PredefinedSplit, cross_val_score, train_test_split
from sklearn.svm import SVC
"""

ON_TEST = """
X, y = load_digits(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
GRID = {{"C": [0.1, 1, 10], "gamma": [1e-3, 1e-4]}}
X_all, y_all = np.vstack([X_tr, X_te]), np.concatenate([y_tr, y_te])
fold = {fold}
gs = GridSearchCV(SVC(), GRID, cv=PredefinedSplit(fold), refit=False)
gs.fit(X_all, y_all)
print("test accuracy of the best", gs.best_score_)
"""

ON_VALIDATION = """
X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25, random_state=0)
fold = np.r_[np.full(len(X_fit), -1), np.zeros(len(X_val))]
GRID = {"C": [0.1, 1, 10], "gamma": [1e-3, 1e-4]}
gs = GridSearchCV(SVC(), GRID, cv=PredefinedSplit(fold), refit=False)
gs.fit(np.vstack([X_fit, X_val]), np.concatenate([y_fit, y_val]))
print("validation accuracy of the best", gs.best_score_)
final = SVC(**gs.best_params_).fit(X_train, y_train)
print("test accuracy", final.score(X_test, y_test))
"""

ONE_MODEL = """
X, y = load_digits(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
fold = np.r_[np.full(len(X_tr), -1), np.zeros(len(X_te))]
print(cross_val_score(SVC(C=1.0), np.vstack([X_tr, X_te]), np.concatenate([y_tr, y_te]), cv=PredefinedSplit(fold)))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "np.r_ of a -1 piece and a zero piece as long as the test part": (
        ON_TEST.format(fold="np.r_[np.full(len(X_tr), -1), np.zeros(len(X_te))]"),
        [("multi_test", 7)],
    ),
    "lists of -1 and 0 as long as each part": (
        ON_TEST.format(fold="[-1] * len(X_tr) + [0] * len(X_te)"),
        [("multi_test", 7)],
    ),
    "np.concatenate of -ones and zeros by shape": (
        ON_TEST.format(fold="np.concatenate([-np.ones(X_tr.shape[0]), np.zeros(X_te.shape[0])])"),
        [("multi_test", 7)],
    ),
    # the training part held out and the test part always trained on: not this reading; nothing claimed
    "the fold the other way round": (
        ON_TEST.format(fold="np.r_[np.zeros(len(X_tr)), np.full(len(X_te), -1)]"),
        [],
    ),
    "a validation part carved from the training part, the test part scored once at the end": (ON_VALIDATION, []),
    "one model scored once on the test fold": (ONE_MODEL, []),
}


@pytest.mark.parametrize("name", CASES)
def test_a_search_on_a_predefined_fold(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == expected
