"""Linked rows on a cluster: each key's codes, each row's component and split stay on the workers a piece at a
time; the driver holds per-component arrays, the chain search's levels and the rows a finding names.

The components come from the pieces' links merged by a chain of tasks on one worker, or past 2**27 key
values from large-star / small-star rounds over the workers (backends/stars.py); the chains from a
breadth-first search whose state is one level per key value, the rows' levels being found again on the
workers at each level (a row is first reached at the lowest level of any of its values). Values that are one
value spelled several ways (a few per key, named on the driver) are linked beside the rows' links and reach one
another in the search, as in memory.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.manifest.components import Spelled, Step, code_last_node, code_links, key_step, spelling_links
from auditor.manifest.keycodes import CODE, KeyCodes

_NO_ROW = np.iinfo(np.int64).max
# Up to this many key values, the components are merged on one worker from the pieces' links, a batch at a
# time (a group per value there, 512 MB at most): far fewer passes than star rounds, each of which shuffles
# every link twice. Past it, large-star / small-star rounds over the workers. Either way the driver holds no
# figure per value for the components; one worker holds each value's centre, which every piece looks up.
MERGE_HERE_NODES = 1 << 27
MERGE_ROWS = 1 << 21  # rows whose links are merged at once: a batch and scipy's copies of it stay near 100 MB


@dataclass(frozen=True, eq=False)
class PieceKey:
    """A linking key whose codes are on the workers: one future of int32 codes (-1: missing) per piece, and
    how to name a value by its code (its values may be on the workers too)."""

    name: str
    n_values: int
    pieces: list[Any]
    label: Callable[[int], str]


def labels_of(key: KeyCodes) -> Callable[[int], str]:
    """A key coded here names its values from its own parts."""
    named = KeyCodes(key.name, key.columns, np.zeros(0, dtype=CODE), key.parts)
    return named.label


class Workers:
    """What the linked rows need of an engine on a cluster: its tasks run, kept there, or values sent there."""

    def __init__(
        self,
        compute: Callable[..., list[Any]],
        persist: Callable[[list[Any]], list[Any]],
        put: Callable[[Any], Any],
        offsets: Sequence[int],
        rows: Sequence[int],
    ) -> None:
        self.compute, self.persist, self.put = compute, persist, put
        self.offsets, self.rows = list(offsets), list(rows)  # each piece's first manifest row and its rows

    def locate(self, row: int) -> tuple[int, int]:
        """The piece holding manifest row ``row`` and the row's place in it."""
        i = bisect.bisect_right(self.offsets, row) - 1
        return i, row - self.offsets[i]


