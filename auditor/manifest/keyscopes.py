"""Scopes of many subsets of one key's values (a finding per fold), each value's spelling normalised once.

scope_of normalises every value it is given; k folds naming most of a key's values would normalise each
of them k times, one Python call per value. Here the values are normalised and their normal forms ranked
once, and each subset's scope is then array work (the same Scope as scope_of, bit for bit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.core.scope import MAX_LISTED, Scope, normalise_spelling, sorted_scope
from auditor.manifest.keycodes import KeyCodes


@dataclass(frozen=True, eq=False)
class KeyScopes:
    """The covered values of a key (ascending codes), their labels, and the rank of each one's normal form."""

    codes: np.ndarray
    labels: np.ndarray  # object: the label of each covered value
    rank: np.ndarray  # per covered value, its normal form's position in ``normal``
    normal: np.ndarray  # object: the distinct normal forms, sorted as scope_of sorts them

    @classmethod
    def of(cls, key: KeyCodes, codes: np.ndarray) -> KeyScopes:
        """Ready to scope any subset of ``codes`` (values of ``key``)."""
        codes = np.unique(np.asarray(codes, dtype=np.int64))
        labels = key.labels(codes)
        normals = [normalise_spelling(t) for t in labels]
        distinct = sorted(set(normals))
        position = {n: i for i, n in enumerate(distinct)}
        rank = np.fromiter((position[n] for n in normals), dtype=np.int64, count=len(normals))
        return cls(codes, _objects(labels), rank, _objects(distinct))

    def scope(self, codes: np.ndarray, counts: dict[str, int] | None = None) -> Scope:
        """scope_of(key.labels(codes), counts) for covered ``codes``; each normal form keeps the spelling of
        its first value in the order given."""
        at = np.searchsorted(self.codes, np.asarray(codes, dtype=np.int64))
        assert not len(at) or (at.max() < len(self.codes) and np.array_equal(self.codes[at], codes)), "uncovered"
        ranks, first = np.unique(self.rank[at], return_index=True)
        spellings = self.labels[at[first]].tolist() if len(ranks) <= MAX_LISTED else []
        return sorted_scope(self.normal[ranks].tolist(), spellings, counts)


def _objects(texts: list[str]) -> np.ndarray:
    out = np.empty(len(texts), dtype=object)
    out[:] = texts
    return out
