"""Linked components and the example chains through them, against a plain breadth-first search."""

from __future__ import annotations

from collections import deque
from unittest.mock import patch

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest import components
from auditor.manifest.components import Step, chain, chains, row_components, shared_only
from auditor.manifest.keycodes import KeyCodes, single_key
from tests.examples import examples


def key(name: str, codes: list[int], n_values: int | None = None) -> KeyCodes:
    n = n_values if n_values is not None else max([*codes, -1]) + 1
    return single_key(name, np.asarray(codes, dtype=np.int32), pa.array([f"{name}{i}" for i in range(n)]))


def reference_distance(keys: list[KeyCodes], start: int, targets: set[int]) -> tuple[int, set[int]] | None:
    """Rows-only BFS: (hops, the targets at that many hops), or None when no target is reachable."""
    n = len(keys[0].codes)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        row = queue.popleft()
        for k in keys:
            code = int(k.codes[row])
            if code < 0:
                continue
            for other in range(n):
                if other not in dist and int(k.codes[other]) == code:
                    dist[other] = dist[row] + 1
                    queue.append(other)
    reached = [(d, r) for r, d in dist.items() if r in targets]
    if not reached:
        return None
    best = min(d for d, _ in reached)
    return best, {r for d, r in reached if d == best}


def check_valid(keys: list[KeyCodes], steps: list[Step]) -> None:
    by_name = {k.name: k for k in keys}
    for before, link, after in zip(steps[0::2], steps[1::2], steps[2::2], strict=False):
        assert before.row is not None and after.row is not None and link.key is not None
        k = by_name[link.key]
        assert k.label(int(k.codes[before.row])) == link.value == k.label(int(k.codes[after.row]))


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_the_chain_is_a_shortest_path_to_the_lowest_nearest_target(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=25))
    codes = st.lists(st.integers(min_value=-1, max_value=5), min_size=n, max_size=n)
    keys = [key("writer", data.draw(codes)), key("doc", data.draw(codes))]
    start = data.draw(st.integers(min_value=0, max_value=n - 1))
    targets = set(data.draw(st.lists(st.integers(min_value=0, max_value=n - 1), max_size=n))) - {start}
    is_target = np.zeros(n, dtype=bool)
    is_target[list(targets)] = True
    steps = chain(keys, start, is_target)
    expected = reference_distance(keys, start, targets)
    if expected is None:
        assert steps == []
        return
    hops, nearest = expected
    assert len(steps) == 2 * hops + 1
    assert steps[0].row == start and steps[-1].row == min(nearest)
    check_valid(keys, steps)


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_one_search_for_several_labels_gives_each_label_its_own_chain(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=30))
    codes = st.lists(st.integers(min_value=-1, max_value=6), min_size=n, max_size=n)
    keys = [key("writer", data.draw(codes)), key("doc", data.draw(codes)), key("sha", data.draw(codes))]
    label = np.array(data.draw(st.lists(st.integers(min_value=-1, max_value=4), min_size=n, max_size=n)))
    start = data.draw(st.integers(min_value=0, max_value=n - 1))
    wanted = data.draw(st.lists(st.integers(min_value=-1, max_value=5), unique=True, max_size=6))
    found = chains(keys, start, label, wanted)
    assert found == {w: steps for w in wanted if (steps := chain(keys, start, label == w))}


