"""Scores the program reads rather than makes (a column of similarity scores, a lookup of embeddings): a threshold
picked on the curve of a file named as a test set is chosen on the test set (CDL003); picked on a validation
file and applied once to the test file, it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, roc_curve

picked_on = pd.read_csv("{picked}")
test = pd.read_csv("test_trials.csv")
"""

BODY = """
fpr, tpr, thr = roc_curve(picked_on["target"], picked_on["cos_score"])
op = thr[np.argmax(tpr - fpr)]
print(accuracy_score(test["target"], test["cos_score"] >= op))
"""


@pytest.mark.parametrize(("picked", "expected"), [("test_trials.csv", ["multi_test"]), ("dev_trials.csv", [])])
def test_a_threshold_on_a_curve_of_scores_read_from_a_file(tmp_path: Path, picked: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD.format(picked=picked), BODY)] == expected


def test_the_equal_error_rate_of_a_test_file_is_read_not_chosen(tmp_path: Path) -> None:
    """np.nanargmin(np.abs(fnr - fpr)) finds where the two error rates cross, the equal error rate: a metric read
    at that point, not a threshold chosen by its score."""
    body = """
fpr, tpr, thr = roc_curve(test["target"], test["cos_score"])
fnr = 1 - tpr
i = np.nanargmin(np.abs(fnr - fpr))
print((fpr[i] + fnr[i]) / 2)
"""
    assert leaks_found(tmp_path, HEAD.format(picked="dev_trials.csv"), body) == []
