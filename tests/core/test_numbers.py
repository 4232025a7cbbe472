"""true and false are no numbers: a key that takes a number refuses them, naming the line; booleans stay booleans."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.core.config import load_config
from auditor.core.errors import ConfigError, StageLoadError
from auditor.pipeline.runner import prepare_stages
from tests.conftest import write_table

BASE = "version: 1\nmanifest: {path: m.csv, id: sid, split: split}\nkeys: {groups: [writer]}\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_table(tmp_path / "m.csv", {"sid": ["a", "b"], "split": ["train", "test"], "writer": ["w1", "w2"]})
    return tmp_path


def _load(folder: Path, extra: str):  # type: ignore[no-untyped-def]
    (folder / "audit.yaml").write_text(BASE + extra)
    loaded = load_config(folder / "audit.yaml")
    return prepare_stages(loaded)


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ("stages:\n  group_overlap: {max_examples: true}\n", ":5:"),
        ("numeric: {model: m:f, batch: m:b, loss: m:l, timeout_s: false}\n", ":4:"),
    ],
)
def test_a_boolean_for_a_number_is_refused_at_its_line(folder: Path, extra: str, where: str) -> None:
    with pytest.raises((ConfigError, StageLoadError), match="expected a number, not (true|false)") as caught:
        _load(folder, extra)
    assert where in str(caught.value)


def test_version_true_is_not_version_1(folder: Path) -> None:
    (folder / "audit.yaml").write_text(BASE.replace("version: 1", "version: true"))
    with pytest.raises(ConfigError, match="version"):
        load_config(folder / "audit.yaml")


def test_numbers_and_booleans_where_they_belong_still_load(folder: Path) -> None:
    stages = _load(folder, "stages:\n  group_overlap: {max_examples: 3, enabled: true}\n")
    (overlap,) = [s for s in stages if s.name == "group_overlap"]
    assert overlap.options.max_examples == 3 and overlap.options.enabled is True  # type: ignore[attr-defined]
