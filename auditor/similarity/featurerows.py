"""Near copies among the rows of a feature table: rows far closer to each other than to their other neighbours.

Numeric features are standardised (by their standard deviation) and searched; numeric columns with few
distinct values, booleans and text columns are discrete: a pair must agree on them exactly, but agreeing
on them is no evidence of a copy (rows share a category by the thousand), so they take no part in the
distances. Every row is searched against every row for its ``k`` nearest neighbours: exactly in blocks for
small tables; past a size by a k-d tree (exact, n log n) in few dimensions, or by an inverted-file index with
a measured recall in many. Every long call into C is made in bounded blocks where a signal can interrupt it,
and the memory the search needs is estimated first: a table over the budget is not compared, and says why.
A pair is a near copy when its distance is below ``ratio`` times the smaller of the two rows' ``k``-th
neighbour distances: small compared with how close rows usually are *there*, so a dense region or
a lattice of integer values (where rows coincide by chance) does not count, and a distinctive row met twice
does. Values written at a coarse resolution (whole years, cents) coincide by chance where rows are dense:
a pair's distance counts as at least one step of that resolution. The ratio follows the data's intrinsic
dimension (estimated from the same neighbour distances, Levina and Bickel's maximum likelihood): in d
dimensions a row's nearest neighbour falls within ratio times its k-th neighbour distance by chance with
probability about k * ratio**d, which ``chance`` bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.waiting import interruptible
from auditor.manifest.featurepower import as_numbers

_BLOCK_BYTES = 16 << 20  # distance block of the exact search (its partition and indices take about 5 times it)
_RECALL_SAMPLE = 1000  # queries checked against the exact search
_SEARCH_ZERO = 0.01  # a search distance (standardised units) that may be two identical rows' float32 round-off
TREE_DIMS = 4  # up to this many dimensions a k-d tree finds the exact neighbours faster than an index (n log n)
MAX_PROBES = 64  # inverted lists an index query may search: past it the recall is measured and reported
_QUERY_BLOCK = 16_384  # queries per call into a tree or an index
_BLOCK_WORK = 2e9  # distance terms (rows x dimensions) one index call may compute
_EXACT_WORK = 4e10  # distance terms the exact search of an index's candidate rows may cost
_PAIR_BLOCK = 1 << 20  # candidate pairs verified at once


@dataclass(frozen=True)
class RowSettings:
    """How near is a near copy, and how the neighbours are searched."""

    neighbours: int = 10  # k: the neighbour whose distance is a row's local scale
    max_ratio: float = 0.2  # the ratio never exceeds this, whatever the dimension
    chance: float = 1e-7  # bound on a row's chance to have a neighbour that near by chance
    discrete_values: int = 20  # numeric columns with at most this many distinct values are discrete
    exact_rows: int = 30_000  # up to this many rows the search is exact
    min_recall: float = 0.99  # the approximate index's measured recall must reach this
    seed: int = 0
    memory: int = 2 << 30  # bytes the search may use; a larger table is not compared


@dataclass(frozen=True, eq=False)
class FeatureSpace:
    """The search matrix of a feature table and what each part of it came from."""

    matrix: np.ndarray  # (rows, dims) float32: standardised continuous, then encoded discrete features
    continuous: list[str]
    discrete: list[str]
    values: np.ndarray  # (rows, continuous) float64 as written (NaN: missing), for the differences shown
    spread: np.ndarray  # (continuous,) the standard deviation each was scaled by
    codes: np.ndarray  # (rows, discrete) int64 value codes (-1: missing), compared exactly
    labels: list[pa.Array]  # per discrete column, its values by code
    dropped: list[str]  # features with one value only (or none): they cannot tell rows apart
    resolution: float  # one step of every continuous feature's resolution, in standardised units
    # a continuous feature is written at full precision: rows equal in every feature are then no chance tie,
    # however coarse the others are (an age in years beside an income to the last digit)
    fine: bool = False


@dataclass(frozen=True, eq=False)
class RowPairs:
    """Near pairs a < b of rows, with each pair's distance and the local scale it was judged against."""

    a: np.ndarray
    b: np.ndarray
    distance: np.ndarray
    scale: np.ndarray  # the smaller of the two rows' k-th neighbour distances
    ratio: float  # the threshold d / scale, from the intrinsic dimension
    dimension: float  # the estimated intrinsic dimension
    method: str  # "exact" | "approximate"
    recall: float | None  # of the approximate index on a sample, against the exact search
    probes: int | None  # inverted lists searched per query
    lists: int | None = None  # inverted lists of the index
    rescored: str | None = None  # how an index's candidate rows were searched again: "exact" | "index"


