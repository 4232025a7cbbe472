"""Manifest rows given in code: an Arrow table that stands where the config's manifest files would be."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

# The validation context key that tells ManifestSpec its rows are given in code, so it names no file.
IN_CODE = "rows_in_code"


@dataclass(frozen=True)
class FoldOverlap:
    """Rows a splitter put in both the training and the holdout indices of one fold (row numbers of the table):
    what a fold column, one role per row, cannot say. The column holds them as holdout rows."""

    fold: str
    rows: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class TableSource:
    """The rows of a manifest held in memory (a DataFrame or Arrow table handed to auditor.audit).

    ``name`` is how messages cite it (``audit(data=…)``), ``kind`` what it was (``pandas.DataFrame``), for the
    report; the table is read as it is, never copied to a file.
    """

    table: pa.Table
    name: str
    kind: str
    overlaps: tuple[FoldOverlap, ...] = field(default=())  # from an sklearn-style splitter (auditor.audit_splitter)
    # Columns the auditor made, not the caller (a splitter's fold columns, a DatasetDict's split column): their
    # values were never beside a header, so a repeated header row is looked for in the others only.
    made: tuple[str, ...] = field(default=())
