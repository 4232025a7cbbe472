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

from auditor.manifest.keycodes import KeyCodes, compound_key, encode_column, single_key

_SPLIT = "__split_code__"
_ROW = "__row__"


@dataclass(frozen=True, eq=False)
class GroupSplitCounts:
    """One key: its distinct values (labels, lookup), rows per value and split, rows without a value."""

    key: KeyCodes  # indexes the distinct values; key.codes maps result rows, not manifest rows
    counts: np.ndarray  # (values, splits) row counts
    first_row: np.ndarray  # (values, splits) first manifest row of the value in the split, -1 if none
    last_row: np.ndarray  # (values, splits) last such row, -1 if none
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
    rows = pa.array(np.arange(table.num_rows, dtype=np.int64))
    source = pa.table([*(_plain(table[c]) for c in columns), pa.array(split_codes), rows], names=[*keys, _SPLIT, _ROW])
    # The first and last row per (value, split) come with the count almost for free; they are the examples.
    grouped = source.group_by([*keys, _SPLIT]).aggregate([([], "count_all"), (_ROW, "min_max")])
    span = grouped[f"{_ROW}_min_max"].flatten()
    parts = [*(grouped[k] for k in keys), grouped[_SPLIT], grouped["count_all"], span[0], span[1]]
    summary = pa.table(parts, names=grouped_columns(len(keys)))
    return from_grouped(summary, columns, n_splits, name)


def grouped_columns(n_keys: int) -> list[str]:
    """The columns of a grouped summary: one per key part, then split code, rows, first and last row."""
    return [*(f"k{i}" for i in range(n_keys)), _SPLIT, "rows", "first", "last"]


def from_grouped(grouped: pa.Table, columns: Sequence[str], n_splits: int, name: str) -> GroupSplitCounts:
    """GroupSplitCounts from one row per (value, split) present (columns as grouped_columns), whatever engine counted.

    Values are numbered in order of their first row, so every engine gives the same codes.
    """
    keys = [f"k{i}" for i in range(len(columns))]
    first_rows = grouped["first"].to_numpy()
    if len(first_rows) > 1 and not bool(np.all(first_rows[1:] > first_rows[:-1])):  # an engine may sort already
        grouped = grouped.sort_by([("first", "ascending")])
    split = grouped[_SPLIT].to_numpy().astype(np.int64)
    count = grouped["rows"].to_numpy().astype(np.int64)
    missing_key = np.zeros(grouped.num_rows, dtype=bool)
    for k in keys:
        missing_key |= _blank_or_null(grouped[k])
    has_split = split >= 0
    lost = missing_key & has_split
    missing = np.bincount(split[lost], weights=count[lost], minlength=n_splits).astype(np.int64)
    kept = grouped.filter(pa.array(~missing_key & has_split))
    parts = [encode_column(kept[k]) for k in keys]
    key = single_key(name, *parts[0]) if len(keys) == 1 else compound_key(list(columns), parts)
    flat = key.codes.astype(np.int64) * n_splits + kept[_SPLIT].to_numpy().astype(np.int64)
    size = key.n_values * n_splits
    counts = np.zeros(size, dtype=np.int64)
    counts[flat] = kept["rows"].to_numpy()
    first, last = np.full(size, -1, dtype=np.int64), np.full(size, -1, dtype=np.int64)
    first[flat] = kept["first"].to_numpy()
    last[flat] = kept["last"].to_numpy()
    shape = (key.n_values, n_splits)
    return GroupSplitCounts(key, counts.reshape(shape), first.reshape(shape), last.reshape(shape), missing)


def counts_from_rows(
    rows: np.ndarray, codes: np.ndarray, values: pa.Array, split_codes: np.ndarray, n_splits: int, name: str
) -> GroupSplitCounts:
    """The same counts from a subset of rows with exact codes (e.g. only rows whose value repeats)."""
    split = split_codes[rows].astype(np.int64)
    keep = split >= 0
    rows, codes, split = rows[keep], codes[keep], split[keep]
    key = single_key(name, np.zeros(0, dtype=np.int64), values)
    size = key.n_values * n_splits
    flat = codes * n_splits + split
    counts = np.bincount(flat, minlength=size).astype(np.int64)
    first, last = np.full(size, -1, dtype=np.int64), np.full(size, -1, dtype=np.int64)
    # rows ascend, so the first index of each (value, split) pair is its first row and the last its last.
    uniq, first_at = np.unique(flat, return_index=True)
    first[uniq] = rows[first_at]
    uniq_rev, last_at = np.unique(flat[::-1], return_index=True)
    last[uniq_rev] = rows[::-1][last_at]
    shape = (key.n_values, n_splits)
    return GroupSplitCounts(
        key, counts.reshape(shape), first.reshape(shape), last.reshape(shape), np.zeros(n_splits, dtype=np.int64)
    )
