"""Values that are one value spelled several ways: `a` and `a `, `W2` and `w2`, `w1` and `w\u200b1`, `1e3` and `1000`.

The normal form is core/spelling.py's (NFKC, case folding, format characters dropped, digits of any script
as ASCII, surrounding whitespace removed, numbers by value but a fraction's digits as written (`1.10` is not
`1.1`), quotes, brackets and sentence punctuation at either end of any other value dropped (`A+` is not `A-`),
computed here column-wise with Arrow and numpy
and tested against that definition. Hex digests are text, so they compare case-insensitively; a digest key's
values also drop an algorithm prefix (`sha256:`, digest_normal). Blank values have no normal form (they are missing).

A column is scanned byte-wise for the few values that might not be in normal form; only those are
normalised, and only the values equal to one of their normal forms are looked up, so a clean 10M-row
column costs one pass over its bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.config import AcceptSpec
from auditor.core.findings import Severity
from auditor.core.scope import Scope, counts_of, scope_of, spelled
from auditor.core.spelling import END_PUNCTUATION, MAX_EXPONENT, WHITESPACE, fold_char
from auditor.core.splits import PairKind, SplitRoles
from auditor.manifest.keycodes import KeyCodes, encode_column
from auditor.manifest.repeats import repeated_rows
from auditor.manifest.rows import take_rows

# An exponent follows only a mantissa written without padding zeros: `001e2` is a zero-padded hex digest or
# id (e is one of its digits), not 100.
NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+|([1-9][0-9]*\.?[0-9]*|0(\.[0-9]*)?|\.[0-9]+)e[+-]?[0-9]+)$"
_NUMBER_PARTS = r"^(?P<sign>[+-]?)0*(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:e(?P<exp>[+-]?[0-9]+))?$"
_NUMBER_CHARS = "0123456789.+-e"
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[ord(c) for c in WHITESPACE if ord(c) < 128]] = True
_NUMERIC_START = np.zeros(256, dtype=bool)
_NUMERIC_START[list(b"+-.0")] = True
_NUMERIC_END = np.zeros(256, dtype=bool)
_NUMERIC_END[list(b"0.")] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True
# ASCII quotes, brackets and sentence punctuation (core.spelling.is_mark): dropped at the ends of a value that
# is not a number.
_ASCII_MARK = np.zeros(256, dtype=bool)
_ASCII_MARK[[ord(c) for c in END_PUNCTUATION if c.isascii()] + list(b"()[]{}")] = True
# The RE2 class of core.spelling.is_mark: quotes and brackets by category, sentence punctuation, Python's whitespace.
_SPACE_CLASS = "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE)
_MARK_CLASS = r"\p{Pi}\p{Pf}\p{Ps}\p{Pe}" + "".join(f"\\x{{{ord(c):x}}}" for c in END_PUNCTUATION) + _SPACE_CLASS
_MARK_EDGES = rf"^[{_MARK_CLASS}]+|[{_MARK_CLASS}]+$"
# (first byte << 8 | last byte) -> might not be in normal form: whitespace at either end, or a possible
# number that is not canonical (starts with + - . 0, or ends with 0 or . after a digit-like start).
_ENDS = (
    _ASCII_SPACE[:, None]
    | _ASCII_SPACE[None, :]
    | _ASCII_MARK[:, None]
    | _ASCII_MARK[None, :]
    | ((_DIGIT | _NUMERIC_START)[:, None] & (_NUMERIC_START[:, None] | _NUMERIC_END[None, :]))
).ravel()
# (first byte << 8 | last byte) -> might be a number with an exponent (`1e3`, `-2.5e-4`; `E` is upper case).
_EXPONENT_ENDS = ((_DIGIT | _NUMERIC_START)[:, None] & _DIGIT[None, :]).ravel()
_NUMBER_BYTE = np.zeros(256, dtype=bool)
_NUMBER_BYTE[list(_NUMBER_CHARS.encode())] = True
# Bytes that may belong to whitespace other than one plain space: ASCII whitespace but the space (and every
# byte of a non-ASCII character: a few of those are spaces, U+2028, U+3000, ...).
_SUSPECT = np.zeros(256, dtype=bool)
_SUSPECT[[ord(c) for c in WHITESPACE if ord(c) < 128 and c != " "]] = True
_SUSPECT[128:] = True
_SPACE_RUN = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]+"
_BLOCK = 1 << 20
_CODE_POINTS = 0x110000
_FULL_SHARE = 8  # above 1/8 of the values needing normalisation, normalise the whole column at once


@dataclass(frozen=True, eq=False)
class Variants:
    """Positions (rows, or indices of distinct values) whose value has a differently spelled twin.

    ``positions`` ascend within each group; ``group`` numbers the groups in order of their first position.
    """

    positions: np.ndarray
    group: np.ndarray
    normal: list[str]  # the normal form of each group

    @property
    def n_groups(self) -> int:
        return len(self.normal)


_NONE = Variants(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), [])


def _text(values: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray | None:
    """The values as a chunked string array; None when they are not text (numbers have one spelling)."""
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values], values.type)
    t = values.type
    if pa.types.is_dictionary(t):
        t = t.value_type
        values = values.cast(t)
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return as_string(values)
    return values if pa.types.is_string(t) else None


def as_string(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """``values`` cast to 32-bit-offset text, each chunk's offsets starting at 0.

    A slice of a large_string cast to string keeps the whole data buffer, its offsets starting past 0, and
    Arrow's ascii_lower then reads the wrong bytes (pyarrow 26): such chunks are copied into fresh buffers.
    """
    cast = values.cast(pa.string())
    chunks = [c if _offsets_from_zero(c) else pa.concat_arrays([c]) for c in cast.chunks]
    return pa.chunked_array(chunks, pa.string())


def _offsets_from_zero(chunk: pa.Array) -> bool:
    offsets = chunk.buffers()[1]
    return offsets is None or len(chunk) == 0 or int(np.frombuffer(offsets, dtype=np.int32, count=1)[0]) == 0


def normalise(values: pa.Array | pa.ChunkedArray, fingerprint: bool = False) -> pa.ChunkedArray:
    """The normal form of each text value (see the module docstring); nulls stay null. ``fingerprint=True``:
    the form fingerprints are made of, as core/spelling.normal_form(fingerprint=True) (numbers wholly by value,
    the punctuation at the ends kept)."""
    text = _text(values)
    if text is None:
        raise TypeError(f"spelling normal forms are defined for text values, not {values.type}")
    # Chunk by chunk: a combined chunk of long strings could outgrow 32-bit offsets.
    return pa.chunked_array([_normalise_chunk(c, fingerprint) for c in text.chunks], pa.string())


def _normalise_chunk(chunk: pa.Array, fingerprint: bool = False) -> pa.Array:
    wide = pc.fill_null(pc.invert(pc.string_is_ascii(chunk)), False)
    n_wide = pc.sum(wide).as_py() or 0
    # ASCII text needs only lower case (NFKC and case folding change no ASCII character).
    if n_wide == len(chunk) - chunk.null_count:
        t = _fold_unicode(chunk)
    elif n_wide:
        t = pc.replace_with_mask(pc.ascii_lower(chunk), wide, _fold_unicode(chunk.filter(wide)))
    else:
        t = pc.ascii_lower(chunk)
    t = respace(pc.utf8_trim(t, WHITESPACE))
    if not fingerprint:
        t = _strip_marks(t)
    # A regex costs ~0.3 µs a string: screen with one literal kernel (made of number characters only).
    numeric = pc.and_(pc.equal(pc.binary_length(pc.ascii_trim(t, _NUMBER_CHARS)), 0), pc.not_equal(t, ""))
    numeric = pc.fill_null(numeric, False)
    if not pc.any(numeric).as_py():
        return t
    maybe = np.flatnonzero(numeric.to_numpy(zero_copy_only=False))
    confirmed = pc.match_substring_regex(t.take(pa.array(maybe)), NUMBER).to_numpy(zero_copy_only=False)
    if not confirmed.any():
        return t
    mask = np.zeros(len(t), dtype=bool)
    mask[maybe[confirmed]] = True
    # Capture groups make RE2 slow: extract the parts of the (usually few) numbers only.
    parts = pc.extract_regex(t.filter(pa.array(mask)), _NUMBER_PARTS)
    sign, integer, frac, exp = (pc.struct_field(parts, [i]) for i in range(4))
    written = pc.utf8_ltrim(pc.utf8_ltrim(exp, "+-"), "0")
    # An exponent beyond MAX_EXPONENT leaves the number as text (its plain form would be that long).
    short = pc.less_equal(pc.binary_length(written), len(str(MAX_EXPONENT))).to_numpy(zero_copy_only=False)
    power = np.zeros(len(exp), dtype=np.int64)
    given = pc.if_else(pc.equal(written, ""), "0", written).filter(pa.array(short))
    power[short] = pc.cast(given, pa.int64()).to_numpy(zero_copy_only=False)
    power[np.asarray(pc.starts_with(exp, "-").to_numpy(zero_copy_only=False), dtype=bool)] *= -1
    keep = short & (np.abs(power) <= MAX_EXPONENT)
    if not keep.all():
        mask[np.flatnonzero(mask)[~keep]] = False
        chosen = pa.array(keep)
        sign, integer, frac = sign.filter(chosen), integer.filter(chosen), frac.filter(chosen)
        power, exp = power[keep], exp.filter(chosen)
    plain = pc.equal(exp, "").to_numpy(zero_copy_only=False)
    integer = pc.if_else(pc.equal(integer, ""), "0", integer)
    short_frac = pc.utf8_rtrim(frac, "0")  # a fraction of zeros goes (`7.0` is `7`)
    if plain.all():
        body = pc.if_else(pc.equal(short_frac, ""), integer, pc.binary_join_element_wise(integer, short_frac, "."))
    else:
        body = _plain_numbers(integer, frac, power)
    if not fingerprint:
        # Without an exponent, a fraction that is not all zeros keeps its digits as written (`1.10` is not `1.1`).
        written_frac = pc.and_(pa.array(plain), pc.not_equal(short_frac, ""))
        body = pc.if_else(written_frac, pc.binary_join_element_wise(integer, frac, "."), body)
    signed = pc.if_else(
        pc.and_(pc.equal(sign, "-"), pc.not_equal(body, "0")), pc.binary_join_element_wise("-", body, ""), body
    )
    return pc.replace_with_mask(t, pa.array(mask), signed.cast(t.type))


def respace(chunk: pa.Array) -> pa.Array:
    """Runs of whitespace as one space (step 3); the regex only on the values a byte scan finds may hold such a
    run."""
    n = len(chunk)
    data_buffer = chunk.buffers()[2]
    if not n or data_buffer is None:
        return chunk
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
    data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
    if not len(data):
        return chunk
    space = data == 32
    pairs = space[:-1] & space[1:]  # two spaces in a row
    other = data.min() < 32 or data.max() >= 128
    if not other and not pairs.any():
        return chunk  # the usual column: plain spaces, one at a time
    flagged = _SUSPECT[data] if other else np.zeros(len(data), dtype=bool)
    flagged[:-1] |= pairs
    at = np.flatnonzero(flagged)
    if not len(at):
        return chunk
    rows = np.unique(np.searchsorted(offsets, at + offsets[0], side="right") - 1)
    picked = chunk.take(pa.array(rows))
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(chunk, pa.array(mask), pc.replace_substring_regex(picked, _SPACE_RUN, " "))


def _strip_marks(t: pa.Array) -> pa.Array:
    """Step 5 of the normal form: values that are not written as numbers lose the whitespace, quotes, brackets
    and sentence punctuation at their ends (a value of nothing else keeps them)."""
    first, last = pc.utf8_slice_codeunits(t, 0, 1), pc.utf8_slice_codeunits(t, -1)
    # A cheap screen: values that start and end with a letter or digit (most of them) cannot change.
    edge = pc.fill_null(pc.invert(pc.and_(pc.utf8_is_alnum(first), pc.utf8_is_alnum(last))), False)
    edge = pc.and_(edge, pc.not_equal(t, ""))
    if not pc.any(edge).as_py():
        return t
    picked = t.filter(edge)
    marked = pc.invert(pc.match_substring_regex(picked, NUMBER))
    if not pc.any(marked).as_py():
        return t
    stripped = pc.replace_substring_regex(picked, _MARK_EDGES, "")
    stripped = pc.if_else(pc.or_(pc.equal(stripped, ""), pc.invert(marked)), picked, stripped)
    return pc.replace_with_mask(t, edge, stripped)


def _fold_unicode(text: pa.Array) -> pa.Array:
    """Steps 1-2 of the normal form on non-ASCII values: NFKC, case folding, format characters, digits, NFKC."""
    composed = pc.utf8_normalize(text, "NFKC")
    t = _fold_characters(pc.utf8_lower(composed))
    # A value neither step changed is in NFKC already (often all of them: lower-case text, CJK).
    if pc.all(pc.fill_null(pc.equal(t, composed), True)).as_py():
        return t
    return pc.utf8_normalize(t, "NFKC")


def _fold_characters(text: pa.Array) -> pa.Array:
    """Each non-ASCII character replaced by core.spelling.fold_char of it (the simple lower case is applied).

    The bytes are decoded in numpy; fold_char runs once per distinct character, not per value.
    """
    if text.null_count:
        done = _fold_characters(pc.fill_null(text, ""))
        return pc.if_else(text.is_valid(), done, pa.scalar(None, pa.string()))
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int32)[text.offset : text.offset + n + 1].astype(np.int64)
    data_buf = text.buffers()[2]
    if n == 0 or data_buf is None:
        return text
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(data_buf, dtype=np.uint8)[lo:hi]
    lead = np.flatnonzero(data >= 0xC0)  # the first byte of each character of two or more bytes
    if not len(lead):
        return text
    padded = np.concatenate([data, np.zeros(3, dtype=np.uint8)])
    b0 = padded[lead].astype(np.int32)
    width = 2 + (b0 >= 0xE0).astype(np.int32) + (b0 >= 0xF0)
    # Code points: the lead byte's payload, then six bits from each continuation byte a character has.
    point = (b0 & (0x7F >> width)) << 6 | (padded[lead + 1] & 0x3F)
    for k in (2, 3):
        more = np.flatnonzero(width > k)
        if len(more):
            point[more] = point[more] << 6 | (padded[lead[more] + k] & 0x3F)
    # Distinct characters through a table over all code points: no sort of every character of the column.
    present = np.zeros(_CODE_POINTS, dtype=bool)
    present[point] = True
    chars = np.flatnonzero(present)
    folded = [fold_char(chr(c)).encode() for c in chars.tolist()]
    changes = np.array([f != chr(c).encode() for f, c in zip(folded, chars.tolist(), strict=True)])
    if not changes.any():
        return text
    slot = np.full(_CODE_POINTS, -1, dtype=np.int32)
    slot[chars[changes]] = np.arange(int(changes.sum()), dtype=np.int32)
    which = slot[point]
    hit = which >= 0
    lead, width, which = lead[hit], width[hit], which[hit]
    folded = [f for f, c in zip(folded, changes.tolist(), strict=True) if c]
    new_len = np.array([len(f) for f in folded], dtype=np.int64)
    table = np.frombuffer(b"".join(folded), dtype=np.uint8)
    table_at = np.concatenate([[0], np.cumsum(new_len)[:-1]])
    # Each byte emits itself, a changed character's first byte its replacement, its other bytes nothing.
    emit = np.ones(len(data), dtype=np.int64)
    emit[lead] = new_len[which]
    for k in (1, 2, 3):
        emit[lead[width > k] + k] = 0
    out_at = np.concatenate([[0], np.cumsum(emit)])
    out = np.empty(int(out_at[-1]), dtype=np.uint8)
    kept = np.ones(len(data), dtype=bool)
    kept[lead] = False
    kept &= emit == 1
    out[out_at[:-1][kept]] = data[kept]
    src, dst = _spans(table_at[which], new_len[which]), _spans(out_at[lead], new_len[which])
    out[dst] = table[src]
    new_offsets = out_at[offsets - lo].astype(np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(new_offsets.tobytes()), pa.py_buffer(out.tobytes()))


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated index ranges [start, start + length) (a vectorised `concat(range(...))`)."""
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


