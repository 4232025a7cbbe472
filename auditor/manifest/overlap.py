"""Which values of a key occur in more than one split, judged per split pair (shared by several stages).

Input is a (values x splits) row-count matrix; output says, per pair of splits, how many values and rows
they share and how the pair is judged (train-holdout, holdout-holdout, allowed), plus evidence tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.core.findings import Table
from auditor.core.scope import MAX_PAIR_COUNTS, Scope, scope_of
from auditor.core.splits import PairKind, SplitRoles
from auditor.manifest.groupcounts import GroupSplitCounts
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.keyscope import key_scope
from auditor.manifest.table import Manifest

# Per-pair evidence grows with the square of the number of splits: reports list at most this many pairs
# (or per-split rows), the largest first, and say how many more there are; counts stay exact.
MAX_LISTED = 50
# The split-by-split matrix shows at most this many splits (those sharing the most), so it stays readable.
MAX_MATRIX_SPLITS = 20


def more_text(more: int, noun: str) -> str:
    """' (and 1,234 more pairs not listed)' when a list was cut, '' otherwise."""
    return f" (and {more:,} more {noun} not listed)" if more else ""


def capped_title(title: str, shown: int, total: int, noun: str) -> str:
    """A table title that says when the table lists only the largest ``shown`` of ``total`` rows."""
    return f"{title} (the {shown} largest of {total:,} {noun})" if total > shown else title


@dataclass(frozen=True)
class PairShare:
    a: str
    b: str
    kind: PairKind
    values: int
    rows_a: int
    rows_b: int


@dataclass(frozen=True, eq=False)
class Pairs:
    """Split pairs that share values, as parallel arrays (there may be ~n²/2 of them), in report order."""

    order: list[str]  # split names the indices refer to
    first: np.ndarray
    second: np.ndarray
    kinds: np.ndarray  # codes into _KINDS
    values: np.ndarray
    rows_a: np.ndarray
    rows_b: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def __bool__(self) -> bool:
        return len(self.first) > 0

    def __iter__(self) -> Iterator[PairShare]:
        return iter(self._shares(np.arange(len(self.first))))

    def select(self, keep: np.ndarray) -> Pairs:
        return Pairs(
            self.order,
            self.first[keep],
            self.second[keep],
            self.kinds[keep],
            self.values[keep],
            self.rows_a[keep],
            self.rows_b[keep],
        )

    def within(self, splits: set[str]) -> Pairs:
        """The pairs whose both splits are among ``splits``."""
        inside = np.array([s in splits for s in self.order], dtype=bool)
        return self.select(inside[self.first] & inside[self.second])

    def top(self, limit: int = MAX_LISTED) -> list[PairShare]:
        """All pairs in their usual order when they fit; else the ``limit`` sharing the most, largest first."""
        if len(self) <= limit:
            return self._shares(np.arange(len(self)))
        return self._shares(np.argsort(-self.values, kind="stable")[:limit])

    def _shares(self, at: np.ndarray) -> list[PairShare]:
        return [
            PairShare(
                self.order[int(self.first[i])],
                self.order[int(self.second[i])],
                _KINDS[int(self.kinds[i])],
                int(self.values[i]),
                int(self.rows_a[i]),
                int(self.rows_b[i]),
            )
            for i in at
        ]


@dataclass(frozen=True, eq=False)
class Overlap:
    """Values shared between splits; ``live`` excludes values taken out (accepted ones)."""

    order: list[str]  # splits present, train first
    index: dict[str, int]  # split name -> column in the count matrix
    live: np.ndarray  # (values, splits) presence, accepted values removed
    pairs: Pairs
    kind_masks: dict[PairKind, np.ndarray]  # values shared by at least one pair of each kind

    def of_kind(self, kind: PairKind) -> Pairs:
        return self.pairs.select(self.pairs.kinds == _KIND_CODE[kind])

    def mask(self, kind: PairKind) -> np.ndarray:
        found = self.kind_masks.get(kind)
        return found.copy() if found is not None else np.zeros(self.live.shape[0], dtype=bool)

    def tables(self, noun: str) -> tuple[Table, ...]:
        """The pairs (at most MAX_LISTED, largest first) and, for 3+ splits, a split-by-split matrix."""
        shown = self.pairs.top()
        pair_table = Table(
            title=capped_title(f"{noun} shared per split pair", len(shown), len(self.pairs), "pairs"),
            columns=("split", "split", "judged as", "shared", "rows in first", "rows in second"),
            rows=tuple((p.a, p.b, p.kind.value, p.values, p.rows_a, p.rows_b) for p in shown),
        )
        n = len(self.order)
        if n < 3:
            return (pair_table,)
        keep = np.arange(n)
        if n > MAX_MATRIX_SPLITS:
            # The splits that share the most, in their usual order (train first).
            total = np.bincount(self.pairs.first, self.pairs.values, minlength=n) + np.bincount(
                self.pairs.second, self.pairs.values, minlength=n
            )
            keep = np.sort(np.argsort(-total, kind="stable")[:MAX_MATRIX_SPLITS])
        inside = np.full(n, -1, dtype=np.int64)
        inside[keep] = np.arange(len(keep))
        pick = (inside[self.pairs.first] >= 0) & (inside[self.pairs.second] >= 0)
        shared = np.zeros((len(keep), len(keep)), dtype=np.int64)
        shared[inside[self.pairs.first[pick]], inside[self.pairs.second[pick]]] = self.pairs.values[pick]
        shared = shared + shared.T
        splits = [self.order[int(i)] for i in keep]
        cells = [(a, *("—" if i == j else int(shared[i, j]) for j in range(len(splits)))) for i, a in enumerate(splits)]
        title = f"{noun} shared, split by split"
        if len(splits) < n:
            title += f" (the {len(splits)} splits sharing the most, of {n:,})"
        matrix = Table(title=title, columns=("", *splits), rows=tuple(cells))
        return (pair_table, matrix)


_KIND_ORDER = {
    PairKind.TRAIN_HOLDOUT: 0,
    PairKind.HOLDOUT_HOLDOUT: 1,
    PairKind.ALLOWED: 2,
    PairKind.UNKNOWN: 3,
    PairKind.TRAIN_TRAIN: 4,
}


def find_overlap(
    counts: np.ndarray,
    names: list[str],
    roles: SplitRoles,
    exclude: dict[PairKind, list[int]] | None = None,
) -> Overlap:
    """Values present in each pair of splits; ``exclude`` takes values out of the pairs of one kind only.

    Works on sparse products over the values in two or more splits, so the cost follows the pairs that
    share something, not a Python loop over every pair of splits.
    """
    present = counts > 0
    order = roles.order([names[i] for i in range(len(names)) if present[:, i].any()])
    index = {n: names.index(n) for n in order}
    removed: dict[PairKind, np.ndarray] = {}
    for kind, values in (exclude or {}).items():
        removed[kind] = np.zeros(len(counts), dtype=bool)
        removed[kind][values] = True
    live = present.copy()
    for taken in removed.values():
        live[taken] = False
    columns = [index[n] for n in order]
    multi = np.flatnonzero(present[:, columns].sum(axis=1) > 1) if columns else np.zeros(0, dtype=np.int64)
    n = len(order)
    kinds = _pair_kinds(order, roles)
    pairs = Pairs(order, *(np.zeros(0, dtype=np.int64) for _ in range(6)))
    kind_masks: dict[PairKind, np.ndarray] = {}
    if len(multi) and n > 1:
        # Each kind sees the values not taken out for it; kinds without exclusions share one pass.
        variants: list[tuple[PairKind | None, np.ndarray]] = [(None, np.zeros(len(counts), dtype=bool))]
        variants.extend(removed.items())
        found: list[tuple[np.ndarray, ...]] = []
        shared_pairs = _pairs_by_split_sets if n <= _SPLIT_SET_LIMIT else _pairs_by_products
        for variant, out in variants:
            keep = multi[~out[multi]]
            if not len(keep):
                continue
            wanted = [_KIND_CODE[k] for k in PairKind if (variant is None and k not in removed) or k is variant]
            pairs_found, hits_by_kind = shared_pairs(counts[np.ix_(keep, columns)], kinds, wanted)
            if not len(pairs_found[0]):
                continue
            found.append(pairs_found)
            # A value is shared by a pair of a kind when it is present in both splits of such a pair.
            for code, hits in hits_by_kind.items():
                mask = np.zeros(len(counts), dtype=bool)
                mask[keep[hits]] = True
                kind_masks[_KINDS[code]] = mask
        if not found:
            return Overlap(order, index, live, Pairs(order, *(np.zeros(0, dtype=np.int64) for _ in range(6))), {})
        parts = [np.concatenate([f[i] for f in found]).astype(np.int64) for i in range(6)]
        first, second, kind_codes = parts[0], parts[1], parts[2]
        # Report order: by kind (train-holdout first), then pairs in split order.
        rank = np.array([_KIND_ORDER[k] for k in _KINDS], dtype=np.int64)[kind_codes]
        at = np.lexsort((second, first, rank))
        pairs = Pairs(order, *(part[at] for part in parts))
    return Overlap(order, index, live, pairs, kind_masks)


_KINDS = list(PairKind)
_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
# Up to this many splits, values are tallied by the set of splits they occur in (2**n sets at most);
# beyond it, by sparse products over the values.
_SPLIT_SET_LIMIT = 12

_Found = tuple[tuple[np.ndarray, ...], dict[int, np.ndarray]]


def _pairs_by_split_sets(counts: np.ndarray, kinds: np.ndarray, wanted: list[int]) -> _Found:
    """The pairs of splits (a < b) of a wanted kind that share values, with their shared values and rows,
    and per kind which values it covers; ``counts`` is (values, splits) over the values in 2+ splits.

    Each value is reduced to the bit set of its splits and everything is tallied per set, so the work on
    the values is a few passes of integer arithmetic, whatever the number of pairs.
    """
    n = counts.shape[1]
    bits = np.zeros(len(counts), dtype=np.int64)
    for j in range(n):
        bits |= (counts[:, j] > 0).astype(np.int64) << j
    size = 1 << n
    values_per_set = np.bincount(bits, minlength=size)
    # Row sums are exact in float64 up to 2**53 rows.
    rows_per_set = np.stack(
        [np.rint(np.bincount(bits, weights=counts[:, j], minlength=size)).astype(np.int64) for j in range(n)]
    )
    a, b = np.triu_indices(n, k=1)
    sets = np.arange(size, dtype=np.int64)
    has = ((sets[:, None] >> a) & 1) & ((sets[:, None] >> b) & 1)  # (sets, pairs): set holds both splits
    shared = values_per_set @ has
    kind_of = kinds[a, b]
    pick = np.isin(kind_of, wanted) & (shared > 0)
    at = np.flatnonzero(pick)
    rows_a = np.einsum("ps,sp->p", rows_per_set[a[at]], has[:, at])
    rows_b = np.einsum("ps,sp->p", rows_per_set[b[at]], has[:, at])
    found = (a[at], b[at], kind_of[at], shared[at], rows_a, rows_b)
    hits: dict[int, np.ndarray] = {}
    for code in np.unique(kind_of[at]).tolist():
        covered = np.asarray(has[:, at[kind_of[at] == code]].any(axis=1), dtype=bool)
        hits[int(code)] = covered[bits]
    return found, hits


def _pairs_by_products(counts: np.ndarray, kinds: np.ndarray, wanted: list[int]) -> _Found:
    """As _pairs_by_split_sets, by sparse products over the values: for more splits than sets can tally."""
    from scipy import sparse  # only when values are shared: the import costs more than a small audit

    n = counts.shape[1]
    p = sparse.csr_matrix((counts > 0).astype(np.int64))
    c = sparse.csr_matrix(counts.astype(np.int64))
    shared = sparse.triu(p.T @ p, k=1).tocoo()
    kind_of = kinds[shared.row, shared.col]
    pick = np.isin(kind_of, wanted) & (shared.data > 0)
    if not pick.any():
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(6)), {}
    first, second = shared.row[pick], shared.col[pick]
    rows = (c.T @ p).tocsr()  # rows[a, b]: rows of split a whose value split b also has
    rows_a = np.asarray(rows[first, second]).ravel()
    rows_b = np.asarray(rows[second, first]).ravel()
    found = (first, second, kind_of[pick], shared.data[pick], rows_a, rows_b)
    hits: dict[int, np.ndarray] = {}
    for code in np.unique(kind_of[pick]).tolist():
        chosen = pick & (kind_of == code)
        link = sparse.coo_matrix(
            (np.ones(int(chosen.sum()), dtype=np.int64), (shared.row[chosen], shared.col[chosen])), shape=(n, n)
        ).tocsr()
        link = link + link.T
        hits[int(code)] = np.asarray((p @ link).multiply(p).sum(axis=1)).ravel() > 0
    return found, hits


def _pair_kinds(order: list[str], roles: SplitRoles) -> np.ndarray:
    """(splits x splits) codes of PairKind for the splits in ``order``, without a call per pair."""
    if roles.folds is not None:
        fold_kinds = roles.fold_kinds(order)
        assert list(PairKind) == _KINDS  # fold_kinds indexes list(PairKind)
        position = {s: i for i, s in enumerate(order)}
        for a, b in (tuple(pair) * 2 if len(pair) == 1 else tuple(pair) for pair in roles.allowed):
            if a in position and b in position:
                fold_kinds[position[a], position[b]] = fold_kinds[position[b], position[a]] = _KIND_CODE[
                    PairKind.ALLOWED
                ]
        return fold_kinds
    role = np.array([{"train": 0, "holdout": 1}.get(roles.role(s), 2) for s in order], dtype=np.int64)
    by_roles = np.array(
        [
            [_KIND_CODE[PairKind.TRAIN_TRAIN], _KIND_CODE[PairKind.TRAIN_HOLDOUT], _KIND_CODE[PairKind.UNKNOWN]],
            [_KIND_CODE[PairKind.TRAIN_HOLDOUT], _KIND_CODE[PairKind.HOLDOUT_HOLDOUT], _KIND_CODE[PairKind.UNKNOWN]],
            [_KIND_CODE[PairKind.UNKNOWN]] * 3,
        ],
        dtype=np.int64,
    )
    kinds = by_roles[role[:, None], role[None, :]]
    position = {s: i for i, s in enumerate(order)}
    for a, b in (tuple(pair) * 2 if len(pair) == 1 else tuple(pair) for pair in roles.allowed):
        if a in position and b in position:
            kinds[position[a], position[b]] = kinds[position[b], position[a]] = _KIND_CODE[PairKind.ALLOWED]
    return kinds


def holdout_exposure(
    counts: np.ndarray, overlap: Overlap, mask: np.ndarray, roles: SplitRoles, split_rows: dict[str, int]
) -> dict[str, dict[str, float]]:
    """Per holdout split: its rows whose value also occurs in a train split it must not share with, out
    of all its rows (``split_rows``; the count matrix may leave out rows without a value)."""
    order = overlap.order
    kinds = _pair_kinds(order, roles)
    is_train = np.array([roles.role(t) == "train" for t in order], dtype=bool)
    # Holdout splits with the same train splits to leak from share one pass over the values.
    by_leaking: dict[tuple[int, ...], list[int]] = {}
    for j in range(len(order)):
        leaking = np.flatnonzero(is_train & (kinds[:, j] == _KIND_CODE[PairKind.TRAIN_HOLDOUT]))
        if len(leaking):
            by_leaking.setdefault(tuple(overlap.index[order[i]] for i in leaking), []).append(j)
    hits: dict[int, int] = {}
    for leaking_columns, targets in by_leaking.items():
        in_train = mask & (counts[:, list(leaking_columns)].sum(axis=1) > 0)
        columns = [overlap.index[order[j]] for j in targets]
        for j, hit in zip(targets, counts[np.ix_(in_train, columns)].sum(axis=0).tolist(), strict=True):
            hits[j] = int(hit)
    out: dict[str, dict[str, float]] = {}
    for j, s in enumerate(order):
        hit = hits.get(j, 0)
        if hit:
            total = split_rows[s]
            out[s] = {"rows": hit, "of": total, "share": round(hit / total, 4)}
    return out


def largest_first(values: np.ndarray, limit: int = MAX_LISTED) -> np.ndarray:
    """Positions of the ``limit`` largest ``values`` (ties: earliest first), kept in their original order."""
    if len(values) <= limit:
        return np.arange(len(values))
    return np.sort(np.argsort(-np.asarray(values), kind="stable")[:limit])


def capped_counts(counts: dict[str, int], limit: int = MAX_LISTED) -> dict[str, int]:
    """At most ``limit`` entries of a count mapping (e.g. per split pair), the largest, in their order."""
    if len(counts) <= limit:
        return counts
    keys = list(counts)
    at = largest_first(np.fromiter(counts.values(), dtype=np.float64, count=len(keys)), limit)
    return {keys[i]: counts[keys[i]] for i in at}


def pair_counts_text(counts: dict[str, int]) -> str:
    """'train-test (3), ...' for a mapping keyed 'a|b', at most MAX_LISTED pairs and how many more."""
    shown = capped_counts(counts)
    text = ", ".join(f"{p.replace('|', '–')} ({n})" for p, n in shown.items())
    return text + more_text(len(counts) - len(shown), "pairs")


def pair_counts_evidence(counts: dict[str, int]) -> dict[str, Any]:
    """Evidence for a mapping keyed 'a|b': at most MAX_LISTED pairs, and their exact number when cut."""
    shown = capped_counts(counts)
    more = len(counts) - len(shown)
    return {"pairs": shown, **({"pairs_total": len(counts), "pairs_not_listed": more} if more else {})}


def capped_splits(per_split: dict[str, dict[str, float]], limit: int = MAX_LISTED) -> dict[str, dict[str, float]]:
    """At most ``limit`` splits of a per-split mapping, those with most rows (all of them when they fit)."""
    if len(per_split) <= limit:
        return per_split
    keep = set(sorted(per_split, key=lambda s: -per_split[s]["rows"])[:limit])
    return {s: v for s, v in per_split.items() if s in keep}


def share_text(exposure: dict[str, dict[str, float]]) -> str:
    """'test 3 of 8 (38%), val 9 of 200459 (<0.1%)': a small share still shows that it is not zero."""

    def pct(share: float) -> str:
        return "<0.1%" if 0 < share < 0.001 else f"{share:.1%}" if share < 0.1 else f"{share:.0%}"

    shown = capped_splits(exposure)
    return ", ".join(f"{s} {int(v['rows'])} of {int(v['of'])} ({pct(v['share'])})" for s, v in shown.items()) + (
        more_text(len(exposure) - len(shown), "splits")
    )


def top_pairs(shares: Pairs, limit: int = MAX_LISTED) -> list[PairShare]:
    """All pairs in their usual order when they fit; else the ``limit`` sharing the most, largest first."""
    return shares.top(limit)


def pairs_text(shares: Pairs, noun: str) -> str:
    """'train-test (3 shared), ...' for at most MAX_LISTED pairs, saying how many more there are."""
    shown = top_pairs(shares)
    return ", ".join(f"{p.a}–{p.b} ({p.values} {noun})" for p in shown) + more_text(len(shares) - len(shown), "pairs")


def pair_evidence(shares: Pairs, noun: str, with_rows: bool = True) -> dict[str, Any]:
    """Evidence for the pairs: at most MAX_LISTED of them, largest first, and their number when cut."""
    shown = top_pairs(shares)
    listed = [
        {"splits": [p.a, p.b], noun: p.values, **({"rows": [p.rows_a, p.rows_b]} if with_rows else {})} for p in shown
    ]
    more = len(shares) - len(shown)
    return {"pairs": listed, **({"pairs_total": len(shares), "pairs_not_listed": more} if more else {})}


def overlap_scope(values: Iterable[str], shares: Pairs, noun: str) -> Scope:
    """The scope of an overlap finding: every shared value, their number, and per split pair (all of them, not
    only those listed) the values and rows shared."""
    found = list(values)
    return scope_of(found, _overlap_counts(len(found), shares, noun))


def rows_overlap_scope(ids: pa.Array | pa.ChunkedArray, n_values: int, shares: Pairs, noun: str) -> Scope:
    """The scope of an overlap finding whose subject is ``n_values`` groups (``noun``) made of the rows ``ids``
    names: the rows themselves, so a group that gains a row has grown (a group keeps no other name as it grows)."""
    from auditor.manifest.keyscope import text_scope

    return text_scope(ids, _overlap_counts(n_values, shares, noun))


def key_overlap_scope(key: KeyCodes, codes: np.ndarray, shares: Pairs, noun: str) -> Scope:
    """overlap_scope of the key's values ``codes``, column-wise when they are many (manifest/keyscope.py)."""
    return key_scope(key, codes, _overlap_counts(len(codes), shares, noun))


