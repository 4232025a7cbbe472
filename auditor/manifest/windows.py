"""Each training row's label window against the holdout rows' windows: overlap (purge), the time from the row
to the next holdout time (gap) and from the end of the last holdout window before it (embargo), globally or
within each entity.

Sorted searches over the holdout windows, O((n + m) log m) for n training and m holdout rows; no loop over rows.
A window is [start, end], both ends included; a row without a label horizon is the point [time, time].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NONE = np.iinfo(np.int64).max  # no holdout window on that side


@dataclass(frozen=True)
class Neighbours:
    """Per training row: whether its window overlaps a holdout window; the ns from its start to the first holdout
    window starting at or after it (``to_next``); the ns since the last holdout window that ended before it
    started (``from_previous``). NONE where there is no such window."""

    overlap: np.ndarray  # bool
    to_next: np.ndarray  # int64
    from_previous: np.ndarray  # int64


def neighbours(
    train_start: np.ndarray,
    train_end: np.ndarray,
    hold_start: np.ndarray,
    hold_end: np.ndarray,
    train_entity: np.ndarray | None = None,
    hold_entity: np.ndarray | None = None,
) -> Neighbours:
    """Compare every training window with the holdout windows (of its own entity when entities are given)."""
    n, m = len(train_start), len(hold_start)
    if m == 0 or n == 0:
        return Neighbours(np.zeros(n, dtype=bool), np.full(n, NONE), np.full(n, NONE))
    if train_entity is None or hold_entity is None:
        ta, tb, ha, hb = train_start, train_end, hold_start, hold_end
        t_ent = h_ent = None
    else:
        # One sortable int64 per time within its entity: entity * (distinct times) + the time's rank.
        values, rank = np.unique(np.concatenate([train_start, train_end, hold_start, hold_end]), return_inverse=True)
        span = np.int64(len(values))
        t_ent = train_entity.astype(np.int64)
        h_ent = hold_entity.astype(np.int64)
        rank = rank.astype(np.int64)
        ta = t_ent * span + rank[:n]
        tb = t_ent * span + rank[n : 2 * n]
        ha = h_ent * span + rank[2 * n : 2 * n + m]
        hb = h_ent * span + rank[2 * n + m :]
    by_start = np.argsort(ha, kind="stable")
    starts = ha[by_start]
    # The latest end among the holdout windows that start at or before each position: within an entity the keys
    # of earlier entities are all smaller, so the running maximum never reaches across entities.
    reach = np.maximum.accumulate(hb[by_start])
    k = np.searchsorted(starts, tb, side="right")  # windows starting at or before the row's end: [0, k)
    overlap = (k > 0) & (reach[np.maximum(k - 1, 0)] >= ta)
    # The gap is counted between times, as scikit-learn's TimeSeriesSplit(gap=) counts it: from the row's start.
    k = np.searchsorted(starts, ta, side="left")
    to_next = np.full(n, NONE, dtype=np.int64)
    has = k < m
    nxt = by_start[np.minimum(k, m - 1)]
    if h_ent is not None and t_ent is not None:
        has &= h_ent[nxt] == t_ent
    to_next[has] = hold_start[nxt[has]] - train_start[has]
    by_end = np.argsort(hb, kind="stable")
    ends = hb[by_end]
    j = np.searchsorted(ends, ta, side="left") - 1  # the last window ending before the row starts
    from_previous = np.full(n, NONE, dtype=np.int64)
    had = j >= 0
    prev = by_end[np.maximum(j, 0)]
    if h_ent is not None and t_ent is not None:
        had &= h_ent[prev] == t_ent
    from_previous[had] = train_start[had] - hold_end[prev[had]]
    return Neighbours(overlap, to_next, from_previous)