def _plain_numbers(integer: pa.Array, frac: pa.Array, power: np.ndarray) -> pa.Array:
    """Shortest plain decimals of integer digits, fraction digits and a power of ten (core.spelling.plain_number)."""
    digits = pc.binary_join_element_wise(integer, frac, "")
    point = pc.binary_length(integer).to_numpy(zero_copy_only=False).astype(np.int64) + power
    stripped = pc.utf8_ltrim(digits, "0")
    point -= (pc.binary_length(digits).to_numpy() - pc.binary_length(stripped).to_numpy()).astype(np.int64)
    digits = pc.utf8_rtrim(stripped, "0")
    length = pc.binary_length(digits).to_numpy(zero_copy_only=False).astype(np.int64)
    split = np.clip(point, 0, length)
    offsets = np.frombuffer(digits.buffers()[1], dtype=np.int32)[digits.offset : digits.offset + len(digits) + 1]
    data_buf = digits.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, dtype=np.uint8)
    starts = offsets[:-1].astype(np.int64)

    def cut(begin: np.ndarray, size: np.ndarray) -> pa.Array:
        at = np.concatenate([[0], np.cumsum(size)]).astype(np.int32)
        chars = data[_spans(starts + begin, size)]
        return pa.StringArray.from_buffers(len(size), pa.py_buffer(at.tobytes()), pa.py_buffer(chars.tobytes()))

    head, tail = cut(np.zeros_like(split), split), cut(split, length - split)
    zeros = pa.array(["0"] * len(split), pa.string())
    left = pc.binary_repeat(zeros, pa.array(np.maximum(-point, 0)))  # 0.00DIGITS
    right = pc.binary_repeat(zeros, pa.array(np.maximum(point - length, 0)))  # DIGITS00
    whole = pc.if_else(pa.array(point <= 0), "0", pc.binary_join_element_wise(head, right, ""))
    part = pc.binary_join_element_wise(left, tail, "")
    body = pc.if_else(pc.equal(part, ""), whole, pc.binary_join_element_wise(whole, part, "."))
    return pc.if_else(pa.array(length == 0), "0", body)


