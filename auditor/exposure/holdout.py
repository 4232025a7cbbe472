"""Sketches of a manifest's splits, from the content the config names, else from the sample ids."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa

from auditor.core.config import AuditConfig
from auditor.exposure.fingerprint import Basis, DigestForm, SetSketch, SketchBuilder, row_hashes, sketch
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


def split_sketches(
    manifest: Manifest,
    config: AuditConfig,
    base_dir: Path,
    splits: list[str],
    cache_dir: str | None = None,
    probes: np.ndarray | None = None,
    form: DigestForm = "bare",
) -> dict[str, SetSketch]:
    """The sketch of each named split (splits absent from the manifest are left out), from one pass over the
    rows: a read per split would read the identity column of an out-of-core manifest once per split. Each
    sketch also says which of ``probes`` (the rows of small ledger sets) its split holds; ``form``: how
    content digests are hashed (fingerprint.row_hashes)."""
    found = basis_of(config)
    if found is None:
        return {}
    basis, _ = found
    codes = {split: code for split in splits if (code := manifest.split.find(split)) is not None}
    keys = config.keys
    if keys.content_path is not None:  # digests of files: made here, for every row
        per_row, _, _ = manifest.content_digests(keys.content_path, cache_dir_from(cache_dir, base_dir))
        split = manifest.split.codes
        return {
            s: sketch(row_hashes(per_row.filter(pa.array(split == c)), basis, form), basis, probes)
            for s, c in codes.items()
        }
    column = keys.content_hash if keys.content_hash is not None else manifest.id_column
    assert column is not None
    return _column_sketches(manifest, column, basis, codes, probes, form)


def id_sketches(
    manifest: Manifest, config: AuditConfig, splits: list[str], probes: np.ndarray | None = None
) -> dict[str, SetSketch]:
    """The sketch of each named split by its sample ids, whatever the config names as content; empty without
    ids. Sets recorded by ids before the config named content are still these sets (see test_exposure)."""
    if config.manifest is None or config.manifest.id is None or manifest.id_column is None:
        return {}
    codes = {split: code for split in splits if (code := manifest.split.find(split)) is not None}
    return _column_sketches(manifest, manifest.id_column, "ids", codes, probes)


def _column_sketches(
    manifest: Manifest,
    column: str,
    basis: Basis,
    codes: dict[str, int],
    probes: np.ndarray | None,
    form: DigestForm = "bare",
) -> dict[str, SetSketch]:
    """The sketch of each split (by code) from one pass over ``column``'s distinct hashes."""
    # Stay in Arrow: a Python object per row would cost more than hashing it. An engine on a cluster hashes
    # on its workers, so only the hashes come back.
    built = {c: SketchBuilder(basis, probes) for c in codes.values()}
    for block in manifest.ascending_distinct(column, list(codes.values()), partial(row_hashes, basis=basis, form=form)):
        for code, hashes in block.items():
            built[code].add(hashes)
    return {s: built[c].sketch() for s, c in codes.items()}
