"""Near copies among the rows of a feature table: rows far closer to each other than to their other neighbours.

Numeric features are standardised (by their standard deviation) and searched; numeric columns with few
distinct values, booleans and text columns are discrete: a pair must agree on them exactly, but agreeing
on them is no evidence of a copy (rows share a category by the thousand), so they take no part in the
distances. Every row is searched against every row
(exact for small tables, an inverted-file index with a measured recall past a size) for its ``k`` nearest
neighbours. A pair is a near copy when its distance is below ``ratio`` times the smaller of the two rows'
``k``-th neighbour distances: small compared with how close rows usually are *there*, so a dense region or
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

from auditor.manifest.featurepower import as_numbers

_BLOCK_BYTES = 64 << 20  # distance block of the exact search
_RECALL_SAMPLE = 1000  # queries checked against the exact search


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


@dataclass(frozen=True, eq=False)
class FeatureSpace:
    """The search matrix of a feature table and what each part of it came from."""

    matrix: np.ndarray  # (rows, dims) float32: standardised continuous, then encoded discrete features
    continuous: list[str]
    discrete: list[str]
    values: np.ndarray  # (rows, continuous) float64 as written (NaN: missing), for the differences shown
    spread: np.ndarray  # (continuous,) the standard deviation each was scaled by
    codes: np.ndarray  # (rows, discrete) int64 value codes (-1: missing), compared exactly
    labels: list[list[Any]]  # per discrete column, its values by code
    dropped: list[str]  # features with one value only (or none): they cannot tell rows apart
    resolution: float  # one step of every continuous feature's resolution, in standardised units


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
                # The resolution the feature is written at: the median gap between its distinct values.
                steps.append(float(np.median(np.diff(distinct))))
            else:
                discrete.append(name)
                code = np.searchsorted(distinct, np.nan_to_num(x, nan=distinct[0]))
                codes.append(np.where(np.isnan(x), -1, code).astype(np.int64))
                labels.append([_plain(v) for v in distinct.tolist()])
            continue
        plain = column.cast(t.value_type) if pa.types.is_dictionary(t) else column
        encoded = pc.dictionary_encode(pc.cast(plain, pa.string()).combine_chunks())
        dictionary = encoded.dictionary
        raw = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        words = dictionary.to_pylist()
        # Codes in the order of the sorted values: the same input gives the same codes whatever the row order.
        order = sorted(range(len(words)), key=lambda i: str(words[i]))
        rank = np.empty(len(words) + 1, dtype=np.int64)
        rank[order] = np.arange(len(words))
        rank[-1] = -1
        code = rank[np.where(raw >= 0, raw, len(words)).astype(np.int64)]
        if len(words) < 2 and not (code < 0).any():
            dropped.append(name)
            continue
        discrete.append(name)
        codes.append(code)
        labels.append([words[i] for i in order])
    n = len(rows)
    values = np.stack(cont_values, axis=1) if cont_values else np.zeros((n, 0))
    center = np.nanmean(values, axis=0) if values.shape[1] else np.zeros(0)
    spread = np.nanstd(values, axis=0) if values.shape[1] else np.zeros(0)
    matrix = np.ascontiguousarray(np.nan_to_num((values - center) / spread, nan=0.0).astype(np.float32))
    code_matrix = np.stack(codes, axis=1) if codes else np.zeros((n, 0), dtype=np.int64)
    step = np.array(steps) / np.where(spread > 0, spread, 1)
    return FeatureSpace(
        matrix, continuous, discrete, values, spread, code_matrix, labels, dropped, float(np.sqrt(np.sum(step**2)))
    )


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
        d = norms[mine, None] + norms[None, :] - 2.0 * (q @ x.T)
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


def _ratio(dimension: float, settings: RowSettings) -> float:
    """The largest distance / local scale of a near copy: chance below ``settings.chance`` in ``dimension``."""
    if math.isfinite(dimension) and dimension > 0:
        return min(settings.max_ratio, (settings.chance / settings.neighbours) ** (1.0 / dimension))
    return settings.max_ratio


def _approximate(x: np.ndarray, k: int, settings: RowSettings) -> _Index:
    """Neighbours from an inverted-file index (faiss). A sample of rows is searched exactly (its neighbour
    distances give the dimension and the ratio); each sampled row moved by the largest distance still a near
    copy must find the row again: the share that do is the recall, and the probes per query are doubled until
    it is enough."""
    import faiss

    n, dims = x.shape
    lists = int(min(max(64, 2 * math.sqrt(n)), n // 39))
    index = faiss.IndexIVFFlat(faiss.IndexFlatL2(dims), dims, lists)
    rng = np.random.default_rng(settings.seed)
    index.cp.seed = settings.seed
    index.cp.niter = 10
    index.train(x[np.sort(rng.choice(n, size=min(n, lists * 39), replace=False))])
    index.add(x)
    sample = np.sort(rng.choice(n, size=min(n, _RECALL_SAMPLE), replace=False))
    true_d, _ = _exact(x, sample, k)
    dimension = _dimension(true_d)
    ratio = _ratio(dimension, settings)
    reach = ratio * np.sqrt(np.maximum(true_d[:, -1], 0)) * (1 - 1e-3)
    direction = rng.standard_normal((len(sample), dims)).astype(np.float32)
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    moved = np.ascontiguousarray(x[sample] + direction * reach[:, None].astype(np.float32))
    probes = 1
    while True:
        index.nprobe = probes
        _, found = index.search(moved, k)
        recall = float(np.mean((found == sample[:, None]).any(axis=1)))
        if recall >= settings.min_recall or probes >= lists:
            break
        probes = min(lists, probes * 2)
    # Probing one list more than the recall needs: rows near a list's border are the ones a sample misses.
    index.nprobe = min(lists, probes + 1)
    dist, idx = _others(*index.search(x, k + 1), k)
    return _Index(dist, idx.astype(np.int64), ratio, dimension, recall, int(index.nprobe))


def _others(dist: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` neighbours that are not the row itself (an index may list a twin before the row)."""
    dist = np.where(idx == np.arange(len(idx))[:, None], np.inf, np.where(idx < 0, np.inf, dist))
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def _dimension(dist: np.ndarray) -> float:
    """Intrinsic dimension by Levina-Bickel from neighbours 2..k (the first may be a copy), median over rows."""
    d = np.sqrt(np.maximum(dist[:, 1:], 0).astype(np.float64))
    if d.shape[1] < 3:
        return math.inf
    last = d[:, -1:]
    ok = (d[:, :-1] > 0).all(axis=1) & (last[:, 0] > 0)
    if not ok.any():
        return math.inf
    logs = np.log(last[ok] / d[ok, :-1])
    inverse = logs.mean(axis=1)
    inverse = inverse[inverse > 0]
    return float(np.median(1.0 / inverse)) if len(inverse) else math.inf


