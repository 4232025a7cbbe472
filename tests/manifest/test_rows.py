from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.rows import take_rows

chunk_sizes = st.lists(st.integers(0, 6), min_size=0, max_size=5)


@settings(max_examples=80, deadline=None)
@given(sizes=chunk_sizes, data=st.data())
def test_take_rows_is_arrows_take_chunk_by_chunk(sizes: list[int], data: st.DataObject) -> None:
    start = np.cumsum([0, *sizes])
    column = pa.chunked_array(
        [
            pa.array([None if (i % 7 == 3) else f"v{i}" for i in range(a, b)], pa.string())
            for a, b in itertools.pairwise(start)
        ],
        pa.string(),
    )
    n = len(column)
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=12)) if n else []
    taken = take_rows(column, rows)
    assert isinstance(taken, pa.Array)
    assert taken.to_pylist() == [column[r].as_py() for r in rows]


def test_take_rows_refuses_a_row_outside_the_column() -> None:
    column = pa.chunked_array([pa.array(["a", "b"]), pa.array(["c"])])
    with pytest.raises(IndexError, match="row 3 is outside a column of 3 rows"):
        take_rows(column, [0, 3])
    with pytest.raises(IndexError, match="row -1"):
        take_rows(column, [-1])


def test_take_rows_keeps_dictionary_columns_and_plain_arrays() -> None:
    column = pa.chunked_array([pa.array(["a", "b"]).dictionary_encode(), pa.array(["b", "c"]).dictionary_encode()])
    assert take_rows(column, [3, 0]).to_pylist() == ["c", "a"]
    assert take_rows(pa.array([1, 2, 3]), [2, 2]).to_pylist() == [3, 3]
