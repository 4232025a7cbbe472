"""How much memory a manifest's projected columns take, estimated from file metadata before reading it."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from auditor.core.config import LoadedConfig
from auditor.core.errors import AuditError
from auditor.manifest.readers import column_names, detect_format
from auditor.manifest.table import manifest_files


def projected_bytes(loaded: LoadedConfig) -> int | None:
    """Bytes of the columns the config names, uncompressed (Parquet metadata; for text formats the file size
    scaled by the share of named columns); None when a file cannot be sized (reading it will say why)."""
    spec = loaded.config.manifest
    if spec is None:
        return None
    wanted = set(loaded.config.manifest_columns())
    total = 0
    try:
        for f in manifest_files(loaded):
            total += _file_bytes(f, spec.format or detect_format(f), wanted)
    except (AuditError, OSError, ValueError):
        return None
    return total


def _file_bytes(path: Path, kind: str | None, wanted: set[str]) -> int:
    if kind == "parquet":
        meta = pq.ParquetFile(path).metadata
        names = [meta.schema.column(i).path.split(".")[0] for i in range(meta.num_columns)]
        return sum(
            meta.row_group(g).column(i).total_uncompressed_size
            for g in range(meta.num_row_groups)
            for i, name in enumerate(names)
            if name in wanted
        )
    size = path.stat().st_size
    if kind in ("csv", "tsv"):
        names = column_names(path, kind)
        return size * max(1, len(wanted & set(names))) // max(1, len(names))
    return size
