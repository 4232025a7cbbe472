from __future__ import annotations

import json

import jsonschema
import pytest

from auditor.core.schema import outdated, schema_texts
from auditor.render import render_json
from tests.conftest import REPO, SampleReports


def test_committed_schemas_match_the_models() -> None:
    assert outdated(REPO / "schemas") == [], "schemas/ is stale: run `audit schema --out schemas`"


def test_outdated_detects_drift(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name, text in schema_texts().items():
        (tmp_path / name).write_text(text)
    assert outdated(tmp_path) == []
    (tmp_path / "config.schema.json").write_text("{}")
    assert outdated(tmp_path) == ["config.schema.json"]


def test_report_json_validates_against_its_schema(sample_report: SampleReports) -> None:
    report = sample_report("handwriting")
    schema = json.loads((REPO / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(json.loads(render_json(report)), schema)


@pytest.mark.parametrize("config", sorted((REPO / "sample_data").glob("*/audit.yaml")))
def test_sample_configs_validate_against_the_config_schema(config) -> None:  # type: ignore[no-untyped-def]
    import yaml

    schema = json.loads((REPO / "schemas" / "config.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(config.read_text()), schema)
