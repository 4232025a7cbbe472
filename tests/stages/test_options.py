"""Every stage's count-like options refuse negative numbers, with a message naming the stage and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.pipeline.registry import discover, load_stages
from tests.conftest import write_config, write_table

STAGES = load_stages(discover())


def count_fields() -> list[tuple[str, str]]:
    found = []
    for stage in STAGES:
        for field, info in stage.Options.model_fields.items():
            if info.annotation is int:
                found.append((stage.name, field))
    return found


def test_every_stage_with_options_is_seen() -> None:
    assert ("group_overlap", "max_examples") in count_fields()
    assert ("label_coverage", "min_rows") in count_fields()


@pytest.mark.parametrize(("stage", "field"), count_fields())
def test_count_option_has_a_lower_bound(stage: str, field: str) -> None:
    options = next(s for s in STAGES if s.name == stage).Options
    schema = options.model_json_schema()["properties"][field]
    assert schema.get("minimum", schema.get("exclusiveMinimum", -1)) >= 0, f"{stage}.{field} accepts negatives"


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize(
    "stage", ["split_integrity", "group_overlap", "duplicate_content", "shared_upstream", "temporal_order"]
)
def test_negative_max_examples_is_a_config_error(tmp_path: Path, stage: str, command: str) -> None:
    write_table(tmp_path / "m.csv", {"id": ["1", "2"], "split": ["train", "test"], "g": ["x", "x"]})
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "split": "split", "id": "id"},
            "keys": {"groups": ["g"]},
            "stages": {stage: {"max_examples": -5}},
            "report": {"formats": []},
        },
    )
    result = CliRunner().invoke(app, [command, str(config)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert f"stages.{stage}.max_examples" in result.output and "greater than or equal to 1" in result.output
    assert "audit.yaml:" in result.output and "Traceback" not in result.output
