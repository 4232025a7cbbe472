"""Rows per (key value, split), with the first and last row of each: what overlap stages compare.

In memory they are counted from the key's integer codes (shared with every stage that codes the key):
a bincount over ``code * splits + split`` costs a fraction of grouping the strings again. An engine that
groups elsewhere (a database) hands its result to ``from_grouped``; both number values alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.keycodes import CODE, MISSING, KeyCodes, compound_key, encode_column, single_key

_SPLIT = "__split_code__"
_ROW = "__row__"


@dataclass(frozen=True, eq=False)
class GroupSplitCounts:
    """One key: its distinct values (labels, lookup), rows per value and split, rows without a value."""

    key: KeyCodes  # indexes the distinct values (those in a split); key.codes may be per manifest row or not
    counts: np.ndarray  # (values, splits) row counts
    first_row: np.ndarray  # (values, splits) first manifest row of the value in the split, -1 if none
    last_row: np.ndarray  # (values, splits) last such row, -1 if none
    missing: np.ndarray  # (splits,) rows whose key is null or blank


# Every character Arrow's utf8_is_space (and utf8_trim_whitespace) calls whitespace, for an engine's own query
# (tests/manifest/test_groupcounts.py pins it to Arrow's definition over every code point).
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def blank_or_null(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Per row: no value (null, NaN, or a text of nothing but whitespace), as every stage reads a key."""
    missing = column.is_null()
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        # Empty, or all Unicode whitespace: what trimming to "" finds, without writing a trimmed copy of each text.
        blank = pc.or_(pc.equal(pc.binary_length(column), 0), pc.utf8_is_space(column))
        missing = pc.or_(missing, pc.fill_null(blank, False))
    elif pa.types.is_floating(column.type):
        missing = pc.or_(missing, pc.fill_null(pc.is_nan(column), False))
    return np.asarray(missing.to_numpy(zero_copy_only=False), dtype=bool)


def blank_count(values: pa.Array) -> np.ndarray:
    """How many of ``values`` hold no value, as a one-element array (a reduce for ``Manifest.per_split``)."""
    return np.array([int(blank_or_null(values).sum())], dtype=np.int64)


def counts_from_codes(key: KeyCodes, split_codes: np.ndarray, n_splits: int) -> GroupSplitCounts:
    """The counts of a key from its per-row codes (-1: no value) and the rows' split codes (-1: no split).

    Rows without a split are left out, as ``from_grouped`` leaves them out, and values are renumbered in
    order of their first row in a split, so the result is the same as the grouped one, code for code.
    """
    codes, split = key.codes, split_codes
    n_rows = len(codes)
    has_split = split >= 0
    valid = codes >= 0
    missing = np.bincount(split[has_split & ~valid], minlength=n_splits).astype(np.int64)
    keep = has_split & valid
    every = bool(keep.all())
    size = key.n_values * n_splits
    # 32-bit rows and cells where they fit: the scatters below are bound by memory traffic.
    small = max(n_rows, size) < 2**31 - 1
    wide = np.dtype(np.int32 if small else np.int64)
    rows = np.arange(n_rows, dtype=wide) if every else np.flatnonzero(keep).astype(wide)
    flat = (codes if every else codes[rows]).astype(wide)
    flat *= n_splits
    flat += split if every else split[rows]
    counts = np.bincount(flat, minlength=size).astype(np.int64, copy=False)
    # ufunc.at says which row wins where a pair repeats; plain fancy assignment leaves that unspecified.
    first = np.full(size, n_rows, dtype=wide)
    np.minimum.at(first, flat, rows)
    last = np.full(size, -1, dtype=wide)
    np.maximum.at(last, flat, rows)
    del rows, flat
    shape = (key.n_values, n_splits)
    # Codes may be in first-seen order over all rows (or in a dictionary's order): a value's first row in
    # a split may come later, or never. Renumbering is needed only then. A pair never seen still holds
    # n_rows here, so the minimum over the splits is the value's earliest row. (Column by column: numpy
    # reduces an axis of three elements per row many times slower than it compares three columns.)
    by_value = first.reshape(shape)
    earliest = np.full(key.n_values, n_rows, dtype=np.int64)
    for s in range(n_splits):
        np.minimum(earliest, by_value[:, s], out=earliest)
    first = np.where(counts == 0, np.int64(-1), first).reshape(shape)  # to int64 in the same pass
    counts = counts.reshape(shape)
    last = last.astype(np.int64).reshape(shape)
    order = np.flatnonzero(earliest < n_rows)
    if len(order) and not bool(np.all(earliest[order][1:] > earliest[order][:-1])):
        order = order[np.argsort(earliest[order], kind="stable")]
    if len(order) < key.n_values or bool(np.any(order[1:] < order[:-1])):
        key = _subset(key, order)
        counts, first, last = counts[order], first[order], last[order]
    return GroupSplitCounts(key, counts, first, last, missing)


