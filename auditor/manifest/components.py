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
    sizes = np.bincount(of_row[of_row >= 0], minlength=int(node_label.max(initial=-1)) + 1)
    return Components(of_row, sizes)


@dataclass(frozen=True)
class Step:
    """One hop of a chain: a row, or the key value that links the rows before and after it."""

    row: int | None = None
    key: str | None = None
    value: str | None = None


def chain(keys: Sequence[KeyCodes], rows: np.ndarray, start: int, targets: np.ndarray) -> list[Step]:
    """Shortest alternating row / key-value path from row ``start`` to any row in ``targets``.

    ``rows`` are the rows of one component; the search runs on the bipartite row-value graph of those rows.
    """
    local = {int(r): i for i, r in enumerate(rows)}
    m = len(rows)
    value_nodes: dict[tuple[int, int], int] = {}
    src, dst = [], []
    for k, key in enumerate(keys):
        codes = key.codes[rows]
        present = np.flatnonzero(codes >= 0)
        uniq, inverse = np.unique(codes[present], return_inverse=True)
        base = m + len(value_nodes)
        for j, code in enumerate(uniq):
            value_nodes[(k, int(code))] = base + j
        src.append(present)
        dst.append(base + inverse)
    size = m + len(value_nodes)
    a = np.concatenate(src)
    b = np.concatenate(dst)
    graph = csr_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(size, size))
    graph = graph + graph.T
    order, predecessors = breadth_first_order(graph, local[start], directed=False, return_predecessors=True)
    wanted = np.zeros(size, dtype=bool)
    wanted[[local[int(t)] for t in targets if int(t) in local]] = True
    hits = order[wanted[order]]
    if not len(hits):
        return []
    node = int(hits[0])
    path = [node]
    while predecessors[node] >= 0:
        node = int(predecessors[node])
        path.append(node)
    by_node = {v: kc for kc, v in value_nodes.items()}
    steps = []
    for node in reversed(path):
        if node < m:
            steps.append(Step(row=int(rows[node])))
        else:
            k, code = by_node[node]
            steps.append(Step(key=keys[k].name, value=keys[k].label(code)))
    return steps
