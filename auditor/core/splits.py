"""What each split is for (train or holdout) and which split pairs a cross-split check must judge."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from auditor.core.config import SplitsSpec


class PairKind(StrEnum):
    """How an overlap between two splits is judged."""

    TRAIN_HOLDOUT = "train-holdout"  # a leak into the evaluation
    HOLDOUT_HOLDOUT = "holdout-holdout"  # evaluations that are not independent of each other
    TRAIN_TRAIN = "train-train"  # harmless: both may be learned from
    ALLOWED = "allowed"  # declared in splits.allow
    UNKNOWN = "unknown"  # at least one split has no declared role


@dataclass(frozen=True)
class SplitRoles:
    train: frozenset[str]
    holdout: frozenset[str]
    allowed: frozenset[frozenset[str]]
    declared: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, spec: SplitsSpec, observed: list[str]) -> SplitRoles:
        train = frozenset(spec.train)
        holdout = (
            frozenset(spec.holdout) if spec.holdout is not None else frozenset(s for s in observed if s not in train)
        )
        allowed = frozenset(frozenset(pair) for pair in spec.allow)
        declared = tuple(dict.fromkeys([*spec.train, *(spec.holdout or [s for s in observed if s in holdout])]))
        return cls(train, holdout, allowed, declared)

    def role(self, split: str) -> str:
        if split in self.train:
            return "train"
        if split in self.holdout:
            return "holdout"
        return "unknown"

    def pair(self, a: str, b: str) -> PairKind:
        if frozenset((a, b)) in self.allowed:
            return PairKind.ALLOWED
        roles = {self.role(a), self.role(b)}
        if "unknown" in roles:
            return PairKind.UNKNOWN
        if roles == {"train", "holdout"}:
            return PairKind.TRAIN_HOLDOUT
        if roles == {"holdout"}:
            return PairKind.HOLDOUT_HOLDOUT
        return PairKind.TRAIN_TRAIN

    def involves_holdout(self, a: str, b: str) -> bool:
        """Whether the pair touches a split the model is evaluated on: exempting it can hide a leak."""
        return "holdout" in (self.role(a), self.role(b))

    def order(self, names: list[str]) -> list[str]:
        """Train splits first, then holdout, then the rest; declared order kept within each role."""
        rank = {"train": 0, "holdout": 1, "unknown": 2}
        position = {s: i for i, s in enumerate(self.declared)}
        return sorted(names, key=lambda s: (rank[self.role(s)], position.get(s, len(position)), s))
