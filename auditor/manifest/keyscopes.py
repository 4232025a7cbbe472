"""Scopes of many subsets of one key's values (a finding per fold), each value's spelling normalised once.

scope_of normalises every value it is given, one Python call per value; k folds naming most of a key's
values would do that k times over. Here the values are screened byte-wise for those that might not be
their own normal form (manifest/spelling.py's screen, plus any whitespace, which the scope's spelling
collapses), only those are normalised in Python, and the normal forms are ranked once with Arrow; each
subset's scope is then array work, the same Scope as scope_of gives, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.scope import MAX_LISTED, Scope, normalise_spelling, sorted_scope
from auditor.core.spelling import WHITESPACE
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.spelling import maybe_changed

# Any ASCII whitespace: a value holding one may change when inner spaces collapse (non-ASCII is screened already).
_SPACE = "[" + "".join(f"\\x{ord(c):02x}" for c in WHITESPACE if ord(c) < 128) + "]"


@dataclass(frozen=True, eq=False)
class KeyScopes:
    """The covered values of a key (ascending codes), their labels, and the rank of each one's normal form."""

    codes: np.ndarray
    labels: pa.Array  # string: the label of each covered value, as KeyCodes.labels writes it
    rank: np.ndarray  # per covered value, its normal form's position in ``normal``
    normal: pa.Array  # string: the distinct normal forms, sorted as scope_of sorts them (by code point)

    @classmethod
    def of(cls, key: KeyCodes, codes: np.ndarray) -> KeyScopes:
        """Ready to scope any subset of ``codes`` (values of ``key``)."""
        codes = np.unique(np.asarray(codes, dtype=np.int64))
        labels = _labels(key, codes)
        changed = np.zeros(len(labels), dtype=bool)
        changed[maybe_changed(labels)] = True
        changed |= pc.match_substring_regex(labels, _SPACE).fill_null(False).to_numpy(zero_copy_only=False)
        normals = labels
        if changed.any():
            respelled = [normalise_spelling(t) for t in labels.filter(pa.array(changed)).to_pylist()]
            normals = pc.replace_with_mask(labels, pa.array(changed), pa.array(respelled, pa.string()))
        encoded = normals.dictionary_encode()
        # UTF-8 bytes sort as their code points do, which is how Python sorts str.
        order = np.asarray(pc.sort_indices(encoded.dictionary), dtype=np.int64)
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        rank = position[np.asarray(encoded.indices, dtype=np.int64)] if len(order) else np.zeros(0, dtype=np.int64)
        return cls(codes, labels, rank, encoded.dictionary.take(pa.array(order, pa.int64())))

    def scope(self, codes: np.ndarray, counts: dict[str, int] | None = None) -> Scope:
        """scope_of(key.labels(codes), counts) for covered ``codes``; each normal form keeps the spelling of
        its first value in the order given."""
        codes = np.asarray(codes, dtype=np.int64)
        at = np.searchsorted(self.codes, codes)
        assert not len(at) or (at.max() < len(self.codes) and np.array_equal(self.codes[at], codes)), "uncovered"
        ranks, first = np.unique(self.rank[at], return_index=True)
        spellings = self.labels.take(pa.array(at[first])).to_pylist() if len(ranks) <= MAX_LISTED else []
        return sorted_scope(self.normal.take(pa.array(ranks)).to_pylist(), spellings, counts)


def _labels(key: KeyCodes, codes: np.ndarray) -> pa.Array:
    """KeyCodes.labels(codes) as one string array: taken in Arrow for a text key, else written in Python."""
    if len(key.parts) == 1 and pa.types.is_string(key.parts[0][1].type) and (codes >= 0).all():
        index, values = key.parts[0]
        taken = values.take(pa.array(index[codes]))
        if not taken.null_count:
            return taken
    return pa.array(key.labels(codes), pa.string())
