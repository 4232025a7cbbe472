"""Scopes of many subsets of one key's values (a finding per fold), each value's spelling normalised once.

scope_of normalises every value it is given, one Python call per value; k folds naming most of a key's
values would do that k times over. Here the values are screened byte-wise for those that might not be
their own normal form (manifest/spelling.py's screen, plus any whitespace, which the scope's spelling
collapses), only those are normalised in Python, and the normal forms are ranked once with Arrow; each
subset's scope is then array work, the same Scope as scope_of gives, bit for bit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.scope import MAX_LISTED, Scope, digested_scope, normalise_spelling
from auditor.core.spelling import WHITESPACE
from auditor.manifest.keycodes import KeyCodes
from auditor.manifest.spelling import maybe_changed

# Any ASCII whitespace: a value holding one may change when inner spaces collapse (non-ASCII is screened already).
_SPACE = "[" + "".join(f"\\x{ord(c):02x}" for c in WHITESPACE if ord(c) < 128) + "]"
# What json.dumps(ensure_ascii=False) escapes in a string: control characters, the quote and the backslash.
_JSON_ESCAPED = r'[\x00-\x1f"\\]'


@dataclass(frozen=True, eq=False)
class KeyScopes:
    """The covered values of a key (ascending codes), their labels, and the rank of each one's normal form."""

    codes: np.ndarray
    labels: pa.Array  # string: the label of each covered value, as KeyCodes.labels writes it
    rank: np.ndarray  # per covered value, its normal form's position among the distinct ones, sorted
    quoted: pa.Array  # string: each distinct normal form, sorted, as a JSON string (set_digest's list items)
    position: np.ndarray  # per value of the key, its place among the covered values (-1: not covered)

    @classmethod
    def of(cls, key: KeyCodes, codes: np.ndarray) -> KeyScopes:
        """Ready to scope any subset of ``codes`` (values of ``key``)."""
        codes = np.asarray(codes, dtype=np.int64)
        if not (np.diff(codes) > 0).all():
            codes = np.unique(codes)
        labels = _labels(key, codes)
        normals = _respelled(labels, maybe_changed(labels), _SPACE, normalise_spelling)
        # UTF-8 bytes sort as their code points do, which is how Python sorts str; equal neighbours are one
        # normal form (a sort and a compare: hashing millions of distinct texts costs more).
        order = np.asarray(pc.sort_indices(normals), dtype=np.int64)
        ordered = normals.take(pa.array(order, pa.int64()))
        new = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            same = pc.equal(ordered.slice(1), ordered.slice(0, len(order) - 1))
            new[1:] = ~same.to_numpy(zero_copy_only=False)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.cumsum(new) - 1
        distinct = ordered.filter(pa.array(new))
        quoted = _respelled(distinct, np.zeros(0, dtype=np.int64), _JSON_ESCAPED, _json_string, quote=True)
        position = np.full(key.n_values, -1, dtype=np.int64)
        position[codes] = np.arange(len(codes), dtype=np.int64)
        return cls(codes, labels, rank, quoted, position)

    def scope(self, codes: np.ndarray, counts: dict[str, int] | None = None) -> Scope:
        """scope_of(key.labels(codes), counts) for covered ``codes``; each normal form keeps the spelling of
        its first value in the order given."""
        codes = np.asarray(codes, dtype=np.int64)
        at = self.position[codes] if len(codes) else np.zeros(0, dtype=np.int64)
        assert not len(at) or int(at.min()) >= 0, "uncovered"
        rank = self.rank[at]
        present = np.zeros(len(self.quoted), dtype=bool)
        present[rank] = True
        ranks = np.flatnonzero(present)
        if not len(ranks):
            return digested_scope(0, None, [], counts)
        spellings: list[str] = []
        if len(ranks) <= MAX_LISTED:
            # The first value given of each normal form, without sorting the values: the lowest position per rank.
            first = np.full(len(self.quoted), len(at), dtype=np.int64)
            np.minimum.at(first, rank, np.arange(len(at), dtype=np.int64))
            spellings = self.labels.take(pa.array(at[first[ranks]])).to_pylist()
        # set_digest's bytes: json.dumps of the sorted list is "[" + ", ".join(its JSON strings) + "]".
        items = self.quoted.take(pa.array(ranks)).cast(pa.large_string())  # the joined text may pass 2 GB
        whole = pa.LargeListArray.from_arrays(pa.array([0, len(items)], pa.int64()), items)
        joined = pc.binary_join(whole, pa.scalar(", ", pa.large_string()))[0]
        digest = hashlib.sha256(b"[")
        digest.update(joined.as_buffer())  # Arrow's bytes, not a copy
        digest.update(b"]")
        return digested_scope(len(ranks), digest.hexdigest(), spellings, counts)


def _respelled(
    texts: pa.Array, changed: np.ndarray, pattern: str, respell: Callable[[str], str], quote: bool = False
) -> pa.Array:
    """``texts`` with each one at ``changed`` or matching ``pattern`` passed through ``respell`` in Python; every
    other one as it is (or, with ``quote``, in double quotes): the byte screens keep the Python calls few."""
    flag = pc.match_substring_regex(texts, pattern).fill_null(False).to_numpy(zero_copy_only=False).copy()
    flag[changed] = True
    plain = pc.binary_join_element_wise('"', texts, '"', "") if quote else texts
    if not flag.any():
        return plain
    mask = pa.array(flag)
    fixed = [respell(t) for t in texts.filter(mask).to_pylist()]
    return pc.replace_with_mask(plain, mask, pa.array(fixed, pa.string()))


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _labels(key: KeyCodes, codes: np.ndarray) -> pa.Array:
    """KeyCodes.labels(codes) as one string array: taken in Arrow for a text key, else written in Python."""
    if len(key.parts) == 1 and pa.types.is_string(key.parts[0][1].type) and (codes >= 0).all():
        index, values = key.parts[0]
        taken = values.take(pa.array(index[codes]))
        if not taken.null_count:
            return taken
    return pa.array(key.labels(codes), pa.string())
