"""Times per cross-validation fold, from one sort of each pattern's times: the newest training time of each
fold and how many of its holdout rows are older, globally and per entity."""

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

    Each pattern's times are sorted once; every fold then costs a binary search per pattern.
    """
    timed = (times != NAT) & (split >= 0)
    codes, values = split[timed], times[timed]
    order = np.lexsort((values, codes))
    codes, values = codes[order], values[order]
    bounds = np.searchsorted(codes, np.arange(len(names) + 1))
    holdout, train = layout.matrices(names)
    found = []
    for f, fold in enumerate(layout.folds):
        trains = [p for p in np.flatnonzero(train[:, f]) if bounds[p + 1] > bounds[p]]
        held = [p for p in np.flatnonzero(holdout[:, f]) if bounds[p + 1] > bounds[p]]
        if not trains or not held:
            continue
        newest = max(int(values[bounds[p + 1] - 1]) for p in trains)
        older = sum(int(np.searchsorted(values[bounds[p] : bounds[p + 1]], newest)) for p in held)
        total = sum(int(bounds[p + 1] - bounds[p]) for p in held)
        oldest = min(int(values[bounds[p]]) for p in held)
        found.append(FoldOrder(fold, newest, older, total, oldest))
    return found


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
