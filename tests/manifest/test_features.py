"""keys.features: a listed set, or `auto` (every column in no other role), read from files and from tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from auditor.core.config import config_from_mapping, load_config
from auditor.core.errors import ConfigError, ManifestError
from auditor.core.source import TableSource
from auditor.manifest.features import feature_columns
from auditor.manifest.memory import manifest_of_table
from auditor.manifest.table import load_manifest

ROWS = pd.DataFrame(
    {
        "sample_id": ["a", "b", "c", "d"],
        "split": ["train", "train", "test", "test"],
        "customer": ["c1", "c2", "c3", "c4"],
        "label": [0, 1, 0, 1],
        "income": [1.0, 2.0, 3.0, 4.0],
        "region": ["n", "s", "n", "s"],
        "notes": ["x", "y", "z", "w"],
    }
)


def config(tmp_path: Path, features: str, fmt: str = "csv") -> Path:
    path = tmp_path / f"m.{fmt}"
    if fmt == "csv":
        ROWS.to_csv(path, index=False)
    else:
        ROWS.to_parquet(path, index=False)
    p = tmp_path / "audit.yaml"
    p.write_text(
        f"manifest: {{path: {path.name}, id: sample_id, split: split}}\n"
        f"keys: {{groups: [customer], label: label, features: {features}}}\n",
        encoding="utf-8",
    )
    return p


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_auto_reads_every_column_in_no_other_role(tmp_path: Path, fmt: str) -> None:
    loaded = load_config(config(tmp_path, "auto", fmt))
    manifest = load_manifest(loaded)
    assert feature_columns(loaded.config, manifest.table.column_names) == ["income", "region", "notes"]


def test_a_list_reads_only_the_listed_features(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, "[income]"))
    manifest = load_manifest(loaded)
    assert "region" not in manifest.table.column_names
    assert feature_columns(loaded.config, manifest.table.column_names) == ["income"]


def test_without_features_no_extra_column_is_read(tmp_path: Path) -> None:
    p = config(tmp_path, "auto")
    p.write_text(p.read_text(encoding="utf-8").replace(", features: auto", ""), encoding="utf-8")
    loaded = load_config(p)
    manifest = load_manifest(loaded)
    assert "income" not in manifest.table.column_names
    assert feature_columns(loaded.config, manifest.table.column_names) == []


def test_auto_on_a_table_given_in_code() -> None:
    source = TableSource(pa.Table.from_pandas(ROWS, preserve_index=False), "data", "pandas.DataFrame")
    keys = {"groups": ["customer"], "label": "label", "features": "auto"}
    loaded = config_from_mapping({"manifest": {"id": "sample_id", "split": "split"}, "keys": keys}, source=source)
    manifest = manifest_of_table(loaded, source)
    assert feature_columns(loaded.config, manifest.table.column_names) == ["income", "region", "notes"]


def test_a_missing_listed_feature_names_where_it_is_named(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, "[income, salary]"))
    with pytest.raises(ManifestError, match=r"no column 'salary'") as info:
        load_manifest(loaded)
    assert "audit.yaml:2:" in str(info.value)  # where the config names it


@pytest.mark.parametrize(
    ("features", "expected"),
    [("[label]", "keys.label"), ("[split]", "manifest.split"), ("[]", "lists no column"), ("[a, a]", "twice")],
)
def test_a_feature_list_that_cannot_be_meant_is_refused(tmp_path: Path, features: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_config(config(tmp_path, features))


def _tokenized() -> pd.DataFrame:
    """A tokenized text dataset's rows: token ids and a mask (lists), raw bytes and a struct (an image as the
    datasets library stores it) beside plain columns."""
    return ROWS.assign(
        input_ids=[[101, 7, 102], [101, 8, 9, 102], [101, 7, 102], [101, 5, 102]],
        attention_mask=[[1, 1, 1], [1, 1, 1, 1], [1, 1, 1], [1, 1, 1]],
        raw=[b"\x00", b"\x01", b"\x02", b"\x03"],
        image=[{"bytes": b"\x89", "path": f"{i}.png"} for i in range(4)],
    )


@pytest.mark.parametrize("fmt", ["parquet", "jsonl", "table"])
def test_auto_leaves_out_columns_of_lists_structs_and_bytes(tmp_path: Path, fmt: str) -> None:
    """Under `auto` a column with no one value per row (token ids, an attention mask, an image, raw bytes) is no
    feature, in a file as in a table given in code (was: the stages that compare feature rows crashed on a file,
    and rows given in code were refused as if the config named the column)."""
    rows = _tokenized()
    keys = {"groups": ["customer"], "label": "label", "features": "auto"}
    if fmt == "table":
        source = TableSource(pa.Table.from_pandas(rows, preserve_index=False), "data", "pandas.DataFrame")
        loaded = config_from_mapping({"manifest": {"id": "sample_id", "split": "split"}, "keys": keys}, source=source)
        manifest = manifest_of_table(loaded, source)
    else:
        path = tmp_path / f"m.{fmt}"
        if fmt == "parquet":
            rows.to_parquet(path, index=False)
        else:
            path.write_text(rows.drop(columns=["raw", "image"]).to_json(orient="records", lines=True), encoding="utf-8")
        p = tmp_path / "audit.yaml"
        p.write_text(
            f"manifest: {{path: {path.name}, id: sample_id, split: split}}\n"
            "keys: {groups: [customer], label: label, features: auto}\n",
            encoding="utf-8",
        )
        manifest = load_manifest(loaded := load_config(p))
    assert feature_columns(loaded.config, manifest.table.column_names) == ["income", "region", "notes"]


def test_a_listed_feature_of_lists_is_still_refused_naming_it(tmp_path: Path) -> None:
    source = TableSource(pa.Table.from_pandas(_tokenized(), preserve_index=False), "data", "pandas.DataFrame")
    keys = {"label": "label", "features": ["income", "input_ids"]}
    loaded = config_from_mapping({"manifest": {"id": "sample_id", "split": "split"}, "keys": keys}, source=source)
    with pytest.raises(ManifestError, match=r"column 'input_ids' holds list<item: int64> values"):
        manifest_of_table(loaded, source)
