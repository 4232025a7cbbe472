"""Group rows by 64-bit hashes of their keys, piece by piece, keeping each group's smallest and largest value.

These are the map and reduce steps of the cluster engine: a piece of the manifest is reduced to one row per
(hashes, split), the partial groups are sent to a bucket by hash, and each bucket merges what it receives.
Strings never travel through the shuffle as keys; the smallest and largest value of a group do, so a group
whose two ends differ is a hash collision and is regrouped by the values themselves. Nothing here is
approximate: a group is only trusted when both ends agree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.backends.files import ROW, conformed
from auditor.manifest.hashing import fingerprint
from auditor.manifest.readers import open_parquet

SPLIT = "_split"
# Hashes are masked with this; narrowing it (tests do) makes collisions common, to show they are caught.
HASH_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
_NULL_HASH = np.uint64(0x9E3779B97F4A7C15)
_BUCKET_MIX = np.uint64(0xBF58476D1CE4E5B9)


@dataclass(frozen=True)
class Piece:
    """Some row groups of one manifest file, and the manifest row its first row is."""

    path: str
    row_groups: tuple[int, ...]
    offset: int
    rows: int
    split: str | None  # the split of every row (a `paths` manifest), or None: read `split_column`
    split_column: str | None
    casts: tuple[tuple[str, pa.DataType], ...] = ()  # the file's columns in another type than the manifest's


def read_rows(piece: Piece, columns: list[str]) -> pa.Table:
    """The piece's row groups' ``columns``, in the manifest's one type per column (see Source.casts)."""
    return conformed(open_parquet(piece.path).read_row_groups(list(piece.row_groups), columns=columns), piece.casts)


def field(column: str) -> str:
    """The name read_piece gives a manifest column: prefixed, so that a column named `_row` or `_split` is never
    taken for the row numbers or split codes beside it."""
    return f"c:{column}"


def read_piece(piece: Piece, columns: Sequence[str], split_names: Sequence[str] | np.ndarray | None = None) -> pa.Table:
    """The piece's ``columns`` (each named by ``field``) plus its manifest row numbers (ROW), and with
    ``split_names`` each row's split code (SPLIT: the position of its split value among ``split_names``; -1 when
    not among them). Cross-validation folds give the piece's split codes themselves (its rows' fold patterns,
    which no file column holds)."""
    wanted = list(dict.fromkeys(columns))
    if isinstance(split_names, np.ndarray):
        table = read_rows(piece, wanted)
        if len(split_names) != table.num_rows:
            raise ValueError(f"{piece.path}: {len(split_names)} split codes for a piece of {table.num_rows} rows")
        out = {field(c): _plain(table.column(c)) for c in wanted}
        out[ROW] = pa.array(np.arange(piece.offset, piece.offset + table.num_rows, dtype=np.int64))
        out[SPLIT] = pa.array(split_names.astype(np.int64))
        return pa.table(out)
    if split_names is not None and piece.split is None:
        assert piece.split_column is not None
        wanted = list(dict.fromkeys([*wanted, piece.split_column]))
    table = read_rows(piece, wanted)
    rows = np.arange(piece.offset, piece.offset + table.num_rows, dtype=np.int64)
    out = {field(c): _plain(table.column(c)) for c in columns}
    out[ROW] = pa.array(rows)
    if split_names is not None:
        names = pa.array(list(split_names), pa.string())
        if piece.split is not None:
            found = pc.index_in(pa.array([piece.split]), value_set=names)[0].as_py()
            codes = np.full(table.num_rows, -1 if found is None else found, dtype=np.int64)
        else:
            assert piece.split_column is not None
            values = table.column(piece.split_column).cast(pa.string())
            codes = pc.fill_null(pc.index_in(values, value_set=names), -1).to_numpy().astype(np.int64)
        out[SPLIT] = pa.array(codes)
    return pa.table(out)


