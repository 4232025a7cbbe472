"""Which columns look like identifiers (ids, row numbers, paths, high-cardinality codes), and the readings of
one that may carry the label: its digits (an id numbered in class order) or its folder (a path per class)."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.featurepower import Encoded, as_numbers, encode

# Name tokens of identifier columns: `customer_id`, `rowIndex`, `file_path`, `uuid`.
# Never `index`, `number` or `key` alone: `price_index`, `number_of_calls` and `key_account` are features.
_NAMES = {"id", "ids", "uuid", "guid", "idx", "row", "rownum", "rowid", "path", "file", "filename", "filepath", "url",
          "uri"}  # fmt: skip
# A folder separator, or a name ending in an extension with a letter (`.png`, `.mp3`, `.7z`): `E11.9` is a code.
_PATH = r"[/\\]|^[^\s]+\.[0-9]{0,4}[A-Za-z][A-Za-z0-9]{0,4}$"
DISTINCT_CODES = 0.5  # a text column with at least this share of distinct values is a code, not a category
DISTINCT_ROWS = 0.95  # an integer column this distinct, spanning little more than its count, numbers rows


def name_tokens(name: str) -> list[str]:
    """The words of a column name: snake_case, kebab-case, camelCase and spaces split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


def identifier_kind(name: str, column: pa.Array | pa.ChunkedArray, encoded: Encoded) -> str | None:
    """Why ``column`` looks like an identifier ('a path or file name', ...), or None when it looks like a feature."""
    present = encoded.values[~np.isnan(encoded.values)] if encoded.kind != "categorical" else None
    if encoded.kind == "categorical":
        text = _present_text(column)
        if len(text) and _share(text, _PATH) >= 0.9:
            return "paths or file names"
        share = encoded.n_levels / max(1, len(text))
        if share >= DISTINCT_CODES and len(text) >= 20:
            return f"a high-cardinality code ({share:.0%} of its values distinct)"
    elif encoded.kind == "numeric" and present is not None and len(present) >= 20:
        distinct = np.unique(present)
        integral = bool(np.all(distinct == np.round(distinct)))
        span = float(distinct.max() - distinct.min() + 1)
        if integral and len(distinct) >= DISTINCT_ROWS * len(present) and span <= 2 * len(distinct):
            return "a row number (distinct consecutive integers)"
    if set(name_tokens(name)) & _NAMES:
        return "named like an identifier"
    return None


def readings(name: str, column: pa.Array | pa.ChunkedArray, encoded: Encoded) -> list[tuple[str, Encoded]]:
    """The ways an identifier-like column is scored: as it is, by the number in it, by its folder."""
    found = [("value", encoded)]
    if encoded.kind != "categorical":
        return found
    text = pc.cast(column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column]), pa.string())
    digits = pc.extract_regex(text, r"(?P<n>\d+)\D*$")
    number = as_numbers(pc.struct_field(digits, "n"))
    if number is not None and (~np.isnan(number)).mean() >= 0.9:
        as_number = encode(pa.array(number), name)
        if as_number.kind == "numeric":
            found.append(("its digits", as_number))
    folder = pc.extract_regex(text, r"^(?P<d>.*)[/\\][^/\\]*$")
    parent = pc.struct_field(folder, "d")
    if parent.null_count < 0.1 * len(parent):
        as_folder = encode(parent, name)
        if as_folder.kind == "categorical":
            found.append(("its folder", as_folder))
    return found


def _present_text(column: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    column = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    text = pc.utf8_trim_whitespace(pc.cast(column, pa.string()))
    return pc.drop_null(pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text))


def _share(text: pa.ChunkedArray, pattern: str) -> float:
    return float(pc.sum(pc.match_substring_regex(text, pattern)).as_py() or 0) / max(1, len(text))