def search_bytes(rows: int, columns: int, settings: RowSettings) -> int:
    """An upper bound of the memory the search of ``columns`` features over ``rows`` rows takes, as measured
    (bench/feature_rows_scale.py): per feature and row its values as read, as written and standardised, or its
    codes; per neighbour and row its distance and index, spread over the rows of tied ones, and the candidate
    pairs; per row its group and scale; and the blocks of the exact search."""
    per_row = columns * 48 + settings.neighbours * 48 + 64
    return rows * per_row + 6 * _BLOCK_BYTES


def feature_space(table: pa.Table, columns: Sequence[str], rows: np.ndarray, settings: RowSettings) -> FeatureSpace:
    """The search matrix of ``columns`` over ``rows`` (indices into ``table``)."""
    take = pa.array(rows, pa.int64())
    continuous: list[str] = []
    discrete: list[str] = []
    dropped: list[str] = []
    cont_values: list[np.ndarray] = []
    steps: list[float] = []
    codes: list[np.ndarray] = []
    labels: list[list[Any]] = []
    for name in columns:
        column = table[name].take(take)
        t = column.type
        # Numbers written as text (a CSV's columns are read as text) are numbers too; booleans stay discrete.
        numbers = None if pa.types.is_boolean(t) else as_numbers(column)
        if numbers is not None:
            x = np.where(np.isfinite(numbers), numbers, np.nan)
            distinct = np.unique(x[~np.isnan(x)])
            if len(distinct) < 2:
                dropped.append(name)
            elif len(distinct) > settings.discrete_values:
                continuous.append(name)
                cont_values.append(x)
                steps.append(_written_step(distinct))
            else:
                discrete.append(name)
                code = np.searchsorted(distinct, np.nan_to_num(x, nan=distinct[0]))
                codes.append(np.where(np.isnan(x), -1, code).astype(np.int64))
                labels.append(pa.array([_plain(v) for v in distinct.tolist()]))
            continue
        plain = column.cast(t.value_type) if pa.types.is_dictionary(t) else column
        encoded = pc.dictionary_encode(pc.cast(plain, pa.string()).combine_chunks())
        dictionary = encoded.dictionary
        raw = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        words = len(dictionary)
        # Codes in the order of the sorted values: the same input gives the same codes whatever the row order.
        # (Arrow sorts UTF-8 bytewise, which is code point order, as Python sorts str; no object per value.)
        order = pc.sort_indices(dictionary).to_numpy()
        rank = np.empty(words + 1, dtype=np.int64)
        rank[order] = np.arange(words)
        rank[-1] = -1
        code = rank[np.where(raw >= 0, raw, words).astype(np.int64)]
        if words < 2 and not (code < 0).any():
            dropped.append(name)
            continue
        discrete.append(name)
        codes.append(code)
        labels.append(dictionary.take(pa.array(order)))
    n = len(rows)
    values = np.stack(cont_values, axis=1) if cont_values else np.zeros((n, 0))
    center = np.nanmean(values, axis=0) if values.shape[1] else np.zeros(0)
    spread = np.nanstd(values, axis=0) if values.shape[1] else np.zeros(0)
    matrix = np.ascontiguousarray(np.nan_to_num((values - center) / spread, nan=0.0).astype(np.float32))
    code_matrix = np.stack(codes, axis=1) if codes else np.zeros((n, 0), dtype=np.int64)
    step = np.array(steps) / np.where(spread > 0, spread, 1)
    return FeatureSpace(
        matrix,
        continuous,
        discrete,
        values,
        spread,
        code_matrix,
        labels,
        dropped,
        float(np.sqrt(np.sum(step**2))),
        bool(np.any(np.array(steps) == 0)),
    )


