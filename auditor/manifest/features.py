"""Which manifest columns are features: the ones `keys.features` lists, or under `auto` every column the config
names in no other role (so an id, split, key, label or time column is never mistaken for a feature)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from auditor.core.config import AuditConfig

# Columns the auditor itself adds to a manifest's table (the split code); never a user's feature.
_INTERNAL_PREFIX = "__"


def wants_all_columns(config: AuditConfig) -> bool:
    """True when the reader must read every column of the manifest, not only those the config names."""
    return config.keys.features == "auto"


def feature_columns(config: AuditConfig, available: Sequence[str]) -> list[str]:
    """The feature columns among ``available`` (a file's or a table's columns), in the file's order."""
    features = config.keys.features
    if features is None:
        return []
    if isinstance(features, list):
        return [c for c in features if c in available]
    named = set(config.manifest_columns())
    return [c for c in available if c not in named and not c.startswith(_INTERNAL_PREFIX)]


def columns_to_read(config: AuditConfig, named: Sequence[str], first_file: Path | None, fmt: str | None) -> list[str]:
    """``named`` plus, under `keys.features: auto`, the other columns of the manifest's first file."""
    if not wants_all_columns(config) or first_file is None:
        return list(named)
    from auditor.manifest.readers import column_names

    extra = feature_columns(config, column_names(first_file, fmt))
    return [*named, *(c for c in extra if c not in named)]
