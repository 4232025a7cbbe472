"""Sketches of a manifest's splits, from the content the config names, else from the sample ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from auditor.core.config import AuditConfig
from auditor.exposure.fingerprint import Basis, SetSketch, row_hashes, sketch
from auditor.manifest.content import cache_dir_from
from auditor.manifest.table import Manifest


def basis_of(config: AuditConfig) -> tuple[Basis, str] | None:
    """What identifies a row: its content digest (column or files) or its sample id; None when neither."""
    keys = config.keys
    if keys.content_hash is not None:
        return "content", keys.content_hash
    if keys.content_path is not None:
        return "content", f"sha256({keys.content_path})"
    if config.manifest is not None and config.manifest.id is not None:
        return "ids", config.manifest.id
    return None


def row_identities(
    manifest: Manifest, config: AuditConfig, base_dir: Path, rows: np.ndarray, cache_dir: str | None = None
) -> pa.Array:
    """One identity string per given row (null where a file could not be read); only those rows are read."""
    keys = config.keys
    if keys.content_hash is not None:
        return manifest.take(keys.content_hash, rows)
    if keys.content_path is not None:
        per_row, _, _ = manifest.content_digests(keys.content_path, cache_dir_from(cache_dir, base_dir))
        return per_row.take(pa.array(rows))
    assert manifest.id_column is not None
    return manifest.take(manifest.id_column, rows)


def split_sketches(
    manifest: Manifest, config: AuditConfig, base_dir: Path, splits: list[str], cache_dir: str | None = None
) -> dict[str, SetSketch]:
    """The sketch of each named split (splits absent from the manifest are left out)."""
    found = basis_of(config)
    if found is None:
        return {}
    basis, _ = found
    codes = manifest.split.codes
    result: dict[str, SetSketch] = {}
    for split in splits:
        code = manifest.split.find(split)
        if code is None:
            continue
        # Stay in Arrow: a Python object per row would cost more than hashing it.
        identities = row_identities(manifest, config, base_dir, np.flatnonzero(codes == code), cache_dir)
        result[split] = sketch(row_hashes(identities, basis), basis)
    return result
