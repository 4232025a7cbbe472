"""Rows linked by shared key values, as shared_upstream asks for them: per-component figures, the first rows a
finding names and the chains between two splits. The stage never holds a per-row array itself, so an engine
on a cluster can keep the rows' codes and labels on its workers (backends/linkedpieces.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import pyarrow as pa

from auditor.manifest.components import Components, Spelled, Step, chains
from auditor.manifest.keycodes import CODE, KeyCodes
from auditor.manifest.spelling import Variants

_BLOCK_ROWS = 1 << 21  # rows per pass below: each pass's temporaries (a sort in first_rows) stay near 100 MB


class LinkedRows(Protocol):
    """Components of two rows or more (numbered by first row) of the rows linked by any shared key value."""

    @property
    def key_names(self) -> list[str]: ...

    @property
    def sizes(self) -> np.ndarray:
        """Rows per component."""
        ...

    def split_counts(self, n_splits: int) -> np.ndarray:
        """Rows per (component, split code)."""
        ...

    def first_rows(self, components: np.ndarray) -> list[int]:
        """The first row of each of ``components`` (ascending)."""
        ...

    def first_in(self, component: int, codes: Sequence[int]) -> dict[int, int | None]:
        """The first row of ``component`` in each split code of ``codes`` (None: none there)."""
        ...

    def rows_of(self, components: np.ndarray, codes: Sequence[int]) -> np.ndarray:
        """Every row (ascending) of ``components`` whose split code is one of ``codes``."""
        ...

    def chains(self, start: int, wanted: Sequence[int]) -> dict[int, list[Step]]:
        """The shortest row / key-value chain from row ``start`` to a row of each split code in ``wanted`` it
        reaches (components.chains); a hop through a value the two rows spell differently names both spellings."""
        ...


class RowLinks:
    """LinkedRows over per-row codes and labels held here; ``spelled`` (per key, or none) names the values that
    are one value spelled several ways, which link their rows as one value does."""

    def __init__(
        self, keys: Sequence[KeyCodes], comps: Components, split: np.ndarray, spelled: Sequence[Spelled | None] = ()
    ) -> None:
        self.keys, self.comps, self.split, self.spelled = list(keys), comps, split, list(spelled)

    @property
    def key_names(self) -> list[str]:
        return [k.name for k in self.keys]

    @property
    def sizes(self) -> np.ndarray:
        return self.comps.sizes

    def split_counts(self, n_splits: int) -> np.ndarray:
        """Counted a block of rows at a time."""
        of_row, split = self.comps.of_row, self.split
        counts = np.zeros(len(self.comps.sizes) * n_splits, dtype=np.int64)
        for lo in range(0, len(split), _BLOCK_ROWS):
            label, code = of_row[lo : lo + _BLOCK_ROWS], split[lo : lo + _BLOCK_ROWS]
            linked = (label >= 0) & (code >= 0)
            counts += np.bincount(label[linked].astype(np.int64) * n_splits + code[linked], minlength=len(counts))
        return counts.reshape(len(self.comps.sizes), n_splits)

    def first_rows(self, components: np.ndarray) -> list[int]:
        of_row = self.comps.of_row
        position = np.full(int(of_row.max()) + 2 if len(of_row) else 1, -1, dtype=np.int64)
        position[components] = np.arange(len(components))
        first = np.full(len(components), -1, dtype=np.int64)
        for lo in range(0, len(of_row), _BLOCK_ROWS):
            at = position[of_row[lo : lo + _BLOCK_ROWS]]  # a row without a component (-1) reads the last slot: -1
            wanted = np.flatnonzero(at >= 0)
            if not len(wanted):
                continue
            found, index = np.unique(at[wanted], return_index=True)
            fresh = first[found] < 0
            first[found[fresh]] = lo + wanted[index[fresh]]
            if (first >= 0).all():
                break
        return [int(r) for r in first]

    def first_in(self, component: int, codes: Sequence[int]) -> dict[int, int | None]:
        """A block at a time, stopping when every split has its row."""
        of_row, split = self.comps.of_row, self.split
        found: dict[int, int | None] = dict.fromkeys(codes)
        for lo in range(0, len(split), _BLOCK_ROWS):
            here = of_row[lo : lo + _BLOCK_ROWS] == component
            for code in [c for c, row in found.items() if row is None]:
                rows = np.flatnonzero(here & (split[lo : lo + _BLOCK_ROWS] == code))
                if len(rows):
                    found[code] = lo + int(rows[0])
            if all(row is not None for row in found.values()):
                break
        return found

    def rows_of(self, components: np.ndarray, codes: Sequence[int]) -> np.ndarray:
        """A block of rows at a time, each row's component and split looked up in a table (-1 reads its last slot)."""
        of_row, split = self.comps.of_row, self.split
        wanted = np.zeros(len(self.comps.sizes) + 1, dtype=bool)
        wanted[np.asarray(components, dtype=np.int64)] = True
        in_split = np.zeros(int(split.max(initial=-1)) + 2, dtype=bool)
        in_split[[c for c in codes if 0 <= c < len(in_split) - 1]] = True
        found = [
            lo + np.flatnonzero(wanted[of_row[lo:hi]] & in_split[split[lo:hi]])
            for lo, hi in ((lo, lo + _BLOCK_ROWS) for lo in range(0, len(split), _BLOCK_ROWS))
        ]
        return np.concatenate([np.zeros(0, dtype=np.int64), *found]).astype(np.int64, copy=False)

    def chains(self, start: int, wanted: Sequence[int]) -> dict[int, list[Step]]:
        return chains(self.keys, start, self.split, wanted, self.spelled)


def variant_codes(
    codes_at: np.ndarray, group: np.ndarray, n_values: int
) -> tuple[np.ndarray, np.ndarray, Spelled | None]:
    """The rows of a key that hold a spelling variant, given each one's code of the key (``codes_at``) and its
    spelling group: the positions among them whose value the key left out (-1: no other row holds it as written),
    the new code each of those gets (after the key's ``n_values``), and the groups the codes then form."""
    lone = np.flatnonzero(np.asarray(codes_at) < 0)
    codes = np.asarray(codes_at, dtype=np.int64).copy()
    new = n_values + np.arange(len(lone), dtype=np.int64)
    codes[lone] = new
    return lone, new, Spelled.of(codes, group)


def with_variant_rows(
    key: KeyCodes, variants: Variants, take: Callable[[np.ndarray], pa.Array]
) -> tuple[KeyCodes, Spelled | None]:
    """A key that keeps only repeated values (Manifest.shared_key; its codes are the caller's own, changed here)
    with the rows of ``variants`` (row positions) coded too: a value one row holds still links it to the rows of
    its other spellings. ``take`` gives the column's values at some rows, to name the values added."""
    rows = variants.positions
    lone, new, spelled = variant_codes(key.codes[rows], variants.group, key.n_values)
    if not len(lone):
        return key, spelled
    codes = key.codes
    codes[rows[lone]] = new.astype(CODE)
    labels = _joined(key.parts[0][1] if key.parts else pa.array([], pa.string()), take(rows[lone]))
    return KeyCodes(key.name, key.columns, codes, ((np.arange(len(labels)), labels),)), spelled


def _joined(values: pa.Array | pa.ChunkedArray, more: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Two arrays of values end to end, as text if their types differ (they only name values)."""
    left = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    right = more.combine_chunks() if isinstance(more, pa.ChunkedArray) else more
    if left.type != right.type:
        left, right = left.cast(pa.string()), right.cast(pa.string())
    return pa.concat_arrays([left, right])