def _written_step(distinct: np.ndarray) -> float:
    """The resolution a feature is written at: the median gap between its distinct values (whole years, a
    lattice of fives), unless its values are written far finer than they lie apart (measurements to many
    decimals, where two rows equal to every digit are no chance): then the finest decimal they are written to,
    nothing at full precision. A floor as coarse as the values' spacing would keep an exact copy from counting."""
    gap = float(np.median(np.diff(distinct)))
    for places in range(10):
        scaled = distinct * 10.0**places
        if np.max(np.abs(scaled)) > 1e15:  # past the digits a double holds: written to all of them
            break
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6):
            written = 10.0**-places
            return written if written <= gap / 10 else gap
    return 0.0


def _plain(v: float) -> Any:
    return int(v) if float(v).is_integer() else v


def _exact(x: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest other rows of ``x`` to each row of ``queries`` (squared distances, indices), by blocks."""
    norms = np.einsum("ij,ij->i", x, x, dtype=np.float64).astype(np.float32)
    k = min(k, len(x) - 1)
    block = max(1, _BLOCK_BYTES // (4 * max(len(x), 1)))
    dist = np.empty((len(queries), k), dtype=np.float32)
    idx = np.empty((len(queries), k), dtype=np.int64)
    for lo in range(0, len(queries), block):
        mine = queries[lo : lo + block]
        q = x[mine]
        d = q @ x.T  # |q|² + |x|² - 2 q·x in place: one block in memory, not four
        d *= -2.0
        d += norms[mine, None]
        d += norms[None, :]
        np.maximum(d, 0, out=d)
        d[np.arange(len(mine)), mine] = np.inf  # a row is not its own neighbour
        part = np.argpartition(d, k - 1, axis=1)[:, :k]
        pd_ = np.take_along_axis(d, part, axis=1)
        order = np.argsort(pd_, axis=1, kind="stable")
        dist[lo : lo + len(q)] = np.take_along_axis(pd_, order, axis=1)
        idx[lo : lo + len(q)] = np.take_along_axis(part, order, axis=1)
    return dist, idx


@dataclass(frozen=True, eq=False)
class _Index:
    """Neighbours from an inverted-file index, and what the exact search of a sample said about it."""

    dist: np.ndarray
    idx: np.ndarray
    ratio: float
    dimension: float
    recall: float
    probes: int
    lists: int
    index: Any  # the faiss index, to search the candidate rows again


def _ratio(dimension: float, settings: RowSettings) -> float:
    """The largest distance / local scale of a near copy: chance below ``settings.chance`` in ``dimension``."""
    if math.isfinite(dimension) and dimension > 0:
        return min(settings.max_ratio, (settings.chance / settings.neighbours) ** (1.0 / dimension))
    return settings.max_ratio


def _tree(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest other rows of every row (squared distances, indices) from a k-d tree: exact, about
    n log n in few dimensions, queried in blocks where a signal can interrupt it."""
    from scipy.spatial import cKDTree

    tree = interruptible(cKDTree, x)
    dist = np.empty((len(x), k), dtype=np.float64)
    idx = np.empty((len(x), k), dtype=np.int64)
    for lo in range(0, len(x), _QUERY_BLOCK):
        d, i = interruptible(tree.query, x[lo : lo + _QUERY_BLOCK], k + 1)
        own = np.arange(lo, lo + len(d))
        d, i = _others(np.square(d), i.astype(np.int64), k, own)
        dist[lo : lo + len(d)], idx[lo : lo + len(d)] = d, i
    return dist, idx


def _search(
    index: Any, queries: np.ndarray, k: int, per_query: float, own: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``index.search`` of ``queries`` in blocks of bounded work (``per_query``: distance terms a query costs);
    with ``own`` (each query's row), the ``k`` nearest other rows of each (one more is searched)."""
    block = int(min(_QUERY_BLOCK, max(256, _BLOCK_WORK // max(per_query, 1.0))))
    width = k if own is None else k - 1
    dist = np.empty((len(queries), width), dtype=np.float32)
    idx = np.empty((len(queries), width), dtype=np.int64)
    for lo in range(0, len(queries), block):
        d, i = interruptible(index.search, queries[lo : lo + block], k)
        i = i.astype(np.int64)
        if own is not None:
            d, i = _others(d, i, width, own[lo : lo + block])
        dist[lo : lo + len(d)], idx[lo : lo + len(d)] = d, i
    return dist, idx


def _approximate(x: np.ndarray, k: int, settings: RowSettings, counts: np.ndarray, rows_k: int) -> _Index:
    """Neighbours from an inverted-file index (faiss). A sample of rows is searched exactly (its neighbour
    distances give the dimension and the ratio); each sampled row moved by the largest distance still a near
    copy must find the row again, or rows at least as near (a tie is no miss): the share that do is the recall,
    and the probes per query are doubled until it is enough, or MAX_PROBES (the recall is then reported)."""
    import faiss

    n, dims = x.shape
    lists = int(min(max(64, 2 * math.sqrt(n)), n // 39))
    index = faiss.IndexIVFFlat(faiss.IndexFlatL2(dims), dims, lists)
    rng = np.random.default_rng(settings.seed)
    index.cp.seed = settings.seed
    index.cp.niter = 10
    interruptible(index.train, x[np.sort(rng.choice(n, size=min(n, lists * 39), replace=False))])
    for lo in range(0, n, _QUERY_BLOCK):
        interruptible(index.add, x[lo : lo + _QUERY_BLOCK])
    sample = np.sort(rng.choice(n, size=min(n, _RECALL_SAMPLE), replace=False))
    true_d, true_i = _exact(x, sample, k)
    rows_d = _expand(true_d, true_i, counts, rows_k, sample)  # the sampled rows' neighbours among all rows
    dimension = _dimension(rows_d, counts[sample])
    ratio = _ratio(dimension, settings)
    reach = ratio * np.sqrt(np.maximum(rows_d[:, -1], 0)) * (1 - 1e-3)
    direction = rng.standard_normal((len(sample), dims)).astype(np.float32)
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    moved = np.ascontiguousarray(x[sample] + direction * reach[:, None].astype(np.float32))
    away = np.sum((moved.astype(np.float64) - x[sample]) ** 2, axis=1)  # the moved query's distance to its row
    cap = min(lists, MAX_PROBES)
    per_list = dims * n / lists
    probes = 1
    while True:
        index.nprobe = probes
        got_d, found = _search(index, moved, k, probes * per_list)
        hit = (found == sample[:, None]).any(axis=1) | (got_d[:, -1] <= away * (1 + 1e-4) + 1e-12)
        recall = float(np.mean(hit))
        if recall >= settings.min_recall or probes >= cap:
            break
        probes = min(cap, probes * 2)
    # Probing one list more than the recall needs: rows near a list's border are the ones a sample misses.
    index.nprobe = min(lists, probes + 1)
    dist, idx = _search(index, x, k + 1, index.nprobe * per_list, np.arange(n))
    return _Index(dist, idx, ratio, dimension, recall, int(index.nprobe), lists, index)


def _others(dist: np.ndarray, idx: np.ndarray, k: int, own: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` neighbours that are not the row itself (``own``: each query's row; an index or a tree
    may list a twin before the row)."""
    dist = np.where(idx == own[:, None], np.inf, np.where(idx < 0, np.inf, dist))
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def _dimension(dist: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Intrinsic dimension by Levina-Bickel from neighbours 2..k (the first may be a copy), median over rows
    (``weights``: the rows each line of ``dist`` stands for)."""
    d = np.sqrt(np.maximum(dist[:, 1:], 0).astype(np.float64))
    if d.shape[1] < 3:
        return math.inf
    last = d[:, -1:]
    ok = (d[:, :-1] > 0).all(axis=1) & (last[:, 0] > 0) & np.isfinite(last[:, 0])
    if not ok.any():
        return math.inf
    logs = np.log(last[ok] / d[ok, :-1])
    inverse = logs.mean(axis=1)
    keep = inverse > 0
    values = 1.0 / inverse[keep]
    if weights is not None:
        values = np.repeat(values, weights[ok][keep])
    return float(np.median(values)) if len(values) else math.inf


def near_rows(space: FeatureSpace, settings: RowSettings) -> RowPairs:
    """The near pairs among the rows of ``space`` (row numbers are positions in it)."""
    x = space.matrix
    n = len(x)
    k = settings.neighbours
    empty = np.zeros(0, dtype=np.int64)
    if n < 3 or x.shape[1] == 0:
        return RowPairs(empty, empty, np.zeros(0), np.zeros(0), 0.0, math.nan, "exact", None, None)
    k = min(k, n - 1)
    if n > settings.exact_rows:
        return _near_grouped(space, k, settings)
    dist, idx = _exact(x, np.arange(n), k)
    dimension = _dimension(dist)
    ratio = _ratio(dimension, settings)
    scale = np.sqrt(np.maximum(dist[:, -1], 0).astype(np.float64))
    a, b = _candidates(dist, idx, scale, ratio, space.resolution, space.fine)
    lo, hi, d, pair_scale = _verified(space, a, b, scale, ratio)
    return RowPairs(lo, hi, d, pair_scale, float(ratio), dimension, "exact", None, None)


@dataclass(frozen=True, eq=False)
class _Groups:
    """The distinct rows of a search matrix: rows met many times (a lattice, a category-like number, copies)
    are searched once, so ties cost neither a tree nor an index anything."""

    points: np.ndarray  # (distinct, dims) float32
    inverse: np.ndarray  # int64 per row: its distinct row
    counts: np.ndarray  # int64 per distinct row: the rows it stands for
    order: np.ndarray  # rows by distinct row
    start: np.ndarray  # where each distinct row's rows begin in ``order``

    @classmethod
    def of(cls, x: np.ndarray) -> _Groups:
        x = np.ascontiguousarray(x)
        # Each row's bytes as one fixed-size value: Arrow's hash table numbers them in one pass.
        rows = pa.FixedSizeBinaryArray.from_buffers(pa.binary(x.shape[1] * x.itemsize), len(x), [None, pa.py_buffer(x)])
        inverse = pc.dictionary_encode(rows).indices.to_numpy().astype(np.int64)
        distinct = int(inverse.max()) + 1 if len(inverse) else 0
        first = np.empty(distinct, dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(x) - 1, -1, -1)
        counts = np.bincount(inverse, minlength=distinct).astype(np.int64)
        order = np.argsort(inverse, kind="stable")
        return cls(x[first], inverse, counts, order, np.cumsum(counts) - counts)

    def pairs(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every pair of a row of distinct row ``u[i]`` and a row of ``v[i]``; for u == v each pair once."""
        cu, cv = self.counts[u], self.counts[v]
        sizes = cu * cv
        which = np.repeat(np.arange(len(u)), sizes)
        at = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        i, j = at // cv[which], at % cv[which]
        keep = (u[which] != v[which]) | (i < j)
        which, i, j = which[keep], i[keep], j[keep]
        return self.order[self.start[u[which]] + i], self.order[self.start[v[which]] + j]


def _expand(dist: np.ndarray, idx: np.ndarray, counts: np.ndarray, k: int, own: np.ndarray | None = None) -> np.ndarray:
    """Each distinct row's (``own``: the ones searched, default all) first ``k`` other rows' squared distances:
    its twins (at 0), then the rows of its distinct neighbours, each as many times as it stands for rows."""
    out = np.empty((len(dist), k), dtype=np.float64)
    step = max(1, _PAIR_BLOCK // max(dist.shape[1], 1))  # the temporaries below stay a block's size
    for lo in range(0, len(dist), step):
        d, i = dist[lo : lo + step], idx[lo : lo + step]
        lines = len(d)
        twins = (counts[lo : lo + step] if own is None else counts[own[lo : lo + step]]) - 1
        reached = np.cumsum(np.where(i >= 0, counts[np.maximum(i, 0)], 0), axis=1)
        padded = np.concatenate([d.astype(np.float64), np.full((lines, 1), np.inf)], axis=1)
        for slot in range(k):
            after = slot - twins  # the slot's place among the rows of other distinct rows (< 0: a twin)
            j = (reached <= after[:, None]).sum(axis=1)
            out[lo : lo + lines, slot] = np.where(after < 0, 0.0, padded[np.arange(lines), j])
    return out


def _near_grouped(space: FeatureSpace, k: int, settings: RowSettings) -> RowPairs:
    """Near pairs of a table past the exact size: its distinct rows searched (exactly while they are few, by a
    k-d tree in few dimensions, by an index in many), their neighbours spread back over the rows they stand for."""
    groups = _Groups.of(space.matrix)
    points, counts = groups.points, groups.counts
    distinct = len(points)
    empty = np.zeros(0, dtype=np.int64)
    if distinct < 2:  # every row the same: no row is nearer to another than the rest
        return RowPairs(empty, empty, np.zeros(0), np.zeros(0), 0.0, math.inf, "exact", None, None)
    kk = min(k, distinct - 1)  # distinct neighbours: each stands for one row at least, so k of them suffice
    found: _Index | None = None
    if distinct <= settings.exact_rows:
        dist, idx = _exact(points, np.arange(distinct), kk)
    elif points.shape[1] <= TREE_DIMS or not _has_faiss():
        dist, idx = _tree(points, kk)
    else:
        found = _approximate(points, kk, settings, counts, k)
        dist, idx = found.dist, found.idx
    expanded = _expand(dist, idx, counts, k)
    if found is None:
        dimension = _dimension(expanded, counts)
        ratio = _ratio(dimension, settings)
    else:
        dimension, ratio = found.dimension, found.ratio
    scale = np.sqrt(np.maximum(expanded[:, -1], 0))
    del expanded
    u, v = _candidates(dist, idx, scale, ratio, space.resolution, space.fine)
    twins = np.flatnonzero((counts > 1) & ((space.resolution < ratio * scale) | space.fine))
    del dist, idx
    rescored = None
    if found is not None and (len(u) or len(twins)):
        # An index misses neighbours, so its k-th neighbour lies too far and its pairs are a superset: the
        # rows of candidate pairs are searched again, exactly while that stays affordable, and judged on that
        # scale; past it, by the index probing four times the lists.
        involved = np.union1d(np.union1d(u, v), twins)
        if len(involved) * distinct * points.shape[1] <= _EXACT_WORK:
            again, near, rescored = *_exact(points, involved, kk), "exact"
        else:
            found.index.nprobe = min(found.lists, 4 * found.probes)
            work = found.index.nprobe * points.shape[1] * distinct / found.lists
            again, near = _search(found.index, points[involved], kk + 1, work, involved)
            rescored = "index"
        scale[involved] = np.sqrt(np.maximum(_expand(again, near, counts, k, involved)[:, -1], 0))
    pairs = [groups.pairs(u, v), groups.pairs(twins, twins)]
    a, b = np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs])
    lo, hi, d, pair_scale = _verified(space, a, b, scale[groups.inverse], ratio)
    method = "exact" if found is None else "approximate"
    recall, probes, lists = (found.recall, found.probes, found.lists) if found is not None else (None, None, None)
    return RowPairs(lo, hi, d, pair_scale, float(ratio), dimension, method, recall, probes, lists, rescored)


def _candidates(
    dist: np.ndarray, idx: np.ndarray, scale: np.ndarray, ratio: float, resolution: float, fine: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs (row, neighbour) nearer than ``ratio`` times the row's scale, a block of rows at a time; with
    ``fine`` features, a pair the search puts at about 0 is kept whatever the resolution (_verified measures it
    again: the search's float32 sums leave identical rows a few thousandths apart)."""
    found_a, found_b = [], []
    step = max(1, _PAIR_BLOCK // max(dist.shape[1], 1))
    for lo in range(0, len(dist), step):
        near = np.sqrt(np.maximum(dist[lo : lo + step], 0).astype(np.float64))
        other = idx[lo : lo + step]
        floor = np.where(fine & (near <= _SEARCH_ZERO), 0.0, resolution)
        cand = np.isfinite(near) & (other >= 0) & (np.maximum(near, floor) < ratio * scale[lo : lo + step, None])
        rows, cols = np.nonzero(cand)
        found_a.append(rows + lo)
        found_b.append(other[rows, cols])
    return np.concatenate(found_a).astype(np.int64), np.concatenate(found_b).astype(np.int64)


def _verified(
    space: FeatureSpace, a: np.ndarray, b: np.ndarray, scale: np.ndarray, ratio: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate pairs that are near copies, each once as (lo, hi), with distance and scale; by blocks."""
    x = space.matrix
    keep_lo, keep_hi, keep_d, keep_s = [], [], [], []
    for at in range(0, len(a), _PAIR_BLOCK):
        pa_, pb = a[at : at + _PAIR_BLOCK], b[at : at + _PAIR_BLOCK]
        # The search's distances lose digits to cancellation (|x|² + |y|² - 2x·y in float32): measured again.
        d = np.sqrt(np.sum((x[pa_].astype(np.float64) - x[pb]) ** 2, axis=1))
        pair_scale = np.minimum(scale[pa_], scale[pb])
        # Two rows equal at the features' resolution are no nearer than one step of it (a lattice has ties).
        floor = np.where((d == 0) & space.fine, 0.0, space.resolution)  # equal to the last digit: no chance tie
        keep = (np.maximum(d, floor) < ratio * pair_scale) & (pair_scale > 0)
        keep &= (space.codes[pa_] == space.codes[pb]).all(axis=1)
        keep &= (np.isnan(space.values[pa_]) == np.isnan(space.values[pb])).all(axis=1)
        keep_lo.append(np.minimum(pa_, pb)[keep])
        keep_hi.append(np.maximum(pa_, pb)[keep])
        keep_d.append(d[keep])
        keep_s.append(pair_scale[keep])
    if not keep_lo:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0), np.zeros(0)
    lo, hi, d, pair_scale = (np.concatenate(v) for v in (keep_lo, keep_hi, keep_d, keep_s))
    order = np.lexsort((hi, lo))
    lo, hi, d, pair_scale = lo[order], hi[order], d[order], pair_scale[order]
    first = np.ones(len(lo), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return lo[first], hi[first], d[first], pair_scale[first]


def _has_faiss() -> bool:
    from importlib.util import find_spec

    return find_spec("faiss") is not None


def differences(space: FeatureSpace, a: int, b: int, limit: int = 5) -> list[dict[str, Any]]:
    """The continuous features in which rows ``a`` and ``b`` differ most, by how much (also as a share of the
    feature's standard deviation); equal features are not listed."""
    va, vb = space.values[a], space.values[b]
    delta = np.abs(va - vb)
    share = np.where(space.spread > 0, delta / np.where(space.spread > 0, space.spread, 1), 0.0)
    share = np.nan_to_num(share, nan=0.0)
    out = []
    for j in np.argsort(-share, kind="stable")[:limit]:
        if share[j] <= 0:
            break
        out.append(
            {
                "feature": space.continuous[int(j)],
                "holdout": _plain(float(f"{va[j]:.6g}")),
                "near": _plain(float(f"{vb[j]:.6g}")),
                "difference": float(f"{delta[j]:.6g}"),
                "of_spread": round(float(share[j]), 4),
            }
        )
    return out