def maybe_changed(chunk: pa.Array) -> np.ndarray:
    """Indices of the strings of one chunk that might differ from their normal form (a superset).

    A string is in normal form unless it holds a byte outside ASCII, an upper-case ASCII letter, whitespace
    other than single spaces, starts or
    ends with whitespace, a quote, a bracket or sentence punctuation, or could be a number not written
    canonically (starts with + - . or a 0 followed by more, or is all digit-like and ends with 0 or .): all
    checked on the raw bytes, in blocks. A superset for the fingerprint form too (no marks, `1.10` -> `1.1`)."""
    n = len(chunk)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    offsets_buf, data_buf = chunk.buffers()[1], chunk.buffers()[2]
    offsets = np.frombuffer(offsets_buf, dtype=np.int32)[chunk.offset : chunk.offset + n + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, dtype=np.uint8)
    start, stop = int(offsets[0]), int(offsets[-1])
    changed = np.zeros(n, dtype=bool)
    scratch = np.empty(_BLOCK, dtype=np.uint8)
    flag = np.empty(_BLOCK, dtype=bool)
    space = np.empty(_BLOCK, dtype=bool)
    for lo in range(start, stop, _BLOCK):
        hi = min(lo + _BLOCK, stop)
        block = data[lo:hi]
        k = len(block)
        # Upper-case A-Z is 65..90: one subtract and compare; bytes >= 128 belong to non-ASCII characters.
        np.subtract(block, np.uint8(65), out=scratch[:k])
        np.less(scratch[:k], np.uint8(26), out=flag[:k])
        # whitespace other than one plain space (a tab or another control byte, two spaces in a row, also where
        # blocks meet) is written as one space: screened by one reduction and one byte search, flagged if found
        if block.min() < 32:
            np.logical_or(flag[:k], block < 32, out=flag[:k])
        np.equal(block, np.uint8(32), out=space[:k])
        if space[:k].any():
            doubled = space[: k - 1] & space[1:k]
            flag[: k - 1] |= doubled
            if hi < stop and data[hi - 1] == 32 and data[hi] == 32:
                flag[k - 1] = True
        high = block.max() >= 128
        if high:
            np.logical_or(flag[:k], block >= 128, out=flag[:k])
        if high or flag[:k].any():
            # One OR per string over its bytes in this block: the cost stays linear in the bytes however
            # many are flagged (an upper-case digest column flags nearly all of them).
            # Scalars of the offsets' own type: a Python int would cast the whole array on every call.
            first = int(np.searchsorted(offsets, offsets.dtype.type(lo), side="right")) - 1
            last = int(np.searchsorted(offsets, offsets.dtype.type(hi), side="left"))
            local = np.maximum(offsets[first:last] - lo, 0)
            changed[first:last] |= np.logical_or.reduceat(flag[:k], local)
    starts, ends = offsets[:-1], offsets[1:]
    full = None if (ends > starts).all() else np.flatnonzero(ends > starts)
    if full is not None:
        starts, ends = starts[full], ends[full]
    ends = ends - 1
    pair = data[starts].astype(np.uint16) << 8
    pair |= data[ends]
    odd = _ENDS[pair]
    changed[odd if full is None else full[odd]] = True
    # Numbers with an exponent: screened on a few bytes, then checked whole (hex digests pass the ends).
    maybe = np.flatnonzero(_EXPONENT_ENDS[pair] & ~odd)
    for step in range(1, 7):  # the next bytes from the start: near the first, so in cache
        head, tail = starts[maybe], ends[maybe]
        maybe = maybe[_NUMBER_BYTE[data[np.minimum(head + step, tail)]]]
    if len(maybe):
        rows = maybe if full is None else full[maybe]
        picked = chunk.take(pa.array(rows))
        whole = pc.equal(pc.binary_length(pc.ascii_trim(picked, _NUMBER_CHARS)), 0)
        exponent = pc.and_(whole, pc.match_substring(picked, "e")).to_numpy(zero_copy_only=False)
        changed[rows[np.asarray(exponent, dtype=bool)]] = True
    # A superset: the caller keeps only values whose normal form differs (blank ones are missing anyway).
    return np.flatnonzero(changed)


