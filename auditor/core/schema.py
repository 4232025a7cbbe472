"""JSON Schemas generated from the Pydantic models; schemas/ holds them and a test keeps them in sync."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from auditor.core.config import AuditConfig
from auditor.core.findings import Report

SCHEMAS: dict[str, type[BaseModel]] = {"config.schema.json": AuditConfig, "report.schema.json": Report}


def schema_texts() -> dict[str, str]:
    texts = {}
    for name, model in SCHEMAS.items():
        schema = model.model_json_schema(mode="validation")
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        texts[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return texts


def outdated(directory: Path) -> list[str]:
    """Names of schema files in ``directory`` that are missing or differ from the models."""
    stale = []
    for name, text in schema_texts().items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale
