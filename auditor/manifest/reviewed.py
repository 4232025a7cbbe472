"""Values a review took out of the links between rows: a group value accepted as shared on purpose links no rows,
and spellings accepted as different values stay apart. shared_upstream links rows through what group_overlap
and its own spelling check did not accept, so an accepted value does not fail the audit again as a link."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditor.manifest.keycodes import CODE, KeyCodes
from auditor.manifest.spelling import Variants


@dataclass(frozen=True)
class Reviewed:
    """What a review of one key column accepted: ``unlinked``, values as reports name them, link no rows;
    ``unmerged``, spelling groups by their normal form, are each spelling a value of its own."""

    unlinked: tuple[str, ...] = ()
    unmerged: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.unlinked or self.unmerged)


NONE = Reviewed()


def unlinked_codes(key: KeyCodes, reviewed: Reviewed) -> np.ndarray:
    """The codes of the values ``reviewed`` unlinks that ``key`` holds, ascending."""
    found = (key.find(value) for value in reviewed.unlinked)
    return np.unique(np.array([c for c in found if c is not None], dtype=np.int64))


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


def typed_values(labels: Iterable[str], type_: pa.DataType) -> pa.Array:
    """Values named as reports name them, as values of a column of type ``type_`` (one that is no such value, as
    `x` of a column of numbers, is left out: no row holds it)."""
    kept = []
    for label in labels:
        try:
            kept.append(pa.array([label], pa.string()).cast(type_)[0])
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return pa.array(kept, type_)
