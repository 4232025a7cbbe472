"""What a manifest file that cannot be read as meant is told: a header written as a record, mixed formats, a
split kept in folder names, Excel's separator line. Each message names the file, the place and what to do."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from auditor.cli import app
from tests.conftest import write_config

runner = CliRunner()
NO_DUCKDB = importlib.util.find_spec("duckdb") is None
ENGINES = ["memory", pytest.param("duckdb", marks=pytest.mark.skipif(NO_DUCKDB, reason="needs the `duckdb` extra"))]
HEADER = {"id": "id", "split": "split", "patient": "patient"}


def _rows(*extra: dict[str, str]) -> list[dict[str, str]]:
    return [
        {"id": "a", "split": "train", "patient": "p1"},
        {"id": "b", "split": "test", "patient": "p1"},
        *extra,
        {"id": "c", "split": "test", "patient": "p3"},
    ]


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _run(folder: Path, manifest: Any, *extra: str, groups: tuple[str, ...] = ("patient",)) -> Result:
    spec = {"path": manifest, "id": "id", "split": "split"}
    config = write_config(folder, {"version": 1, "manifest": spec, "keys": {"groups": list(groups)}})
    return runner.invoke(app, ["run", str(config), "--out", str(folder / "out"), "-q", *extra])


def _said(result: Result) -> str:
    return " ".join(result.output.split())


# -- a header written as a record -------------------------------------------------------------------------------


def test_a_jsonl_record_repeating_the_column_names_is_refused_naming_its_line(tmp_path: Path) -> None:
    _write(tmp_path / "m.jsonl", _rows(HEADER))
    result = _run(tmp_path, "m.jsonl")
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'm.jsonl'}:3: this record repeats the column names" in _said(result)
    assert "remove those records" in _said(result)


def test_a_jsonl_header_record_spelt_loosely_is_refused_too(tmp_path: Path) -> None:
    _write(tmp_path / "m.jsonl", _rows({"id": " ID", "split": "Split ", "patient": "PATIENT"}))
    result = _run(tmp_path, "m.jsonl")
    assert result.exit_code == 2 and "m.jsonl:3: this record repeats the column names" in _said(result)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_row_repeating_the_column_names_is_refused_naming_its_row(tmp_path: Path, engine: str) -> None:
    _write(tmp_path / "m.parquet", _rows(HEADER, HEADER))
    result = _run(tmp_path, "m.parquet", "--engine", engine)
    assert result.exit_code == 2, result.output
    said = _said(result)
    assert f"{tmp_path / 'm.parquet'}: row 3 repeats the column names (2 such record(s): row(s) 3, 4)" in said


@pytest.mark.parametrize("engine", ENGINES)
def test_a_header_row_in_a_later_parquet_file_is_named_by_that_file(tmp_path: Path, engine: str) -> None:
    _write(tmp_path / "parts" / "a.parquet", _rows())
    _write(tmp_path / "parts" / "b.parquet", [{"id": "d", "split": "train", "patient": "p9"}, HEADER])
    result = _run(tmp_path, "parts/*.parquet", "--engine", engine)
    assert result.exit_code == 2 and f"{tmp_path / 'parts' / 'b.parquet'}: row 2 repeats" in _said(result)


@pytest.mark.parametrize("engine", ENGINES)
def test_column_names_as_some_values_of_a_parquet_row_are_data(tmp_path: Path, engine: str) -> None:
    """A split named "split" beside a real id, or a patient called "patient": data, audited as such (the leak of
    the shared patient still found)."""
    rows = _rows({"id": "d", "split": "split", "patient": "p2"}, {"id": "id", "split": "train", "patient": "patient"})
    _write(tmp_path / "m.parquet", rows)
    result = _run(tmp_path, "m.parquet", "--engine", engine)
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["manifest"]["rows_per_split"] == {"train": 2, "test": 2, "split": 1}
    assert any(f["code"] == "GRP001" for s in report["stages"] for f in s["findings"])


def test_column_names_as_some_values_of_a_jsonl_record_are_data(tmp_path: Path) -> None:
    _write(tmp_path / "m.jsonl", _rows({"id": "id", "split": "train", "patient": "patient"}))
    result = _run(tmp_path, "m.jsonl")
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert any(f["code"] == "GRP001" for s in report["stages"] for f in s["findings"])
