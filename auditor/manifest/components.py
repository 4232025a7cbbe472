"""Connected components of rows linked by any shared key value (writer, document, content digest, ...).

Key values are the graph's nodes; each row links its values to one another, so rows that share any value,
directly or through a chain of other rows, fall in one component. scipy does the graph work in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from auditor.manifest.keycodes import KeyCodes


@dataclass(frozen=True, eq=False)
class Components:
    """A component label per row (-1: the row has no key value and stands alone) and component sizes."""

    of_row: np.ndarray
    sizes: np.ndarray  # rows per component


def row_components(keys: Sequence[KeyCodes]) -> Components:
    n = len(keys[0].codes)
    offsets = np.cumsum([0, *(k.n_values for k in keys)])
    n_nodes = int(offsets[-1])
    if n_nodes == 0:  # no value is shared by two rows: every row stands alone
        return Components(np.full(n, -1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    index: type[np.signedinteger[Any]] = np.int32 if n_nodes < 2**31 else np.int64  # half the memory at 10M rows
    previous: np.ndarray = np.full(n, -1, dtype=index)
    sources, targets = [], []
    for key, offset in zip(keys, offsets[:-1], strict=False):
        present = key.codes >= 0
        node = np.where(present, key.codes.astype(index) + index(offset), index(-1))
        link = present & (previous >= 0)
        # Chain each row's values: a row with writer w, document d and digest h links w-d and d-h.
        sources.append(previous[link])
        targets.append(node[link])
        previous = np.where(present, node, previous)
        del node, link, present
    src, dst = np.concatenate(sources), np.concatenate(targets)
    del sources, targets
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n_nodes, n_nodes)).tocsr()
    del src, dst
    _, node_label = connected_components(graph, directed=False)
    del graph
    # Every present value of a row is in the row's component; the last one seen stands for all.
    of_row = np.where(previous >= 0, node_label[np.maximum(previous, 0)], -1).astype(np.int64)
    return _by_first_row(of_row, int(node_label.max(initial=-1)) + 1)


def _by_first_row(of_row: np.ndarray, n_labels: int) -> Components:
    """Only components that hold rows (a value no row keeps is a node of its own), numbered by first row,
    so the numbering depends on the rows alone and not on how an engine numbered the values."""
    has = np.flatnonzero(of_row >= 0)
    labels = of_row[has]
    sizes = np.bincount(labels, minlength=n_labels)
    first = np.full(n_labels, len(of_row), dtype=np.int64)
    np.minimum.at(first, labels, has)
    used = np.flatnonzero(sizes > 0)
    order = used[np.argsort(first[used], kind="stable")]
    relabel = np.full(n_labels, -1, dtype=np.int64)
    relabel[order] = np.arange(len(order))
    of_row = np.where(of_row >= 0, relabel[np.maximum(of_row, 0)], -1)
    return Components(of_row, sizes[order])


@dataclass(frozen=True)
class Step:
    """One hop of a chain: a row, or the key value that links the rows before and after it."""

    row: int | None = None
    key: str | None = None
    value: str | None = None


def chain(keys: Sequence[KeyCodes], rows: np.ndarray, start: int, targets: np.ndarray) -> list[Step]:
    """Shortest alternating row / key-value path from row ``start`` to any row in ``targets``.

    ``rows`` (sorted or not) are the rows of one component; the search runs on the bipartite row-value graph of
    those rows, built with numpy alone: a component may hold every row of a 10M-row manifest.
    """
    rows = np.asarray(rows, dtype=np.int64)
    m = len(rows)
    order_rows = np.argsort(rows, kind="stable")
    sorted_rows = rows[order_rows]

    def local(wanted: np.ndarray) -> np.ndarray:
        """Positions in ``rows`` of the wanted rows; -1 for rows outside the component."""
        at = np.minimum(np.searchsorted(sorted_rows, wanted), max(m - 1, 0))
        return np.where(sorted_rows[at] == wanted, order_rows[at], -1) if m else np.full(len(wanted), -1)

    src, dst, values = [], [], []  # values: per key, the distinct codes present (value node = base + index)
    base = m
    bases = []
    for key in keys:
        codes = key.codes[rows]
        present = np.flatnonzero(codes >= 0)
        uniq, inverse = np.unique(codes[present], return_inverse=True)
        bases.append(base)
        values.append(uniq)
        src.append(present)
        dst.append(base + inverse)
        base += len(uniq)
    size = base
    a = np.concatenate(src) if src else np.zeros(0, dtype=np.int64)
    b = np.concatenate(dst) if dst else np.zeros(0, dtype=np.int64)
    graph = csr_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(size, size))
    graph = graph + graph.T
    first = int(local(np.array([start], dtype=np.int64))[0])
    if first < 0:
        return []
    order, predecessors = breadth_first_order(graph, first, directed=False, return_predecessors=True)
    wanted = np.zeros(size, dtype=bool)
    inside = local(np.asarray(targets, dtype=np.int64))
    wanted[inside[inside >= 0]] = True
    hits = order[wanted[order]]
    if not len(hits):
        return []
    node = int(hits[0])
    path = [node]
    while predecessors[node] >= 0:
        node = int(predecessors[node])
        path.append(node)
    steps = []
    for node in reversed(path):
        if node < m:
            steps.append(Step(row=int(rows[node])))
        else:
            k = int(np.searchsorted(bases, node, side="right")) - 1
            code = int(values[k][node - bases[k]])
            steps.append(Step(key=keys[k].name, value=keys[k].label(code)))
    return steps
