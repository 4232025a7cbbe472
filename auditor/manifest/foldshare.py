"""Values of a key shared between each fold's holdout and its training rows, from one (values x patterns) count.

The counts are per assignment pattern (manifest/folds.py); a fold's holdout is a set of patterns and so is
its training set, so every fold is answered from the same matrix without counting the rows again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.core.findings import Table
from auditor.core.splits import FoldLayout, PairKind
from auditor.manifest.folds import distinct_role_rows


@dataclass(frozen=True, eq=False)
class FoldShares:
    """Per fold: the values its holdout shares with its training rows, and the holdout rows they hold."""

    folds: tuple[str, ...]
    leak: np.ndarray  # (values, folds): the value is in the fold's holdout and in its training rows
    rows: np.ndarray  # (folds,) holdout rows whose value is also in the fold's training rows
    holdout_rows: np.ndarray  # (folds,) the fold's holdout rows
    rows_by_split: tuple[dict[str, int], ...]  # per fold: those rows by holdout split (pattern)
    pairs: tuple[tuple[str, str, str, int, int, int], ...]  # fold pairs: a, b, judged as, shared, rows a, rows b

    @property
    def values(self) -> np.ndarray:
        """(folds,) the number of shared values per fold."""
        return np.asarray(self.leak.sum(axis=0))

    def tables(self, noun: str) -> tuple[Table, ...]:
        """The fold pairs and the folds x folds matrix, in the form the split-by-split figure draws."""
        pair_table = Table(
            title=f"{noun} shared per fold pair (in the holdout of one and not of the other)",
            columns=("split", "split", "judged as", "shared", "rows in first", "rows in second"),
            rows=self.pairs,
        )
        shared = {(a, b): n for a, b, _, n, _, _ in self.pairs}
        cells = tuple(
            (a, *("—" if a == b else shared.get((a, b), shared.get((b, a), 0)) for b in self.folds)) for a in self.folds
        )
        matrix = Table(title=f"{noun} shared, fold by fold", columns=("", *self.folds), rows=cells)
        return (pair_table, matrix)


def fold_shares(
    counts: np.ndarray,
    names: list[str],
    layout: FoldLayout,
    split_rows: dict[str, int],
    live: np.ndarray | None = None,
) -> FoldShares:
    """What each fold's holdout shares with its training rows; ``live`` leaves out values (accepted ones).

    ``split_rows`` are all rows per pattern: the count matrix may leave out rows without a value, or rows
    whose value is held by no other row.

    Values present in the same patterns are alike in every fold: the folds are judged once per such set of
    patterns (a k-fold split has at most 2^k of them, against millions of values), its values' rows summed.
    """
    present = counts > 0
    if live is not None:
        present &= live[:, None]
    sets, of_value = distinct_role_rows(present.view(np.int8))
    in_set = sets.astype(bool)  # (sets, patterns)
    values_in = np.bincount(of_value, minlength=len(sets))
    rows_in = np.zeros(in_set.shape, dtype=np.int64)  # (sets, patterns) rows of the set's values
    for s in range(counts.shape[1]):
        rows_in[:, s] = np.bincount(of_value, weights=counts[:, s], minlength=len(sets)).round().astype(np.int64)
    holdout, train = layout.matrices(names)
    n_folds = len(layout.folds)
    leak_in = np.zeros((len(sets), n_folds), dtype=bool)
    rows = np.zeros(n_folds, dtype=np.int64)
    held = np.zeros(n_folds, dtype=np.int64)
    by_split: list[dict[str, int]] = []
    for f in range(n_folds):
        h, t = np.flatnonzero(holdout[:, f]), np.flatnonzero(train[:, f])
        leak_in[:, f] = in_set[:, h].any(axis=1) & in_set[:, t].any(axis=1)
        per_split = rows_in[:, h][leak_in[:, f]].sum(axis=0)
        rows[f] = int(per_split.sum())
        held[f] = sum(split_rows.get(names[int(s)], 0) for s in h)
        by_split.append({names[int(s)]: int(c) for s, c in zip(h, per_split, strict=True) if c})
    pairs = []
    for i in range(n_folds):
        for j in range(i + 1, n_folds):
            # What only one of the two holds out: a fixed test split, the holdout of both, links nothing here.
            only_i = np.flatnonzero(holdout[:, i] & ~holdout[:, j])
            only_j = np.flatnonzero(holdout[:, j] & ~holdout[:, i])
            both = in_set[:, only_i].any(axis=1) & in_set[:, only_j].any(axis=1)
            n = int(values_in[both].sum())
            if not n:
                continue
            trains = bool((holdout[:, i] & train[:, j]).any() or (holdout[:, j] & train[:, i]).any())
            judged = PairKind.TRAIN_HOLDOUT if trains else PairKind.HOLDOUT_HOLDOUT
            rows_i = int(rows_in[:, only_i][both].sum())
            rows_j = int(rows_in[:, only_j][both].sum())
            pairs.append((layout.folds[i], layout.folds[j], judged.value, n, rows_i, rows_j))
    return FoldShares(layout.folds, leak_in[of_value], rows, held, tuple(by_split), tuple(pairs))
