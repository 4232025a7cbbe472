"""`np.setdiff1d(every, taken)` leaves the positions not taken: of a train_test_split's training positions, the
test positions; of the first 100 training positions, the test positions and the rest of training (an active
learning pool built from every row, not from the training part). The same pool built from the training
positions holds no test row."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("tickets.csv")
X, y = df[["f1", "f2"]].to_numpy(), df["y"].to_numpy()
all_idx = np.arange(len(X))
pool_idx, test_idx = train_test_split(all_idx, test_size=0.2, random_state=0)
"""

BODY = """
labeled = {labeled}
model = LogisticRegression().fit(X[labeled], y[labeled])
print(accuracy_score(y[test_idx], model.predict(X[test_idx])))
"""


@pytest.mark.parametrize(
    ("labeled", "expected"),
    [
        ("np.setdiff1d(all_idx, pool_idx)", [("overlap", 2)]),
        ("np.setdiff1d(all_idx, pool_idx[:100])", [("overlap", 2)]),
        ("np.setdiff1d(all_idx, test_idx)", []),
        ("np.setdiff1d(pool_idx, pool_idx[:100])", []),
        ("pool_idx[:100]", []),
    ],
)
def test_positions_left_once_some_are_taken_out(tmp_path: Path, labeled: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(labeled=labeled)) == expected


@pytest.mark.parametrize(("pool", "expected"), [("np.arange(n)", [("overlap", 5)]), ("train_idx", [])])
def test_a_drawn_sample_trained_on_beside_the_rest_is_no_training_part(
    tmp_path: Path, pool: str, expected: list[tuple[str, int]]
) -> None:
    """A sample drawn by `np.random.choice` names no role; trained on together with rows of the rest, it was not
    the training part, so scoring it scores rows trained on."""
    body = f"""
n = len(X)
test_idx = np.random.choice(n, 200, replace=False)
train_idx = np.setdiff1d(np.arange(n), test_idx)
pool = np.setdiff1d({pool}, train_idx[:100])
model = LogisticRegression().fit(X[pool], y[pool])
print(accuracy_score(y[test_idx], model.predict(X[test_idx])))
"""
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize(("pool", "expected"), [("all_idx", [("overlap", 4)]), ("pool_idx", [])])
def test_positions_queried_into_a_labelled_list_are_trained_on(
    tmp_path: Path, pool: str, expected: list[tuple[str, int]]
) -> None:
    """Active learning: the positions a model asks about are added to the labelled list (`labeled.extend(query)`),
    and the next model trains on them. Queried from every row, test rows among them; from the training pool, none."""
    body = f"""
labeled = list(np.random.default_rng(0).choice(pool_idx, size=100, replace=False))
unlabeled = np.setdiff1d({pool}, labeled)
for rnd in range(10):
    model = LogisticRegression().fit(X[labeled], y[labeled])
    print(accuracy_score(y[test_idx], model.predict(X[test_idx])))
    proba = model.predict_proba(X[unlabeled])
    query = unlabeled[np.argsort(np.abs(proba[:, 1] - 0.5))[:50]]
    labeled.extend(query.tolist())
    unlabeled = np.setdiff1d(unlabeled, query)
"""
    assert leaks_found(tmp_path, HEAD, body) == expected