def near_rows(space: FeatureSpace, settings: RowSettings) -> RowPairs:
    """The near pairs among the rows of ``space`` (row numbers are positions in it)."""
    x = space.matrix
    n = len(x)
    k = settings.neighbours
    empty = np.zeros(0, dtype=np.int64)
    if n < 3 or x.shape[1] == 0:
        return RowPairs(empty, empty, np.zeros(0), np.zeros(0), 0.0, math.nan, "exact", None, None)
    k = min(k, n - 1)
    recall: float | None = None
    probes: int | None = None
    if n <= settings.exact_rows or not _has_faiss():
        dist, idx = _exact(x, np.arange(n), k)
        method = "exact"
        dimension = _dimension(dist)
        ratio = _ratio(dimension, settings)
    else:
        found = _approximate(x, k, settings)
        dist, idx, ratio, dimension = found.dist, found.idx, found.ratio, found.dimension
        recall, probes, method = found.recall, found.probes, "approximate"
    scale = np.sqrt(np.maximum(dist[:, -1], 0).astype(np.float64))
    near = np.sqrt(np.maximum(dist, 0).astype(np.float64))
    other = idx
    rows = np.repeat(np.arange(n), k).reshape(n, k)
    cand = np.isfinite(near) & (other >= 0) & (np.maximum(near, space.resolution) < ratio * scale[:, None])
    a, b = rows[cand], other[cand]
    # The search's distances lose digits to cancellation (|x|² + |y|² - 2x·y in float32): measured again here.
    d = np.sqrt(np.sum((x[a].astype(np.float64) - x[b]) ** 2, axis=1))
    if method == "approximate" and len(a):
        # An index misses neighbours, so its k-th neighbour lies too far and its pairs are a superset: the
        # rows of candidate pairs are searched again exactly, and judged on their true scale.
        involved = np.union1d(a, b)
        scale[involved] = np.sqrt(np.maximum(_exact(x, involved, k)[0][:, -1], 0).astype(np.float64))
    pair_scale = np.minimum(scale[a], scale[b])
    # Two rows equal at the features' resolution are no nearer than one step of it (a lattice has ties).
    keep = (np.maximum(d, space.resolution) < ratio * pair_scale) & (pair_scale > 0)
    keep &= (space.codes[a] == space.codes[b]).all(axis=1)
    keep &= (np.isnan(space.values[a]) == np.isnan(space.values[b])).all(axis=1)
    a, b, d, pair_scale = a[keep], b[keep], d[keep], pair_scale[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((hi, lo))
    lo, hi, d, pair_scale = lo[order], hi[order], d[order], pair_scale[order]
    first = np.ones(len(lo), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return RowPairs(lo[first], hi[first], d[first], pair_scale[first], float(ratio), dimension, method, recall, probes)


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
