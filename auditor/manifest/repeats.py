"""Find values that occur more than once in a large column: hash, sort, then confirm exactly.

A hash table over 10M distinct ids is memory-bound (seconds); a 64-bit hash of each value plus a sort
finds the few candidate repeats in a fraction of that, and only those candidates are compared exactly.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.hashing import fingerprint
from auditor.manifest.keycodes import CODE, MISSING, encode_column
from auditor.manifest.rows import take_rows


def estimated_distinct(hashes: np.ndarray, complete: bool) -> float:
    """How many distinct values a column holds, from the hashes of an even sample of its rows (or of all of
    them, when ``complete``).

    The sample's own count would call values held five times each distinct: a 1-in-200 sample shows most of
    them once. Chao's estimator adds the values the sample missed, from how many it saw once and twice.
    """
    _, counts = np.unique(hashes, return_counts=True)
    if complete:
        return float(len(counts))
    once, twice = int((counts == 1).sum()), int((counts == 2).sum())
    return len(counts) + once * (once - 1) / (2 * (twice + 1))


def hash_column(column: pa.ChunkedArray) -> np.ndarray:
    """A uint64 per row; equal values always hash equal (nulls are masked by the caller)."""
    return fingerprint(column, second=False)[0]


_FILTER_BITS = (20, 26)  # the filter's size in bits, at least and at most (64 MB)


def _member(hashes: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """hashes ∈ wanted (sorted); a table on the low bits first, so only a few rows need the exact test.

    The table has about 16 slots per wanted hash: with a million repeated values (a source column of
    mostly single-use values) a fixed million slots would let every row through to the slow exact test.
    """
    if not len(wanted):
        return np.zeros(len(hashes), dtype=bool)
    bits = min(max(_FILTER_BITS[0], (16 * len(wanted)).bit_length()), _FILTER_BITS[1])
    mask = np.uint64((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[(wanted & mask).astype(np.int64)] = True
    maybe = np.flatnonzero(table[(hashes & mask).astype(np.int64)])
    member = np.zeros(len(hashes), dtype=bool)
    probe = hashes[maybe]
    at = np.minimum(np.searchsorted(wanted, probe), len(wanted) - 1)  # wanted is sorted: no hash set to build
    member[maybe] = wanted[at] == probe
    return member


def repeated_rows(column: pa.ChunkedArray, blank_is_missing: bool = False) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Rows whose (non-missing) value occurs more than once, an exact code per such row (equal iff equal),
    and the value of each code."""
    # Callers bring mostly-distinct columns (ids, digests), so one hash suffices to find the repeats; in the
    # rare case that most rows repeat after all, the full encoding below hashes again.
    hashes = fingerprint(column, second=False)[0]
    valid = ~column.is_null().to_numpy(zero_copy_only=False) if column.null_count else None
    pool = hashes[valid] if valid is not None else hashes
    ordered = np.sort(pool)
    repeats = ordered[1:] == ordered[:-1]
    if not repeats.any():  # the usual answer for ids: no run boundaries to list for 10M distinct values
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), pa.array([], pa.string())
    starts = np.flatnonzero(np.concatenate(([True], ~repeats)))
    runs = np.diff(np.append(starts, len(ordered)))
    # Confirm exactly (two values may share a hash): encode only the candidates unless they are most rows.
    if int(runs[runs > 1].sum()) > len(hashes) // 2:
        rows = np.arange(len(hashes), dtype=np.int64)
        codes, values = encode_column(column, blank_is_missing)
    else:
        candidate = _member(hashes, ordered[starts[runs > 1]])
        if valid is not None:
            candidate &= valid
        rows = np.flatnonzero(candidate)
        codes, values = encode_column(take_rows(column, rows), blank_is_missing)
    present = codes >= 0
    if not present.any():  # every candidate was blank (missing): nothing repeats
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), values
    counts = np.bincount(codes[present], minlength=int(codes.max(initial=-1)) + 1)
    truly = present & (counts[np.maximum(codes, 0)] > 1)
    return rows[truly], codes[truly].astype(np.int64), values


def is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def codes_from_repeats(column: pa.ChunkedArray, rows: np.ndarray, local: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """encode_column's codes and values for a text column, given its repeated rows and their exact codes
    (repeated_rows with blanks missing): every other present value occurs once, so it is a code of its own.

    A hash table over 10M mostly distinct values costs seconds; the repeats cost a sort, and the stages that
    search a column for repeats find them already made.
    """
    n = len(column)
    blank = pc.or_(pc.equal(pc.binary_length(column), 0), pc.utf8_is_space(column))
    is_first = ~np.asarray(pc.fill_null(blank, True).to_numpy(zero_copy_only=False), dtype=bool)
    first = np.full(int(local.max(initial=-1)) + 1, n, dtype=np.int64)
    np.minimum.at(first, local, rows)
    is_first[rows] = False
    is_first[first[first < n]] = True  # codes of values that turned out not to repeat are absent from local
    dense = np.cumsum(is_first, dtype=np.int64) - 1  # codes in first-seen order, as encode_column numbers them
    codes = np.where(is_first, dense, MISSING).astype(CODE)
    codes[rows] = dense[first[local]]
    return codes, take_rows(column, np.flatnonzero(is_first))
