"""The scope of a finding about many values of a key, computed column-wise: core/scope.py's, value for value.

``scope_of`` normalises each value's spelling in Python (about 3 µs a value): a random split shares a
million source values between train and holdout, seconds of a ten-second audit. Beyond MAX_LISTED values a
scope keeps only their number and the digest of their sorted normal forms, which Arrow computes for the
ASCII values without a Python object per value (the others go through core/spelling.py one by one).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.scope import MAX_LISTED, Scope, normalise_spelling, scope_of
from auditor.core.spelling import WHITESPACE
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.spelling import normalise

# Runs of whitespace inside a normal form count as one space (normalise_spelling's " ".join(t.split())).
_SPACE_RUN = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]+"
# Bytes that may belong to whitespace other than one plain space: ASCII whitespace but the space (and every
# byte of a non-ASCII character, should one come here: a few of those are spaces, U+2028, U+3000, ...).
_SUSPECT = np.zeros(256, dtype=bool)
_SUSPECT[[ord(c) for c in WHITESPACE if ord(c) < 128 and c != " "]] = True
_SUSPECT[128:] = True
# What json.dumps escapes in a string with ensure_ascii=False: the quote, the backslash, control characters.
_JSON_ESCAPED = r'["\\\x{0}-\x{1f}]'


def key_scope(key: KeyCodes, codes: np.ndarray, counts: Mapping[str, int] | None = None) -> Scope:
    """``scope_of(key.labels(codes), counts)``, column-wise when the key is one text column and its values
    too many to list."""
    values = _text_labels(key, codes)
    if values is None or len(values) <= MAX_LISTED:
        return scope_of(key.labels(codes), counts)
    return text_scope(values, counts)


def text_scope(values: pa.Array | pa.ChunkedArray, counts: Mapping[str, int] | None = None) -> Scope:
    """``scope_of(values.to_pylist(), counts)`` for text values without nulls, in Arrow when they are many."""
    values = pa.chunked_array([values]) if isinstance(values, pa.Array) else values
    values = values.cast(pa.string())
    ascii_only = pc.string_is_ascii(values)
    plain = values.filter(ascii_only)
    normal = pa.chunked_array([_respace(c) for c in normalise(plain, marks=False).chunks], pa.string())
    changed = not pc.all(pc.equal(normal, plain)).as_py()
    if len(plain) < len(values):
        # Non-ASCII values go through core/spelling.py itself: Arrow's Unicode tables are newer than Python's,
        # and a character one of them does not know yet would get two normal forms.
        wide = values.filter(pc.invert(ascii_only)).to_pylist()
        normal = pa.chunked_array([*normal.chunks, pa.array([normalise_spelling(v) for v in wide], pa.string())])
        changed = True
    if changed:
        normal = pc.unique(normal)  # spellings of one value now written alike (distinct values stay distinct)
    if len(normal) <= MAX_LISTED:  # the values are listed (as first spelled): the exact path, on few values
        return scope_of(values.to_pylist(), counts)
    ordered = sorted_text(normal)
    texts: list[str] = ordered.to_pylist()
    if pc.any(pc.match_substring_regex(ordered, _JSON_ESCAPED)).as_py():
        dumped = json.dumps(texts, ensure_ascii=False)
    else:  # the same text json.dumps writes, without escaping a million strings one by one
        dumped = '["' + '", "'.join(texts) + '"]'
    return Scope(
        values=(),
        n_values=len(texts),
        digest=hashlib.sha256(dumped.encode("utf-8")).hexdigest(),
        counts=None if counts is None else dict(counts),
    )


def sorted_text(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Text values sorted as Python's ``sorted`` sorts them (by code point: UTF-8's byte order).

    DuckDB's sort, when installed, on the Arrow array without a copy: about 3x Arrow's on 2M short strings.
    """
    try:
        import duckdb
    except ImportError:  # the in-memory engine does not require it
        return values.take(pc.array_sort_indices(values))
    con = duckdb.connect()
    try:
        con.execute("SET threads = 2")
        con.register("sorting", pa.table({"v": values}))  # the Arrow buffers themselves, not a copy
        # VARCHAR compares bytes unless a collation is asked for; COLLATE binary says so whatever the defaults.
        result = con.sql('SELECT v FROM sorting ORDER BY v COLLATE "binary"').to_arrow_table()["v"]
    finally:
        con.close()
    return result.combine_chunks()


def _respace(chunk: pa.Array) -> pa.Array:
    """Runs of whitespace as one space; the regex only on the values a byte scan finds may hold such a run."""
    n = len(chunk)
    data_buffer = chunk.buffers()[2]
    if not n or data_buffer is None:
        return chunk
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
    data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
    flagged = _SUSPECT[data]
    flagged[:-1] |= (data[:-1] == 32) & (data[1:] == 32)  # two spaces in a row
    at = np.flatnonzero(flagged)
    if not len(at):
        return chunk
    rows = np.unique(np.searchsorted(offsets, at + offsets[0], side="right") - 1)
    picked = chunk.take(pa.array(rows))
    return pc.replace_with_mask(chunk, _mask(n, rows), pc.replace_substring_regex(picked, _SPACE_RUN, " "))


def _mask(n: int, rows: np.ndarray) -> pa.Array:
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return pa.array(mask)


def _text_labels(key: KeyCodes, codes: np.ndarray) -> pa.Array | None:
    """The labels of ``codes`` as an Arrow string array when they are the values themselves (one text column,
    no missing code); None otherwise (compound keys, numbers and times are labelled in Python)."""
    if len(key.parts) != 1:
        return None
    index, values = key.parts[0]
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return None
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) and int(codes.min()) < 0:
        return None
    labels = values.take(pa.array(index[codes]))
    return None if labels.null_count else labels
