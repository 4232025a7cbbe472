"""The label-window kernel against a brute force over every (training, holdout) pair."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.windows import NONE, neighbours, stable_order
from tests.examples import examples

_window = st.tuples(st.integers(0, 30), st.integers(0, 6), st.integers(0, 2))  # start, length, entity


def _brute(train: list[tuple[int, int, int]], hold: list[tuple[int, int, int]], per_entity: bool) -> tuple:
    overlap, to_next, from_previous = [], [], []
    for a, length, e in train:
        b = a + length
        same = [(c, c + n) for c, n, f in hold if not per_entity or f == e]
        overlap.append(any(c <= b and d >= a for c, d in same))
        to_next.append(min((c - a for c, _ in same if c >= a), default=NONE))
        from_previous.append(min((a - d for _, d in same if d < a), default=NONE))
    return overlap, to_next, from_previous


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_window, max_size=15), st.lists(_window, max_size=15), st.booleans())
def test_matches_brute_force(
    train: list[tuple[int, int, int]], hold: list[tuple[int, int, int]], per_entity: bool
) -> None:
    def arrays(rows: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a = np.array([r[0] for r in rows], dtype=np.int64)
        return a, a + np.array([r[1] for r in rows], dtype=np.int64), np.array([r[2] for r in rows], dtype=np.int64)

    ta, tb, te = arrays(train)
    ha, hb, he = arrays(hold)
    got = neighbours(ta, tb, ha, hb, te if per_entity else None, he if per_entity else None)
    overlap, to_next, from_previous = _brute(train, hold, per_entity)
    assert got.overlap.tolist() == overlap
    assert got.to_next.tolist() == to_next
    assert got.from_previous.tolist() == from_previous


def test_times_far_apart_keep_their_order_within_an_entity() -> None:
    """Nanosecond times of real dates (near 2**60) with many entities: the composite keys must not overflow."""
    day = 86_400 * 10**9
    base = 1_700_000_000 * 10**9
    ta = np.array([base, base + 10 * day], dtype=np.int64)
    ha = np.array([base + 2 * day, base + 2 * day], dtype=np.int64)
    got = neighbours(ta, ta + day, ha, ha, np.array([5000, 7]), np.array([5000, 7]))
    assert got.to_next.tolist() == [2 * day, NONE]
    assert got.from_previous.tolist() == [NONE, 8 * day]
    assert not got.overlap.any()


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(_window, min_size=1, max_size=12),
    st.lists(_window, min_size=1, max_size=12),
    st.sampled_from([1, 86_400 * 10**9, 2**58]),
)
def test_per_entity_keys_keep_the_order_on_any_grid(
    train: list[tuple[int, int, int]], hold: list[tuple[int, int, int]], unit: int
) -> None:
    """Times on a grid (whole days in ns) are divided by it; times too far apart for entity * span are ranked."""
    overlap, to_next, from_previous = _brute(train, hold, True)

    def arrays(rows: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a = np.array([r[0] for r in rows], dtype=np.int64) * unit - 2**61 * (unit == 2**58)
        return a, a + np.array([r[1] for r in rows], dtype=np.int64) * unit, np.array([r[2] for r in rows]) * 1000

    ta, tb, te = arrays(train)
    ha, hb, he = arrays(hold)
    got = neighbours(ta, tb, ha, hb, te, he)
    assert got.overlap.tolist() == overlap
    assert got.to_next.tolist() == [d if d == NONE else d * unit for d in to_next]
    assert got.from_previous.tolist() == [d if d == NONE else d * unit for d in from_previous]


@settings(max_examples=examples(200))
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40)
    | st.lists(st.integers(-3, 3), max_size=40)
    | st.lists(st.integers(-(10**9), 10**9).map(lambda t: t * 10**9), max_size=40)
)
def test_the_order_of_packed_keys_is_a_stable_argsort(values: list[int]) -> None:
    # Extremes (packed keys cannot hold them: the argsort), ties (row order kept), whole seconds in ns over 60 years
    # either side of 1970 (too wide to pack until the common step is divided out).
    array = np.array(values, dtype=np.int64)
    assert stable_order(array).tolist() == np.argsort(array, kind="stable").tolist()


def test_the_order_of_other_integer_types_is_a_stable_argsort() -> None:
    rng = np.random.default_rng(5)
    for array in (rng.integers(-50, 50, 300).astype(np.int32), rng.integers(0, 2**40, 300).astype(np.uint64)):
        assert stable_order(array).tolist() == np.argsort(array, kind="stable").tolist()
