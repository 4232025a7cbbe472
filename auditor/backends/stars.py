"""Connected components on a cluster by large-star / small-star rounds (Kiveris et al., 2014).

Each round is two shuffles of the edge list by node: large-star links every larger neighbour of a node to
the smallest node it sees, small-star links a node and its smaller neighbours to the smallest of them. No
node needs its whole component in one place, and the rounds needed grow with the logarithm of the graph's
size. When neither step changes an edge, every component is a star around its smallest node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Edges = tuple[np.ndarray, np.ndarray]
_MIX = np.uint64(0xBF58476D1CE4E5B9)


def deal(keys: np.ndarray, values: np.ndarray, n_buckets: int) -> list[Edges]:
    """(key, value) pairs dealt to buckets by key, so each node's edges meet in one bucket."""
    with np.errstate(over="ignore"):
        target = (((keys.astype(np.uint64) * _MIX) >> np.uint64(40)) % np.uint64(n_buckets)).astype(np.uint16)
    order = np.argsort(target, kind="stable")  # a radix sort on 16-bit keys
    bounds = np.searchsorted(target[order], np.arange(n_buckets + 1))
    k, v = keys[order], values[order]
    return [(k[bounds[b] : bounds[b + 1]], v[bounds[b] : bounds[b + 1]]) for b in range(n_buckets)]


def large_map(edges: Edges, n_buckets: int) -> list[Edges]:
    """Both directions of every edge, by node: large-star looks at all of a node's neighbours."""
    a, b = edges
    return deal(np.concatenate([a, b]), np.concatenate([b, a]), n_buckets)


def small_map(edges: Edges, n_buckets: int) -> list[Edges]:
    """Every edge from its larger end: small-star looks at a node's smaller neighbours."""
    a, b = edges
    return deal(np.maximum(a, b), np.minimum(a, b), n_buckets)


def _sorted_pairs(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) sorted by u, then v. Nodes below 2**32 are packed into one integer: one sort instead of two."""
    if not len(u):
        return u, v
    if int(max(u.max(), v.max())) < 2**32 and int(min(u.min(), v.min())) >= 0:
        packed = np.sort((u.astype(np.uint64) << np.uint64(32)) | v.astype(np.uint64))
        return (packed >> np.uint64(32)).astype(np.int64), (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    order = np.lexsort((v, u))
    return u[order], v[order]


def _grouped(pieces: Sequence[Edges]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pairs sorted by node; the start of each node's run, its node and the smallest neighbour in it."""
    u = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int64)
    v = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0, np.int64)
    u, v = _sorted_pairs(u, v)
    starts = np.flatnonzero(np.concatenate(([True], u[1:] != u[:-1]))) if len(u) else np.zeros(0, np.int64)
    return u, v, starts, v[starts] if len(u) else v  # sorted by v within a node: the first is the smallest


def large_reduce(pieces: Sequence[Edges]) -> tuple[np.ndarray, np.ndarray, int]:
    """For each node u: every neighbour v > u linked to m(u), the smallest of u and its neighbours."""
    u, v, starts, smallest = _grouped(pieces)
    if not len(u):
        return u, v, 0
    m = np.minimum(smallest, u[starts])
    m_of = np.repeat(m, np.diff(np.append(starts, len(u))))
    keep = v > u
    changed = int(np.count_nonzero((m < u[starts]) & np.add.reduceat(keep, starts).astype(bool)))
    return (*_unique(v[keep], m_of[keep]), changed)


def small_reduce(pieces: Sequence[Edges]) -> tuple[np.ndarray, np.ndarray, int]:
    """For each node u with smaller neighbours N: u and N linked to the smallest of N."""
    u, v, starts, smallest = _grouped(pieces)
    if not len(u):
        return u, v, 0
    runs = np.diff(np.append(starts, len(u)))
    m_of = np.repeat(smallest, runs)
    nodes, targets = np.concatenate([v, u[starts]]), np.concatenate([m_of, smallest])
    keep = nodes != targets
    changed = int(np.count_nonzero(runs > 1))
    return (*_unique(nodes[keep], targets[keep]), changed)


def _unique(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not len(a):
        return a, b
    a, b = _sorted_pairs(a, b)
    first = np.concatenate(([True], (a[1:] != a[:-1]) | (b[1:] != b[:-1])))
    return a[first], b[first]


Persist = Callable[[list[Any]], list[Any]]
Compute = Callable[[list[Any]], list[Any]]


def star_components(parts: Sequence[Any], n_nodes: int, persist: Persist, compute: Compute) -> tuple[np.ndarray, int]:
    """The smallest node of each node's component, and the rounds it took; ``parts`` are edge partitions
    ((a, b) arrays, or futures of them) already on the cluster."""
    stars, rounds = star_rounds(parts, persist, compute)
    return star_label(n_nodes, compute(stars)), rounds


def star_rounds(parts: Sequence[Any], persist: Persist, compute: Compute) -> tuple[list[Any], int]:
    """The rounds run until every component is a star around its smallest node: the stars' edge partitions
    (futures, on the cluster) and the rounds it took."""
    from dask import delayed

    n = max(len(parts), 1)
    edges = list(parts)
    rounds = 0
    while True:
        rounds += 1
        dealt = [delayed(large_map, nout=n)(e, n) for e in edges]
        large = [delayed(large_reduce, nout=3)([d[j] for d in dealt]) for j in range(n)]
        large_edges = [delayed(_pair)(r[0], r[1]) for r in large]
        dealt = [delayed(small_map, nout=n)(e, n) for e in large_edges]
        small = [delayed(small_reduce, nout=3)([d[j] for d in dealt]) for j in range(n)]
        # The edges and the counts of changes come from one computation: asking for the counts afterwards
        # would run the round again.
        kept = persist([*(delayed(_pair)(r[0], r[1]) for r in small), *(r[2] for r in (*large, *small))])
        edges, changes = kept[:n], compute(kept[n:])
        if not any(changes):
            return edges, rounds


def star_label(n_nodes: int, stars: Sequence[Edges]) -> np.ndarray:
    """Each node's centre from the stars' edges (int32 below 2**31 nodes): where a cluster's task makes it,
    no driver holds a figure per node."""
    label = np.arange(n_nodes, dtype=np.int32 if n_nodes < 2**31 else np.int64)
    for a, b in stars:
        label[a] = b  # a star: every node but the centre points at the centre, its component's smallest node
    return label


def _pair(a: np.ndarray, b: np.ndarray) -> Edges:
    return a, b
