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
