"""A manifest whose rows are an Arrow table given in code: projected without a copy, checked like a file's.

Its digest (the report's manifest.sha256, where a file's is the sha256 of its bytes) is the sha256 of a
canonical Arrow IPC stream of the columns the config names, in the config's order (``manifest_columns``):
dictionaries decoded, text as large_string, binary as large_binary, no schema metadata, every field
nullable, in record batches of 65,536 rows. So the same rows give the same digest whatever the chunking,
the dictionary encoding or the DataFrame library that held them; another value, type or order does not.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc

from auditor.core.config import LoadedConfig
from auditor.core.errors import ManifestError
from auditor.core.source import TableSource
from auditor.manifest.features import auto_features
from auditor.manifest.readers import (
    MissingColumnsError,
    missing_columns,
    reject_split_columns,
    repeated_header_rows,
    variant_columns,
    without_views,
)
from auditor.manifest.table import (
    SPLIT_COLUMN,
    Manifest,
    check_id_type,
    check_scalar_columns,
    explain_missing,
    signed_dictionaries,
)

DIGEST_BATCH_ROWS = 1 << 16


class TableManifest(Manifest):
    """The in-memory Manifest of rows given in code; only its digest differs from a file's."""

    def _digest_files(self) -> str:
        assert self.source is not None
        return table_sha256(self.table.drop_columns([SPLIT_COLUMN]), self._stop)


def manifest_of_table(loaded: LoadedConfig, source: TableSource) -> Manifest:
    """The Manifest of ``source``'s rows: the named columns selected (no copy), the split column coded."""
    spec = loaded.config.manifest
    assert spec is not None and (spec.split is not None or spec.folds is not None)
    named = loaded.config.manifest_columns()
    table = source.table
    columns = list(named)
    columns += auto_features(loaded.config, table.schema, list(named))
    try:
        missing_columns(source.name, table.column_names, columns)
    except MissingColumnsError as exc:
        raise ManifestError(explain_missing(exc, named, loaded)) from None
    twice = sorted({c for c in table.column_names if table.column_names.count(c) > 1} & set(columns))
    if twice:
        raise ManifestError(f"{source.name}: column name '{twice[0]}' occurs twice; column names must be unique")
    variants = variant_columns(table.column_names, columns)
    if variants:
        reject_split_columns([table], variants, lambda row: f"{source.name}: row {row} (0-based)")
    projected = without_views(signed_dictionaries(table.select(columns).replace_schema_metadata(None)))
    if projected.num_rows == 0:
        raise ManifestError(f"{source.name}: the table has no rows; there is nothing to audit")
    reject_header_rows(source.name, projected, [c for c in columns if c not in source.made])
    layout = None
    if spec.folds is not None:  # the split code is each row's assignment pattern, as for a file (manifest/folds.py)
        from auditor.manifest.folds import fold_patterns

        patterns = fold_patterns(projected, spec, loaded.config.splits, loaded.locate, Path(source.name))
        projected, layout = projected.append_column(SPLIT_COLUMN, patterns.column()), patterns.layout
    else:
        assert spec.split is not None
        projected = projected.append_column(SPLIT_COLUMN, projected[spec.split])
    check_scalar_columns(projected, columns, [source.name], named)
    if spec.id is not None:
        check_id_type(projected, spec.id, [source.name])
    return TableManifest(
        projected, (), spec.id, loaded.allowed_roots, source=source, base_dir=loaded.base_dir, folds=layout
    )


def reject_header_rows(name: str, table: pa.Table, columns: list[str]) -> None:
    """ManifestError for rows that repeat the column names, as a CSV line that repeats the header is refused
    (pd.read_csv of concatenated files keeps each later header as a row; it would become a split named 'split')."""
    hits = repeated_header_rows(table, columns)
    if hits:
        rows = ", ".join(str(i) for i in hits[:5])
        raise ManifestError(
            f"{name}: row {hits[0]} (0-based) repeats the column names ({len(hits)} such row(s): {rows}); "
            "were files concatenated? remove the repeated header rows"
        )


def table_sha256(table: pa.Table, stop: threading.Event | None = None) -> str:
    """sha256 of ``table``'s canonical Arrow IPC stream (see the module's docstring)."""
    digest = hashlib.sha256()
    fields = [pa.field(f.name, _canonical_type(f.type), nullable=True) for f in table.schema]
    schema = pa.schema(fields)
    sink = _HashSink(digest)
    with ipc.new_stream(sink, schema) as writer:
        for start in range(0, table.num_rows, DIGEST_BATCH_ROWS):
            if stop is not None and stop.is_set():
                break
            window = table.slice(start, DIGEST_BATCH_ROWS)
            arrays = [_canonical(window[f.name]).combine_chunks() for f in table.schema]
            writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
    return digest.hexdigest()


def _canonical_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(t):
        return _canonical_type(t.value_type)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.large_string()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.large_binary()
    return t


def _canonical(column: pa.ChunkedArray) -> pa.ChunkedArray:
    target = _canonical_type(column.type)
    return column if column.type == target else column.cast(target)


class _HashSink:
    """A write-only file object that feeds what Arrow writes into a hash, so the stream is never held."""

    closed = False

    def __init__(self, digest: hashlib._Hash) -> None:
        self._digest = digest

    def write(self, data: bytes) -> int:
        self._digest.update(data)
        return len(data)

    def flush(self) -> None:
        pass

    def writable(self) -> bool:
        return True
