"""Factorize key columns once into integer codes that every stage shares (-1 means missing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.config import compound_label

MISSING = -1


@dataclass(frozen=True, eq=False)
class KeyCodes:
    """A key (one column or a compound of several) as one int64 code per row, with the values' labels."""

    name: str
    columns: tuple[str, ...]
    codes: np.ndarray
    # Per component: the code of that component for each distinct key value, and the component's labels.
    parts: tuple[tuple[np.ndarray, pa.Array], ...]

    @property
    def n_values(self) -> int:
        return len(self.parts[0][0]) if self.parts else 0

    def labels(self, codes: Sequence[int] | np.ndarray) -> list[str]:
        out = []
        for code in np.asarray(codes, dtype=np.int64):
            if code < 0:
                out.append("<missing>")
                continue
            bits = [str(values[int(index[code])].as_py()) for index, values in self.parts]
            out.append(bits[0] if len(bits) == 1 else compound_label(bits))
        return out

    def label(self, code: int) -> str:
        return self.labels([code])[0]

    def find(self, value: str | Sequence[str]) -> int | None:
        """The code of a value written as in reports ('a' or 'a + b', or a list of parts); None if absent."""
        parts = [value] if isinstance(value, str) and len(self.parts) == 1 else value
        if isinstance(parts, str):
            parts = parts.split(" + ")
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


def encode_column(
    column: pa.ChunkedArray | pa.Array, blank_is_missing: bool = True
) -> tuple[np.ndarray, pa.Array]:
    """One column to (codes, distinct values); null, NaN and (for text) blank values become -1."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if pa.types.is_dictionary(column.type):
        unified = pa.table({"c": column}).unify_dictionaries()["c"]
        dictionary = unified.chunk(0).dictionary if unified.num_chunks else pa.array([], pa.string())
        indices = pa.chunked_array([c.indices for c in unified.chunks], type=column.type.index_type)
    else:
        if pa.types.is_floating(column.type):
            column = pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)
        encoded = (
            column.combine_chunks().dictionary_encode()
            if column.num_chunks != 1
            else column.chunk(0).dictionary_encode()
        )
        dictionary, indices = encoded.dictionary, encoded.indices
    codes = (
        pc.fill_null(indices, -1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        if len(indices)
        else np.zeros(0, dtype=np.int64)
    )
    if blank_is_missing and (
        pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)
    ):
        blank = pc.equal(pc.utf8_trim_whitespace(dictionary), "").to_numpy(zero_copy_only=False)
        if blank.any():
            remap = np.arange(len(dictionary), dtype=np.int64)
            remap[blank] = MISSING
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], MISSING)
    return codes, dictionary


def single_key(name: str, codes: np.ndarray, dictionary: pa.Array) -> KeyCodes:
    return KeyCodes(name, (name,), codes, ((np.arange(len(dictionary), dtype=np.int64), dictionary),))


def compound_key(columns: Sequence[str], parts: Sequence[tuple[np.ndarray, pa.Array]]) -> KeyCodes:
    """Combine component codes into one code per distinct combination (missing if any part is)."""
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
    codes = np.full(n, MISSING, dtype=np.int64)
    codes[rows] = valid_codes
    first = np.zeros(len(uniques), dtype=np.int64)
    first[valid_codes[::-1]] = rows[::-1]  # the first row that holds each combination
    decoded = tuple((part_codes[first], dictionary) for part_codes, dictionary in parts)
    return KeyCodes(compound_label(list(columns)), tuple(columns), codes, decoded)
