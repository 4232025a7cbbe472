"""Text that is not UTF-8 in a Parquet manifest: the run names the file, column, row and value on every engine."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.manifest.badtext import not_utf8
from tests.conftest import write_config


def _not_utf8_manifest(folder: Path) -> Path:
    """Writers of which the third (in the second row group) is the bytes w, 0xFF, 2: a string column Parquet
    stores unchecked."""
    raw = pa.array([b"w1", b"w3", b"w\xff2", b"w1"], pa.binary())
    table = pa.table({"id": [1, 2, 3, 4], "split": ["train", "train", "test", "test"], "writer": raw.view(pa.string())})
    pq.write_table(table, folder / "m.parquet", row_group_size=2)
    manifest = {"path": "m.parquet", "id": "id", "split": "split"}
    return write_config(folder, {"manifest": manifest, "keys": {"groups": ["writer"]}})


@pytest.mark.parametrize("engine", [["memory"], ["dask", "--scheduler", "synchronous"]])
def test_a_column_that_is_not_utf8_is_named_with_its_file_row_and_value(tmp_path: Path, engine: list[str]) -> None:
    config = _not_utf8_manifest(tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "-q", "--engine", *engine])
    assert result.exit_code == 2
    assert f"{tmp_path / 'm.parquet'}: column 'writer' holds text that is not UTF-8 (row 3 of the file" in result.output
    assert "b'w\\xff2'" in result.output and "Traceback" not in result.output


def test_valid_text_and_other_files_are_not_blamed(tmp_path: Path) -> None:
    pq.write_table(pa.table({"writer": ["w1", "é"]}), tmp_path / "ok.parquet")
    (tmp_path / "notes.csv").write_text("writer\nw1\n")
    assert not_utf8([tmp_path / "ok.parquet", tmp_path / "notes.csv"], ["writer"]) is None
    _not_utf8_manifest(tmp_path)
    found = not_utf8([tmp_path / "ok.parquet", tmp_path / "m.parquet"], ["id", "writer"])
    assert found is not None and found.startswith(f"{tmp_path / 'm.parquet'}: column 'writer'")
