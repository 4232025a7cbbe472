from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.groupcounts import (
    WHITESPACE,
    GroupSplitCounts,
    blank_or_null,
    counts_from_codes,
    from_grouped,
    from_value_counts,
    grouped_columns,
    value_counts,
)
from auditor.manifest.keycodes import compound_key, encode_column, single_key

_VALUE = st.sampled_from(["a", "b", "B", " ", "", None, "c d", "é"])
_SPLIT = st.sampled_from([0, 1, 2, -1])


def _grouped(columns: list[list[str | None]], split: np.ndarray) -> pa.Table:
    """What a database engine hands over: one row per (value, split) with rows, first and last row."""
    keys = [f"k{i}" for i in range(len(columns))]
    rows = np.arange(len(split), dtype=np.int64)
    table = pa.table([*(pa.array(c, pa.string()) for c in columns), pa.array(split), rows], [*keys, "s", "r"])
    g = table.group_by([*keys, "s"]).aggregate([([], "count_all"), ("r", "min_max")])
    span = g["r_min_max"].flatten()
    return pa.table([*(g[k] for k in keys), g["s"], g["count_all"], span[0], span[1]], grouped_columns(len(keys)))


def _same(a: GroupSplitCounts, b: GroupSplitCounts) -> None:
    assert a.key.labels(np.arange(a.key.n_values)) == b.key.labels(np.arange(b.key.n_values))
    assert np.array_equal(a.counts, b.counts)
    assert np.array_equal(a.first_row, b.first_row)
    assert np.array_equal(a.last_row, b.last_row)
    assert np.array_equal(a.missing, b.missing)


@settings(max_examples=80, deadline=None)
@given(data=st.lists(st.tuples(_VALUE, _VALUE, _SPLIT), min_size=1, max_size=30))
def test_counts_from_codes_equal_the_grouped_counts(data: list[tuple[str | None, str | None, int]]) -> None:
    first = [d[0] for d in data]
    second = [d[1] for d in data]
    split = np.array([d[2] for d in data], dtype=np.int32)
    one = encode_column(pa.array(first, pa.string()))
    _same(counts_from_codes(single_key("w", *one), split, 3), from_grouped(_grouped([first], split), ["w"], 3, "w"))
    two = encode_column(pa.array(second, pa.string()))
    key = compound_key(["w", "v"], [one, two])
    _same(counts_from_codes(key, split, 3), from_grouped(_grouped([first, second], split), ["w", "v"], 3, key.name))


def test_a_value_first_seen_without_a_split_is_numbered_by_its_first_row_in_one() -> None:
    values = ["x", "y", "only-unsplit", "x", "y"]
    split = np.array([-1, 0, -1, 1, 0], dtype=np.int32)
    grouped = counts_from_codes(single_key("w", *encode_column(pa.array(values))), split, 2)
    assert grouped.key.labels(np.arange(grouped.key.n_values)) == ["y", "x"]
    assert grouped.counts.tolist() == [[2, 0], [0, 1]]
    assert grouped.first_row.tolist() == [[1, -1], [-1, 3]]
    assert grouped.last_row.tolist() == [[4, -1], [-1, 3]]


def test_dictionary_codes_are_renumbered_by_first_row() -> None:
    column = pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], pa.int32()), pa.array(["late", "early"]))
    grouped = counts_from_codes(single_key("w", *encode_column(column)), np.array([0, 0, 1], dtype=np.int32), 2)
    assert grouped.key.labels(np.arange(grouped.key.n_values)) == ["early", "late"]
    assert grouped.counts.tolist() == [[1, 1], [1, 0]]


@settings(max_examples=80, deadline=None)
@given(data=st.lists(st.tuples(_VALUE, _SPLIT), min_size=1, max_size=30), deal=st.data())
def test_counts_per_value_from_parts_equal_the_grouped_counts(
    data: list[tuple[str | None, int]], deal: st.DataObject
) -> None:
    """Counts made per distinct value in disjoint parts (a cluster's buckets), plus regrouped collisions that
    list values of the parts again in other splits, are the counts of the whole grouping."""
    column = [d[0] for d in data]
    whole = _grouped([column], np.array([d[1] for d in data], dtype=np.int64))
    values = whole["k0"].to_pylist()
    bucket_of = {v: deal.draw(st.integers(0, 2)) for v in dict.fromkeys(values)}
    bucket = np.array([bucket_of[v] for v in values])
    to_exact = np.array(deal.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values))), dtype=bool)
    parts = [value_counts(whole.filter(pa.array((bucket == b) & ~to_exact)), 3) for b in range(3)]
    exact = value_counts(whole.filter(pa.array(to_exact)), 3) if to_exact.any() else None
    _same(from_value_counts(parts, exact, "w", 3), from_grouped(whole, ["w"], 3, "w"))
    assert parts == []  # consumed: the driver does not hold the parts beside the result


def test_the_freed_parts_are_given_back_every_few_parts() -> None:
    from auditor.manifest.groupcounts import _RELEASE_EVERY

    whole = _grouped([[f"v{i}" for i in range(40)]], np.array([i % 3 for i in range(40)], dtype=np.int64))
    values = np.array(whole["k0"].to_pylist())
    n_parts = 2 * _RELEASE_EVERY + 1
    parts = [
        value_counts(whole.filter(pa.array([int(v[1:]) % n_parts == b for v in values])), 3) for b in range(n_parts)
    ]
    released: list[int] = []
    found = from_value_counts(parts, None, "w", 3, release=lambda: released.append(1))
    _same(found, from_grouped(whole, ["w"], 3, "w"))
    assert len(released) == 2


def test_whitespace_is_every_character_arrow_calls_whitespace() -> None:
    """An engine's own query finds blank texts by these characters; every engine then agrees with Arrow."""
    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    spaces = pc.utf8_is_space(pa.array(every)).to_pylist()
    assert "".join(c for c, space in zip(every, spaces, strict=True) if space) == WHITESPACE


def test_a_text_is_blank_when_trimming_leaves_nothing() -> None:
    values = pa.array(["", " ", "\u3000\t", None, "a", " a ", "\u200b", "\u00a0"])
    trimmed = pc.equal(pc.utf8_trim_whitespace(values), "").fill_null(True).to_pylist()
    assert blank_or_null(values).tolist() == trimmed == [True, True, True, True, False, False, False, True]
