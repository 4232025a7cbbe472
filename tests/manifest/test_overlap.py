from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.splits import SplitRoles
from auditor.manifest.keycodes import single_key
from auditor.manifest.overlap import _pairs_by_products, _pairs_by_split_sets, find_overlap, share_text


def test_small_shares_do_not_read_as_zero() -> None:
    exposure = {"test": {"rows": 9, "of": 200459, "share": 9 / 200459}, "val": {"rows": 3, "of": 8, "share": 3 / 8}}
    text = share_text(exposure)
    assert text == "test 9 of 200459 (<0.1%), val 3 of 8 (38%)"


_COUNTS = st.integers(min_value=2, max_value=6).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=1, max_size=40)
)


@settings(max_examples=60, deadline=None)
@given(rows=_COUNTS, seed=st.integers(0, 2**16))
def test_split_sets_and_sparse_products_find_the_same_pairs(rows: list[list[int]], seed: int) -> None:
    counts = np.array(rows, dtype=np.int64)
    n = counts.shape[1]
    kinds = np.random.default_rng(seed).integers(0, 5, size=(n, n))
    kinds = np.triu(kinds) + np.triu(kinds, 1).T
    wanted = [0, 1, 2]
    (by_sets, hits_sets), (by_products, hits_products) = (
        how(counts, kinds, wanted) for how in (_pairs_by_split_sets, _pairs_by_products)
    )

    def pairs(found: tuple[np.ndarray, ...]) -> set[tuple[int, ...]]:
        return {tuple(int(x[i]) for x in found) for i in range(len(found[0]))}

    assert pairs(by_sets) == pairs(by_products)
    assert hits_sets.keys() == hits_products.keys()
    for code, hits in hits_sets.items():
        assert np.array_equal(hits, hits_products[code])


def test_overlap_of_many_splits_matches_few_split_tallies() -> None:
    # 14 splits take the sparse path; the 3 splits that share anything, the split-set path.
    rng = np.random.default_rng(3)
    counts = np.zeros((200, 14), dtype=np.int64)
    counts[:, :3] = rng.integers(0, 3, size=(200, 3))
    counts[:, 3:] = np.where(np.arange(200)[:, None] % 11 == np.arange(3, 14)[None, :] - 3, 1, 0)
    names = [f"s{i}" for i in range(14)]
    roles = SplitRoles(frozenset({"s0"}), frozenset(f"s{i}" for i in range(1, 14)), frozenset())
    many = find_overlap(counts, names, roles)
    few = find_overlap(counts[:, :3], names[:3], roles)
    assert len(many.order) > 12 >= len(few.order)
    inside = many.pairs.within(set(names[:3]))
    assert [(p.a, p.b, p.kind, p.values, p.rows_a, p.rows_b) for p in inside] == [
        (p.a, p.b, p.kind, p.values, p.rows_a, p.rows_b) for p in few.pairs
    ]


def test_largest_values_are_those_of_a_full_sort_ties_by_label() -> None:
    from auditor.manifest.overlap import largest

    rng = np.random.default_rng(7)
    n = 500
    key = single_key("k", np.arange(n, dtype=np.int32), pa.array([f"v{i:03d}" for i in rng.permutation(n)]))
    for limit in (0, 1, 5, 40, n, n + 3):
        values = np.sort(rng.choice(n, 300, replace=False))
        totals = rng.integers(1, 6, size=300)  # few distinct totals: many ties at the cut
        labels = key.labels(values)
        want = sorted(range(300), key=lambda i: (-int(totals[i]), labels[i]))[:limit]
        got_values, got_labels = largest(key, values, totals, limit)
        assert got_values.tolist() == values[want].tolist() and got_labels == [labels[i] for i in want]
