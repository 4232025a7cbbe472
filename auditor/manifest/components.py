"""Connected components of rows linked by any shared key value (writer, document, content digest, ...).

Key values are the graph's nodes; each row links its values to one another, so rows that share any value,
directly or through a chain of other rows, fall in one component. scipy does the graph work in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

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
    # Two passes: the first counts the links, so the second writes them straight into one array each
    # (lists of parts and their concatenation would hold every link twice at the peak).
    total = 0
    for fill in (False, True):
        if fill:
            src, dst = np.empty(total, dtype=index), np.empty(total, dtype=index)
        at = 0
        previous: np.ndarray = np.full(n, -1, dtype=index)
        for key, offset in zip(keys, offsets[:-1], strict=False):
            present = key.codes >= 0
            node = np.where(present, key.codes.astype(index) + index(offset), index(-1))
            link = present & (previous >= 0)
            count = int(np.count_nonzero(link))
            if fill:
                # Chain each row's values: a row with writer w, document d and digest h links w-d and d-h.
                src[at : at + count] = previous[link]
                dst[at : at + count] = node[link]
            at += count
            previous = np.where(present, node, previous)
            del node, link, present
        total = at
    graph = coo_matrix((np.ones(total, dtype=np.int8), (src, dst)), shape=(n_nodes, n_nodes)).tocsr()
    del src, dst
    _, node_label = connected_components(graph, directed=False)
    del graph
    # Every present value of a row is in the row's component; the last one seen stands for all.
    of_row = node_label.astype(index, copy=False)[np.maximum(previous, 0)]
    of_row[previous < 0] = -1
    del previous
    return _by_first_row(of_row, int(node_label.max(initial=-1)) + 1)


_BLOCK_ROWS = 1 << 23  # rows per pass below: the temporaries of a 100M-row manifest stay near 100 MB


def _by_first_row(of_row: np.ndarray, n_labels: int) -> Components:
    """Only components that hold rows (a value no row keeps is a node of its own), numbered by first row,
    so the numbering depends on the rows alone and not on how an engine numbered the values."""
    sizes = np.zeros(n_labels, dtype=np.int64)
    first = np.full(n_labels, len(of_row), dtype=np.int64)
    for lo in range(0, len(of_row), _BLOCK_ROWS):
        block = of_row[lo : lo + _BLOCK_ROWS]
        at = np.flatnonzero(block >= 0)
        labels = block[at]
        sizes += np.bincount(labels, minlength=n_labels)
        np.minimum.at(first, labels, at + lo)
    used = np.flatnonzero(sizes > 0)
    order = used[np.argsort(first[used], kind="stable")]
    relabel = np.full(n_labels + 1, -1, dtype=of_row.dtype)  # the last slot maps the -1 of a lone row
    relabel[order] = np.arange(len(order))
    for lo in range(0, len(of_row), _BLOCK_ROWS):
        block = of_row[lo : lo + _BLOCK_ROWS]
        block[...] = relabel[block]
    return Components(of_row, sizes[order])


@dataclass(frozen=True)
class Step:
    """One hop of a chain: a row, or the key value that links the rows before and after it."""

    row: int | None = None
    key: str | None = None
    value: str | None = None


def chain(keys: Sequence[KeyCodes], start: int, is_target: np.ndarray) -> list[Step]:
    """Shortest alternating row / key-value path from row ``start`` to a row where ``is_target`` holds.

    Breadth-first, one level at a time: a level's values are marked in a table per key, and the rows that
    hold any of them are found with one gather over each key's codes. A component may hold every row of a
    100M-row manifest; the search costs a few passes over the codes, not a graph of the whole component.
    Among the targets of the nearest level, the lowest row is taken, so the chain does not depend on order.
    """
    n = len(keys[0].codes) if keys else 0
    if not (0 <= start < n):
        return []
    seen_rows = np.zeros(n, dtype=bool)
    seen_rows[start] = True
    seen_values = [np.zeros(k.n_values, dtype=bool) for k in keys]
    # Per level: for each new value, the row it was reached from; for each new row, the value it was reached by.
    value_from: list[list[tuple[np.ndarray, np.ndarray]]] = []
    row_from: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    frontier = np.array([start], dtype=np.int64)
    found: int | None = None
    index: list[_ValueIndex] | None = None
    while len(frontier) and found is None:
        level: list[tuple[np.ndarray, np.ndarray]] = []
        new_value = []
        for k, key in enumerate(keys):
            codes = key.codes[frontier]
            ok = codes >= 0
            codes, via = codes[ok].astype(np.int64), frontier[ok]
            fresh = ~seen_values[k][codes]
            codes, via = codes[fresh], via[fresh]
            # The lowest row reaches each value first (frontier rows ascend).
            codes, first = np.unique(codes, return_index=True)
            seen_values[k][codes] = True
            level.append((codes, via[first]))
            mark = np.zeros(key.n_values + 1, dtype=bool)  # the last slot takes the missing code -1
            mark[codes] = True
            new_value.append(mark)
        value_from.append(level)
        if len(value_from) <= _GATHER_LEVELS:
            rows, keys_of = _rows_by_gather(keys, new_value, seen_rows)
        else:  # a long chain: look rows up by value instead of passing over every row at each level
            index = index or [_ValueIndex.of(key) for key in keys]
            rows, keys_of = _rows_by_index(index, [codes for codes, _ in level], seen_rows)
        if not len(rows):
            break
        seen_rows[rows] = True
        codes_of = _codes_at(keys, keys_of, rows)
        row_from.append((rows, keys_of, codes_of))
        targets = rows[is_target[rows]]
        if len(targets):
            found = int(targets[0])
        frontier = rows
    if found is None:
        return []
    return _walk_back(keys, start, found, value_from, row_from)


_GATHER_LEVELS = 12  # levels searched by passing over the codes; deeper ones use an index built once


def _rows_by_gather(
    keys: Sequence[KeyCodes], new_value: list[np.ndarray], seen_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Unseen rows holding a newly reached value, and the first key through which each is reached."""
    by_key = np.full(len(seen_rows), -1, dtype=np.int8)
    for k, key in enumerate(keys):
        hit = new_value[k][key.codes] & ~seen_rows & (by_key < 0)
        by_key[hit] = k
    rows = np.flatnonzero(by_key >= 0)
    return rows, by_key[rows].astype(np.int64)


