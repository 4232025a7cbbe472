"""Find values that occur more than once in a large column: hash, sort, then confirm exactly.

A hash table over 10M distinct ids is memory-bound (seconds); a 64-bit hash of each value plus a sort
finds the few candidate repeats in a fraction of that, and only those candidates are compared exactly.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_MUL = np.uint64(0xFF51AFD7ED558CCD)
_SEED = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(33)


def _mix(h: np.ndarray) -> np.ndarray:
    h ^= h >> _SHIFT
    h *= _MUL
    h ^= h >> _SHIFT
    return h


def _hash_binary_chunk(chunk: pa.Array) -> np.ndarray:
    """64-bit hash of each value of a string/binary array, 8 bytes at a time, vectorized over rows."""
    chunk = chunk.cast(pa.large_binary())
    n = len(chunk)
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64, count=n + 1, offset=chunk.offset * 8)
    data_buffer = chunk.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    padded = np.zeros(len(data) + 8, dtype=np.uint8)
    padded[: len(data)] = data
    word_at = _byte_words(padded)
    starts, lengths = offsets[:-1], np.diff(offsets)
    with np.errstate(over="ignore"):
        h = lengths.astype(np.uint64) * _SEED
        longest = int(lengths.max(initial=0))
        for j in range(0, longest, 8):
            rows = np.flatnonzero(lengths > j)
            words = word_at[starts[rows] + j]
            remaining = lengths[rows] - j
            short = remaining < 8
            if short.any():
                keep = (np.uint64(1) << (remaining[short].astype(np.uint64) * np.uint64(8))) - np.uint64(1)
                words[short] &= keep
            h[rows] = _mix((h[rows] ^ words) * _MUL)
    return _mix(h)


def _byte_words(padded: np.ndarray) -> np.ndarray:
    """An unaligned little-endian uint64 view starting at every byte: word i holds bytes i .. i+7."""
    return np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, offset=0, strides=(1,))


def hash_column(column: pa.ChunkedArray) -> np.ndarray:
    """A uint64 per row; equal values always hash equal (nulls are not hashed: mask them separately)."""
    t = column.type
    if pa.types.is_dictionary(t):
        column = column.cast(t.value_type)
        t = t.value_type
    if pa.types.is_integer(t):
        return column.fill_null(0).to_numpy().astype(np.int64).view(np.uint64)
    if not (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
    ):
        column = column.cast(pa.string())
    parts = [_hash_binary_chunk(c) for c in column.chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def repeated_rows(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose (non-null) value occurs more than once, and an exact code per such row (equal iff equal)."""
    hashes = hash_column(column)
    valid = ~column.is_null().to_numpy(zero_copy_only=False) if column.null_count else None
    pool = hashes[valid] if valid is not None else hashes
    ordered = np.sort(pool)
    repeated = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
    if not len(repeated):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    candidate = np.isin(hashes, repeated)
    if valid is not None:
        candidate &= valid
    rows = np.flatnonzero(candidate)
    # Confirm exactly: two different values may share a hash.
    encoded = column.take(pa.array(rows)).combine_chunks().dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    counts = np.bincount(codes, minlength=len(encoded.dictionary))
    truly = counts[codes] > 1
    return rows[truly], codes[truly]