def _subset(key: KeyCodes, order: np.ndarray) -> KeyCodes:
    """The key restricted to the values ``order`` lists, numbered in that order (-1 for the others)."""
    remap = np.full(key.n_values + 1, MISSING, dtype=key.codes.dtype)  # the extra slot maps -1 to -1
    remap[order] = np.arange(len(order), dtype=key.codes.dtype)
    codes = remap[key.codes]
    if len(key.parts) == 1:
        index, values = key.parts[0]
        picked = values.take(pa.array(index[order]))
        return KeyCodes(key.name, key.columns, codes, ((np.arange(len(order), dtype=CODE), picked),))
    parts = tuple((index[order], values) for index, values in key.parts)
    return KeyCodes(key.name, key.columns, codes, parts)


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
        missing_key |= blank_or_null(grouped[k])
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


def value_row_columns(n_splits: int) -> list[str]:
    """The columns of one row per distinct value: the value, its first row in any split, then per split its
    rows, first row and last row (null where it has none)."""
    return ["k0", "first", *(f"{c}{i}" for i in range(n_splits) for c in ("n", "f", "l"))]


def from_value_rows(rows: pa.Table, n_splits: int, name: str) -> GroupSplitCounts:
    """GroupSplitCounts of a one-column key from one row per distinct value in a split (columns as
    value_row_columns, ordered by first row): numbered in that order, as from_grouped numbers them, with no
    second grouping of the values."""
    if rows.num_rows > 1:
        first_rows = rows["first"].to_numpy()
        if not bool(np.all(first_rows[1:] > first_rows[:-1])):
            rows = rows.sort_by([("first", "ascending")])
    missing_key = blank_or_null(rows["k0"])

    def cells(prefix: str, empty: int) -> np.ndarray:
        return np.stack(
            [pc.fill_null(rows[f"{prefix}{i}"], empty).to_numpy().astype(np.int64) for i in range(n_splits)], axis=1
        ).reshape(rows.num_rows, n_splits)

    counts, first, last = cells("n", 0), cells("f", -1), cells("l", -1)
    missing = counts[missing_key].sum(axis=0).astype(np.int64) if n_splits else np.zeros(0, np.int64)
    kept = np.flatnonzero(~missing_key)
    values = rows["k0"].take(pa.array(kept)).combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    key = single_key(name, np.arange(len(kept), dtype=CODE), values)
    return GroupSplitCounts(key, counts[kept], first[kept], last[kept], missing)


@dataclass(frozen=True, eq=False)
class ValueCounts:
    """Some distinct values of a one-column key with their rows per split, not yet numbered: a part of
    GroupSplitCounts that an engine makes where the rows are (one bucket of a cluster's grouping)."""

    values: pa.Array  # distinct values, each once
    earliest: np.ndarray  # (values,) first manifest row of each value in any split
    counts: np.ndarray  # (values, splits) as GroupSplitCounts
    first_row: np.ndarray
    last_row: np.ndarray
    missing: np.ndarray  # (splits,) rows whose key is null or blank

    @property
    def nbytes(self) -> int:
        arrays = (self.earliest, self.counts, self.first_row, self.last_row, self.missing)
        return int(self.values.nbytes) + sum(a.nbytes for a in arrays)


_RELEASE_EVERY = 4  # parts let go between two releases of the freed memory
_CELLS = ("counts", "first_row", "last_row")


def value_counts(grouped: pa.Table, n_splits: int) -> ValueCounts:
    """One row per (value, split) present (columns as grouped_columns(1)) to one row per distinct value."""
    split = grouped[_SPLIT].to_numpy().astype(np.int64)
    count = grouped["rows"].to_numpy().astype(np.int64)
    missing_key = blank_or_null(grouped["k0"])
    has_split = split >= 0
    lost = missing_key & has_split
    missing = np.bincount(split[lost], weights=count[lost], minlength=n_splits).astype(np.int64)
    kept = grouped.filter(pa.array(~missing_key & has_split))
    codes, values = encode_column(kept["k0"])
    n = len(values)
    flat = codes.astype(np.int64) * n_splits + kept[_SPLIT].to_numpy().astype(np.int64)
    counts = np.zeros(n * n_splits, dtype=np.int64)
    counts[flat] = kept["rows"].to_numpy()
    first, last = np.full(n * n_splits, -1, dtype=np.int64), np.full(n * n_splits, -1, dtype=np.int64)
    first[flat] = kept["first"].to_numpy()
    last[flat] = kept["last"].to_numpy()
    earliest = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(earliest, codes, kept["first"].to_numpy())
    shape = (n, n_splits)
    return ValueCounts(values, earliest, counts.reshape(shape), first.reshape(shape), last.reshape(shape), missing)


