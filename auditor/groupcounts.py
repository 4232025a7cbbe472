"""Rows per (key value, split), aggregated by Arrow's grouped count instead of per-row codes.

A stage that only needs to know which splits each value occurs in does not pay for factorizing every
row: the grouped count hashes the key in C++ on all cores, and only its (much smaller) result is encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.keycodes import KeyCodes, compound_key, encode_column, single_key

_SPLIT = "__split_code__"


@dataclass(frozen=True, eq=False)
class GroupSplitCounts:
    """One key: its distinct values (labels, lookup), rows per value and split, rows without a value."""

    key: KeyCodes  # indexes the distinct values; key.codes maps result rows, not manifest rows
    counts: np.ndarray  # (values, splits) row counts
    missing: np.ndarray  # (splits,) rows whose key is null or blank


def _blank_or_null(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    missing = column.is_null()
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        missing = pc.or_(missing, pc.fill_null(pc.equal(pc.utf8_trim_whitespace(column), ""), False))
    elif pa.types.is_floating(column.type):
        missing = pc.or_(missing, pc.fill_null(pc.is_nan(column), False))
    return np.asarray(missing.to_numpy(zero_copy_only=False), dtype=bool)


def _plain(column: pa.ChunkedArray) -> pa.ChunkedArray:
    return column.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else column


def group_split_counts(
    table: pa.Table, columns: Sequence[str], split_codes: np.ndarray, n_splits: int, name: str
) -> GroupSplitCounts:
    keys = [f"k{i}" for i in range(len(columns))]
    source = pa.table([*(_plain(table[c]) for c in columns), pa.array(split_codes)], names=[*keys, _SPLIT])
    grouped = source.group_by([*keys, _SPLIT]).aggregate([([], "count_all")])
    split = grouped[_SPLIT].to_numpy().astype(np.int64)
    count = grouped["count_all"].to_numpy().astype(np.int64)
    missing_key = np.zeros(grouped.num_rows, dtype=bool)
    for k in keys:
        missing_key |= _blank_or_null(grouped[k])
    has_split = split >= 0
    missing = np.bincount(
        split[missing_key & has_split], weights=count[missing_key & has_split], minlength=n_splits
    ).astype(np.int64)
    kept = grouped.filter(pa.array(~missing_key & has_split))
    parts = [encode_column(kept[k]) for k in keys]
    key = single_key(name, *parts[0]) if len(keys) == 1 else compound_key(list(columns), parts)
    flat = key.codes.astype(np.int64) * n_splits + kept[_SPLIT].to_numpy().astype(np.int64)
    counts = np.bincount(flat, weights=kept["count_all"].to_numpy(), minlength=key.n_values * n_splits)
    return GroupSplitCounts(key, counts.astype(np.int64).reshape(key.n_values, n_splits), missing)


def rows_with_values(
    table: pa.Table, columns: Sequence[str], key: KeyCodes, wanted: Sequence[int]
) -> dict[int, np.ndarray]:
    """All manifest rows holding each wanted key value (a handful of values; used for examples)."""
    if not len(wanted):
        return {}
    # Cheap boolean filter over all rows first; exact positions only for the candidate rows.
    wanted_parts = []
    candidate: np.ndarray | None = None
    for (index, values), column in zip(key.parts, columns, strict=True):
        wanted_values = values.take(pa.array(index[np.asarray(wanted)]))
        hit = pc.is_in(_plain(table[column]), value_set=wanted_values.unique())
        hit_np = np.asarray(hit.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        candidate = hit_np if candidate is None else candidate & hit_np
        wanted_parts.append((column, wanted_values))
    assert candidate is not None
    rows = np.flatnonzero(candidate)
    match = np.ones((len(wanted), len(rows)), dtype=bool)
    for column, wanted_values in wanted_parts:
        got = _plain(table[column]).take(pa.array(rows))
        for i in range(len(wanted)):
            match[i] &= np.asarray(pc.equal(got, wanted_values[i]).to_numpy(zero_copy_only=False), dtype=bool)
    return {int(code): rows[match[i]] for i, code in enumerate(wanted)}