def test_several_labels_are_followed_past_the_levels_searched_by_passes() -> None:
    n = 60  # row i shares a value with row i + 1 only; labels near and far from row 0
    keys = [key("writer", [i // 2 for i in range(n)]), key("doc", [(i + 1) // 2 for i in range(n)])]
    label = np.zeros(n, dtype=np.int32)
    label[[3, 40, 59]] = [1, 2, 3]
    found = chains(keys, 0, label, [3, 1, 2, 7])
    assert sorted(found) == [1, 2, 3]
    for w, steps in found.items():
        assert steps == chain(keys, 0, label == w)


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data())
def test_rows_of_a_level_are_the_same_judged_alone_or_by_whole_row_masks(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=0, max_value=40))
    keys = [key(name, data.draw(st.lists(st.integers(-1, 5), min_size=n, max_size=n)), 6) for name in "abc"]
    new_value = [np.array(data.draw(st.lists(st.booleans(), min_size=7, max_size=7))) for _ in keys]
    for mark in new_value:
        mark[-1] = False  # the slot of the missing code
    seen = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    rows, keys_of = components._rows_by_gather(keys, new_value, seen)
    want_rows, want_keys = components._rows_by_masks(keys, new_value, seen)
    assert rows.tolist() == want_rows.tolist() and keys_of.tolist() == want_keys.tolist()
    with patch.object(components, "_FEW_ROWS", 0):  # a level of most rows takes the masks
        assert components._rows_by_gather(keys, new_value, seen)[0].tolist() == want_rows.tolist()


def test_a_long_chain_is_followed_past_the_levels_searched_by_passes() -> None:
    n = 60  # row i shares a value with row i + 1 only: 59 hops, deeper than the gather levels
    writer = key("writer", [i // 2 for i in range(n)])
    doc = key("doc", [(i + 1) // 2 for i in range(n)])
    is_target = np.zeros(n, dtype=bool)
    is_target[n - 1] = True
    steps = chain([writer, doc], 0, is_target)
    assert [s.row for s in steps[0::2]] == list(range(n))
    check_valid([writer, doc], steps)


def test_a_start_with_no_key_value_reaches_nothing() -> None:
    keys = [key("writer", [-1, 0, 0])]
    assert chain(keys, 0, np.array([False, True, True])) == []


def test_components_count_only_groups_that_hold_rows_numbered_by_first_row() -> None:
    # Values 0 and 3 of `doc` are held by no row (as when values held once are left out): no component.
    writer = key("writer", [2, 2, -1, 0, 1, 1])
    doc = key("doc", [-1, -1, 1, -1, 2, -1], n_values=4)
    comps = row_components([writer, doc])
    assert comps.of_row.tolist() == [0, 0, 1, 2, 3, 3]
    assert comps.sizes.tolist() == [2, 1, 1, 2]


def reference_components(keys: list[KeyCodes]) -> list[int]:
    """Rows-only union-find: each row's component, numbered by first row; -1 for a row with no key value."""
    n = len(keys[0].codes)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for k in keys:
        first: dict[int, int] = {}
        for row in range(n):
            code = int(k.codes[row])
            if code < 0:
                continue
            if code in first:
                parent[root(row)] = root(first[code])
            else:
                first[code] = row
    has_value = [any(int(k.codes[row]) >= 0 for k in keys) for row in range(n)]
    number: dict[int, int] = {}
    return [number.setdefault(root(row), len(number)) if has_value[row] else -1 for row in range(n)]


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_components_match_a_union_find_over_rows_whatever_the_block_of_links(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=30))
    n_keys = data.draw(st.integers(min_value=1, max_value=3))
    codes = st.lists(st.integers(min_value=-1, max_value=6), min_size=n, max_size=n)
    keys = [key(f"k{i}", data.draw(codes), n_values=8) for i in range(n_keys)]  # values 7 of no row: nodes alone
    block = data.draw(st.integers(min_value=1, max_value=n + 1))
    with patch.object(components, "_LINK_ROWS", block), patch.object(components, "_BLOCK_ROWS", block):
        comps = row_components(keys)
    expected = reference_components(keys)
    assert comps.of_row.tolist() == expected
    assert comps.sizes.tolist() == [expected.count(c) for c in range(max(expected, default=-1) + 1)]


def test_components_of_one_row_stand_alone_and_the_rest_keep_their_order() -> None:
    # Rows 0 and 2 share writer 0, rows 3 and 5 doc 2; rows 1 and 4 share nothing with another row.
    writer = key("writer", [0, 1, 0, 2, 3, 4])
    doc = key("doc", [-1, 0, -1, 2, 1, 2])
    with patch.object(components, "_BLOCK_ROWS", 4):
        comps = shared_only(row_components([writer, doc]))
    assert comps.of_row.tolist() == [0, -1, 0, 1, -1, 1]
    assert comps.sizes.tolist() == [2, 2]


def test_a_search_that_reaches_most_rows_keeps_5_bytes_a_row() -> None:
    """A random split is one component: the second level of a chain's search holds nearly every row. What it
    keeps per row is the row number (int32) and the key it was reached by (int8); the value is read back from
    that key's codes, so the chain is the same."""
    n = 200_000
    rng = np.random.default_rng(0)
    writer = single_key("writer", rng.integers(0, 50, n).astype(np.int32), pa.array([f"w{i}" for i in range(50)]))
    source = single_key("source", rng.integers(0, 500, n).astype(np.int32), pa.array([f"s{i}" for i in range(500)]))
    label = (np.arange(n) % 3).astype(np.int32)
    search = components._Search([writer, source], 0)
    levels = [rows for rows, _ in zip(search.levels(), range(2), strict=False)]
    assert len(levels[1]) > n // 2  # a level of most rows: found by masks, a block at a time
    assert all(rows.dtype == np.int32 and keys.dtype == np.int8 for rows, keys in search.row_from)
    target = int(levels[1][label[levels[1]] == 2][0])
    steps = search.walk_back(target)
    assert steps[0].row == 0 and steps[-1].row == target
    for before, via, after in zip(steps[0::2], steps[1::2], steps[2::2], strict=False):
        key = writer if via.key == "writer" else source
        assert key.label(int(key.codes[before.row])) == via.value == key.label(int(key.codes[after.row]))
    assert chains([writer, source], 0, label, [2])[2] == chain([writer, source], 0, label == 2)


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 30), st.lists(st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=8), max_size=5)
)
def test_a_block_merged_leaves_the_groups_it_was_given_as_they_were(
    n: int, blocks: list[list[tuple[int, int]]]
) -> None:
    """merge_block returns new groups (a cluster keeps the ones given as an earlier task's result); merged block
    by block they are the components of all the links at once."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    links = [(np.array([a % n for a, _ in b], np.int64), np.array([c % n for _, c in b], np.int64)) for b in blocks]
    merged = components.no_links(n)
    for block in links:
        before = merged[0].copy()
        given_groups = merged[0]
        merged = components.merge_block(merged, block)
        assert np.array_equal(given_groups, before)
    src = np.concatenate([np.zeros(0, np.int64), *(a for a, _ in links)])
    dst = np.concatenate([np.zeros(0, np.int64), *(b for _, b in links)])
    expected_n, expected = connected_components(
        coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)), directed=False
    )
    group, n_groups = merged
    assert n_groups == expected_n
    assert len(set(zip(group.tolist(), expected.tolist(), strict=True))) == expected_n  # the same partition
