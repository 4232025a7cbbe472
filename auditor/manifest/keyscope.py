"""The scope of a finding about many values of a key, computed column-wise: core/scope.py's, value for value.

``scope_of`` normalises each value's spelling in Python (about 3 µs a value): a random split shares a
million source values between train and holdout, seconds of a ten-second audit. Beyond MAX_LISTED values a
scope keeps only their number and the digest of their sorted normal forms, which Arrow computes for the
ASCII values without a Python object per value (the others go through core/spelling.py one by one).

KeyScopes serves many subsets of one key's values (a finding per cross-validation fold): the values are
normalised and ranked once, each subset's scope is then array work. Both sort normal forms by text_order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.scope import MAX_LISTED, MAX_MEMBERS, Scope, digested_scope, members_of, normalise_spelling, scope_of
from auditor.core.spelling import WHITESPACE
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.spelling import maybe_changed, normalise

# What json.dumps escapes in a string with ensure_ascii=False: the quote, the backslash, control characters.
_JSON_ESCAPED = r'["\\\x{0}-\x{1f}]'
# Any ASCII whitespace: a value holding one may change when inner spaces collapse (non-ASCII is screened already).
_ASCII_SPACE = "[" + "".join(f"\\x{ord(c):02x}" for c in WHITESPACE if ord(c) < 128) + "]"


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
    normal = normalise(plain, fingerprint=True)
    # Short ASCII normal forms (ids, codes): sorted, made unique and written out as numbers, not strings.
    packed = _packed_digest(normal) if len(plain) == len(values) else None
    if packed is not None:
        n_values, digest = packed
        if n_values <= MAX_LISTED:
            return scope_of(values.to_pylist(), counts)
        if n_values > MAX_MEMBERS:
            return Scope(values=(), n_values=n_values, digest=digest, counts=None if counts is None else dict(counts))
        # few enough to keep their members: those need each value's JSON text, written below
    changed = packed is not None or not pc.all(pc.equal(normal, plain)).as_py()
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
    # json.dumps's text of the sorted list, made and hashed in Arrow: no Python string per value.
    quoted = _respelled(ordered, np.zeros(0, dtype=np.int64), _JSON_ESCAPED, _json_string, quote=True)
    members = members_of(values.to_pylist()) if len(ordered) <= MAX_MEMBERS else None
    return digested_scope(len(ordered), _list_digest(quoted), [], counts, members)


def _list_digest(quoted: pa.Array) -> str:
    """sha256 of json.dumps(list, ensure_ascii=False) from its items already written as JSON strings:
    "[" + ", ".join(items) + "]", joined in Arrow."""
    items = quoted.cast(pa.large_string())  # the joined text may pass 2 GB
    whole = pa.LargeListArray.from_arrays(pa.array([0, len(items)], pa.int64()), items)
    joined = pc.binary_join(whole, pa.scalar(", ", pa.large_string()))[0]
    digest = hashlib.sha256(b"[")
    digest.update(joined.as_buffer())  # Arrow's bytes, not a copy
    digest.update(b"]")
    return digest.hexdigest()


def sorted_text(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Text values sorted as Python's ``sorted`` sorts them (by code point: UTF-8's byte order)."""
    values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return values.take(pa.array(text_order(values)))


def text_order(values: pa.Array) -> np.ndarray:
    """Indices that sort text values (no nulls) as Python's ``sorted`` does; equal values in any order.

    Short keys (ids such as src-0012345: at most 8 bytes after the prefix all values share) sort as one
    64-bit word each, a numpy sort: 0.07 s for 1.2M values where Arrow's sort took 0.45 s. Others sort in
    DuckDB when installed (on the Arrow buffers, without a copy), else in Arrow.
    """
    if len(values) < 2:
        return np.arange(len(values), dtype=np.int64)
    words = _packed(values)
    if words is not None:
        return np.argsort(words)
    try:
        import duckdb
    except ImportError:  # the in-memory engine does not require it
        return np.asarray(pc.array_sort_indices(values), dtype=np.int64)
    con = duckdb.connect()
    try:
        con.execute("SET threads = 2")
        # The Arrow buffers themselves, not a copy; VARCHAR compares bytes unless a collation is asked for,
        # COLLATE binary says so whatever the defaults.
        con.register("sorting", pa.table({"v": values, "i": pa.array(np.arange(len(values), dtype=np.int64))}))
        order = con.sql('SELECT i FROM sorting ORDER BY v COLLATE "binary"').to_arrow_table()["i"]
    finally:
        con.close()
    return np.asarray(order.combine_chunks(), dtype=np.int64)


