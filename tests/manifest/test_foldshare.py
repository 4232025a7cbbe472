"""Per-fold sharing from one count per assignment pattern equals judging every fold on its own rows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.splits import FoldLayout, FoldRole, PairKind
from auditor.manifest.foldshare import fold_shares
from tests.examples import examples


@st.composite
def layouts(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with a group and a role in each fold (per-column form), the patterns and each row's pattern."""
    n_rows = draw(st.integers(2, 40))
    n_folds = draw(st.integers(1, 4))
    roles = np.array(
        draw(
            st.lists(
                st.lists(st.sampled_from([0, 1, 2]), min_size=n_folds, max_size=n_folds),
                min_size=n_rows,
                max_size=n_rows,
            )
        ),
        dtype=np.int8,
    )
    groups = np.array(draw(st.lists(st.integers(0, 6), min_size=n_rows, max_size=n_rows)))
    return roles, groups, np.unique(roles, axis=0, return_inverse=True)[1].reshape(-1)


@settings(max_examples=examples(200), deadline=None)
@given(layouts())
def test_fold_shares_equal_each_fold_judged_on_its_own(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    roles, groups, pattern = case
    patterns = np.unique(roles, axis=0)
    names = [f"p{i}" for i in range(len(patterns))]
    layout = FoldLayout(tuple(f"f{j}" for j in range(roles.shape[1])), tuple(names), patterns)
    counts = np.zeros((groups.max() + 1, len(names)), dtype=np.int64)
    np.add.at(counts, (groups, pattern), 1)
    split_rows = {n: int((pattern == i).sum()) for i, n in enumerate(names)}
    shares = fold_shares(counts, names, layout, split_rows)
    for f in range(roles.shape[1]):
        holdout, train = roles[:, f] == FoldRole.HOLDOUT, roles[:, f] == FoldRole.TRAIN
        shared = set(groups[holdout]) & set(groups[train])
        assert set(np.flatnonzero(shares.leak[:, f])) == shared
        assert shares.rows[f] == int(np.isin(groups[holdout], list(shared)).sum())
        assert shares.holdout_rows[f] == int(holdout.sum())
    # Fold pairs: values in the holdout of one fold only and in the holdout of the other only.
    pairs = {(a, b): n for a, b, _, n, _, _ in shares.pairs}
    for i in range(roles.shape[1]):
        for j in range(i + 1, roles.shape[1]):
            only_i = (roles[:, i] == FoldRole.HOLDOUT) & (roles[:, j] != FoldRole.HOLDOUT)
            only_j = (roles[:, j] == FoldRole.HOLDOUT) & (roles[:, i] != FoldRole.HOLDOUT)
            expected = len(set(groups[only_i]) & set(groups[only_j]))
            assert pairs.get((f"f{i}", f"f{j}"), 0) == expected


def _per_value(
    counts: np.ndarray, names: list[str], layout: FoldLayout, split_rows: dict[str, int], live: np.ndarray | None
) -> tuple[np.ndarray, list[int], list[dict[str, int]], list[tuple[str, str, str, int, int, int]]]:
    """The definition, value by value: leak, holdout rows sharing, those rows per split, and the fold pairs."""
    present = (counts > 0) & (live[:, None] if live is not None else True)
    holdout, train = layout.matrices(names)
    k = len(layout.folds)
    leak = np.zeros((len(counts), k), dtype=bool)
    rows, by_split = [], []
    for f in range(k):
        h, t = np.flatnonzero(holdout[:, f]), np.flatnonzero(train[:, f])
        leak[:, f] = present[:, h].any(axis=1) & present[:, t].any(axis=1)
        per_split = counts[:, h][leak[:, f]].sum(axis=0)
        rows.append(int(per_split.sum()))
        by_split.append({names[s]: int(c) for s, c in zip(h, per_split, strict=True) if c})
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            only_i = np.flatnonzero(holdout[:, i] & ~holdout[:, j])
            only_j = np.flatnonzero(holdout[:, j] & ~holdout[:, i])
            both = present[:, only_i].any(axis=1) & present[:, only_j].any(axis=1)
            if both.any():
                trains = bool((holdout[:, i] & train[:, j]).any() or (holdout[:, j] & train[:, i]).any())
                judged = (PairKind.TRAIN_HOLDOUT if trains else PairKind.HOLDOUT_HOLDOUT).value
                rows_i, rows_j = int(counts[:, only_i][both].sum()), int(counts[:, only_j][both].sum())
                pairs.append((layout.folds[i], layout.folds[j], judged, int(both.sum()), rows_i, rows_j))
    return leak, rows, by_split, pairs


@settings(max_examples=examples(200), deadline=None)
@given(layouts(), st.data())
def test_judging_each_set_of_patterns_once_equals_judging_value_by_value(
    case: tuple[np.ndarray, np.ndarray, np.ndarray], data: st.DataObject
) -> None:
    roles, groups, pattern = case
    patterns = np.unique(roles, axis=0)
    names = [f"p{i}" for i in range(len(patterns))]
    layout = FoldLayout(tuple(f"f{j}" for j in range(roles.shape[1])), tuple(names), patterns)
    counts = np.zeros((groups.max() + 1, len(names)), dtype=np.int64)
    np.add.at(counts, (groups, pattern), data.draw(st.integers(1, 3)))  # rows repeat: sums, not value counts
    live = data.draw(st.none() | st.lists(st.booleans(), min_size=len(counts), max_size=len(counts)))
    live_mask = None if live is None else np.array(live, dtype=bool)
    split_rows = {n: int((pattern == i).sum()) for i, n in enumerate(names)}
    shares = fold_shares(counts, names, layout, split_rows, live_mask)
    leak, rows, by_split, pairs = _per_value(counts, names, layout, split_rows, live_mask)
    assert np.array_equal(shares.leak, leak)
    assert shares.rows.tolist() == rows
    assert list(shares.rows_by_split) == by_split
    assert list(shares.pairs) == pairs
