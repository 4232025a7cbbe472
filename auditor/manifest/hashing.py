"""Two independent 64-bit hashes per value of a large column, vectorized with numpy.

Arrow's hash tables cost seconds on 10M distinct strings; hashing the bytes eight at a time and then
factorizing or sorting the integers is several times faster. Two hashes are kept so that callers can
tell a real equality (both agree) from a collision (one differs) without comparing the strings.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S1 = np.uint64(0x9E3779B97F4A7C15)
_S2 = np.uint64(0xD6E8FEB86659FD93)
_R = np.uint64(33)
LONG_VALUE = 4096  # bytes from which a value is hashed on its own (see _hash_mixed)


def _mix(h: np.ndarray, mul: np.uint64) -> np.ndarray:
    """In place: xor-shift, multiply, xor-shift (the murmur3 finalizer)."""
    h ^= h >> _R
    h *= mul
    h ^= h >> _R
    return h


def _words_fixed(data: np.ndarray, n: int, width: int) -> np.ndarray:
    """Rows of equal byte length as (n, words) little-endian uint64, zero-padded to a multiple of 8."""
    words = (width + 7) // 8
    if width == words * 8:
        return data[: n * width].view("<u8").reshape(n, words)
    padded = np.zeros((n, words * 8), dtype=np.uint8)
    padded[:, :width] = data[: n * width].reshape(n, width)
    return padded.view("<u8").reshape(n, words)


def _hash_words(words: np.ndarray, lengths: np.ndarray, second: bool) -> tuple[np.ndarray, np.ndarray]:
    h1 = lengths.astype(np.uint64)
    h2 = h1 * _S2 if second else h1[:0]
    h1 *= _S1
    for j in range(words.shape[1]):
        # Only words inside a value are mixed, so a value hashes the same whatever its neighbours' lengths.
        rows = np.flatnonzero(lengths > 8 * j) if lengths.min(initial=0) <= 8 * j else None
        if rows is None:
            _step(h1, h2, words[:, j], second)
        else:
            a, b = h1[rows], h2[rows] if second else h2
            _step(a, b, words[rows, j], second)
            h1[rows] = a
            if second:
                h2[rows] = b
    return _mix(h1, _M2), _mix(h2, _M1) if second else h2


def _step(h1: np.ndarray, h2: np.ndarray, w: np.ndarray, second: bool) -> None:
    # Word-wise FNV-1a and an additive variant: each step is a bijection of the state for a fixed word, so
    # two values collide only by chance; the final murmur mix spreads high bits into low ones.
    h1 ^= w
    h1 *= _M1
    if second:
        h2 += w
        h2 *= _M2


def _hash_binary(chunk: pa.Array, second: bool) -> tuple[np.ndarray, np.ndarray]:
    n = len(chunk)
    large = pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type)
    offset_type = np.int64 if large else np.int32
    offsets = np.frombuffer(
        chunk.buffers()[1],
        dtype=offset_type,
        count=n + 1,
        offset=chunk.offset * np.dtype(offset_type).itemsize,
    ).astype(np.int64)
    buffer = chunk.buffers()[2]
    data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)
    data = data[offsets[0] : offsets[-1]]
    lengths = np.diff(offsets)
    if n == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
    shortest, longest = int(lengths.min()), int(lengths.max())
    if longest > LONG_VALUE:
        return _hash_mixed(chunk, data, offsets, second)
    with np.errstate(over="ignore"):
        if shortest == longest:  # ids and codes are very often of one length: no gather needed
            return _hash_words(_words_fixed(data, n, longest), lengths, second)
        # Variable length: an unaligned uint64 view at every byte, gathered at each row's start + 8j.
        padded = np.zeros(len(data) + 8, dtype=np.uint8)
        padded[: len(data)] = data
        word_at = np.ndarray(shape=(len(data) + 1,), dtype="<u8", buffer=padded, offset=0, strides=(1,))
        starts = offsets[:-1] - offsets[0]
        words = np.zeros((n, (longest + 7) // 8), dtype=np.uint64)
        for k in range(words.shape[1]):
            j = 8 * k
            rows = np.flatnonzero(lengths > j) if shortest <= j else slice(None)
            chunk_words = word_at[starts[rows] + j]
            remaining = lengths[rows] - j
            short = remaining < 8
            if short.any():
                bits = remaining[short].astype(np.uint64) * np.uint64(8)
                chunk_words[short] &= (np.uint64(1) << bits) - np.uint64(1)
            words[rows, k] = chunk_words
        return _hash_words(words, lengths, second)


def _hash_mixed(chunk: pa.Array, data: np.ndarray, offsets: np.ndarray, second: bool) -> tuple[np.ndarray, np.ndarray]:
    """Values longer than LONG_VALUE bytes hashed one by one (blake2b), the rest eight bytes at a time.

    The word-wise kernel loops once per eight bytes of the longest value: one 10 MB document among short
    texts would cost a million passes. Which way a value is hashed depends on its own length only, so a value
    hashes the same whatever its neighbours.
    """
    lengths = np.diff(offsets)
    n = len(lengths)
    h1 = np.zeros(n, np.uint64)
    h2 = np.zeros(n if second else 0, np.uint64)
    long = lengths > LONG_VALUE
    if not long.all():
        s1, s2 = _hash_binary(chunk.filter(pa.array(~long)), second)
        h1[~long] = s1
        if second:
            h2[~long] = s2
    base = int(offsets[0])
    for i in np.flatnonzero(long).tolist():
        value = data[int(offsets[i]) - base : int(offsets[i + 1]) - base]
        digest = hashlib.blake2b(value.data, digest_size=16).digest()  # the bytes in place, not a copy
        h1[i] = int.from_bytes(digest[:8], "little")
        if second:
            h2[i] = int.from_bytes(digest[8:], "little")
    return h1, h2


def _hash_chunk(chunk: pa.Array, second: bool = True) -> tuple[np.ndarray, np.ndarray]:
    t = chunk.type
    if pa.types.is_dictionary(t):
        # Hash each distinct value once, then spread by index.
        d1, d2 = _hash_chunk(chunk.dictionary, second)
        index = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
        return d1[index], d2[index] if second else d2
    if pa.types.is_integer(t):
        v = chunk.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64).view(np.uint64)
        with np.errstate(over="ignore"):
            return v.copy(), _mix(v * _M2, _M1) if second else v[:0]
    if pa.types.is_floating(t):
        chunk = pc.if_else(pc.is_nan(chunk), pa.scalar(None, t), chunk)
    if not (
        pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
    ):
        chunk = chunk.cast(pa.string())
    return _hash_binary(chunk, second)


def fingerprint(column: pa.ChunkedArray, workers: int = 1, second: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Two uint64 hashes per row (the second empty unless ``second``); equal values hash equal.

    Nulls get arbitrary hashes: mask them. Chunks may be hashed on ``workers`` threads (numpy releases the
    GIL); the default is one, because callers already run several columns at once on the cores there are.
    """

    def one(chunk: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        return _hash_chunk(chunk, second)

    if workers > 1 and column.num_chunks > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(one, column.chunks))
    else:
        parts = [one(c) for c in column.chunks]
    if not parts:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def sorted_distinct(hashes: np.ndarray) -> np.ndarray:
    """The distinct uint64 hashes, ascending."""
    # Sort and drop repeats: np.unique is many times slower on millions of uint64 values.
    ordered = np.sort(np.asarray(hashes, dtype=np.uint64))
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])] if len(ordered) else ordered
