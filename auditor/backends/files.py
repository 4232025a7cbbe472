"""A manifest whose rows stay in their Parquet files: the checks made before reading, and the reads by row.

Both engines that do not hold the table (DuckDB on one machine, Dask on a cluster) start from the same
list of files and row groups, checked once with the in-memory engine's messages, and read the few rows a
finding names straight from the row groups that hold them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from auditor.core.config import LoadedConfig
from auditor.core.errors import ManifestError, StageInputError
from auditor.manifest.readers import MissingColumnsError, detect_format, missing_columns, parquet_schema
from auditor.manifest.table import (
    SPLIT_COLUMN,
    Manifest,
    check_id_type,
    check_scalar_columns,
    explain_missing,
    manifest_groups,
)


@dataclass(frozen=True)
class Source:
    """One manifest file: where its rows start in the whole manifest and, with `paths`, its split."""

    path: Path
    offset: int
    rows: int
    split: str | None
    row_groups: tuple[int, ...]  # first row of each row group, relative to the file


@dataclass(frozen=True)
class ParquetManifestFiles:
    """The checked files of a manifest, the columns to read and their one type across files."""

    sources: tuple[Source, ...]
    columns: tuple[str, ...]
    types: dict[str, pa.DataType]
    split_column: str | None
    id_column: str | None


def parquet_sources(loaded: LoadedConfig, engine: str) -> ParquetManifestFiles:
    """Every file of the config's manifest, checked as load_manifest checks it (columns, types, rows),
    from the Parquet metadata alone; ``engine`` names the engine in the messages."""
    spec = loaded.config.manifest
    if spec is None:
        raise ManifestError("the config has no `manifest` section")
    named = loaded.config.manifest_columns()
    groups, columns = manifest_groups(loaded)
    sources: list[Source] = []
    types: dict[str, pa.DataType] = {}
    offset = 0
    for split, files in groups:
        for f in files:
            kind = spec.format or detect_format(f)
            if kind != "parquet":
                raise ManifestError(
                    f"{f}: the {engine} engine reads Parquet manifests, and this file is "
                    f"{kind or 'of no known format'}; "
                    "convert it to Parquet (one pass, e.g. with DuckDB or pyarrow) or audit it with --engine memory"
                )
            schema = parquet_schema(f)
            try:
                missing_columns(f, schema.names, columns)
            except MissingColumnsError as exc:
                raise ManifestError(explain_missing(exc, named, loaded)) from None
            for c in columns:
                t = schema.field(c).type
                if types.setdefault(c, t) != t:
                    raise ManifestError(
                        f"{f}: column '{c}' holds {t} values, but {types[c]} in {sources[0].path}; the {engine} "
                        "engine needs one type per column in every file (or audit with --engine memory)"
                    )
            meta = pq.ParquetFile(f).metadata
            starts = np.cumsum([0] + [meta.row_group(i).num_rows for i in range(meta.num_row_groups)])[:-1]
            sources.append(Source(f, offset, meta.num_rows, split, tuple(int(s) for s in starts)))
            offset += meta.num_rows
    if offset == 0:
        where = ", ".join(str(s.path) for s in sources[:3])
        raise ManifestError(f"{where}: the manifest has no rows; there is nothing to audit")
    empty = pa.schema([pa.field(c, types[c]) for c in columns]).empty_table()
    check_scalar_columns(empty, list(named), [s.path for s in sources])
    if spec.id is not None:
        check_id_type(empty, spec.id, [s.path for s in sources])
    return ParquetManifestFiles(tuple(sources), tuple(columns), types, spec.split, spec.id)


class FileManifest(Manifest):
    """A Manifest without a table: whole columns and named rows are read from the files on demand."""

    def __init__(self, files: ParquetManifestFiles, roots: Sequence[Path], engine: str) -> None:
        self._sources = files.sources
        self._types = files.types
        self._split_column = files.split_column
        self._engine_flag = engine
        self._rows = sum(s.rows for s in files.sources)
        super().__init__(None, [s.path for s in files.sources], files.id_column, roots)

    @property
    def table(self) -> pa.Table:
        raise StageInputError(
            "this stage needs the whole manifest in memory, but it was audited out of core "
            f"(--engine {self._engine_flag}); run it with --engine memory on a machine with enough memory, "
            "or leave it out with --only"
        )

    @property
    def n_rows(self) -> int:
        return self._rows

    def column(self, name: str) -> pa.ChunkedArray:
        return self._read_column(name)

    def take(self, name: str, rows: Sequence[int] | np.ndarray) -> pa.Array:
        wanted = np.asarray(rows, dtype=np.int64)
        if not len(wanted):
            return pa.array([], self._arrow_type(name))
        order = np.argsort(wanted, kind="stable")
        ordered = wanted[order]
        pieces: list[pa.Array] = []
        for source in self._sources:
            lo, hi = np.searchsorted(ordered, [source.offset, source.offset + source.rows])
            if lo == hi:
                continue
            local = ordered[lo:hi] - source.offset
            if name == SPLIT_COLUMN and source.split is not None:
                pieces.append(pa.array([source.split] * len(local), pa.string()))
                continue
            reader = pq.ParquetFile(source.path)
            starts = np.asarray(source.row_groups, dtype=np.int64)
            group_of = np.searchsorted(starts, local, side="right") - 1
            # ``local`` ascends, so each row group's rows are one slice of it.
            bounds = np.searchsorted(group_of, np.arange(len(starts) + 1))
            for g in np.unique(group_of):
                in_group = local[bounds[g] : bounds[g + 1]] - starts[g]
                column = reader.read_row_group(int(g), columns=[self._file_column(name)]).column(0)
                pieces.append(column.take(pa.array(in_group)).combine_chunks())
        taken = concat_arrays(pieces)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        return taken.take(pa.array(inverse))

    def _arrow_type(self, name: str) -> pa.DataType:
        return pa.string() if name == SPLIT_COLUMN else self._types[name]

    def _file_column(self, name: str) -> str:
        if name == SPLIT_COLUMN:
            assert self._split_column is not None
            return self._split_column
        return name

    def _read_column(self, name: str) -> pa.ChunkedArray:
        """A whole column as the in-memory engine reads it (the split column dictionary-encoded)."""
        chunks: list[pa.Array] = []
        for source in self._sources:
            if name == SPLIT_COLUMN and source.split is not None:
                constant = pa.DictionaryArray.from_arrays(
                    np.zeros(source.rows, dtype=np.int32), pa.array([source.split], pa.string())
                )
                chunks.append(constant)
                continue
            column = self._file_column(name)
            as_dict = [column] if name == SPLIT_COLUMN and is_text(self._types.get(column)) else None
            table = pq.read_table(source.path, columns=[column], read_dictionary=as_dict, pre_buffer=False)
            chunks.extend(table.column(0).chunks)
        if name == SPLIT_COLUMN and any(pa.types.is_dictionary(c.type) for c in chunks):
            table = pa.table({"c": pa.chunked_array(chunks)}).unify_dictionaries()
            return table["c"]
        return pa.chunked_array(chunks, chunks[0].type) if chunks else pa.chunked_array([], self._arrow_type(name))


def concat_arrays(pieces: list[pa.Array]) -> pa.Array:
    """One array of pieces read from different files (dictionary pieces decoded: their dictionaries differ)."""
    if len(pieces) == 1:
        return pieces[0]
    if any(pa.types.is_dictionary(p.type) for p in pieces):
        pieces = [p.dictionary_decode() if pa.types.is_dictionary(p.type) else p for p in pieces]
    return pa.concat_arrays(pieces)


def is_text(t: pa.DataType | None) -> bool:
    return t is not None and (pa.types.is_string(t) or pa.types.is_large_string(t))
