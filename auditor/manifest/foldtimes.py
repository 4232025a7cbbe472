"""Times per cross-validation fold, without sorting the rows: the newest training time of each fold and how
many of its holdout rows are older, globally and per entity."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.core.splits import FoldLayout
from auditor.manifest.timeparse import NAT


@dataclass(frozen=True)
class FoldOrder:
    """One fold's holdout rows older than its newest training row."""

    fold: str
    newest_train: int
    older: int  # holdout rows older than newest_train
    holdout: int  # holdout rows with a time
    oldest: int  # the oldest of them


def fold_order(times: np.ndarray, split: np.ndarray, names: list[str], layout: FoldLayout) -> list[FoldOrder]:
    """Per fold with training and holdout times: its newest training time and its holdout rows before it.

    Nothing is sorted: each pattern's newest and oldest time and its rows are found in one pass each, and its
    rows older than each fold's newest training time are counted in one more, the folds' distinct newest
    times as buckets (a holdout row is older than a threshold if its bucket is at most that threshold's).
    """
    timed = (times != NAT) & (split >= 0)
    codes, values = split[timed].astype(np.int64), times[timed]
    n_patterns = len(names)
    count = np.bincount(codes, minlength=n_patterns)
    newest = np.full(n_patterns, np.iinfo(np.int64).min, dtype=np.int64)
    oldest = np.full(n_patterns, np.iinfo(np.int64).max, dtype=np.int64)
    np.maximum.at(newest, codes, values)
    np.minimum.at(oldest, codes, values)
    holdout, train = layout.matrices(names)
    present = count > 0
    # Each fold: (its newest training time, its holdout patterns with a time), if it has both.
    wanted: list[tuple[str, int, np.ndarray]] = []
    for f, fold in enumerate(layout.folds):
        trains = np.flatnonzero(train[:, f] & present)
        held = np.flatnonzero(holdout[:, f] & present)
        if len(trains) and len(held):
            wanted.append((fold, int(newest[trains].max()), held))
    if not wanted:
        return []
    thresholds = np.unique(np.array([w[1] for w in wanted], dtype=np.int64))
    # A row's bucket: how many thresholds are at most its time; it is older than thresholds[j] iff bucket <= j.
    if len(thresholds) <= _COMPARED_THRESHOLDS:
        bucket = np.zeros(len(values), dtype=np.int8)
        for t in thresholds:
            bucket += values >= t
    else:
        bucket = np.searchsorted(thresholds, values, side="right")
    width = len(thresholds) + 1
    below = np.bincount(codes * width + bucket, minlength=n_patterns * width).reshape(n_patterns, width).cumsum(axis=1)
    found = []
    for fold, newest_train, held in wanted:
        j = int(np.searchsorted(thresholds, newest_train))
        older = int(below[held, j].sum())
        found.append(FoldOrder(fold, newest_train, older, int(count[held].sum()), int(oldest[held].min())))
    return found


_COMPARED_THRESHOLDS = 8  # up to this many distinct fold thresholds, a comparison each beats a binary search


@dataclass(frozen=True, eq=False)
class EntityFold:
    """One fold's holdout rows older than their own entity's newest training row in that fold."""

    fold: str
    early: np.ndarray  # the rows, ascending
    newest_of: np.ndarray  # (entities,) newest training time per entity in the fold (NAT: none)


def entity_order(
    times: np.ndarray, split: np.ndarray, entity: np.ndarray, n_entities: int, names: list[str], layout: FoldLayout
) -> list[EntityFold]:
    """Per fold: holdout rows that predate a training row of the same entity (each row's pattern decides)."""
    valid = (times != NAT) & (split >= 0) & (entity >= 0)
    rows = np.flatnonzero(valid)
    s, e, t = split[rows], entity[rows].astype(np.int64), times[rows]
    # Newest time per (entity, pattern), once for every fold.
    n_patterns = len(names)
    cell = e * n_patterns + s
    flat = np.full(n_entities * n_patterns, NAT, dtype=np.int64)
    np.maximum.at(flat, cell, t)
    newest = flat.reshape(n_entities, n_patterns)
    holdout, train = layout.matrices(names)
    found = []
    for f, fold in enumerate(layout.folds):
        trains = np.flatnonzero(train[:, f])
        if not len(trains):
            continue
        newest_of = newest[:, trains].max(axis=1)
        held = holdout[s, f]
        limit = newest_of[e[held]]
        early = rows[held][(limit != NAT) & (t[held] < limit)]
        if len(early):
            found.append(EntityFold(fold, early, newest_of))
    return found