class PieceLinks:
    """LinkedRows (manifest/linked.py) over keys and splits held on the workers a piece at a time."""

    def __init__(
        self,
        workers: Workers,
        keys: Sequence[PieceKey],
        splits: list[Any],
        n_rows: int,
        spelled: Sequence[Spelled | None] = (),
    ) -> None:
        from auditor.backends.cluster import _delayed
        from auditor.backends.stars import star_label, star_rounds

        self._w, self._keys, self._splits, self._n_rows = workers, list(keys), splits, n_rows
        self._spelled = list(spelled) or [None] * len(self._keys)
        self._offsets = [int(o) for o in np.cumsum([0, *(k.n_values for k in keys)])]
        n_nodes = self._offsets[-1]
        # The links between a value's spellings: a few per key, made here and merged beside the rows' links.
        spelling = spelling_links(self._spelled, self._offsets) if n_nodes else None
        self._spelling = workers.put(spelling) if spelling is not None and len(spelling[0]) else None
        self.notes: list[str] = []
        self._roots: list[Any] = []
        self._table: Any = None
        self._root = np.zeros(0, dtype=np.int64)  # per component, its smallest node (the star's centre)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._first = np.zeros(0, dtype=np.int64)
        if n_nodes == 0:
            return
        n = len(workers.offsets)
        if n_nodes <= MERGE_HERE_NODES:
            centre = self._merged_here(n_nodes)
        else:
            edges = workers.persist([_delayed(code_links)(self._codes(i), self._offsets) for i in range(n)])
            if self._spelling is not None:
                edges.append(self._spelling)
            stars, rounds = star_rounds(edges, workers.persist, workers.compute)
            del edges
            (centre,) = workers.persist([_delayed(star_label)(n_nodes, stars)])
            self.notes.append(
                f"connected components of {n_nodes:,} key values: {rounds} rounds of large-star/small-star on the "
                "cluster"
            )
        self._roots = workers.persist([_delayed(_piece_roots)(self._codes(i), self._offsets, centre) for i in range(n)])
        # Sizes and first rows per centre, dealt to buckets by centre so each bucket sums its own: only the
        # components of two rows or more come back, never a figure per row.
        dealt = [_delayed(_deal_roots, nout=n)(r, o, n) for r, o in zip(self._roots, workers.offsets, strict=True)]
        merged = [_delayed(_merge_roots)([d[j] for d in dealt]) for j in range(n)]
        found = workers.compute(merged, one_at_a_time=True)
        root = np.concatenate([np.zeros(0, np.int64), *(f[0] for f in found)])
        sizes = np.concatenate([np.zeros(0, np.int64), *(f[1] for f in found)])
        first = np.concatenate([np.zeros(0, np.int64), *(f[2] for f in found)])
        del found
        order = np.argsort(first, kind="stable")  # numbered by first row, as the in-memory engine numbers them
        self._root, self._sizes, self._first = root[order], sizes[order], first[order]
        by_root = np.argsort(self._root, kind="stable")
        self._table = workers.put((self._root[by_root], by_root.astype(np.int64)))

    def _merged_here(self, n_nodes: int) -> Any:
        """Each node's group, held on a worker: the pieces' links made on the workers and merged a batch at a
        time (scipy, as in memory) by a chain of tasks, each taking the groups so far and one batch's links.
        The driver holds neither the links nor a group per key value; the links of the next batch are made
        while a batch is merged."""
        from auditor.backends.cluster import _delayed
        from auditor.manifest.components import merge_block, no_links

        batches: list[list[int]] = [[]]
        rows = 0
        for i, size in enumerate(self._w.rows):
            if rows + size > MERGE_ROWS and batches[-1]:
                batches.append([])
                rows = 0
            batches[-1].append(i)
            rows += size
        batches = [b for b in batches if b]
        merged = _delayed(no_links)(n_nodes)
        if self._spelling is not None:
            merged = _delayed(merge_block)(merged, self._spelling)
        for batch in batches:
            links = _delayed(_joined_links)([_delayed(code_links)(self._codes(i), self._offsets) for i in batch])
            merged = _delayed(merge_block)(merged, links)
        (group,) = self._w.persist([_delayed(_groups_of)(merged)])
        self.notes.append(
            f"connected components of {n_nodes:,} key values: the links of {len(self._w.offsets)} pieces made "
            f"and merged on the cluster in {len(batches)} batch{'es' if len(batches) > 1 else ''}"
        )
        return group

    @property
    def key_names(self) -> list[str]:
        return [k.name for k in self._keys]

    @property
    def sizes(self) -> np.ndarray:
        return self._sizes

    def split_counts(self, n_splits: int) -> np.ndarray:
        from auditor.backends.cluster import _delayed

        counts = np.zeros(len(self._sizes) * n_splits, dtype=np.int64)
        if not len(self._sizes):
            return counts.reshape(0, n_splits)
        tasks = [
            _delayed(_piece_split_counts)(r, self._table, s, n_splits)
            for r, s in zip(self._roots, self._splits, strict=True)
        ]
        for flat, n in self._w.compute(tasks, one_at_a_time=True):
            np.add.at(counts, flat, n)
        return counts.reshape(len(self._sizes), n_splits)

    def first_rows(self, components: np.ndarray) -> list[int]:
        return [int(r) for r in self._first[np.asarray(components, dtype=np.int64)]]

    def rows_of(self, components: np.ndarray, codes: Sequence[int]) -> np.ndarray:
        from auditor.backends.cluster import _delayed

        wanted = np.asarray(components, dtype=np.int64)
        if not len(wanted) or not len(codes):
            return np.zeros(0, dtype=np.int64)
        tasks = [
            _delayed(_piece_rows_of)(r, self._table, s, wanted, list(codes), o)
            for r, s, o in zip(self._roots, self._splits, self._w.offsets, strict=True)
        ]
        return np.concatenate([np.zeros(0, dtype=np.int64), *self._w.compute(tasks)])

    def first_in(self, component: int, codes: Sequence[int]) -> dict[int, int | None]:
        from auditor.backends.cluster import _delayed

        wanted = list(codes)
        found: dict[int, int | None] = dict.fromkeys(wanted)
        if not (0 <= component < len(self._root)) or not wanted:
            return found
        centre = int(self._root[component])
        tasks = [
            _delayed(_piece_first_in)(r, s, centre, wanted, o)
            for r, s, o in zip(self._roots, self._splits, self._w.offsets, strict=True)
        ]
        for rows in self._w.compute(tasks):
            for code, row in zip(wanted, rows, strict=True):
                current = found[code]
                if row >= 0 and (current is None or row < current):
                    found[code] = int(row)
        return found

    def chains(self, start: int, wanted: Sequence[int]) -> dict[int, list[Step]]:
        """components.chains, level by level: each level's rows are found on the workers from every value's
        level so far; the driver keeps, per level and key, the new values and the row each came from."""
        from auditor.backends.cluster import _delayed

        found: dict[int, list[Step]] = {}
        left = sorted(set(wanted))
        if not left or not (0 <= start < self._n_rows) or not self._keys:
            return found
        level = [np.full(k.n_values, -1, dtype=np.int32) for k in self._keys]
        codes = self._row_codes(start)
        # Per level, per key: the values first reached there (ascending) and the row each was reached from.
        value_from: list[list[tuple[np.ndarray, np.ndarray]]] = [[]]
        for k, code in enumerate(codes):
            values = np.array([code] if code >= 0 else [], dtype=np.int64)
            via = np.full(len(values), start, dtype=np.int64)
            spelled = self._spelled[k]
            if spelled is not None:  # the start's value reaches its other spellings at once
                values, via = spelled.spread(values, via, level[k] < 0)
            value_from[0].append((values, via))
            level[k][values] = 0
        start_piece, start_at = self._w.locate(start)
        depth = 0
        while left:
            levels = self._w.put(level)
            tasks = [
                _delayed(_piece_level)(
                    self._codes(i), levels, depth, start_at if i == start_piece else -1, self._splits[i], left, o
                )
                for i, o in enumerate(self._w.offsets)
            ]
            results = self._w.compute(tasks)
            if not sum(r[0] for r in results):
                break
            for j, w in enumerate(list(left)):
                targets = [int(r[1][j]) for r in results if r[1][j] >= 0]
                if targets:
                    found[w] = self._walk_back(start, min(targets), depth, level, value_from)
                    left.remove(w)
            if not left:
                break
            fresh = []
            for k in range(len(self._keys)):
                values = np.concatenate([np.zeros(0, np.int64), *(r[2][k][0] for r in results)])
                via = np.concatenate([np.zeros(0, np.int64), *(r[2][k][1] for r in results)])
                order = np.lexsort((via, values))  # by value, then row: a value's first entry is its lowest row
                values, via = values[order], via[order]
                first = np.ones(len(values), dtype=bool)
                first[1:] = values[1:] != values[:-1]
                values, via = values[first], via[first]
                spelled = self._spelled[k]
                if spelled is not None:  # as components._Search: a value's other spellings are reached with it
                    values, via = spelled.spread(values, via, level[k] < 0)
                fresh.append((values, via))
                level[k][values] = depth + 1
            value_from.append(fresh)
            depth += 1
        return found

    def _walk_back(
        self,
        start: int,
        found: int,
        depth: int,
        level: list[np.ndarray],
        value_from: list[list[tuple[np.ndarray, np.ndarray]]],
    ) -> list[Step]:
        steps = [Step(row=found)]
        row = found
        codes = self._row_codes(row)
        for d in range(depth, -1, -1):
            # The row was reached by the lowest key whose value was first reached at this level.
            k = next(k for k, c in enumerate(codes) if c >= 0 and level[k][c] == d)
            key, code = self._keys[k], codes[k]
            values, via = value_from[d][k]
            row = int(via[int(np.searchsorted(values, code))])
            before = self._row_codes(row)
            # The row before may spell the value another way (its code then differs): the step shows both.
            steps.append(key_step(key, int(before[k]), int(code)))
            steps.append(Step(row=row))
            codes = before
        assert row == start
        return steps[::-1]

    def _row_codes(self, row: int) -> list[int]:
        from auditor.backends.cluster import _delayed

        piece, at = self._w.locate(row)
        return list(self._w.compute([_delayed(_codes_at)(self._codes(piece), at)])[0])

    def _codes(self, piece: int) -> list[Any]:
        return [k.pieces[piece] for k in self._keys]