def _candidates(text: pa.ChunkedArray) -> np.ndarray:
    found, base = [], 0
    for chunk in text.chunks:
        found.append(maybe_changed(chunk) + base)
        base += len(chunk)
    rows = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    if text.null_count and len(rows):
        rows = rows[take_rows(text, rows).is_valid().to_numpy(zero_copy_only=False)]
    return rows


def _screen_keys(text: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """length (capped), first byte and last byte of each string as one small integer: a cheap pre-filter."""
    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    keys = []
    for chunk in chunks:
        n = len(chunk)
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + n + 1]
        data_buf = chunk.buffers()[2]
        # A chunk of empty strings only may have no data bytes at all: one zero byte stands in (never read).
        has_data = data_buf is not None and data_buf.size > 0
        data = np.frombuffer(data_buf, dtype=np.uint8) if has_data else np.zeros(1, dtype=np.uint8)
        lengths = np.diff(offsets).astype(np.int64)
        full = lengths > 0
        first = np.where(full, data[np.minimum(offsets[:-1], max(len(data) - 1, 0))], 0).astype(np.int64)
        last = np.where(full, data[np.maximum(offsets[1:] - 1, 0)], 0).astype(np.int64)
        keys.append((np.minimum(lengths, 255) << 16) | (first << 8) | last)
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)


