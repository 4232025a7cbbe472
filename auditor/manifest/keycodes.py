"""Factorize key columns once into integer codes that every stage shares (-1 means missing)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.config import compound_label, label_parts
from auditor.manifest.hashing import fingerprint
from auditor.manifest.rows import take_rows

MISSING = -1
CODE = np.int32  # one code per row; half the memory traffic of int64 on 10M-row keys


@dataclass(frozen=True, eq=False)
class KeyCodes:
    """A key (one column or a compound of several) as one int32 code per row, with the values' labels.

    The codes may be given as a function that makes them: an engine whose rows are elsewhere knows a key's
    values without holding a code per row, and makes them only for a stage that asks for every row's code."""

    name: str
    columns: tuple[str, ...]
    per_row: np.ndarray | Callable[[], np.ndarray]
    # Per component: the code of that component for each distinct key value, and the component's labels.
    parts: tuple[tuple[np.ndarray, pa.Array], ...]
    _made: list[np.ndarray] = field(default_factory=list, repr=False)
    _making: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def codes(self) -> np.ndarray:
        """One code per row (-1 missing), made on first use when given as a function."""
        if isinstance(self.per_row, np.ndarray):
            return self.per_row
        with self._making:  # stages ask from their threads at once: the codes are made once
            if not self._made:
                self._made.append(self.per_row())
            return self._made[0]

    @property
    def codes_held(self) -> bool:
        """Whether every row's code is in memory now (an engine with its rows elsewhere makes them on demand)."""
        return isinstance(self.per_row, np.ndarray) or bool(self._made)

    @property
    def n_values(self) -> int:
        return len(self.parts[0][0]) if self.parts else 0

    def labels(self, codes: Sequence[int] | np.ndarray) -> list[str]:
        wanted = np.asarray(codes, dtype=np.int64)
        present = np.maximum(wanted, 0)
        columns = [[str(v) for v in values.take(pa.array(index[present])).to_pylist()] for index, values in self.parts]
        return (
            [
                "<missing>" if code < 0 else bits[0] if len(bits) == 1 else compound_label(list(bits))
                for code, bits in zip(wanted, zip(*columns, strict=True), strict=True)
            ]
            if len(wanted)
            else []
        )

    def label(self, code: int) -> str:
        return self.labels([code])[0]

    def find(self, value: str | Sequence[str]) -> int | None:
        """The code of a value written as in reports ('a' or 'a + b', or a list of parts); None if absent."""
        parts = [value] if isinstance(value, str) and len(self.parts) == 1 else value
        if isinstance(parts, str):
            parts = label_parts(parts, len(self.parts)) or []
        if len(parts) != len(self.parts):
            return None
        match = np.ones(self.n_values, dtype=bool)
        for wanted, (index, values) in zip(parts, self.parts, strict=True):
            text = pc.cast(values, pa.string()) if not pa.types.is_string(values.type) else values
            position = pc.index(text, str(wanted)).as_py()
            if position is None or position < 0:
                return None
            match &= index == position
        hits = np.flatnonzero(match)
        return int(hits[0]) if len(hits) else None


SMALL_DICTIONARY = 1 << 16


def encode_column(column: pa.ChunkedArray | pa.Array, blank_is_missing: bool = True) -> tuple[np.ndarray, pa.Array]:
    """One column to (codes, distinct values in first-seen order); null, NaN and blank text become -1."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    t = column.type
    if pa.types.is_dictionary(t) and sum(len(c.dictionary) for c in column.chunks) <= SMALL_DICTIONARY:
        codes, values = _encode_small_dictionary(column)
    elif pa.types.is_integer(t):
        codes, values = _encode_integers(column)
    else:
        codes, values = _encode_hashed(column)
    return drop_blank(codes, values) if blank_is_missing else (codes, values)


def drop_blank(codes: np.ndarray, values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Blank text values become missing (-1); the others are renumbered, keeping first-seen order."""
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        blank = pc.equal(pc.utf8_trim_whitespace(values), "").to_numpy(zero_copy_only=False)
        if blank.any():
            remap = np.cumsum(~blank) - 1
            remap[blank] = MISSING
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], MISSING).astype(codes.dtype, copy=False)
            values = values.filter(pa.array(~blank))
    return codes, values


