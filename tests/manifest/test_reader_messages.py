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


# -- files of two formats -------------------------------------------------------------------------------------


def test_a_glob_over_csv_and_tsv_names_a_file_of_each_format_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("id,split,patient\na,train,p1\nb,test,p1\n")
    (tmp_path / "data" / "b.tsv").write_text("id\tsplit\tpatient\nc\ttrain\tp3\n")
    result = _run(tmp_path, "data/*")
    assert result.exit_code == 2, result.output
    said = _said(result)
    assert f"{tmp_path / 'audit.yaml'}:" in said and "manifest.path matches manifest files of 2 formats" in said
    assert f"{tmp_path / 'data' / 'a.csv'} (csv), {tmp_path / 'data' / 'b.tsv'} (tsv)" in said
    assert "narrow manifest.path to the files of one (e.g. '*.csv')" in said
    # Narrowed to one format, the leak is found.
    assert _run(tmp_path, "data/*.csv").exit_code == 1


def test_splits_named_by_paths_may_each_have_their_own_format(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("id,patient\na,p1\n")
    (tmp_path / "test.tsv").write_text("id\tpatient\nb\tp1\n")
    spec = {"id": "id", "paths": {"train": "train.csv", "test": "test.tsv"}}
    config = write_config(tmp_path, {"version": 1, "manifest": spec, "keys": {"groups": ["patient"]}})
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1, result.output  # read, and the shared patient found


# -- a split kept in Hive-style folder names ------------------------------------------------------------------


def _partitioned(root: Path, with_column: bool = False) -> None:
    for split, rows in {"train": [("a", "p1"), ("b", "p2")], "test": [("c", "p1"), ("d", "p3")]}.items():
        extra = [{"split": split}] * len(rows) if with_column else [{}] * len(rows)
        records = [{"id": i, "patient": p, **e} for (i, p), e in zip(rows, extra, strict=True)]
        _write(root / "data" / f"split={split}" / "part.parquet", records)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_split_kept_only_in_folder_names_is_said_so_with_the_paths_to_name(tmp_path: Path, engine: str) -> None:
    _partitioned(tmp_path)
    result = _run(tmp_path, "data", "--engine", engine)
    assert result.exit_code == 2, result.output
    said = _said(result)
    assert "no column 'split'; available columns: id, patient" in said
    assert "the folder names hold 'split=' (split=test)" in said
    assert "paths: {test: 'data/split=test', train: 'data/split=train'}" in said
    # What it suggests reads the split from the folders, and the shared patient is found.
    spec = {"id": "id", "paths": {"test": "data/split=test", "train": "data/split=train"}}
    config = write_config(tmp_path, {"version": 1, "manifest": spec, "keys": {"groups": ["patient"]}})
    done = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "-q", "--engine", engine])
    assert done.exit_code == 1, done.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["manifest"]["rows_per_split"] == {"test": 2, "train": 2}
    assert any(f["code"] == "GRP001" for s in report["stages"] for f in s["findings"])


@pytest.mark.parametrize("engine", ENGINES)
def test_partition_folders_whose_files_hold_the_split_column_are_read_as_they_are(tmp_path: Path, engine: str) -> None:
    _partitioned(tmp_path, with_column=True)
    result = _run(tmp_path, "data", "--engine", engine)
    assert result.exit_code == 1, result.output
    missing = _run(tmp_path, "data", "--engine", engine, groups=("site",))
    assert missing.exit_code == 2 and "no column 'site'" in _said(missing)
    assert "folder names" not in _said(missing)  # only a column the folder names hold is said to be there


# -- Excel's separator line -----------------------------------------------------------------------------------


@pytest.mark.parametrize("hint", ["sep=,", "SEP=;", "sep=\t"])
def test_excels_separator_line_is_named_and_its_removal_asked(tmp_path: Path, hint: str) -> None:
    (tmp_path / "m.csv").write_text(f"{hint}\r\nid,split,patient\r\na,train,p1\r\nb,test,p1\r\n")
    result = _run(tmp_path, "m.csv")
    assert result.exit_code == 2, result.output
    assert f"m.csv:1: the first line {hint!r} is Excel's separator hint, not the header" in result.output
    assert "remove that line" in result.output


def test_a_column_named_sep_or_a_value_sep_is_data(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text('sep,id,split,patient\n"sep=,",a,train,p1\nx,b,test,p1\n')
    result = _run(tmp_path, "m.csv")
    assert result.exit_code == 1, result.output  # read, and the shared patient found