# The algorithms whose prefix a digest may carry (`sha256:` as OCI, Git LFS and DVC write it), each with the
# hex digits of its digest: a prefix is dropped only before that many, so `sha256:<32 hex>` and `sha3-256:…` (a
# bare 64-digit digest is taken to be sha256) keep theirs, and digests of two algorithms never become equal.
DIGEST_ALGORITHMS = {"md5": 32, "sha1": 40, "sha224": 56, "sha256": 64, "sha384": 96, "sha512": 128}
_DIGEST_PREFIX = "^(?:" + "|".join(rf"{a}:\s*([0-9a-f]{{{n}}})" for a, n in DIGEST_ALGORITHMS.items()) + ")$"
_DIGEST_HEX = "".join(rf"\{i}" for i in range(1, len(DIGEST_ALGORITHMS) + 1))


def digest_normal(values: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    """The normal form of a digest: the spelling normal form without a leading algorithm prefix
    (`SHA256:9F86…` -> `9f86…`); a prefix that names no algorithm, or not that algorithm's length, stays."""
    normal = normalise(values)
    return pa.chunked_array([drop_digest_prefix(c) for c in normal.chunks], pa.string())


def drop_digest_prefix(normal: pa.Array) -> pa.Array:
    """Digests already in the spelling normal form, each without its algorithm prefix (see digest_normal)."""
    if not len(normal) or not pc.any(pc.match_substring(normal, ":")).as_py():
        return normal  # the usual column: no prefix anywhere, no regex pass over every row
    return pc.replace_substring_regex(normal, _DIGEST_PREFIX, _DIGEST_HEX)


def add_digest_prefix(bare: pa.Array) -> pa.Array:
    """Bare digests (normal form, no prefix) with the prefix of the algorithm their length names
    (`9f86…` of 64 digits -> `sha256:9f86…`); other values stay as they are."""
    for algorithm, digits in DIGEST_ALGORITHMS.items():
        bare = pc.replace_substring_regex(bare, rf"^([0-9a-f]{{{digits}}})$", rf"{algorithm}:\1")
    return bare


def spelling_variants(values: pa.Array | pa.ChunkedArray, digest: bool = False) -> Variants:
    """The groups of positions whose values differ but share a normal form (blank and null never group).

    ``values`` may be a whole column (positions are rows; equal values may repeat) or the distinct values
    of a key (positions index them). ``digest``: the values are digests, whose normal form also drops an
    algorithm prefix (digest_normal).
    """
    text = _text(values)
    if text is None or len(text) == 0:
        return _NONE
    norm = digest_normal if digest else _normalise_plain
    candidates = _candidates(text)
    if digest:  # a prefix is no byte the scan looks for: the values holding a colon may carry one
        colon = pc.fill_null(pc.match_substring(text, ":"), False)
        candidates = np.union1d(candidates, np.flatnonzero(np.asarray(colon.to_numpy(zero_copy_only=False))))
    if len(candidates) > len(text) // _FULL_SHARE:
        # Most values may change (an upper-case digest column): normalise the column once, not twice.
        normal = norm(text)
        if pc.all(pc.fill_null(pc.equal(normal, text), True)).as_py():
            return _NONE
        rows, ncodes, _ = repeated_rows(normal, blank_is_missing=True)
    elif len(candidates):
        # The byte scan over-approximates (hex digests ending in 0 look numeric): keep the values that change.
        picked = take_rows(text, candidates)
        normal_picked = norm(picked)
        same = pc.fill_null(pc.equal(normal_picked, picked), True).to_numpy(zero_copy_only=False)
        changed = ~np.asarray(same, dtype=bool)
        candidates = candidates[changed]
        if not len(candidates):
            return _NONE
        targets = pc.unique(normal_picked.filter(pa.array(changed)).combine_chunks())
        targets = targets.filter(pc.not_equal(targets, ""))
        # Values already equal to a candidate's normal form are its twins; screen cheaply, then compare.
        screen = (
            np.flatnonzero(np.isin(_screen_keys(text), np.unique(_screen_keys(targets)), kind="table"))
            if len(targets)
            else np.zeros(0, dtype=np.int64)
        )
        if len(screen):
            exact = pc.is_in(take_rows(text, screen), value_set=targets).to_numpy(zero_copy_only=False)
            screen = screen[np.asarray(exact, dtype=bool)]
        rows = np.union1d(candidates, screen)
        ncodes = encode_column(norm(take_rows(text, rows)))[0].astype(np.int64)
        rows, ncodes = rows[ncodes >= 0], ncodes[ncodes >= 0]  # blank normal forms are missing values
    else:
        return _NONE
    if not len(rows):
        return _NONE
    raw_codes = encode_column(take_rows(text, rows), blank_is_missing=False)[0].astype(np.int64)
    # A group is a normal form held by two or more different raw spellings.
    pairs = np.unique(ncodes * (int(raw_codes.max()) + 1) + raw_codes) // (int(raw_codes.max()) + 1)
    spellings = np.bincount(pairs, minlength=int(ncodes.max()) + 1)
    keep = spellings[ncodes] > 1
    rows, ncodes = rows[keep], ncodes[keep]
    if not len(rows):
        return _NONE
    order = np.lexsort((rows, ncodes))
    rows, ncodes = rows[order], ncodes[order]
    # Number the groups by their first position, so the same input gives the same order.
    first_pos = np.full(int(ncodes.max()) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first_pos, ncodes, rows)
    used = np.unique(ncodes)
    rank = np.zeros_like(first_pos)
    rank[used[np.argsort(first_pos[used], kind="stable")]] = np.arange(len(used))
    group = rank[ncodes]
    order = np.lexsort((rows, group))
    rows, group = rows[order].astype(np.int64), group[order]
    starts = np.flatnonzero(np.diff(group, prepend=-1))
    labels = norm(take_rows(text, rows[starts])).to_pylist()
    return Variants(rows, group, [str(v) for v in labels])


def _normalise_plain(values: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    return normalise(values)


def normal_codes(values: pa.Array | pa.ChunkedArray, variants: Variants | None = None) -> np.ndarray:
    """A code per position, equal exactly when the normal forms are (positions assumed distinct values)."""
    variants = spelling_variants(values) if variants is None else variants
    codes = np.arange(len(values), dtype=np.int64)
    if variants.n_groups:
        starts = np.flatnonzero(np.diff(variants.group, prepend=-1))
        codes[variants.positions] = variants.positions[starts][variants.group]
    return codes


@dataclass(frozen=True, eq=False)
class SpellingSplits:
    """Groups of spellings of one key and where each spelling occurs: what the stages report from."""

    group: np.ndarray  # (spellings,) the group of each spelling, ascending
    labels: list[str]  # (spellings,) each spelling as written
    normal: list[str]  # (groups,) the shared normal form
    counts: np.ndarray  # (spellings, splits) rows of each spelling in each split
    first_row: np.ndarray  # (spellings, splits) its first manifest row there, -1 if none

    @property
    def n_groups(self) -> int:
        return len(self.normal)


def splits_from_rows(
    rows: np.ndarray, spelling: np.ndarray, group_of_spelling: np.ndarray, split: np.ndarray, n_splits: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and first row per (spelling, split) from the rows that carry a variant spelling."""
    keep = split >= 0
    rows, spelling, split = rows[keep], spelling[keep], split[keep].astype(np.int64)
    size = len(group_of_spelling) * n_splits
    flat = spelling * n_splits + split
    shape = (len(group_of_spelling), n_splits)  # explicit: -1 cannot be inferred when there are no splits
    counts = np.bincount(flat, minlength=size).reshape(shape)
    first = np.full(size, -1, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    uniq, at = np.unique(flat[order], return_index=True)
    first[uniq] = rows[order][at]
    return counts, first.reshape(shape)


def crossings(
    spellings: SpellingSplits, names: list[str], roles: SplitRoles, kinds: tuple[PairKind, ...]
) -> dict[tuple[str, str], np.ndarray]:
    """Per split pair of the given kinds: the groups present in both splits though no one spelling is.

    These are the pairs the exact check does not see; a pair some spelling spans is reported there already.
    """
    present = spellings.counts > 0
    n = spellings.n_groups
    out: dict[tuple[str, str], np.ndarray] = {}
    order = roles.order([names[i] for i in range(len(names)) if present[:, i].any()])
    for a, b in combinations(order, 2):
        if roles.pair(a, b) not in kinds:
            continue
        ia, ib = names.index(a), names.index(b)
        in_a = np.bincount(spellings.group, weights=present[:, ia], minlength=n) > 0
        in_b = np.bincount(spellings.group, weights=present[:, ib], minlength=n) > 0
        single = np.bincount(spellings.group, weights=present[:, ia] & present[:, ib], minlength=n) > 0
        missed = in_a & in_b & ~single
        if missed.any():
            out[(a, b)] = missed
    return out


@dataclass(frozen=True, eq=False)
class Crossing:
    """Spelling groups that span a split pair the exact check missed, parted into live and accepted ones."""

    crossing: np.ndarray  # (groups,) whether the group crosses any such pair
    live: np.ndarray  # the crossing groups no `accept` entry names
    accepted: dict[int, str]  # group -> the key of the entry that accepts it
    pairs: dict[str, int]  # 'a|b' -> live groups crossing that pair
    severity: Severity  # error when a live group spans train and holdout (one value, spelt twice), else warning
    train_holdout: np.ndarray  # (groups,) whether the group spans a train and a holdout split

    def severity_of(self, group: int) -> Severity:
        """One group's severity, as it would count were no entry to accept it."""
        return Severity.ERROR if self.train_holdout[group] else Severity.WARNING


def crossing_groups(
    spellings: SpellingSplits,
    names: list[str],
    roles: SplitRoles,
    entries: Sequence[AcceptSpec],
    code: str,
    parts: int,
    column: str | None = None,
) -> Crossing | None:
    """The train-holdout and holdout-holdout crossings of ``spellings`` for a finding ``code``; None if none."""
    missed = crossings(spellings, names, roles, (PairKind.TRAIN_HOLDOUT, PairKind.HOLDOUT_HOLDOUT))
    if not missed:
        return None
    crossing = np.logical_or.reduce(list(missed.values()))
    accepted = accepted_groups(spellings, entries, code, parts, column)
    live = np.array([g for g in np.flatnonzero(crossing) if g not in accepted], dtype=np.int64)
    across = [m for (a, b), m in missed.items() if roles.pair(a, b) is PairKind.TRAIN_HOLDOUT]
    train_holdout = np.logical_or.reduce(across) if across else np.zeros_like(crossing)
    pairs = {f"{a}|{b}": int(m[live].sum()) for (a, b), m in missed.items() if len(live) and m[live].any()}
    # A value that differs only by spelling is the same value: across train and holdout it leaks as an exact
    # copy does, so it fails like one; across two holdout splits it is the exact check's warning.
    leaks = any(roles.pair(a, b) is PairKind.TRAIN_HOLDOUT and m[live].any() for (a, b), m in missed.items())
    severity = Severity.ERROR if leaks and len(live) else Severity.WARNING
    return Crossing(crossing, live, accepted, pairs, severity, train_holdout)


def accept_key(key: str | list[str], parts: int) -> str:
    """The normal form of an `accept` key, compared with a group's normal form (compound parts joined by +)."""
    bits = key if isinstance(key, list) else key.split(" + ") if parts > 1 else [key]
    return " + ".join(str(v) for v in normalise(pa.array([str(b) for b in bits], pa.string())).to_pylist())


def key_variants(key: KeyCodes, digest: bool = False) -> Variants:
    """Spelling variants among the distinct values of a key; for a compound key, combinations whose every
    part has the same normal form (`p1 + L` and `P1  + l`). Positions are the key's value codes. ``digest``: the
    values are digests (an algorithm prefix is a spelling too, digest_normal)."""
    if not key.parts:
        return _NONE
    found = [spelling_variants(values, digest=digest) for _, values in key.parts]
    if not any(v.n_groups for v in found):
        return _NONE
    if len(key.parts) == 1:
        index = key.parts[0][0]
        if np.array_equal(index, np.arange(len(index))):
            return found[0]
    import pandas as pd  # here, not at the top: its import costs more than a small audit

    combined = np.zeros(key.n_values, dtype=np.int64)
    for (index, values), variants in zip(key.parts, found, strict=True):
        part = normal_codes(values, variants)[index]
        combined = pd.factorize(combined * (int(part.max(initial=0)) + 1) + part)[0].astype(np.int64)
    counts = np.bincount(combined)
    positions = np.flatnonzero(counts[combined] > 1)
    if not len(positions):
        return _NONE
    group_codes = combined[positions]
    _, first = np.unique(group_codes, return_index=True)
    rank = np.zeros(int(group_codes.max()) + 1, dtype=np.int64)
    rank[group_codes[np.sort(first)]] = np.arange(len(first))
    group = rank[group_codes]
    order = np.lexsort((positions, group))
    positions, group = positions[order], group[order]
    starts = np.flatnonzero(np.diff(group, prepend=-1))
    names = []
    for index, values in key.parts:
        picked = values.take(pa.array(index[positions[starts]]))
        names.append(normalise(picked).to_pylist() if _text(picked) is not None else picked.to_pylist())
    normal = [" + ".join(str(v) for v in bits) for bits in zip(*names, strict=True)]
    return Variants(positions.astype(np.int64), group, normal)


def from_counts(
    key: KeyCodes, counts: np.ndarray, first_row: np.ndarray, variants: Variants | None = None
) -> SpellingSplits:
    """Spelling groups of a key whose (values, splits) row counts are known (e.g. GroupSplitCounts)."""
    variants = key_variants(key) if variants is None else variants
    return SpellingSplits(
        variants.group,
        key.labels(variants.positions),
        variants.normal,
        counts[variants.positions],
        first_row[variants.positions],
    )


def spelled_as_one(counts: np.ndarray, mask: np.ndarray, variants: Variants) -> tuple[np.ndarray, np.ndarray]:
    """(values, splits) row counts with each spelling group's rows summed into its first value (the others 0),
    and ``mask`` (values picked) moved there: the rows of a picked value under every spelling, counted once."""
    if not variants.n_groups:
        return counts, mask
    starts = np.flatnonzero(np.diff(variants.group, prepend=-1))
    first = variants.positions[starts][variants.group]  # each spelling's group's first value
    merged = counts.copy()
    merged[variants.positions] = 0
    np.add.at(merged, first, counts[variants.positions])
    moved = mask.copy()
    moved[variants.positions] = False
    moved[first[mask[variants.positions]]] = True
    return merged, moved


def from_rows(
    column: pa.ChunkedArray, split: np.ndarray, n_splits: int, variants: Variants | None = None
) -> SpellingSplits:
    """Spelling groups of a column judged row by row (ids, digests: values mostly distinct)."""
    variants = spelling_variants(column) if variants is None else variants
    return from_variant_rows(take_rows(column, variants.positions), split[variants.positions], n_splits, variants)


def from_variant_rows(
    raw_values: pa.Array | pa.ChunkedArray, split: np.ndarray, n_splits: int, variants: Variants
) -> SpellingSplits:
    """As from_rows, given only the values and split codes at ``variants.positions`` (all an engine need fetch)."""
    import pandas as pd  # here, not at the top: its import costs more than a small audit

    rows = variants.positions
    raw = np.asarray(raw_values.to_numpy(zero_copy_only=False), dtype=object)
    # One spelling per (group, raw value), numbered in order of first row.
    spelling, uniques = pd.factorize(pd.Series(list(zip(variants.group.tolist(), raw.tolist(), strict=True))))
    group_of = np.zeros(len(uniques), dtype=np.int64)
    group_of[spelling] = variants.group
    labels = [str(u[1]) for u in uniques]
    order = np.argsort(group_of, kind="stable")
    remap = np.empty_like(order)
    remap[order] = np.arange(len(order))
    counts, first = splits_from_rows(rows, remap[spelling], group_of[order], split, n_splits)
    return SpellingSplits(group_of[order], [labels[i] for i in order], variants.normal, counts, first)


def group_examples(
    ids_of: Callable[[list[int]], list[str | int]],
    spellings: SpellingSplits,
    groups: np.ndarray,
    names: list[str],
    limit: int,
) -> tuple[dict[str, Any], ...]:
    """The first ``limit`` groups: each spelling as written, with its rows and first id per split."""
    shown = [np.flatnonzero(spellings.group == g) for g in groups[:limit]]
    firsts = [int(r) for members in shown for r in spellings.first_row[members].ravel() if r >= 0]
    ids = dict(zip(firsts, ids_of(firsts), strict=True)) if firsts else {}
    return tuple(
        {
            "value": spellings.normal[g],
            "spellings": [
                {
                    "spelling": spellings.labels[m],
                    "splits": {
                        names[k]: {"rows": int(spellings.counts[m, k]), "first_id": ids[int(spellings.first_row[m, k])]}
                        for k in np.flatnonzero(spellings.counts[m] > 0)
                    },
                }
                for m in members
            ],
        }
        for g, members in zip(groups[:limit], shown, strict=True)
    )


def accepted_groups(
    spellings: SpellingSplits, entries: Sequence[AcceptSpec], code: str, parts: int, column: str | None = None
) -> dict[int, str]:
    """Groups an `accept` entry for ``code`` names by any of their spellings: group -> the entry's key. An entry
    naming another column than ``column`` names none of them."""
    if not spellings.n_groups:
        return {}
    index = {n: g for g, n in enumerate(spellings.normal)}
    out: dict[int, str] = {}
    for entry in entries:
        if not entry.judges_column(column):
            continue
        if entry.code == code and entry.key is not None and entry.key_text is not None:
            g = index.get(accept_key(entry.key, parts))
            if g is not None:
                out.setdefault(g, entry.key_text)
    return out


def spelling_scope(spellings: SpellingSplits, groups: np.ndarray, evidence: dict[str, Any]) -> Scope:
    """The scope of a spelling finding: every group's normal form, every spelling of them as written (a later
    spelling is not the one reviewed), and the evidence's counts."""
    scope = scope_of((spellings.normal[int(g)] for g in groups), counts_of(evidence))
    members = np.flatnonzero(np.isin(spellings.group, np.asarray(groups)))
    return spelled(scope, (spellings.labels[int(m)] for m in members))


def spelling_text(spellings: SpellingSplits, group: int) -> str:
    """'w2' / 'W2' for a message."""
    return " / ".join(repr(spellings.labels[m]) for m in np.flatnonzero(spellings.group == group))


def from_codes(key: KeyCodes, split: np.ndarray, n_splits: int) -> SpellingSplits:
    """Spelling groups of a key coded row by row; only the rows of variant values are counted."""
    variants = key_variants(key)
    if not variants.n_groups:
        return SpellingSplits(variants.group, [], [], np.zeros((0, n_splits), np.int64), np.zeros((0, n_splits)))
    slot = np.full(key.n_values + 1, -1, dtype=np.int64)
    slot[variants.positions] = np.arange(len(variants.positions))
    rows = np.flatnonzero(slot[key.codes] >= 0)
    counts, first = splits_from_rows(rows, slot[key.codes[rows]], variants.group, split[rows], n_splits)
    return SpellingSplits(variants.group, key.labels(variants.positions), variants.normal, counts, first)


def accepted_spelling_scope(spellings: SpellingSplits, group: int, accept: str) -> Scope:
    """The scope of a spelling finding an `accept:` entry names: the entry's value, with the group's spellings as
    written (what a reviewer of the finding saw)."""
    members = np.flatnonzero(spellings.group == group)
    return spelled(scope_of([accept]), (spellings.labels[int(m)] for m in members))
