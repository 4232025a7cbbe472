"""Which values of a key occur in more than one split, judged per split pair (shared by several stages).

Input is a (values x splits) row-count matrix; output says, per pair of splits, how many values and rows
they share and how the pair is judged (train-holdout, holdout-holdout, allowed), plus evidence tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from auditor.core.findings import Table
from auditor.core.splits import PairKind, SplitRoles
from auditor.manifest.groupcounts import GroupSplitCounts
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.table import Manifest


@dataclass(frozen=True)
class PairShare:
    a: str
    b: str
    kind: PairKind
    values: int
    rows_a: int
    rows_b: int


@dataclass(frozen=True, eq=False)
class Overlap:
    """Values shared between splits; ``live`` excludes values taken out (accepted ones)."""

    order: list[str]  # splits present, train first
    index: dict[str, int]  # split name -> column in the count matrix
    live: np.ndarray  # (values, splits) presence, accepted values removed
    pairs: list[PairShare]
    masks: dict[tuple[str, str], np.ndarray]  # values shared by each pair

    def of_kind(self, kind: PairKind) -> list[PairShare]:
        return [p for p in self.pairs if p.kind is kind]

    def mask(self, kind: PairKind) -> np.ndarray:
        out = np.zeros(self.live.shape[0], dtype=bool)
        for p in self.of_kind(kind):
            out |= self.masks[(p.a, p.b)]
        return out

    def tables(self, noun: str) -> tuple[Table, ...]:
        pair_table = Table(
            title=f"{noun} shared per split pair",
            columns=("split", "split", "judged as", "shared", "rows in first", "rows in second"),
            rows=tuple((p.a, p.b, p.kind.value, p.values, p.rows_a, p.rows_b) for p in self.pairs),
        )
        if len(self.order) < 3:
            return (pair_table,)
        cells = []
        for a in self.order:
            row: list[object] = [a]
            for b in self.order:
                shared = self.masks.get((a, b), self.masks.get((b, a)))
                row.append("—" if a == b else int(shared.sum()) if shared is not None else 0)
            cells.append(tuple(row))
        matrix = Table(title=f"{noun} shared, split by split", columns=("", *self.order), rows=tuple(cells))
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
    """Values present in each pair of splits; ``exclude`` takes values out of the pairs of one kind only."""
    present = counts > 0
    order = roles.order([names[i] for i in range(len(names)) if present[:, i].any()])
    index = {n: names.index(n) for n in order}
    removed: dict[PairKind, np.ndarray] = {}
    for kind, values in (exclude or {}).items():
        removed[kind] = np.zeros(len(counts), dtype=bool)
        removed[kind][values] = True
    pairs, masks = [], {}
    for a, b in combinations(order, 2):
        ia, ib = index[a], index[b]
        kind = roles.pair(a, b)
        both = present[:, ia] & present[:, ib]
        if kind in removed:
            both &= ~removed[kind]
        n_both = int(both.sum())
        if n_both:
            masks[(a, b)] = both
            pairs.append(PairShare(a, b, kind, n_both, int(counts[both, ia].sum()), int(counts[both, ib].sum())))
    pairs.sort(key=lambda p: _KIND_ORDER[p.kind])
    live = present.copy()
    for taken in removed.values():
        live[taken] = False
    return Overlap(order, index, live, pairs, masks)


def holdout_exposure(
    counts: np.ndarray, overlap: Overlap, mask: np.ndarray, roles: SplitRoles, split_rows: dict[str, int]
) -> dict[str, dict[str, float]]:
    """Per holdout split: its rows whose value also occurs in a train split it must not share with, out
    of all its rows (``split_rows``; the count matrix may leave out rows without a value)."""
    out: dict[str, dict[str, float]] = {}
    for s in overlap.order:
        leaking = [
            overlap.index[t]
            for t in overlap.order
            if roles.role(t) == "train" and roles.pair(t, s) is PairKind.TRAIN_HOLDOUT
        ]
        if not leaking:
            continue
        in_train = mask & (counts[:, leaking].sum(axis=1) > 0)
        hit = int(counts[in_train, overlap.index[s]].sum())
        if hit:
            total = split_rows[s]
            out[s] = {"rows": hit, "of": total, "share": round(hit / total, 4)}
    return out


def share_text(exposure: dict[str, dict[str, float]]) -> str:
    """'test 3 of 8 (38%), val 9 of 200459 (<0.1%)': a small share still shows that it is not zero."""

    def pct(share: float) -> str:
        return "<0.1%" if 0 < share < 0.001 else f"{share:.1%}" if share < 0.1 else f"{share:.0%}"

    return ", ".join(f"{s} {int(v['rows'])} of {int(v['of'])} ({pct(v['share'])})" for s, v in exposure.items())


def pairs_text(shares: list[PairShare], noun: str) -> str:
    return ", ".join(f"{p.a}–{p.b} ({p.values} {noun})" for p in shares)


def largest(key: KeyCodes, values: np.ndarray, totals: np.ndarray, limit: int) -> tuple[np.ndarray, list[str]]:
    """The ``limit`` values with most rows, ties broken by label: the same input, the same examples."""
    if len(values) > limit:
        keep = totals >= np.sort(totals)[-limit]
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
    """Each value with, per split, its row count and the ids of its first and last row there."""
    cells = []
    for code in top:
        for s in overlap.order:
            i = overlap.index[s]
            if grouped.counts[code, i]:
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
    return tuple({label_field: label, "splits": per_value[int(code)]} for code, label in zip(top, labels, strict=True))