@dataclass(frozen=True)
class _ValueIndex:
    """The rows of each value of a key: rows sorted by code, and where each code's rows start."""

    rows: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, key: KeyCodes) -> _ValueIndex:
        order = np.argsort(key.codes, kind="stable")
        starts = np.searchsorted(key.codes[order], np.arange(key.n_values + 1))
        return cls(order.astype(np.int64), starts)

    def rows_of(self, codes: np.ndarray) -> np.ndarray:
        if not len(codes):
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([self.rows[self.starts[c] : self.starts[c + 1]] for c in codes])


def _rows_by_index(
    index: list[_ValueIndex], codes: list[np.ndarray], seen_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    taken = seen_rows.copy()
    rows_out, keys_out = [], []
    for k, values in enumerate(codes):
        rows = np.unique(index[k].rows_of(values))
        rows = rows[~taken[rows]]
        taken[rows] = True
        rows_out.append(rows)
        keys_out.append(np.full(len(rows), k, dtype=np.int64))
    rows, keys_of = np.concatenate(rows_out), np.concatenate(keys_out)
    order = np.argsort(rows, kind="stable")
    return rows[order], keys_of[order]


def _codes_at(keys: Sequence[KeyCodes], which: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.empty(len(rows), dtype=np.int64)
    for k, key in enumerate(keys):
        mine = which == k
        out[mine] = key.codes[rows[mine]]
    return out


def _walk_back(
    keys: Sequence[KeyCodes],
    start: int,
    found: int,
    value_from: list[list[tuple[np.ndarray, np.ndarray]]],
    row_from: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
) -> list[Step]:
    steps = [Step(row=found)]
    row = found
    for depth in range(len(row_from) - 1, -1, -1):
        rows, keys_of, codes_of = row_from[depth]
        at = int(np.searchsorted(rows, row))
        k, code = int(keys_of[at]), int(codes_of[at])
        steps.append(Step(key=keys[k].name, value=keys[k].label(code)))
        values, via = value_from[depth][k]
        row = int(via[int(np.searchsorted(values, code))])
        steps.append(Step(row=row))
    assert row == start
    return steps[::-1]
