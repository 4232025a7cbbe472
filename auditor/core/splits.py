"""What each split is for (train or holdout) and which split pairs a cross-split check must judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING

from auditor.core.config import SplitsSpec

if TYPE_CHECKING:
    import numpy as np  # numpy loads only with folds: commands that read no data stay fast


class PairKind(StrEnum):
    """How an overlap between two splits is judged."""

    TRAIN_HOLDOUT = "train-holdout"  # a leak into the evaluation
    HOLDOUT_HOLDOUT = "holdout-holdout"  # evaluations that are not independent of each other
    TRAIN_TRAIN = "train-train"  # harmless: both may be learned from
    ALLOWED = "allowed"  # declared in splits.allow
    UNKNOWN = "unknown"  # at least one split has no declared role


class FoldRole(IntEnum):
    """A row's part in one fold of a cross-validation."""

    UNUSED = 0
    TRAIN = 1
    HOLDOUT = 2


@dataclass(frozen=True, eq=False)
class FoldLayout:
    """Cross-validation folds as assignment patterns: rows with the same role in every fold share a pattern.

    The pattern is the split code the kernels count by, so one count serves every fold.
    """

    folds: tuple[str, ...]  # fold names, in order
    patterns: tuple[str, ...]  # pattern names (the manifest's split names)
    roles: np.ndarray = field(repr=False)  # (patterns, folds) FoldRole codes
    ids: tuple[str, ...] = ()  # each fold as the manifest writes it (a fold id, a column): `{fold}` in a path
    # The last folds: each fixed holdout split beside the cross-validation, judged on its own against every row
    # the folds train on (named after the split, which is its holdout).
    fixed: tuple[str, ...] = ()

    def id_of(self, fold: int) -> str:
        return self.ids[fold] if self.ids else self.folds[fold]

    def is_fixed(self, fold: int) -> bool:
        """Whether ``fold`` is a fixed holdout split's evaluation rather than a fold of the cross-validation."""
        return fold >= len(self.folds) - len(self.fixed)

    @property
    def cv_folds(self) -> tuple[str, ...]:
        """The folds of the cross-validation, without the fixed holdout splits' evaluations."""
        return self.folds[: len(self.folds) - len(self.fixed)]

    @property
    def forward_chaining(self) -> bool:
        """Whether the cross-validation is a forecast's: no fold trains on rows a later fold holds out, and some
        fold trains on rows an earlier one held out (TimeSeriesSplit, `scheme: rolling`)."""
        import numpy as np

        n = len(self.cv_folds)
        if n < 2:
            return False
        roles = np.asarray(self.roles)[:, :n]
        held = roles == FoldRole.HOLDOUT
        trained = roles == FoldRole.TRAIN
        # Per pattern, the last fold it trains in and the first it is held out in (folds in order).
        last_train = np.where(trained.any(axis=1), n - 1 - np.argmax(trained[:, ::-1], axis=1), -1)
        first_held = np.where(held.any(axis=1), np.argmax(held, axis=1), n)
        last_held = np.where(held.any(axis=1), n - 1 - np.argmax(held[:, ::-1], axis=1), -1)
        later_held = (trained & (np.arange(n) < last_held[:, None])).any()
        return not bool(later_held) and bool((last_train > first_held).any())

    def of(self, pattern: str) -> np.ndarray:
        """The roles of a pattern in every fold."""
        import numpy as np

        return np.asarray(self.roles[self.patterns.index(pattern)])

    def matrices(self, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(splits, folds) booleans for ``names``: holdout in the fold, train in the fold."""
        import numpy as np

        index = {p: i for i, p in enumerate(self.patterns)}
        rows = np.array([index.get(n, -1) for n in names], dtype=np.int64)
        roles = np.vstack([self.roles, np.zeros((1, len(self.folds)), dtype=self.roles.dtype)])[rows]
        return roles == FoldRole.HOLDOUT, roles == FoldRole.TRAIN


@dataclass(frozen=True)
class SplitRoles:
    train: frozenset[str]
    holdout: frozenset[str]
    allowed: frozenset[frozenset[str]]
    declared: tuple[str, ...] = ()
    folds: FoldLayout | None = None

    @classmethod
    def from_config(
        cls, spec: SplitsSpec, observed: list[str], folds: FoldLayout | None = None, named: Sequence[str] = ()
    ) -> SplitRoles:
        """The roles the config gives; ``named`` are splits the manifest names without rows of theirs (a file of
        `manifest.paths` that holds only a header): declared all the same, so a holdout of them is one with no
        rows, not a split that does not exist."""
        if folds is not None:
            return cls._of_folds(spec, folds)
        observed = [*observed, *(n for n in named if n not in observed)]
        train = frozenset(spec.train)
        holdout = (
            frozenset(spec.holdout) if spec.holdout is not None else frozenset(s for s in observed if s not in train)
        )
        allowed = frozenset(frozenset(pair) for pair in spec.allow)
        declared = tuple(dict.fromkeys([*spec.train, *(spec.holdout or [s for s in observed if s in holdout])]))
        return cls(train, holdout, allowed, declared)

    @classmethod
    def _of_folds(cls, spec: SplitsSpec, folds: FoldLayout) -> SplitRoles:
        # A pattern never a holdout is a train split; a fixed holdout split beside the folds (judged on its own)
        # or one that is the holdout of every fold a holdout split; the others are cross-validation rows.
        holdout_in = (folds.roles == FoldRole.HOLDOUT).sum(axis=1)
        train = frozenset(p for p, h in zip(folds.patterns, holdout_in, strict=True) if h == 0)
        every = frozenset(p for p, h in zip(folds.patterns, holdout_in, strict=True) if h == len(folds.folds))
        holdout = every | frozenset(folds.fixed)
        allowed = frozenset(frozenset(pair) for pair in spec.allow)
        return cls(train, holdout, allowed, folds.patterns, folds)

    def role(self, split: str) -> str:
        if split in self.train:
            return "train"
        if split in self.holdout:
            return "holdout"
        if self.folds is not None and split in self.folds.patterns:
            return "fold"
        return "unknown"

    def sides_without(self, names: Sequence[str], missing: Sequence[int], rows: Sequence[int]) -> list[str]:
        """The sides of the split ('train', 'holdout') that have rows, every one of them ``missing`` a value (per
        split, as ``rows``): a key that cannot see a side checks nothing there. Per fold, not said."""
        if self.folds is not None:
            return []
        sides = []
        for side in ("train", "holdout"):
            at = [i for i, n in enumerate(names) if self.role(n) == side and int(rows[i])]
            if at and all(int(missing[i]) == int(rows[i]) for i in at):
                sides.append(side)
        return sides

    def pair(self, a: str, b: str) -> PairKind:
        if frozenset((a, b)) in self.allowed:
            return PairKind.ALLOWED
        if self.folds is not None:
            return list(PairKind)[int(self.fold_kinds([a, b])[0, 1])]
        roles = {self.role(a), self.role(b)}
        if "unknown" in roles:
            return PairKind.UNKNOWN
        if roles == {"train", "holdout"}:
            return PairKind.TRAIN_HOLDOUT
        if roles == {"holdout"}:
            return PairKind.HOLDOUT_HOLDOUT
        return PairKind.TRAIN_TRAIN

    def fold_kinds(self, names: list[str]) -> np.ndarray:
        """(splits x splits) indices into list(PairKind) for patterns: train-holdout when one is the holdout and the
        other trains in some fold; else holdout-holdout when both are the holdout of one fold; else train-train.
        Pairs in splits.allow are not applied here."""
        import numpy as np

        assert self.folds is not None
        holdout, train = (m.astype(np.int64) for m in self.folds.matrices(names))
        leak = (holdout @ train.T + train @ holdout.T) > 0
        fixed = np.array([n in self.folds.fixed for n in names], dtype=bool)
        # Two fixed holdout splits are each judged alone, and still two evaluations that should be independent.
        both = ((holdout @ holdout.T) > 0) | (fixed[:, None] & fixed[None, :])
        known = np.array([n in self.folds.patterns for n in names], dtype=bool)
        kinds = np.where(leak, 0, np.where(both, 1, 2))
        kinds[~known, :] = 4
        kinds[:, ~known] = 4
        return kinds

    def involves_holdout(self, a: str, b: str) -> bool:
        """Whether the pair touches a split the model is evaluated on: exempting it can hide a leak."""
        return bool({"holdout", "fold"} & {self.role(a), self.role(b)})

    def order(self, names: list[str]) -> list[str]:
        """Train splits first, then holdout, then the rest; declared order kept within each role."""
        rank = {"train": 0, "fold": 1, "holdout": 1, "unknown": 2}
        position = {s: i for i, s in enumerate(self.declared)}
        return sorted(names, key=lambda s: (rank[self.role(s)], position.get(s, len(position)), s))
