"""Rows of a chunked column by position, taken chunk by chunk.

Arrow's take on a ChunkedArray of strings concatenates every chunk first: fetching ten rows of a 10M-row
digest column copied all 640 MB of it. Taking from each chunk the rows that fall in it copies only those.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


def take_rows(column: pa.ChunkedArray | pa.Array, rows: Sequence[int] | np.ndarray) -> pa.Array:
    """The values at ``rows`` (any order, repeats allowed), as one array; IndexError if a row is out of range."""
    wanted = np.asarray(rows, dtype=np.int64)
    if isinstance(column, pa.Array):
        return column.take(pa.array(wanted))
    if column.num_chunks == 1:
        return column.chunk(0).take(pa.array(wanted))
    if not len(wanted) or pa.types.is_dictionary(column.type):
        # Nothing to copy; or dictionaries that may differ between chunks, which Arrow unifies itself.
        return column.take(pa.array(wanted)).combine_chunks()
    outside = wanted[(wanted < 0) | (wanted >= len(column))]
    if len(outside):
        raise IndexError(f"row {int(outside[0])} is outside a column of {len(column)} rows")
    ascending = bool(np.all(wanted[1:] >= wanted[:-1]))
    order = None if ascending else np.argsort(wanted, kind="stable")
    ordered = wanted if order is None else wanted[order]
    bounds = np.cumsum([0, *(len(chunk) for chunk in column.chunks)])
    cuts = np.searchsorted(ordered, bounds)
    parts = [
        chunk.take(pa.array(ordered[cuts[i] : cuts[i + 1]] - bounds[i]))
        for i, chunk in enumerate(column.chunks)
        if cuts[i + 1] > cuts[i]
    ]
    taken = pa.concat_arrays(parts)
    if order is None:
        return taken
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return taken.take(pa.array(back))