def _plain(column: pa.ChunkedArray) -> pa.Array:
    """One array with dictionaries decoded and NaN as null, as the in-memory encoder reads values."""
    array = column.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.cast(array.type.value_type)
    if pa.types.is_null(array.type):  # a column of nulls only (pandas' all-None object column): no value to compare
        return pa.nulls(len(array), pa.string())
    if pa.types.is_float16(array.type):  # Arrow compares and groups no half float: each is exactly a float32
        array = array.cast(pa.float32())
    if pa.types.is_floating(array.type):
        array = pc.if_else(pc.is_nan(array), pa.scalar(None, array.type), array)
    return array


def hash_values(values: pa.Array) -> np.ndarray:
    """A uint64 per value (masked by HASH_MASK); equal values hash equal, nulls all hash alike."""
    made = fingerprint(pa.chunked_array([values], values.type), second=False)[0]
    return masked(made, np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool))


def masked(made: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """hash_values from the fingerprints made and which values are not null."""
    h = made & HASH_MASK
    if not valid.all():
        h[~valid] = _NULL_HASH & HASH_MASK
    return h


def hash_keys(table: pa.Table, keys: Sequence[str], hashes: Sequence[np.ndarray] | None = None) -> pa.Table:
    """The table with one hash column per key (h0, h1, ...) in place of the keys' values kept as v0, v1, ...;
    ``hashes``, when given, are the keys' hash_values already made."""
    if hashes is None:
        hashes = [hash_values(table.column(field(k)).combine_chunks()) for k in keys]
    out = {f"h{i}": pa.array(h) for i, (h, _) in enumerate(zip(hashes, keys, strict=True))}
    out.update({f"v{i}": table.column(field(k)) for i, k in enumerate(keys)})
    out.update({c: table.column(c) for c in (ROW, SPLIT) if c in table.column_names})
    return pa.table(out)


def allow_unaligned() -> None:
    """Tables that crossed a process boundary may hold buffers Arrow's engine finds unaligned: it is told to copy
    them instead of printing a warning per table (read once per process, at its first grouping)."""
    os.environ.setdefault("ACERO_ALIGNMENT_HANDLING", "reallocate")


def partial_groups(hashed: pa.Table, n_keys: int) -> pa.Table:
    """One row per (h0.., split): rows, first and last row, and per key its smallest, largest and non-null
    count. ``hashed``'s rows ascend; the groups come in the order of their first rows. A key's largest value
    (hi0..) is left out when every group holds one value, its smallest: what travels to the buckets is then
    each value once, not twice."""
    group, starts = _group_ids(hashed, n_keys)
    row = hashed.column(ROW).to_numpy()
    last = np.zeros(len(starts), dtype=np.int64)
    np.maximum.at(last, group, row)
    out = _group_keys(hashed, n_keys, starts)
    out.update(rows=np.bincount(group, minlength=len(starts)).astype(np.int64), first=row[starts], last=last)
    for i in range(n_keys):
        v = hashed.column(f"v{i}").combine_chunks()
        lo, hi = value_ends(v, v, group, starts)
        valid = np.asarray(v.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        out[f"lo{i}"] = lo
        if hi is not lo:
            out[f"hi{i}"] = hi
        out[f"n{i}"] = np.bincount(group[valid], minlength=len(starts))
    return pa.table(out)


def _with_ends(part: pa.Table, keys: Sequence[int]) -> pa.Table:
    """Partial groups with the largest value of each key in ``keys``: the smallest where the piece left it out."""
    columns: dict[str, pa.ChunkedArray] = {}
    for name in part.column_names:
        columns[name] = part.column(name)
        if name.startswith("lo") and int(name[2:]) in keys and f"hi{name[2:]}" not in part.column_names:
            columns[f"hi{name[2:]}"] = part.column(name)
    return pa.table(columns)


def merge_groups(parts: Sequence[pa.Table], n_keys: int) -> pa.Table:
    """Partial groups of several pieces merged into one row per (h0.., split); ``parts`` come in the order of
    the pieces, each in the order of its first rows, and so do the merged groups."""
    every = range(n_keys)
    filled = [p for p in parts if p.num_rows]
    if not filled:  # nothing to merge: an empty table of the same columns, or of the hashes alone
        return _with_ends(parts[0], every) if parts else _empty_groups(n_keys)
    # A key's largest values travel only from pieces where a group held two values; elsewhere they are its
    # smallest. Where no piece sent any, the ends are found from the smallest alone.
    sent = [i for i in every if any(f"hi{i}" in p.column_names for p in filled)]
    table = pa.concat_tables([_with_ends(p, sent) for p in filled])
    group, starts = _group_ids(table, n_keys)
    out = _group_keys(table, n_keys, starts)

    def summed(column: str) -> np.ndarray:
        total = np.zeros(len(starts), dtype=np.int64)
        np.add.at(total, group, table.column(column).to_numpy())
        return total

    last = np.zeros(len(starts), dtype=np.int64)
    np.maximum.at(last, group, table.column("last").to_numpy())
    # Parts in piece order, each by first row: a group's first row is in the part it first appears in.
    out.update(rows=summed("rows"), first=table.column("first").to_numpy()[starts], last=last)
    for i in range(n_keys):
        lo = table.column(f"lo{i}").combine_chunks()
        hi = table.column(f"hi{i}").combine_chunks() if i in sent else lo
        lo, hi = value_ends(lo, hi, group, starts)
        out.update({f"lo{i}": lo, f"hi{i}": hi, f"n{i}": summed(f"n{i}")})
    return pa.table(out)


def _group_ids(table: pa.Table, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group by (h0.., split), groups numbered in the order they first occur, and each group's
    first row. Arrow's dictionary encoding numbers a column's values so; pairs of codes are encoded again."""
    group: np.ndarray | None = None
    for name in _group_by(table, n_keys):
        if name == SPLIT:  # a few small integers: their own codes
            codes = table.column(name).to_numpy().astype(np.int64)
            codes -= codes.min(initial=0)
        else:
            codes = pc.dictionary_encode(table.column(name).combine_chunks()).indices.to_numpy().astype(np.int64)
        if group is None:
            group = codes
            continue
        pair = group * (int(codes.max(initial=0)) + 1) + codes  # exact: each code is below its column's count
        group = _numbered_as_they_come(pair)
    assert group is not None
    seen = np.maximum.accumulate(group) if len(group) else group
    new = np.ones(len(group), dtype=bool)
    new[1:] = group[1:] > seen[:-1]
    return group, np.flatnonzero(new)


def _numbered_as_they_come(values: np.ndarray) -> np.ndarray:
    """Non-negative integers renumbered 0, 1, ... in the order they first occur (as a dictionary encoding
    numbers them); a dense range is numbered by lookup, with no hash table."""
    if not len(values):
        return values
    span = int(values.max()) + 1
    if span > 4 * len(values):
        return pc.dictionary_encode(pa.array(values)).indices.to_numpy().astype(np.int64)
    first_at = np.full(span, len(values), dtype=np.int64)
    np.minimum.at(first_at, values, np.arange(len(values)))
    is_first = np.zeros(len(values), dtype=bool)
    is_first[first_at[first_at < len(values)]] = True
    number_at = np.cumsum(is_first) - 1
    return number_at[first_at[values]]


def _group_by(table: pa.Table, n_keys: int) -> list[str]:
    """The columns a group is: the keys' hashes, and the split when the table has one."""
    return [f"h{i}" for i in range(n_keys)] + ([SPLIT] if SPLIT in table.column_names else [])


def _group_keys(table: pa.Table, n_keys: int, starts: np.ndarray) -> dict[str, object]:
    return {c: table.column(c).to_numpy()[starts] for c in _group_by(table, n_keys)}


def value_ends(lo: pa.Array, hi: pa.Array, group: np.ndarray, starts: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """Each group's smallest ``lo`` and largest ``hi`` (nulls ignored; null when a group has none), from each
    row's group and each group's first row. A group whose rows all hold one value, or none, is the usual case:
    it costs an equality test per row, not an ordering of strings; only the other groups are ordered."""
    if not len(starts):
        return lo, hi
    sizes = np.bincount(group, minlength=len(starts))
    first = lo.take(pa.array(starts))
    spread = first.take(pa.array(group))
    # A piece's rows hold one value each (lo is hi): one comparison, not two.
    same = pc.equal(lo, spread) if hi is lo else pc.and_(pc.equal(lo, spread), pc.equal(hi, spread))
    same = pc.fill_null(same, False)
    empty = lo.is_null() if hi is lo else pc.and_(lo.is_null(), hi.is_null())
    same_rows = np.bincount(group[np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)], minlength=len(starts))
    empty_rows = np.bincount(group[np.asarray(empty.to_numpy(zero_copy_only=False), dtype=bool)], minlength=len(starts))
    uniform = (same_rows == sizes) | (empty_rows == sizes)
    if uniform.all():
        return first, first
    rows = np.flatnonzero(~uniform[group])
    allow_unaligned()
    exact = (
        pa.table({"g": pa.array(group[rows]), "lo": lo.take(pa.array(rows)), "hi": hi.take(pa.array(rows))})
        .group_by(["g"], use_threads=False)
        .aggregate([("lo", "min"), ("hi", "max")])
        .sort_by("g")
    )
    mask = pa.array(~uniform)
    low = pc.replace_with_mask(first, mask, exact.column("lo_min").combine_chunks().cast(first.type))
    high = pc.replace_with_mask(first, mask, exact.column("hi_max").combine_chunks().cast(first.type))
    return low, high


def _empty_groups(n_keys: int) -> pa.Table:
    fields = [pa.field(f"h{i}", pa.uint64()) for i in range(n_keys)]
    fields += [pa.field(c, pa.int64()) for c in ("rows", "first", "last")]
    return pa.schema(fields).empty_table()


def bucket_of(hashes: Sequence[np.ndarray], n_buckets: int) -> np.ndarray:
    """The bucket of each row from its keys' hashes, as ``buckets`` deals them (uint16)."""
    mixed = np.zeros(len(hashes[0]) if hashes else 0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for h in hashes:
            mixed = (mixed ^ h) * _BUCKET_MIX
    return ((mixed >> np.uint64(40)) % np.uint64(n_buckets)).astype(np.uint16)


def buckets(table: pa.Table, n_buckets: int, n_keys: int) -> list[pa.Table]:
    """The rows of ``table`` dealt to ``n_buckets`` by their key hashes: a group always lands in one bucket."""
    if n_buckets == 1:
        return [table]
    target = bucket_of([table.column(f"h{i}").to_numpy() for i in range(n_keys)], n_buckets)
    order = np.argsort(target, kind="stable")  # a radix sort on 16-bit keys
    bounds = np.searchsorted(target[order], np.arange(n_buckets + 1))
    # A take per bucket, not slices of one sorted table: a slice keeps (and is sized by the scheduler as) the
    # whole table's buffers, so every bucket would look as large as the piece.
    return [table.take(pa.array(order[bounds[b] : bounds[b + 1]])) for b in range(n_buckets)]


def pure(groups: pa.Table, n_keys: int) -> np.ndarray:
    """Groups whose every key is one value (or null throughout): not a hash collision."""
    rows = groups.column("rows").to_numpy()
    ok = np.ones(groups.num_rows, dtype=bool)
    for i in range(n_keys):
        n = groups.column(f"n{i}").to_numpy()
        same = pc.fill_null(pc.equal(groups.column(f"lo{i}"), groups.column(f"hi{i}")), True)
        ok &= (n == 0) | ((n == rows) & same.to_numpy(zero_copy_only=False))
    return ok


def rows_with_hashes(hashed: pa.Table, n_keys: int, wanted: pa.Table) -> pa.Table:
    """The rows of a hashed piece whose key hashes (and split, if ``wanted`` has one) are a row of ``wanted``."""
    if not wanted.num_rows or not hashed.num_rows:
        return hashed.slice(0, 0)
    allow_unaligned()
    keys = [f"h{i}" for i in range(n_keys)] + ([SPLIT] if SPLIT in wanted.column_names else [])
    joined = hashed.join(wanted.select(keys), keys, join_type="left semi", use_threads=False)
    return joined.sort_by([(ROW, "ascending")])
