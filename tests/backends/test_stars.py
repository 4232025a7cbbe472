"""Large-star / small-star components equal scipy's, whatever the graph and however its edges are split."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from auditor.backends.stars import _sorted_pairs, star_components

dask = pytest.importorskip("dask", reason="the Dask engine's tests need the `dask` extra")


def _persist(tasks: list[Any]) -> list[Any]:
    return list(dask.persist(*tasks, scheduler="synchronous"))


def _compute(tasks: list[Any]) -> list[Any]:
    return list(dask.compute(*tasks, scheduler="synchronous"))


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=200),
    edges=st.lists(st.tuples(st.integers(0, 199), st.integers(0, 199)), max_size=300),
    parts=st.integers(min_value=1, max_value=5),
)
def test_components_are_scipys_with_the_smallest_node_as_label(
    n: int, edges: list[tuple[int, int]], parts: int
) -> None:
    a = np.array([e[0] % n for e in edges], dtype=np.int64)
    b = np.array([e[1] % n for e in edges], dtype=np.int64)
    split = [(a[i::parts], b[i::parts]) for i in range(parts)]
    label, rounds = star_components(split, n, _persist, _compute)
    _, reference = connected_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), directed=False)
    for component in np.unique(reference):
        members = np.flatnonzero(reference == component)
        assert set(label[members].tolist()) == {int(members.min())}
    assert rounds >= 1


def test_a_long_path_needs_more_rounds_than_a_star() -> None:
    n = 4096
    path = (np.arange(n - 1, dtype=np.int64), np.arange(1, n, dtype=np.int64))
    star = (np.zeros(n - 1, dtype=np.int64), np.arange(1, n, dtype=np.int64))
    path_label, path_rounds = star_components([path], n, _persist, _compute)
    star_label, star_rounds = star_components([star], n, _persist, _compute)
    assert (path_label == 0).all() and (star_label == 0).all()
    assert star_rounds == 1 and path_rounds > star_rounds


@given(pairs=st.lists(st.tuples(st.integers(0, 2**40), st.integers(0, 2**40)), max_size=50), small=st.booleans())
def test_pairs_sort_by_node_then_neighbour_with_or_without_packing(pairs: list[tuple[int, int]], small: bool) -> None:
    """Node ids below 2**32 are packed into one sort key; larger ones take two keys. Both orders are the same."""
    u = np.array([p[0] % 2**32 if small else p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] % 2**32 if small else p[1] for p in pairs], dtype=np.int64)
    su, sv = _sorted_pairs(u, v)
    assert list(zip(su.tolist(), sv.tolist(), strict=True)) == sorted(zip(u.tolist(), v.tolist(), strict=True))
