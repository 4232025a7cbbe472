"""Connected components of rows linked by any shared key value (writer, document, content digest, ...).

Key values are the graph's nodes; each row links its values to one another, so rows that share any value,
directly or through a chain of other rows, fall in one component. Values that are one value spelled several
ways (`w1`, `W1 `: Spelled) are linked to one another too, so a leak through a variant spelling is one component;
the rows keep their own codes, and a chain shows each spelling as written. scipy does the graph work in C.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain as chain_blocks
from typing import Any, Protocol

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from auditor.manifest.keycodes import KeyCodes


@dataclass(frozen=True, eq=False)
class Components:
    """A component label per row (-1: the row has no key value and stands alone) and component sizes."""

    of_row: np.ndarray
    sizes: np.ndarray  # rows per component


_LINK_ROWS = 1 << 23  # rows whose links are merged at once: scipy's copies of them stay near 300 MB


@dataclass(frozen=True, eq=False)
class Spelled:
    """The values of one key that are one value spelled several ways (`w1`, `W1 `), as the spelling checks judge
    them: their codes, grouped. Only these values are named, a few of a key's; the rows keep their own codes."""

    codes: np.ndarray  # value codes by group, ascending within it
    group: np.ndarray  # each code's group, 0..n_groups-1, ascending
    _sorted: np.ndarray = field(repr=False)  # the codes ascending, to look a code's group up
    _group_of_sorted: np.ndarray = field(repr=False)

    @classmethod
    def of(cls, codes: np.ndarray, group: np.ndarray) -> Spelled | None:
        """The groups of ``codes`` (a value code each, its group beside it; repeats allowed); a group of one code
        is no variant and is left out. None when no group is left."""
        codes, group = np.asarray(codes, dtype=np.int64), np.asarray(group, dtype=np.int64)
        keep = codes >= 0
        pairs = np.unique(np.stack([group[keep], codes[keep]]), axis=1) if keep.any() else np.zeros((2, 0), np.int64)
        group, codes = pairs[0], pairs[1]
        _, count = np.unique(group, return_counts=True)
        several = np.repeat(count > 1, count)
        group, codes = group[several], codes[several]
        if not len(codes):
            return None
        dense = np.cumsum(np.concatenate(([True], group[1:] != group[:-1]))) - 1
        order = np.argsort(codes, kind="stable")
        return cls(codes, dense, codes[order], dense[order])

    @property
    def n_groups(self) -> int:
        return int(self.group[-1]) + 1 if len(self.group) else 0

    def links(self) -> tuple[np.ndarray, np.ndarray]:
        """Each code linked to the first code of its group (value codes, as a row's links pair its values)."""
        starts = np.flatnonzero(np.concatenate(([True], self.group[1:] != self.group[:-1])))
        first = self.codes[starts][self.group]
        other = self.codes != first
        return first[other], self.codes[other]

    def group_of(self, codes: np.ndarray) -> np.ndarray:
        """The group of each of ``codes``; -1 for a code in none."""
        codes = np.asarray(codes, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, codes), len(self._sorted) - 1)
        return np.where(self._sorted[at] == codes, self._group_of_sorted[at], -1)

    def spread(self, codes: np.ndarray, via: np.ndarray, unseen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The values a search level reaches (``codes`` ascending, each with the row it was reached from) and
        the other spellings of each not reached before (``unseen``: a flag per value code), reached from the
        lowest row that reached any spelling of theirs: ascending codes again, with their rows."""
        group = self.group_of(codes)
        inside = group >= 0
        if not inside.any():
            return codes, via
        lowest = np.full(self.n_groups, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(lowest, group[inside], np.asarray(via, dtype=np.int64)[inside])
        reached = lowest[self.group] < np.iinfo(np.int64).max
        more, more_via = self.codes[reached], lowest[self.group[reached]]
        new = unseen[more] & ~np.isin(more, codes)
        if not new.any():
            return codes, via
        all_codes = np.concatenate([np.asarray(codes, dtype=np.int64), more[new]])
        all_via = np.concatenate([np.asarray(via, dtype=np.int64), more_via[new]])
        order = np.argsort(all_codes, kind="stable")
        return all_codes[order], all_via[order].astype(np.asarray(via).dtype, copy=False)


def spelling_links(spelled: Sequence[Spelled | None], offsets: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The links between the spellings of one value, as graph nodes (each key's values numbered after the
    previous keys', ``offsets``): a block to merge beside the rows' links."""
    index = _index(offsets[-1])
    src: list[np.ndarray] = [np.zeros(0, dtype=index)]
    dst: list[np.ndarray] = [np.zeros(0, dtype=index)]
    for found, offset in zip(spelled, offsets[:-1], strict=False):
        if found is not None:
            a, b = found.links()
            src.append((a + offset).astype(index))
            dst.append((b + offset).astype(index))
    return np.concatenate(src), np.concatenate(dst)


def row_components(keys: Sequence[KeyCodes], spelled: Sequence[Spelled | None] = ()) -> Components:
    """The components of the rows, numbered by first row; ``spelled`` (per key, or none) joins the values
    that are one value spelled several ways.

    The links are never held at once: each block of rows links its values, scipy merges the groups those
    links join, and the groups found so far are the nodes of the next block's graph. The memory is a group
    per value, a label per row and one block's graph, however many rows there are.
    """
    n = len(keys[0].codes)
    offsets = [int(o) for o in np.cumsum([0, *(k.n_values for k in keys)])]
    n_nodes = offsets[-1]
    if n_nodes == 0:  # no value is shared by two rows: every row stands alone
        return Components(np.full(n, -1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    index = _index(n_nodes)  # half the memory at 10M rows
    blocks: Iterable[tuple[np.ndarray, np.ndarray]] = (
        _links(keys, offsets, lo, min(n, lo + _LINK_ROWS)) for lo in range(0, n, _LINK_ROWS)
    )
    if any(found is not None for found in spelled):
        blocks = chain_blocks([spelling_links(spelled, offsets)], blocks)
    group, n_groups = merged_links(n_nodes, blocks)
    of_row = np.empty(n, dtype=index)
    for lo in range(0, n, _LINK_ROWS):
        # Every present value of a row is in the row's component; the last one seen stands for all.
        node = _last_node(keys, offsets, lo, min(n, lo + _LINK_ROWS))
        of_row[lo : lo + len(node)] = np.where(node >= 0, group[np.maximum(node, 0)], -1)
    del group
    return _by_first_row(of_row, n_groups)


def merged_links(n_nodes: int, blocks: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, int]:
    """Each node's group and the number of groups, the links merged a block at a time: scipy joins the groups
    a block's links join, and the groups found so far are the nodes of the next block's graph, so only one
    block's links are ever held beside a group per node."""
    merged = no_links(n_nodes)
    for block in blocks:
        merged = merge_block(merged, block)
    return merged


def no_links(n_nodes: int) -> tuple[np.ndarray, int]:
    """Each node a group of its own: where merge_block starts."""
    return np.arange(n_nodes, dtype=_index(n_nodes)), n_nodes


def merge_block(merged: tuple[np.ndarray, int], links: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, int]:
    """The groups and their number once one more block's links are merged into ``merged``; a new array, the
    one given is left as it was (a cluster keeps it as a task's result)."""
    group, n_groups = merged
    src, dst = links
    src, dst = group[src], group[dst]
    apart = src != dst  # links inside a group already found change nothing
    if not apart.any():
        return group, n_groups
    src, dst = src[apart], dst[apart]
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n_groups, n_groups)).tocsr()
    del src, dst, apart
    n_groups, joined = connected_components(graph, directed=False)
    del graph
    return joined.astype(group.dtype, copy=False)[group], n_groups


def row_links(keys: Sequence[KeyCodes], lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """The links of rows ``lo:hi``: for an engine that finds the components elsewhere (a cluster), a block of
    rows at a time, then labels the rows with row_nodes and numbers the components with by_first_row."""
    offsets = _offsets(keys)
    return _links(keys, offsets, lo, hi)


def row_nodes(keys: Sequence[KeyCodes], lo: int, hi: int) -> np.ndarray:
    """The node standing for each of rows ``lo:hi`` (-1: the row has no key value), as row_links numbers them."""
    offsets = _offsets(keys)
    return _last_node(keys, offsets, lo, hi)


def _offsets(keys: Sequence[KeyCodes]) -> list[int]:
    return [int(o) for o in np.cumsum([0, *(k.n_values for k in keys)])]


def _index(n_nodes: int) -> type[np.signedinteger[Any]]:
    return np.int32 if n_nodes < 2**31 else np.int64


def by_first_row(of_row: np.ndarray, n_labels: int) -> Components:
    """Components of labelled rows, numbered by first row (see _by_first_row)."""
    return _by_first_row(of_row, n_labels)


def _code_nodes(
    codes: Sequence[np.ndarray], offsets: Sequence[int], index: type[np.signedinteger[Any]]
) -> Iterator[np.ndarray]:
    """Each key's graph node per row (its values are numbered after the previous keys'), -1 if missing."""
    for key_codes, offset in zip(codes, offsets[:-1], strict=False):
        yield np.where(key_codes >= 0, key_codes.astype(index) + index(offset), index(-1))


def _links(keys: Sequence[KeyCodes], offsets: list[int], lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """The links of rows ``lo:hi``: a row with writer w, document d and digest h links w-d and d-h."""
    return code_links([k.codes[lo:hi] for k in keys], offsets)


def code_links(codes: Sequence[np.ndarray], offsets: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The links of rows given each key's codes for them and where each key's nodes start (``offsets``, then
    the number of nodes): what row_links gives, for an engine that holds the codes a piece at a time."""
    index = _index(offsets[-1])
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    previous: np.ndarray | None = None
    for node in _code_nodes(codes, offsets, index):
        if previous is None:
            previous = node
            continue
        link = (node >= 0) & (previous >= 0)
        src.append(previous[link])
        dst.append(node[link])
        previous = np.where(node >= 0, node, previous)
    empty = np.zeros(0, dtype=index)
    return np.concatenate([empty, *src]), np.concatenate([empty, *dst])


def _last_node(keys: Sequence[KeyCodes], offsets: list[int], lo: int, hi: int) -> np.ndarray:
    """The node of the last key with a value, per row of ``lo:hi`` (-1: the row has no key value)."""
    return code_last_node([k.codes[lo:hi] for k in keys], offsets)


def code_last_node(codes: Sequence[np.ndarray], offsets: Sequence[int]) -> np.ndarray:
    """The node standing for each row (the last key's with a value; -1: none), as code_links numbers them."""
    index = _index(offsets[-1])
    last = np.full(len(codes[0]) if len(codes) else 0, -1, dtype=index)
    for node in _code_nodes(codes, offsets, index):
        last = np.where(node >= 0, node, last)
    return last


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


def shared_only(comps: Components) -> Components:
    """The components of two rows or more; a row that shares no value with another stands alone (-1).

    A value held by one row links nothing, so the keys' own codes serve as they are, with no copy that
    leaves such values out; renumbering keeps the order by first row. The labels change in place.
    """
    keep = comps.sizes > 1
    if keep.all():
        return comps
    relabel = np.full(len(keep) + 1, -1, dtype=comps.of_row.dtype)  # the last slot maps the -1 of a lone row
    relabel[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
    of_row = comps.of_row if comps.of_row.flags.writeable else comps.of_row.copy()
    for lo in range(0, len(of_row), _BLOCK_ROWS):
        block = of_row[lo : lo + _BLOCK_ROWS]
        block[...] = relabel[block]
    return Components(of_row, comps.sizes[keep])


@dataclass(frozen=True)
class Step:
    """One hop of a chain: a row, or the key value that links the rows before and after it. When the two rows
    spell that value differently (`W1`, `w1`), ``spellings`` holds each as written, the row before's first."""

    row: int | None = None
    key: str | None = None
    value: str | None = None
    spellings: tuple[str, ...] = ()


class NamedKey(Protocol):
    """A key that names its values by code (KeyCodes; an engine's key whose values are elsewhere)."""

    @property
    def name(self) -> str: ...

    def label(self, code: int) -> str: ...


def key_step(key: NamedKey, before: int, after: int) -> Step:
    """The hop between two rows through one key, given each row's code of it (the value as each spells it);
    ``key`` names a value by its code (``label``)."""
    value = key.label(before)
    if before == after:
        return Step(key=key.name, value=value)
    return Step(key=key.name, value=value, spellings=(value, key.label(after)))


def chain(
    keys: Sequence[KeyCodes], start: int, is_target: np.ndarray, spelled: Sequence[Spelled | None] = ()
) -> list[Step]:
    """Shortest alternating row / key-value path from row ``start`` to a row where ``is_target`` holds.

    Breadth-first, one level at a time: a level's values are marked in a table per key, and the rows that
    hold any of them are found with one gather over each key's codes. A component may hold every row of a
    100M-row manifest; the search costs a few passes over the codes, not a graph of the whole component.
    Among the targets of the nearest level, the lowest row is taken, so the chain does not depend on order.
    A value reached reaches its other spellings (``spelled``, per key) at the same level.
    """
    search = _Search(keys, start, spelled)
    for rows in search.levels():
        targets = rows[is_target[rows]]
        if len(targets):
            return search.walk_back(int(targets[0]))
    return []


def chains(
    keys: Sequence[KeyCodes],
    start: int,
    label: np.ndarray,
    wanted: Sequence[int],
    spelled: Sequence[Spelled | None] = (),
) -> dict[int, list[Step]]:
    """chain(keys, start, label == w, spelled) for each w in ``wanted``, from one search: the levels out of
    ``start`` are the same whatever the target, so the search goes on until every wanted label is reached (or
    none is left)."""
    search = _Search(keys, start, spelled)
    found: dict[int, list[Step]] = {}
    left = set(wanted)
    if not left:
        return found
    for rows in search.levels():
        here = label[rows]
        for w in sorted(left):
            targets = rows[here == w]
            if len(targets):
                found[w] = search.walk_back(int(targets[0]))
                left.discard(w)
        if not left:
            break
    return found


class _Search:
    """A breadth-first search from one row, level by level, that remembers how each row was first reached."""

    def __init__(self, keys: Sequence[KeyCodes], start: int, spelled: Sequence[Spelled | None] = ()) -> None:
        self.keys, self.start = keys, start
        self.spelled = list(spelled) or [None] * len(keys)
        # Per level: for each new value, the row it was reached from; for each new row, the key it was reached by
        # (its value there is the row's code of that key). A level may hold most rows: 5 bytes a row, not 24.
        self.value_from: list[list[tuple[np.ndarray, np.ndarray]]] = []
        self.row_from: list[tuple[np.ndarray, np.ndarray]] = []

    def levels(self) -> Iterator[np.ndarray]:
        """The rows first reached at each level (ascending), nearest first; none if ``start`` is not a row."""
        keys = self.keys
        n = len(keys[0].codes) if keys else 0
        if not (0 <= self.start < n):
            return
        seen_rows = np.zeros(n, dtype=bool)
        seen_rows[self.start] = True
        seen_values = [np.zeros(k.n_values, dtype=bool) for k in keys]
        frontier = np.array([self.start], dtype=np.int64)
        index: list[_ValueIndex] | None = None
        while len(frontier):
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
                via = via[first]
                found = self.spelled[k]
                if found is not None:  # a value's other spellings are reached with it
                    codes, via = found.spread(codes, via, ~seen_values[k])
                seen_values[k][codes] = True
                level.append((codes, via))
                mark = np.zeros(key.n_values + 1, dtype=bool)  # the last slot takes the missing code -1
                mark[codes] = True
                new_value.append(mark)
            self.value_from.append(level)
            if len(self.value_from) <= _GATHER_LEVELS:
                rows, keys_of = _rows_by_gather(keys, new_value, seen_rows)
            else:  # a long chain: look rows up by value instead of passing over every row at each level
                index = index or [_ValueIndex.of(key) for key in keys]
                rows, keys_of = _rows_by_index(index, [codes for codes, _ in level], seen_rows)
            if not len(rows):
                return
            seen_rows[rows] = True
            self.row_from.append((rows, keys_of))
            yield rows
            frontier = rows

    def walk_back(self, found: int) -> list[Step]:
        """The chain from ``start`` to ``found``, a row of a level yielded so far."""
        return _walk_back(self.keys, self.start, found, self.value_from, self.row_from)


_GATHER_LEVELS = 12  # levels searched by passing over the codes; deeper ones use an index built once


def _rows_by_gather(
    keys: Sequence[KeyCodes], new_value: list[np.ndarray], seen_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Unseen rows holding a newly reached value, and the first key through which each is reached.

    One gather and one scan over the rows per key; what is left (the few rows that hold a new value) is
    judged on its own: whole-row masks per key cost several passes each, once per level of every search.
    """
    found = [np.flatnonzero(new_value[k][key.codes]) for k, key in enumerate(keys)]
    if sum(len(f) for f in found) > max(_FEW_ROWS, len(seen_rows) // 16):
        return _rows_by_masks(keys, new_value, seen_rows)  # a level of most rows: sorting them costs more
    rows = np.concatenate([np.zeros(0, dtype=np.int64), *found])
    keys_of = np.concatenate(
        [np.zeros(0, dtype=np.int8), *(np.full(len(f), k, dtype=np.int8) for k, f in enumerate(found))]
    )
    fresh = ~seen_rows[rows]
    rows, keys_of = rows[fresh], keys_of[fresh]
    order = np.lexsort((keys_of, rows))  # by row, then key: a row's first entry is its lowest key
    rows, keys_of = rows[order], keys_of[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    return rows[first].astype(_row_index(len(seen_rows))), keys_of[first]


_FEW_ROWS = 1 << 16  # rows holding a new value that are judged on their own (or up to 1/16 of all rows)


def _rows_by_masks(
    keys: Sequence[KeyCodes], new_value: list[np.ndarray], seen_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """_rows_by_gather's answer by row masks, for a level that reaches most rows: a block of rows at a time, so
    the masks stay a block's and only the rows found (4 bytes each) and their keys (1 byte) are kept."""
    n = len(seen_rows)
    index = _row_index(n)
    rows_out: list[np.ndarray] = [np.zeros(0, dtype=index)]
    keys_out: list[np.ndarray] = [np.zeros(0, dtype=np.int8)]
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(n, lo + _BLOCK_ROWS)
        open_rows = ~seen_rows[lo:hi]
        by_key = np.full(hi - lo, -1, dtype=np.int8)
        for k, key in enumerate(keys):
            hit = new_value[k][key.codes[lo:hi]]
            hit &= open_rows
            by_key[hit] = k
            open_rows &= ~hit  # a row's first key is the lowest that reaches it
        found = np.flatnonzero(by_key >= 0)
        keys_out.append(by_key[found])
        rows_out.append((found + lo).astype(index))
    return np.concatenate(rows_out), np.concatenate(keys_out)


def _row_index(n_rows: int) -> type[np.signedinteger[Any]]:
    """The narrowest row number type for ``n_rows`` rows (half the memory of int64 below 2**31)."""
    return np.int32 if n_rows < 2**31 else np.int64


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
        keys_out.append(np.full(len(rows), k, dtype=np.int8))
    rows, keys_of = np.concatenate(rows_out), np.concatenate(keys_out)
    order = np.argsort(rows, kind="stable")
    return rows[order].astype(_row_index(len(seen_rows))), keys_of[order]


def _walk_back(
    keys: Sequence[KeyCodes],
    start: int,
    found: int,
    value_from: list[list[tuple[np.ndarray, np.ndarray]]],
    row_from: list[tuple[np.ndarray, np.ndarray]],
) -> list[Step]:
    steps = [Step(row=found)]
    row = found
    for depth in range(len(row_from) - 1, -1, -1):
        rows, keys_of = row_from[depth]
        at = int(np.searchsorted(rows, row))
        k = int(keys_of[at])
        code = int(keys[k].codes[row])  # the value of key k the row was reached by
        values, via = value_from[depth][k]
        before = int(via[int(np.searchsorted(values, code))])
        # The row before may spell the value another way (its code then differs): the step shows both.
        steps.append(key_step(keys[k], int(keys[k].codes[before]), code))
        row = before
        steps.append(Step(row=row))
    assert row == start
    return steps[::-1]