def _overlap_counts(n_values: int, shares: Pairs, noun: str) -> dict[str, int]:
    counts = {noun: n_values, "pairs": len(shares), "rows": int(shares.rows_a.sum() + shares.rows_b.sum())}
    if len(shares) <= MAX_PAIR_COUNTS:  # beyond, the totals above: ~n²/2 pairs of many folds are not each kept
        for p in shares:
            counts[f"{p.a}|{p.b}.{noun}"] = p.values
            counts[f"{p.a}|{p.b}.rows"] = p.rows_a + p.rows_b
    return counts


def largest(key: KeyCodes, values: np.ndarray, totals: np.ndarray, limit: int) -> tuple[np.ndarray, list[str]]:
    """The ``limit`` values with most rows, ties broken by label: the same input, the same examples."""
    if len(values) > limit > 0:
        keep = totals >= np.partition(totals, len(totals) - limit)[len(totals) - limit]  # the limit-th largest
        values, totals = values[keep], totals[keep]
    labels = key.labels(values)
    order = sorted(range(len(values)), key=lambda i: (-int(totals[i]), labels[i]))[:limit]
    return values[order], [labels[i] for i in order]


def examples(
    manifest: Manifest,
    grouped: GroupSplitCounts,
    top: np.ndarray,
    labels: list[str],
    overlap: Overlap,
    label_field: str = "group",
) -> tuple[dict[str, Any], ...]:
    """Each value with, per split, its row count and the ids of its first and last row there.

    A value in very many splits lists the MAX_LISTED splits where it has most rows and says how many more.
    """
    cells = []
    spread: dict[int, int] = {}
    for code in top:
        columns = [overlap.index[s] for s in overlap.order]
        in_splits = [(s, i) for s, i in zip(overlap.order, columns, strict=True) if grouped.counts[code, i]]
        spread[int(code)] = len(in_splits)
        if len(in_splits) > MAX_LISTED:
            keep = {s for s, _ in sorted(in_splits, key=lambda t: -int(grouped.counts[code, t[1]]))[:MAX_LISTED]}
            in_splits = [(s, i) for s, i in in_splits if s in keep]
        for s, i in in_splits:
            ends = sorted({int(grouped.first_row[code, i]), int(grouped.last_row[code, i])})
            cells.append((int(code), s, ends))
    # One take for all example ids: per-call overhead on a chunked column dominates otherwise.
    ids = manifest.ids([r for _, _, rows in cells for r in rows]) if cells else []
    per_value: dict[int, dict[str, Any]] = {int(code): {} for code in top}
    at = 0
    for code, s, rows in cells:
        per_value[code][s] = {
            "rows": int(grouped.counts[code, overlap.index[s]]),
            "first_and_last_ids": ids[at : at + len(rows)],
        }
        at += len(rows)
    return tuple(
        {
            label_field: label,
            "splits": per_value[int(code)],
            **({"splits_total": spread[int(code)]} if spread[int(code)] > len(per_value[int(code)]) else {}),
        }
        for code, label in zip(top, labels, strict=True)
    )
