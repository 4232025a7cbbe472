"""Values a review took out of the links between rows: a group value accepted as shared on purpose links no rows,
and spellings accepted as different values stay apart. shared_upstream links rows through what group_overlap
and its own spelling check did not accept, so an accepted value does not fail the audit again as a link."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.keycodes import CODE, KeyCodes
from auditor.manifest.spelling import Variants


@dataclass(frozen=True)
class Reviewed:
    """What a review of one key column accepted: ``unlinked``, values as reports write them (in any spelling
    of them), link no rows; ``unmerged``, spelling groups by their normal form, are each spelling a value of its
    own."""

    unlinked: tuple[str, ...] = ()
    unmerged: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.unlinked or self.unmerged)


NONE = Reviewed()


def unlinked_codes(key: KeyCodes, reviewed: Reviewed) -> np.ndarray:
    """The codes of the values ``reviewed`` unlinks, in any spelling that names them (`CALIB` names `calib`,
    `7.0` names 7; `1.1` does not name `1.10`), ascending."""
    if not reviewed.unlinked or not key.n_values:
        return np.zeros(0, dtype=np.int64)
    if len(key.parts) == 1:
        index, values = key.parts[0]
        hit = np.flatnonzero(named_in(values, reviewed.unlinked))
        return np.flatnonzero(np.isin(index, hit)).astype(np.int64)
    labels = pa.array(key.labels(np.arange(key.n_values)), pa.string())
    return np.flatnonzero(named_in(labels, reviewed.unlinked)).astype(np.int64)


def named_in(values: pa.Array | pa.ChunkedArray, named: Iterable[str]) -> np.ndarray:
    """Whether each of ``values`` is one of ``named`` in the spelling checks' normal form (a null is none)."""
    from auditor.manifest.spelling import normalise

    try:
        forms = normalise(values)
    except TypeError:  # numbers, times: named by their text, as reports write them
        forms = normalise(values.cast(pa.string()))
    wanted = normalise(pa.array(list(named), pa.string()))
    found = pc.fill_null(pc.is_in(forms, value_set=wanted.combine_chunks()), False)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool)


def without_codes(key: KeyCodes, codes: np.ndarray) -> KeyCodes:
    """``key`` with the rows of the values ``codes`` holding no value (their codes a copy: a key is shared)."""
    if not len(codes):
        return key
    held = key.codes.copy()
    held[np.isin(held, codes)] = -1
    return KeyCodes(key.name, key.columns, held.astype(CODE, copy=False), key.parts)


def kept_variants(variants: Variants, unmerged: Iterable[str], keep: np.ndarray | None = None) -> Variants:
    """``variants`` without the groups whose normal form is ``unmerged`` and the positions ``keep`` is False at;
    a group left with one position is no variant."""
    apart = set(unmerged)
    kept = np.array([n not in apart for n in variants.normal], dtype=bool)[variants.group]
    if keep is not None:
        kept &= keep
    if kept.all():
        return variants
    group = variants.group[kept]
    several = np.bincount(group, minlength=len(variants.normal)) > 1
    kept[kept] = several[group]
    old = np.flatnonzero(several)
    renumbered = np.searchsorted(old, variants.group[kept])  # groups stay in the order of their first position
    return Variants(variants.positions[kept], renumbered.astype(np.int64), [variants.normal[g] for g in old])