# -- on the workers ----------------------------------------------------------------------------------------------


def _joined_links(links: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One batch's links: those of its pieces, end to end."""
    src = np.concatenate([links[0][0][:0], *(a for a, _ in links)])
    return src, np.concatenate([links[0][1][:0], *(b for _, b in links)])


def _groups_of(merged: tuple[np.ndarray, int]) -> np.ndarray:
    return merged[0]


def _piece_roots(codes: list[np.ndarray], offsets: list[int], centre: np.ndarray) -> np.ndarray:
    """Each row's component centre (-1: the row has no key value)."""
    node = code_last_node(codes, offsets)
    return np.where(node >= 0, centre[np.maximum(node, 0)], -1).astype(centre.dtype, copy=False)


def _deal_roots(roots: np.ndarray, offset: int, n_buckets: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The piece's (centre, rows, first row) per centre, dealt to buckets by centre."""
    present = np.flatnonzero(roots >= 0)
    centres, first, rows = np.unique(roots[present], return_index=True, return_counts=True)
    first = present[first].astype(np.int64) + offset
    bucket = centres.astype(np.int64) % n_buckets
    return [(centres[bucket == b].astype(np.int64), rows[bucket == b], first[bucket == b]) for b in range(n_buckets)]


def _merge_roots(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A bucket's centres summed over the pieces; only those of two rows or more (a row alone links nothing)."""
    centres = np.concatenate([np.zeros(0, np.int64), *(p[0] for p in parts)])
    rows = np.concatenate([np.zeros(0, np.int64), *(p[1] for p in parts)])
    first = np.concatenate([np.zeros(0, np.int64), *(p[2] for p in parts)])
    unique, at = np.unique(centres, return_inverse=True)
    sizes = np.bincount(at, weights=rows, minlength=len(unique)).astype(np.int64)
    firsts = np.full(len(unique), _NO_ROW, dtype=np.int64)
    np.minimum.at(firsts, at, first)
    keep = sizes > 1
    return unique[keep], sizes[keep], firsts[keep]


def _components_of(roots: np.ndarray, table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Each row's component number (-1: none, or a component of one row) from (sorted centres, numbers)."""
    centres, numbers = table
    out = np.full(len(roots), -1, dtype=np.int64)
    if not len(centres):
        return out
    at = np.minimum(np.searchsorted(centres, roots), len(centres) - 1)
    hit = (roots >= 0) & (centres[at] == roots)
    out[hit] = numbers[at[hit]]
    return out


def _piece_split_counts(
    roots: np.ndarray, table: tuple[np.ndarray, np.ndarray], split: np.ndarray, n_splits: int
) -> tuple[np.ndarray, np.ndarray]:
    """The piece's rows per (component, split), as flat cells and their counts (only the cells it has)."""
    component = _components_of(roots, table)
    linked = (component >= 0) & (split >= 0)
    flat, n = np.unique(component[linked] * n_splits + split[linked], return_counts=True)
    return flat, n.astype(np.int64)


def _piece_rows_of(
    roots: np.ndarray,
    table: tuple[np.ndarray, np.ndarray],
    split: np.ndarray,
    wanted: np.ndarray,
    codes: list[int],
    offset: int,
) -> np.ndarray:
    """The piece's rows (as manifest rows) of the ``wanted`` components in the split ``codes``."""
    component = _components_of(roots, table)
    return offset + np.flatnonzero(np.isin(component, wanted) & np.isin(split, codes)).astype(np.int64)


def _piece_first_in(roots: np.ndarray, split: np.ndarray, centre: int, codes: list[int], offset: int) -> list[int]:
    here = roots == centre
    out = []
    for code in codes:
        rows = np.flatnonzero(here & (split == code))
        out.append(offset + int(rows[0]) if len(rows) else -1)
    return out


def _piece_level(
    codes: list[np.ndarray],
    levels: list[np.ndarray],
    depth: int,
    start: int,
    split: np.ndarray,
    wanted: list[int],
    offset: int,
) -> tuple[int, list[int], list[tuple[np.ndarray, np.ndarray]]]:
    """The piece's rows first reached at ``depth`` (those whose lowest value level is ``depth``; ``start``, the
    search's own row, excluded): how many, the lowest of them in each wanted split, and per key the values of
    theirs not reached yet with the lowest row holding each."""
    lowest = np.full(len(split), np.iinfo(np.int32).max, dtype=np.int32)
    for key_codes, key_levels in zip(codes, levels, strict=True):
        present = key_codes >= 0  # a key may have no value at all (a digest no two rows share)
        at = np.full(len(key_codes), -1, dtype=np.int32)
        at[present] = key_levels[key_codes[present]]
        lowest = np.where((at >= 0) & (at < lowest), at, lowest)
    if start >= 0:
        lowest[start] = -1
    rows = np.flatnonzero(lowest == depth)
    here = split[rows]
    targets = []
    for w in wanted:
        hit = rows[here == w]
        targets.append(offset + int(hit[0]) if len(hit) else -1)
    fresh = []
    for key_codes, key_levels in zip(codes, levels, strict=True):
        values = key_codes[rows]
        ok = values >= 0
        values, via = values[ok], rows[ok]
        new = key_levels[values] < 0
        values, first = np.unique(values[new], return_index=True)
        fresh.append((values.astype(np.int64), via[new][first].astype(np.int64) + offset))
    return len(rows), targets, fresh


def _codes_at(codes: list[np.ndarray], at: int) -> list[int]:
    return [int(c[at]) for c in codes]


def codes_at_rows(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A piece's codes of one key at some of its rows."""
    return codes[rows].astype(np.int64)


def with_codes_at(codes: np.ndarray, rows: np.ndarray, new: np.ndarray) -> np.ndarray:
    """A piece's codes of one key with some of its rows given other codes (a copy: the old codes are a result)."""
    codes = codes.copy()
    codes[rows] = new
    return codes


def numbered_bucket(parts: list[pa.Table], n_keys: int) -> tuple[np.ndarray, pa.Array, int]:
    """A bucket's distinct values of one column, numbered where they are: their hashes (ascending) and values in
    that order, blank text left out as the in-memory engine leaves it out; and how many hashes two values share
    (then the column is coded the other way, by value)."""
    from auditor.backends.cluster import _distinct_bucket

    kept, collided = _distinct_bucket(parts, n_keys)
    if "lo0" not in kept.column_names:
        return np.zeros(0, dtype=np.uint64), pa.array([], pa.string()), collided.num_rows
    return _numbered(kept.column("h0").to_numpy(), kept.column("lo0").combine_chunks(), collided.num_rows)


def numbered_by_split(merged: pa.Table) -> tuple[np.ndarray, pa.Array, int]:
    """numbered_bucket from a bucket's groups of one column by (hash, split), as its counts are made: the same
    values and hashes, so a key counted for one stage is numbered for the next without grouping it again. A
    hash held by other values in other splits is a collision too."""
    import pyarrow.compute as pc

    from auditor.backends.hashed import pure

    if "lo0" not in merged.column_names:
        return np.zeros(0, dtype=np.uint64), pa.array([], pa.string()), 0
    merged = merged.filter(pc.greater(merged.column("n0"), 0))
    ok = pure(merged, 1)
    collided = int((~ok).sum())
    hashes, values = merged.column("h0").to_numpy()[ok], merged.column("lo0").combine_chunks().filter(pa.array(ok))
    order = np.argsort(hashes, kind="stable")
    hashes, values = hashes[order], values.take(pa.array(order))
    first = np.flatnonzero(np.concatenate(([True], hashes[1:] != hashes[:-1]))) if len(hashes) else order[:0]
    if len(first) < len(hashes):  # a hash in several splits: each must hold its first split's value
        run = np.cumsum(np.concatenate(([False], hashes[1:] != hashes[:-1]))) if len(hashes) else order[:0]
        same = pc.fill_null(pc.equal(values, values.take(pa.array(first[run]))), True)
        differs = ~np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)
        collided += len(np.unique(hashes[differs]))
        hashes, values = hashes[first], values.take(pa.array(first))
    return _numbered(hashes, values, collided)


def _numbered(hashes: np.ndarray, values: pa.Array, collided: int) -> tuple[np.ndarray, pa.Array, int]:
    """Distinct values and their hashes, blank text left out, in ascending order of hash."""
    import pyarrow.compute as pc

    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        blank = np.asarray(pc.equal(pc.utf8_trim_whitespace(values), "").to_numpy(zero_copy_only=False), dtype=bool)
        hashes, values = hashes[~blank], values.filter(pa.array(~blank))
    order = np.argsort(hashes, kind="stable")
    return hashes[order], values.take(pa.array(order)), collided


def bucket_codes(hashes: tuple[np.ndarray, np.ndarray], tables: list[np.ndarray], starts: np.ndarray) -> np.ndarray:
    """A piece's code per row from its (hashes, valid): its value's place in its bucket's sorted hashes, after
    the codes of the buckets before (``starts``); -1 for nulls and values no bucket numbered (blanks)."""
    from auditor.backends.hashed import bucket_of, masked

    valid = hashes[1]
    h = masked(*hashes)
    codes = np.full(len(h), -1, dtype=CODE)
    bucket = bucket_of([h], len(tables))
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(len(tables) + 1))
    for b, table in enumerate(tables):
        rows = order[bounds[b] : bounds[b + 1]]
        if not len(rows) or not len(table):
            continue
        at = np.minimum(np.searchsorted(table, h[rows]), len(table) - 1)
        hit = valid[rows] & (table[at] == h[rows])
        codes[rows[hit]] = (starts[b] + at[hit]).astype(CODE)
    return codes


def value_at(values: pa.Array, at: int) -> str:
    return str(values[at].as_py())


def piece_codes_fixed(codes: np.ndarray, rows: np.ndarray, exact: np.ndarray, remap: np.ndarray | None) -> np.ndarray:
    """A piece's codes by hash, with its rows of collided hashes given their codes by value (``rows``,
    ``exact``) and, when blank values were dropped, renumbered (``remap``: a code's new code, -1 for a blank)."""
    codes = codes.copy() if len(rows) else codes
    codes[rows] = exact
    if remap is not None:
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1).astype(CODE, copy=False)
    return codes


def split_codes(piece: Any, split_names: Any) -> np.ndarray:
    """The piece's split codes, in the narrowest integer type that holds them."""
    from auditor.backends.hashed import SPLIT, read_piece

    codes = read_piece(piece, [], split_names).column(SPLIT).to_numpy()
    return codes.astype(np.int32, copy=False)
