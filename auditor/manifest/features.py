"""Which manifest columns are features: the ones `keys.features` lists, or under `auto` every column the config
names in no other role (so an id, split, key, label or time column is never mistaken for a feature)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.core.config import AuditConfig

if TYPE_CHECKING:
    import pyarrow as pa

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


def holds_one_value(kind: pa.DataType) -> bool:
    """Whether a column of this Arrow type holds one text, number, flag or time per row, as a key or a feature
    must (not a list, struct or map, as token ids or an image are, nor raw bytes)."""
    import pyarrow as pa

    plain = kind.value_type if pa.types.is_dictionary(kind) else kind
    raw = (
        pa.types.is_binary(plain)
        or pa.types.is_large_binary(plain)
        or pa.types.is_fixed_size_binary(plain)
        or pa.types.is_binary_view(plain)
    )
    return not (pa.types.is_nested(plain) or raw)


def auto_features(config: AuditConfig, schema: pa.Schema, named: Sequence[str]) -> list[str]:
    """Under `keys.features: auto`, the columns of ``schema`` besides ``named`` that are features: those that
    hold one value per row (a tokenized dataset's input_ids or attention_mask is no feature the checks compare)."""
    if not wants_all_columns(config):
        return []
    kinds = dict(zip(schema.names, schema.types, strict=True))
    return [c for c in feature_columns(config, schema.names) if c not in named and holds_one_value(kinds[c])]


def columns_to_read(config: AuditConfig, named: Sequence[str], first_file: Path | None, fmt: str | None) -> list[str]:
    """``named`` plus, under `keys.features: auto`, the other columns of the manifest's first file that hold one
    value per row (a CSV's always do)."""
    if not wants_all_columns(config) or first_file is None:
        return list(named)
    from auditor.manifest.readers import column_types

    kinds = column_types(first_file, fmt)
    extra = [c for c, kind in kinds if kind is None or holds_one_value(kind)]
    return [*named, *(c for c in feature_columns(config, extra) if c not in named)]