def _encode_small_dictionary(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    unified = pa.table({"c": column}).unify_dictionaries()["c"]
    dictionary = unified.chunk(0).dictionary if unified.num_chunks else pa.array([], column.type.value_type)
    # The indices are copied once into the codes: casting, filling and joining the chunks first would touch
    # ten times the memory, and the split's codes are made before any other work can start.
    codes = np.empty(len(unified), dtype=CODE)
    at = 0
    for chunk in unified.chunks:
        index = chunk.indices
        part = codes[at : at + len(index)]
        # Indices may be unsigned (polars' Categorical and Enum); a dictionary this small fits int32 either way.
        part[:] = index.fill_null(0).to_numpy() if index.null_count else index.to_numpy()
        if index.null_count:
            part[index.is_null().to_numpy(zero_copy_only=False)] = MISSING
        at += len(index)
    # A dictionary may hold values no row has (a pandas Categorical's unused categories): they are not values
    # of the column, so a split named only there is no split.
    # (Arrow's hash of the indices: bincount would first widen the 10M codes to int64.)
    seen = pc.unique(pa.chunked_array([c.indices for c in unified.chunks], type=unified.type.index_type))
    used = np.zeros(len(dictionary), dtype=bool)
    used[seen.drop_null().to_numpy().astype(np.int64)] = True
    if not used.all():
        remap = np.cumsum(used) - 1
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], MISSING).astype(CODE, copy=False)
        dictionary = dictionary.filter(pa.array(used))
    return codes, dictionary


def _encode_integers(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    import pandas as pd  # here, not at the top: its import costs more than a small audit

    codes, _ = pd.factorize(column.fill_null(0).to_numpy())
    return _renumber(_null_to_missing(codes.astype(CODE), column), column)


def _plain_values(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_floating(column.type):
        column = pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)
    return column


def _encode_hashed(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Factorize the first hash; confirm with the second that no two values share a code."""
    column = _plain_values(column)
    h1, h2 = fingerprint(column)
    return encode_hashes(column, h1, h2)


def encode_hashes(column: pa.ChunkedArray, h1: np.ndarray, h2: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Codes from a column's two fingerprints (see encode_column); exact, falling back on a collision."""
    # Arrow's hash table on integers is faster than pandas' here; codes come in first-seen order.
    encoded = pa.array(h1).dictionary_encode()
    codes = encoded.indices.to_numpy().astype(CODE, copy=False)
    second = np.zeros(len(encoded.dictionary), dtype=np.uint64)
    second[codes] = h2
    if not np.array_equal(second[codes], h2):  # a 64-bit collision: fall back to Arrow's exact encoder
        exact = column.combine_chunks().dictionary_encode().indices
        return _renumber(exact.fill_null(MISSING).to_numpy(zero_copy_only=False).astype(CODE), column)
    return _renumber(_null_to_missing(codes.copy(), column), column)


def _null_to_missing(codes: np.ndarray, column: pa.ChunkedArray | None) -> np.ndarray:
    if column is not None and column.null_count:
        codes[column.is_null().to_numpy(zero_copy_only=False)] = MISSING
    return codes


def _renumber(codes: np.ndarray, column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Dense codes 0..k-1 in first-seen order for the non-missing rows, and each code's value."""
    if column.null_count or (len(codes) and codes.min() < 0):
        import pandas as pd  # here, not at the top: its import costs more than a small audit

        valid = codes >= 0
        dense, _ = pd.factorize(codes[valid])
        codes = np.full(len(codes), MISSING, dtype=CODE)
        codes[valid] = dense
    if not len(codes) or codes.max() < 0:
        return codes, pa.array([], _plain(column.type))
    # Codes are dense in first-seen order, so a value first appears where the running maximum grows (compared
    # with its neighbour, not by np.diff(prepend=...), which copies the codes into a wider array: 10x the time).
    running = np.maximum.accumulate(codes)
    grows = np.flatnonzero(running[1:] != running[:-1]) + 1
    first = np.concatenate(([0], grows)) if running[0] >= 0 else grows
    values = take_rows(column, first)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return codes, values


def _plain(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


def single_key(name: str, codes: np.ndarray, dictionary: pa.Array) -> KeyCodes:
    return KeyCodes(name, (name,), codes, ((np.arange(len(dictionary), dtype=CODE), dictionary),))


def compound_key(columns: Sequence[str], parts: Sequence[tuple[np.ndarray, pa.Array]]) -> KeyCodes:
    """Combine component codes into one code per distinct combination (missing if any part is)."""
    import pandas as pd  # here, not at the top: its import costs more than a small audit

    n = len(parts[0][0])
    missing = np.zeros(n, dtype=bool)
    combined = np.zeros(n, dtype=np.int64)
    for codes, _dictionary in parts:
        missing |= codes < 0
        # Re-factorize after each component so the combined value stays below n * n (no overflow).
        combined = combined * (int(codes.max(initial=0)) + 1) + np.maximum(codes, 0)
        combined = pd.factorize(combined)[0].astype(np.int64)
    rows = np.flatnonzero(~missing)
    valid_codes, uniques = pd.factorize(combined[rows])
    codes = np.full(n, MISSING, dtype=CODE)
    codes[rows] = valid_codes
    first = np.zeros(len(uniques), dtype=np.int64)
    first[valid_codes[::-1]] = rows[::-1]  # the first row that holds each combination
    decoded = tuple((part_codes[first], dictionary) for part_codes, dictionary in parts)
    return KeyCodes(compound_label(list(columns)), tuple(columns), codes, decoded)