def from_value_counts(
    parts: list[ValueCounts],
    exact: ValueCounts | None,
    name: str,
    n_splits: int,
    release: Callable[[], None] | None = None,
) -> GroupSplitCounts:
    """GroupSplitCounts from parts whose values are disjoint, numbered in order of their first row as
    from_grouped numbers them. ``exact`` (regrouped hash collisions) may list a value of the parts again, with
    its rows of other splits: its cells are added where the value is already listed.

    ``parts`` is consumed (emptied): each part is let go as soon as its cells are in place, and every few parts
    ``release`` gives the freed memory back, so the parts and the result are never all held at once (at 6M
    values, 300 MB less at the peak)."""
    if exact is not None:
        parts[:] = [_fold_in(_concat_value_counts(parts, n_splits), exact)]
    missing = sum((p.missing for p in parts), np.zeros(n_splits, dtype=np.int64))
    filled: list[ValueCounts | None] = list(_filled(parts, n_splits))
    parts.clear()
    kind = filled[0].values.type if filled[0] is not None else pa.string()
    sizes = [len(p.values) for p in filled if p is not None]
    n = sum(sizes)
    # Where each value goes: its rank by first row. The result's pages are written a part at a time, as the
    # parts are let go.
    order = np.argsort(np.concatenate([p.earliest for p in filled if p is not None]), kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    del order
    counts, first, last = (np.empty((n, n_splits), dtype=np.int64) for _ in _CELLS)
    values: list[pa.Array] = []
    at = 0
    for i, size in enumerate(sizes):
        part, filled[i] = filled[i], None
        assert part is not None
        place = rank[at : at + size]
        counts[place], first[place], last[place] = part.counts, part.first_row, part.last_row
        values.append(pa.concat_arrays([part.values.cast(kind)]))  # a copy: the part's buffers go with it
        at += size
        del part
        if release is not None and i % _RELEASE_EVERY == _RELEASE_EVERY - 1:
            release()
    order = np.empty(n, dtype=np.int64)
    order[rank] = np.arange(n)
    del rank
    labels = pa.concat_arrays(values).take(pa.array(order)) if values else pa.array([], kind)
    key = single_key(name, np.arange(n, dtype=CODE), labels)
    return GroupSplitCounts(key, counts, first, last, missing)


def empty_value_counts(n_splits: int) -> ValueCounts:
    """No values: what a part of a grouping with no rows holds."""
    empty = np.zeros((0, n_splits), dtype=np.int64)
    return ValueCounts(
        pa.array([], pa.string()), np.zeros(0, np.int64), empty, empty, empty, np.zeros(n_splits, np.int64)
    )


def _filled(parts: Sequence[ValueCounts], n_splits: int) -> list[ValueCounts]:
    """The parts that hold values; one empty part when none does, so their arrays still join."""
    return [p for p in parts if len(p.values)] or list(parts[:1]) or [empty_value_counts(n_splits)]


def _concat_value_counts(parts: Sequence[ValueCounts], n_splits: int) -> ValueCounts:
    filled = _filled(parts, n_splits)
    return ValueCounts(
        pa.concat_arrays([p.values.cast(filled[0].values.type) for p in filled]),
        np.concatenate([p.earliest for p in filled]),
        np.concatenate([p.counts for p in filled]),
        np.concatenate([p.first_row for p in filled]),
        np.concatenate([p.last_row for p in filled]),
        sum((p.missing for p in parts), np.zeros(n_splits, dtype=np.int64)),
    )


def _fold_in(base: ValueCounts, extra: ValueCounts) -> ValueCounts:
    """``base`` with the cells of ``extra`` added: a value of both holds its rows of each split in one of them."""
    missing = base.missing + extra.missing
    if not len(extra.values):
        return ValueCounts(base.values, base.earliest, base.counts, base.first_row, base.last_row, missing)
    if not len(base.values):
        return ValueCounts(extra.values, extra.earliest, extra.counts, extra.first_row, extra.last_row, missing)
    at = pc.index_in(extra.values.cast(base.values.type), value_set=base.values)
    where = pc.fill_null(at, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    found = where >= 0
    counts, first, last = base.counts.copy(), base.first_row.copy(), base.last_row.copy()
    earliest = base.earliest.copy()
    hit, src = where[found], np.flatnonzero(found)
    cells = extra.counts[src] > 0
    counts[hit] += extra.counts[src]
    first[hit] = np.where(cells, extra.first_row[src], first[hit])
    last[hit] = np.where(cells, extra.last_row[src], last[hit])
    earliest[hit] = np.minimum(earliest[hit], extra.earliest[src])
    new = np.flatnonzero(~found)
    return ValueCounts(
        pa.concat_arrays([base.values, extra.values.take(pa.array(new)).cast(base.values.type)]),
        np.concatenate([earliest, extra.earliest[new]]),
        np.concatenate([counts, extra.counts[new]]),
        np.concatenate([first, extra.first_row[new]]),
        np.concatenate([last, extra.last_row[new]]),
        missing,
    )


def counts_from_rows(
    rows: np.ndarray, codes: np.ndarray, values: pa.Array, row_splits: np.ndarray, n_splits: int, name: str
) -> GroupSplitCounts:
    """The same counts from a subset of rows with exact codes (e.g. only rows whose value repeats), given the
    split code of each of those rows."""
    split = np.asarray(row_splits).astype(np.int64)
    keep = split >= 0
    rows, codes, split = rows[keep], codes[keep], split[keep]
    key = single_key(name, np.zeros(0, dtype=np.int64), values)
    size = key.n_values * n_splits
    flat = codes * n_splits + split
    counts = np.bincount(flat, minlength=size).astype(np.int64, copy=False)
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