def _packed(values: pa.Array) -> np.ndarray | None:
    """Each value as one big-endian 64-bit word (its bytes after the common prefix, zero-padded), which sort
    as the values do; None unless every value is ASCII without a NUL and its rest fits in 8 bytes."""
    found = _packed_words(values)
    return None if found is None else found[0]


def _packed_words(values: pa.Array) -> tuple[np.ndarray, bytes] | None:
    """_packed's words and the prefix every value shares."""
    n = len(values)
    if values.null_count or not pa.types.is_string(values.type):
        return None
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32, count=n + 1, offset=values.offset * 4)
    if values.buffers()[2] is None:
        return None
    data = np.frombuffer(values.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    if data.max(initial=0) >= 128 or not data.all():  # non-ASCII, or a NUL (which zero padding would hide)
        return None
    low, high = pc.min_max(values).values()
    a, b = low.as_py(), high.as_py()
    prefix = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    lengths = np.diff(offsets)
    if int(lengths.max()) - prefix > 8:
        return None
    rest = pc.utf8_slice_codeunits(values, prefix)  # ASCII: a code unit is a byte
    padded = pc.utf8_rpad(rest, 8, "\x00").cast(pa.binary(8))
    words = np.frombuffer(padded.buffers()[1], dtype=">u8", count=n, offset=padded.offset * 8).astype(np.uint64)
    return words, a[:prefix].encode("ascii")


# Bytes json.dumps escapes (ensure_ascii=False): the quote, the backslash and the control characters.
_JSON_ESCAPES = np.zeros(256, dtype=bool)
_JSON_ESCAPES[[*range(32), ord('"'), ord("\\")]] = True
_DIGEST_BLOCK = 1 << 16


def _packed_digest(normal: pa.ChunkedArray) -> tuple[int, str] | None:
    """(number of distinct values, set_digest) of normal forms that _packed can hold and JSON writes as they are
    (no quote, backslash or control character), without a string per value: the words sorted and made unique
    by numpy, and json.dumps's text of the sorted list written from their bytes. None for any other values."""
    if not len(normal) or normal.nbytes >= 2**31:
        return None
    found = _packed_words(normal.combine_chunks())
    if found is None:
        return None
    words, prefix = found
    words.sort()  # as the texts sort: big-endian bytes, shorter ones padded with NUL
    distinct = words[np.concatenate(([True], words[1:] != words[:-1]))]
    del words
    head = np.frombuffer(prefix, dtype=np.uint8)
    if _JSON_ESCAPES[head].any():
        return None
    # Each item as '"' prefix rest '"' ', ', the rest's padding left out: json.dumps's list without its brackets,
    # written and hashed a block of values at a time.
    p = len(head)
    digest = hashlib.sha256(b"[")
    last = b""
    for lo in range(0, len(distinct), _DIGEST_BLOCK):
        rest = distinct[lo : lo + _DIGEST_BLOCK].astype(">u8").view(np.uint8).reshape(-1, 8)
        if (_JSON_ESCAPES[rest] & (rest != 0)).any():
            return None
        cells = np.empty((len(rest), p + 12), dtype=np.uint8)
        cells[:, 0] = ord('"')
        cells[:, 1 : 1 + p] = head
        cells[:, 1 + p : 9 + p] = rest
        cells[:, 9 + p :] = np.frombuffer(b'", ', dtype=np.uint8)
        keep = np.ones(cells.shape, dtype=bool)
        keep[:, 1 + p : 9 + p] = rest != 0
        digest.update(last)
        text = cells[keep].tobytes()
        digest.update(text[:-2])
        last = text[-2:]  # the separator, unless these were the last values
    digest.update(b"]")
    return len(distinct), digest.hexdigest()


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


@dataclass(frozen=True, eq=False)
class KeyScopes:
    """The covered values of a key (ascending codes), their labels, and the rank of each one's normal form."""

    codes: np.ndarray
    labels: pa.Array  # string: the label of each covered value, as KeyCodes.labels writes it
    rank: np.ndarray  # per covered value, its normal form's position among the distinct ones, sorted
    quoted: pa.Array  # string: each distinct normal form, sorted, as a JSON string (set_digest's list items)
    position: np.ndarray  # per value of the key, its place among the covered values (-1: not covered)

    @classmethod
    def of(cls, key: KeyCodes, codes: np.ndarray) -> KeyScopes:
        """Ready to scope any subset of ``codes`` (values of ``key``)."""
        codes = np.asarray(codes, dtype=np.int64)
        if not (np.diff(codes) > 0).all():
            codes = np.unique(codes)
        labels = _labels(key, codes)
        normals = _respelled(labels, maybe_changed(labels), _ASCII_SPACE, normalise_spelling)
        # Sorted as Python sorts str; equal neighbours are one normal form (a sort and a compare: hashing
        # millions of distinct texts costs more).
        order = text_order(normals)
        ordered = normals.take(pa.array(order, pa.int64()))
        new = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            same = pc.equal(ordered.slice(1), ordered.slice(0, len(order) - 1))
            new[1:] = ~same.to_numpy(zero_copy_only=False)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.cumsum(new) - 1
        distinct = ordered.filter(pa.array(new))
        quoted = _respelled(distinct, np.zeros(0, dtype=np.int64), _JSON_ESCAPED, _json_string, quote=True)
        position = np.full(key.n_values, -1, dtype=np.int64)
        position[codes] = np.arange(len(codes), dtype=np.int64)
        return cls(codes, labels, rank, quoted, position)

    def scope(self, codes: np.ndarray, counts: dict[str, int] | None = None) -> Scope:
        """scope_of(key.labels(codes), counts) for covered ``codes``; each normal form keeps the spelling of
        its first value in the order given."""
        codes = np.asarray(codes, dtype=np.int64)
        at = self.position[codes] if len(codes) else np.zeros(0, dtype=np.int64)
        assert not len(at) or int(at.min()) >= 0, "uncovered"
        rank = self.rank[at]
        present = np.zeros(len(self.quoted), dtype=bool)
        present[rank] = True
        ranks = np.flatnonzero(present)
        if not len(ranks):
            return digested_scope(0, None, [], counts)
        spellings: list[str] = []
        if len(ranks) <= MAX_LISTED:
            # The first value given of each normal form, without sorting the values: the lowest position per rank.
            first = np.full(len(self.quoted), len(at), dtype=np.int64)
            np.minimum.at(first, rank, np.arange(len(at), dtype=np.int64))
            spellings = self.labels.take(pa.array(at[first[ranks]])).to_pylist()
        # set_digest's bytes: json.dumps of the sorted list.
        quoted = self.quoted.take(pa.array(ranks))
        members = (
            members_of(self.labels.take(pa.array(at)).to_pylist()) if MAX_LISTED < len(ranks) <= MAX_MEMBERS else None
        )
        return digested_scope(len(ranks), _list_digest(quoted), spellings, counts, members)


def _respelled(
    texts: pa.Array, changed: np.ndarray, pattern: str, respell: Callable[[str], str], quote: bool = False
) -> pa.Array:
    """``texts`` with each one at ``changed`` or matching ``pattern`` passed through ``respell`` in Python; every
    other one as it is (or, with ``quote``, in double quotes): the byte screens keep the Python calls few."""
    flag = pc.match_substring_regex(texts, pattern).fill_null(False).to_numpy(zero_copy_only=False).copy()
    flag[changed] = True
    plain = pc.binary_join_element_wise('"', texts, '"', "") if quote else texts
    if not flag.any():
        return plain
    mask = pa.array(flag)
    fixed = [respell(t) for t in texts.filter(mask).to_pylist()]
    return pc.replace_with_mask(plain, mask, pa.array(fixed, pa.string()))


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _labels(key: KeyCodes, codes: np.ndarray) -> pa.Array:
    """KeyCodes.labels(codes) as one string array: taken in Arrow for a text key, else written in Python."""
    labels = _text_labels(key, codes)
    return pa.array(key.labels(codes), pa.string()) if labels is None else labels.cast(pa.string())
