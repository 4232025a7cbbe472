"""A slice inside a function whose bounds are its parameters (`values[start:end - 6]` of `windows(0, n_train)`)
is cut at what each call gives them, so the windows of two calls compare by those bounds; a share of a length
moved back ends before a larger share (`int(0.7 * n) - 6` before `int(0.85 * n)`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.linear_model import Ridge
"""

_WINDOWS = """
        values = np.load("series.npy")
        n_train = int(len(values) * 0.7)
        n_val = int(len(values) * 0.85)

        def windows(start, end):
            return values[start:end - 6], values[start + 6:end]

        X_tr, y_tr = windows(0, {train_end})
        X_te, y_te = windows({test_start}, len(values))
        print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
        """


@pytest.mark.parametrize(
    ("train_end", "test_start", "expected"),
    [
        ("n_train", "n_val", []),
        ("n_train", "n_train", []),
        ("end=n_train, start=0", "n_val", []),
        # LEAK: the training windows run past the start of the test ones
        ("n_val", "n_train", ["overlap"]),
    ],
)
def test_windows_cut_by_the_bounds_each_call_gives(
    tmp_path: Path, train_end: str, test_start: str, expected: list[str]
) -> None:
    body = _WINDOWS.format(train_end=train_end, test_start=test_start)
    if train_end.startswith("end="):
        body = body.replace("windows(0, end=n_train, start=0)", "windows(end=n_train, start=0)")
    found = leaks_found(tmp_path, HEAD, body)
    assert sorted({kind for kind, _ in found}) == expected
