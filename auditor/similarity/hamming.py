"""Pairs of 64-bit hashes within a Hamming distance: vectorised popcount over XOR, in bounded blocks.

Near-duplicate images are found by comparing every holdout hash with every training hash. Brute force
(XOR, then np.bitwise_count) is exact and fast up to a few billion pairs; beyond that, multi-index hashing
(Norouzi et al. 2012) finds the same pairs from far fewer candidates: split the 64 bits into m chunks, and
by the pigeonhole principle any pair within distance r agrees to within floor(r/m) bits on at least one
chunk, so only index items near a query on some chunk are verified. Either way every pair is verified on
all 64 bits, and output is capped per query (nearest first) so one giant cluster stays bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import NDArray

# Elements of one query-block x index-block comparison: 4M pairs = 32 MB of XOR and 4 MB of counts.
_BLOCK_PAIRS = 1 << 22
# Candidate pairs the multi-index path materialises at once (each costs about 40 bytes on the way).
_CANDIDATES = 1 << 21
# Below this many pairs "auto" always uses brute force (a fraction of a second); above, the cost model.
_MIH_PAIRS = 1 << 26
DEFAULT_LIMIT = 100

Method = Literal["auto", "brute", "mih"]


@dataclass(frozen=True)
class HammingPairs:
    """Pairs (query position, index position, distance), sorted by query then distance then index.

    ``matches`` is the exact number of matches of each query before the ``limit`` cap dropped any.
    """

    qi: NDArray[np.int64]
    ii: NDArray[np.int64]
    distance: NDArray[np.uint8]
    matches: NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.qi)


def _as_hashes(values: NDArray[np.generic] | None, name: str) -> NDArray[np.uint64]:
    if values is None:
        return np.zeros(0, dtype=np.uint64)
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of 64-bit hashes, not shape {array.shape}")
    if array.dtype == np.uint64:
        return array
    if array.dtype == np.int64:
        return array.view(np.uint64)
    raise ValueError(f"{name} must hold uint64 (or int64) hashes, not {array.dtype}")


def within(
    query: NDArray[np.generic],
    index: NDArray[np.generic] | None,
    max_distance: int,
    *,
    same: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    method: Method = "auto",
) -> HammingPairs:
    """Every (query, index) pair whose hashes differ in at most ``max_distance`` bits.

    With ``same=True`` the pairs are those inside ``query`` (``index`` must be None), each reported once as
    (i, j) with i < j, counted and capped under i. ``limit`` keeps at most that many pairs per query, the
    nearest first (ties by index position); None keeps all. ``method`` "auto" picks brute force or
    multi-index hashing by their expected cost; both give the same pairs.
    """
    q = _as_hashes(query, "query")
    if same:
        if index is not None:
            raise ValueError("same=True compares query with itself: index must be None")
        x = q
    else:
        x = _as_hashes(index, "index")
    if not 0 <= max_distance <= 64:
        raise ValueError(f"max_distance must be between 0 and 64, not {max_distance}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 (or None), not {limit}")
    keep = _Keeper(len(q), limit)
    if len(q) and len(x):
        if method == "auto":
            method = "mih" if len(q) * len(x) >= _MIH_PAIRS and _mih_worthwhile(len(x), max_distance) else "brute"
        if method == "mih":
            _multi_index(q, x, max_distance, same, keep)
        else:
            _brute(q, x, max_distance, same, keep)
    return keep.result()


class _Keeper:
    """Collects pairs block by block, keeping the nearest ``limit`` per query and counting all of them."""

    def __init__(self, n_query: int, limit: int | None) -> None:
        self.limit = limit
        self.matches = np.zeros(n_query, dtype=np.int64)
        self.parts: list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8]]] = []
        self.pending = 0

    def add(
        self, qi: NDArray[np.int64], ii: NDArray[np.int64], d: NDArray[np.uint8], q_lo: int, counts: NDArray[np.int64]
    ) -> None:
        """Pairs of the queries from ``q_lo`` on, and how many matches each of them had (kept or not)."""
        self.matches[q_lo : q_lo + len(counts)] += counts
        if not len(qi):
            return
        self.parts.append((qi, ii, d))
        self.pending += len(qi)
        # Prune once the pending pairs outgrow what the caps can keep, so a giant cluster stays bounded.
        if self.limit is not None and self.pending > 2 * _CANDIDATES:
            self._prune()

    def _prune(self) -> None:
        qi = np.concatenate([p[0] for p in self.parts])
        ii = np.concatenate([p[1] for p in self.parts])
        d = np.concatenate([p[2] for p in self.parts])
        order = np.lexsort((ii, d, qi))
        qi, ii, d = qi[order], ii[order], d[order]
        if self.limit is not None and len(qi):
            first = np.flatnonzero(np.r_[True, qi[1:] != qi[:-1]])
            starts = np.repeat(first, np.diff(np.r_[first, len(qi)]))
            kept = np.arange(len(qi)) - starts < self.limit
            qi, ii, d = qi[kept], ii[kept], d[kept]
        self.parts = [(qi, ii, d)]
        self.pending = len(qi)

    def result(self) -> HammingPairs:
        if not self.parts:
            empty = np.zeros(0, dtype=np.int64)
            return HammingPairs(empty, empty.copy(), np.zeros(0, dtype=np.uint8), self.matches)
        self._prune()
        qi, ii, d = self.parts[0]
        return HammingPairs(qi, ii, d, self.matches)


def _cap_rows(c: NDArray[np.uint8], hit: NDArray[np.bool_], n_row: NDArray[np.int64], limit: int, r: int) -> None:
    """Keep in ``hit`` only the ``limit`` nearest matches of each row (ties: leftmost), without sorting.

    Per row over the cap: the distance D at which the cumulative count reaches the cap; everything nearer
    is kept, and of the matches at exactly D only as many as still fit, from the left."""
    over = np.flatnonzero(n_row > limit)
    sub = np.where(hit[over], c[over], np.uint8(255))  # pairs already excluded (same mode) never count
    hist = np.stack([(sub == k).sum(axis=1) for k in range(r + 1)], axis=1)
    cum = np.cumsum(hist, axis=1)
    cut = np.argmax(cum >= limit, axis=1)
    rows = np.arange(len(over))
    need = limit - (cum[rows, cut] - hist[rows, cut])
    at_cut = sub == cut[:, None].astype(np.uint8)
    hit[over] = (sub < cut[:, None]) | (at_cut & (np.cumsum(at_cut, axis=1) <= need[:, None]))


def _brute(q: NDArray[np.uint64], x: NDArray[np.uint64], r: int, same: bool, keep: _Keeper, q_offset: int = 0) -> None:
    """XOR and popcount over blocks of query x index, preallocated so memory stays at one block.

    ``q`` may be a slice of the queries starting at ``q_offset`` (positions are reported globally)."""
    x_block = min(len(x), _BLOCK_PAIRS)
    q_block = max(1, _BLOCK_PAIRS // x_block)
    xor = np.empty(q_block * x_block, dtype=np.uint64)
    count = np.empty(q_block * x_block, dtype=np.uint8)
    for q0 in range(0, len(q), q_block):
        qs = q[q0 : q0 + q_block]
        first = q_offset + q0
        # In same mode only j > i matters: index blocks that end at or before this query block are skipped.
        x_from = first + 1 if same else 0
        for x0 in range(x_from - x_from % x_block, len(x), x_block):
            xs = x[x0 : x0 + x_block]
            shape = (len(qs), len(xs))
            size = shape[0] * shape[1]
            xo = xor[:size].reshape(shape)
            np.bitwise_xor(qs[:, None], xs[None, :], out=xo)
            c = count[:size].reshape(shape)
            np.bitwise_count(xo, out=c)
            hit = c <= r
            if same:
                hit &= np.arange(x0, x0 + len(xs))[None, :] > np.arange(first, first + len(qs))[:, None]
            n_row = hit.sum(axis=1, dtype=np.int64)
            if keep.limit is not None and n_row.max(initial=0) > keep.limit:
                _cap_rows(c, hit, n_row, keep.limit, r)
            rows, cols = np.nonzero(hit)
            keep.add(rows.astype(np.int64) + first, cols.astype(np.int64) + x0, c[rows, cols], first, n_row)


def _chunks(m: int) -> list[tuple[int, int]]:
    """(shift, bits) of m nearly equal chunks covering the 64 bits."""
    sizes = [64 // m + (1 if k < 64 % m else 0) for k in range(m)]
    shifts = np.cumsum([0, *sizes[:-1]])
    return [(int(s), b) for s, b in zip(shifts, sizes, strict=True)]


def _masks(bits: int, radius: int) -> NDArray[np.uint64]:
    """Every bit pattern of ``bits`` bits with at most ``radius`` bits set (the probes around a chunk)."""
    out = [0]
    for k in range(1, radius + 1):
        out.extend(sum(1 << b for b in combo) for combo in combinations(range(bits), k))
    return np.asarray(out, dtype=np.uint64)


def _n_masks(bits: int, radius: int) -> int:
    from math import comb

    return sum(comb(bits, k) for k in range(radius + 1))


# Rough costs on one core, measured with numpy 2: a popcount of one brute-force pair, one probe of a
# chunk table (two binary searches) and one candidate pair (gather, XOR, popcount, filters).
_NS_PAIR = 3.0
_NS_PROBE = 150.0
_NS_CANDIDATE = 40.0


def _mih_plan(n_index: int, r: int) -> tuple[int, float]:
    """The chunk count with the least expected time per query for uniform hashes, and that time (ns)."""
    best: tuple[int, float] = (0, float("inf"))
    for m in range(1, 9):
        bits = 64 // m
        probes = m * _n_masks(bits + (1 if 64 % m else 0), r // m)
        cost = probes * (_NS_PROBE + _NS_CANDIDATE * n_index / 2.0**bits)
        if probes <= 50_000 and cost < best[1]:
            best = (m, cost)
    return best


def _mih_worthwhile(n_index: int, r: int) -> bool:
    m, cost = _mih_plan(n_index, r)
    return m > 0 and cost * 2 < _NS_PAIR * n_index


_Table = tuple[np.uint64, NDArray[np.uint64], NDArray[np.intp], NDArray[np.uint64]]  # mask, keys, order, probes


def _multi_index(q: NDArray[np.uint64], x: NDArray[np.uint64], r: int, same: bool, keep: _Keeper) -> None:
    """Multi-index hashing: probe each chunk's sorted table around the query's chunk, verify on 64 bits."""
    m, _ = _mih_plan(len(x), r)
    if m == 0:
        _brute(q, x, r, same, keep)
        return
    radius = r // m
    tables: list[_Table] = []
    for shift, bits in _chunks(m):
        mask = np.uint64(((1 << bits) - 1) << shift)  # the chunk's bits in place, so no shifts are needed
        keys = x & mask
        order = np.argsort(keys, kind="stable")
        tables.append((mask, keys[order], order, _masks(bits, radius) << np.uint64(shift)))
    q_block = max(1, _CANDIDATES // max(len(t[3]) for t in tables))
    for q0 in range(0, len(q), q_block):
        _probe(np.arange(q0, min(q0 + q_block, len(q)), dtype=np.int64), q, x, r, radius, same, tables, keep)


def _probe(
    block: NDArray[np.int64],
    q: NDArray[np.uint64],
    x: NDArray[np.uint64],
    r: int,
    radius: int,
    same: bool,
    tables: list[_Table],
    keep: _Keeper,
) -> None:
    """Candidates of one block of consecutive queries from every chunk table; halved when too many."""
    ranges = []
    total = 0
    for mask, sorted_keys, order, probes in tables:
        wanted = (q[block] & mask)[:, None] ^ probes[None, :]
        lo = np.searchsorted(sorted_keys, wanted, side="left")
        hi = np.searchsorted(sorted_keys, wanted, side="right")
        total += int((hi - lo).sum())
        ranges.append((lo, hi, order))
    if total > _CANDIDATES:
        if len(block) <= 64:  # queries near very many items (a giant cluster): scanning is cheaper
            _brute(q[block[0] : block[-1] + 1], x, r, same, keep, q_offset=int(block[0]))
            return
        half = len(block) // 2
        _probe(block[:half], q, x, r, radius, same, tables, keep)
        _probe(block[half:], q, x, r, radius, same, tables, keep)
        return
    for k, (lo, hi, order) in enumerate(ranges):
        lengths = (hi - lo).ravel()
        n = int(lengths.sum())
        if not n:
            continue
        ends = np.cumsum(lengths)
        positions = np.repeat(lo.ravel() - ends + lengths, lengths) + np.arange(n)
        ii = order[positions].astype(np.int64)
        qi = np.repeat(np.repeat(block, lo.shape[1]), lengths)
        if same:
            upper = ii > qi
            qi, ii = qi[upper], ii[upper]
        xor = q[qi] ^ x[ii]
        d = np.bitwise_count(xor)
        keep_it = d <= r
        # A pair near on several chunks is proposed by each: only the first such chunk reports it.
        for mask, *_ in tables[:k]:
            keep_it &= np.bitwise_count(xor & mask) > radius
        qi, ii, d = qi[keep_it], ii[keep_it], d[keep_it]
        keep.add(qi, ii, d, int(block[0]), np.bincount(qi - block[0], minlength=len(block)))
