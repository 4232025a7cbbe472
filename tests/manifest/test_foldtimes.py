"""Per-fold time order: the sort-free kernel against a sort of every timed row by (pattern, time)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.splits import FoldLayout, FoldRole
from auditor.manifest.foldtimes import FoldOrder, fold_order
from auditor.manifest.timeparse import NAT
from tests.examples import examples


def reference_fold_order(times: np.ndarray, split: np.ndarray, names: list[str], layout: FoldLayout) -> list[FoldOrder]:
    """The plain form: sort the timed rows by (pattern, time), then search each pattern's times per fold."""
    timed = (times != NAT) & (split >= 0)
    codes, values = split[timed], times[timed]
    order = np.lexsort((values, codes))
    codes, values = codes[order], values[order]
    bounds = np.searchsorted(codes, np.arange(len(names) + 1))
    holdout, train = layout.matrices(names)
    found = []
    for f, fold in enumerate(layout.folds):
        trains = [p for p in np.flatnonzero(train[:, f]) if bounds[p + 1] > bounds[p]]
        held = [p for p in np.flatnonzero(holdout[:, f]) if bounds[p + 1] > bounds[p]]
        if not trains or not held:
            continue
        newest = max(int(values[bounds[p + 1] - 1]) for p in trains)
        older = sum(int(np.searchsorted(values[bounds[p] : bounds[p + 1]], newest)) for p in held)
        total = sum(int(bounds[p + 1] - bounds[p]) for p in held)
        oldest = min(int(values[bounds[p]]) for p in held)
        found.append(FoldOrder(fold, newest, older, total, oldest))
    return found


def _case(seed: int, n_rows: int, n_patterns: int, n_folds: int, span: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    times = rng.integers(-span, span + 1, size=n_rows).astype(np.int64)  # a small span: many equal times
    times[rng.random(n_rows) < 0.1] = NAT
    split = rng.integers(-1, n_patterns, size=n_rows).astype(np.int32)
    roles = rng.integers(0, 3, size=(n_patterns, n_folds)).astype(np.int8)
    return times, split, roles


@settings(max_examples=examples(150), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(0, 300),
    n_patterns=st.integers(1, 7),
    n_folds=st.sampled_from([1, 2, 5, 8, 9, 20]),  # past 8 distinct thresholds: the binary-search path
    span=st.sampled_from([3, 1000, 2**62]),
)
def test_fold_order_matches_a_sort_of_every_timed_row(
    seed: int, n_rows: int, n_patterns: int, n_folds: int, span: int
) -> None:
    times, split, roles = _case(seed, n_rows, n_patterns, n_folds, span)
    names = [f"p{i}" for i in range(n_patterns)]
    layout = FoldLayout(tuple(f"fold {k}" for k in range(n_folds)), tuple(names), roles)
    assert fold_order(times, split, names, layout) == reference_fold_order(times, split, names, layout)


def test_a_holdout_row_at_the_newest_training_time_is_not_older() -> None:
    roles = np.array([[FoldRole.HOLDOUT, FoldRole.TRAIN], [FoldRole.TRAIN, FoldRole.HOLDOUT]], dtype=np.int8)
    layout = FoldLayout(("fold 0", "fold 1"), ("0", "1"), roles)
    times = np.array([5, 9, 9, 1, NAT], dtype=np.int64)
    split = np.array([0, 0, 1, 1, 1], dtype=np.int32)
    # fold 0: holdout {5, 9} against newest training 9 -> 5 is older; fold 1: holdout {9, 1} against 9 -> 1.
    assert fold_order(times, split, ["0", "1"], layout) == [
        FoldOrder("fold 0", 9, 1, 2, 5),
        FoldOrder("fold 1", 9, 1, 2, 1),
    ]
