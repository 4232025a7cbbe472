"""Choosing the engine, and every way it can refuse: a bad size, a missing extra, a text manifest, a full disk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from auditor.backends import engines
from auditor.backends.engines import EngineSettings, choose, parse_size
from auditor.backends.size import projected_bytes
from auditor.cli import app
from auditor.core.config import load_config
from auditor.core.errors import AuditError
from tests.conftest import write_config, write_table

pytest.importorskip("duckdb", reason="the out-of-core engine's tests need the `duckdb` extra")

runner = CliRunner()


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


def parquet_manifest(folder: Path, rows: int = 30, name: str = "manifest.parquet") -> Path:
    ids = [f"id{i}" for i in range(rows)]
    write_table(
        folder / name,
        {"sample_id": ids, "split": ["train", "test"] * (rows // 2), "writer": [f"w{i % 3}" for i in range(rows)]},
    )
    return write_config(
        folder,
        {
            "version": 1,
            "manifest": {"path": name, "id": "sample_id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["test"]},
            "keys": {"groups": ["writer"]},
            "report": {"formats": ["json"]},
        },
    )


@pytest.mark.parametrize(
    ("text", "size"), [("8GB", 8 * 10**9), ("512MiB", 512 * 2**20), ("2g", 2 * 10**9), ("100000000", 10**8)]
)
def test_sizes_are_read_in_the_usual_units(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "8 parsecs", "-1GB", "1MB"])
def test_a_size_that_says_nothing_usable_is_refused(text: str) -> None:
    with pytest.raises(AuditError, match="--memory-limit"):
        parse_size(text)


def test_auto_keeps_a_manifest_that_fits_in_memory_and_moves_one_that_does_not() -> None:
    budget = EngineSettings(memory_limit=10**9)
    assert choose(budget, 10**8)[0] == "memory"
    assert choose(budget, 10**9)[0] == "duckdb"
    assert choose(budget, None)[0] == "memory"  # a text format of unknown size: the reader says if it is too big


def test_a_missing_engine_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engines.EXTRAS, "duckdb", ("a_module_that_is_not_installed", "duckdb"))
    with pytest.raises(AuditError, match=r"pip install 'split-auditor\[duckdb\]'"):
        choose(EngineSettings("duckdb"), None)
    with pytest.raises(AuditError, match="does not fit in memory"):
        choose(EngineSettings(memory_limit=10**8), 10**9)


def test_the_projected_size_counts_only_the_named_columns(tmp_path: Path) -> None:
    config = parquet_manifest(tmp_path, rows=2000)
    table = pq.read_table(tmp_path / "manifest.parquet")
    pq.write_table(table.append_column("unused", pa.array(["x" * 200] * 2000)), tmp_path / "manifest.parquet")
    size = projected_bytes(load_config(config))
    assert size is not None and 0 < size < 2000 * 200


def test_cli_runs_out_of_core_when_the_memory_limit_says_so(tmp_path: Path) -> None:
    config = parquet_manifest(tmp_path)
    rows = 1_500_000  # about 40MB of columns: more than a 64MB limit allows with the stages' working copies
    numbers = np.arange(rows)
    table = pa.table(
        {
            "sample_id": pa.array(np.char.add("sample-00000000", numbers.astype(str)).astype(object)),
            "split": pa.array(np.where(numbers % 2 == 0, "train", "test")),
            "writer": pa.array(np.char.add("w", (numbers % 3).astype(str)).astype(object)),
        }
    )
    pq.write_table(table, tmp_path / "manifest.parquet")
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--memory-limit", "64MB", "-q")
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["manifest"]["engine"] == "duckdb"
    assert {f["code"] for s in report["stages"] for f in s["findings"]} >= {"GRP001"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "spark"], "--engine 'spark': expected one of auto, memory, duckdb"),
        (["--memory-limit", "lots"], "--memory-limit 'lots': expected a size"),
        (["--temp-dir", "no/such/folder"], "--temp-dir no/such/folder: not a folder"),
        (["--temp-limit", "1KB"], "--temp-limit '1KB': at least 1MB is needed"),
    ],
)
def test_cli_refuses_bad_engine_options_before_reading(tmp_path: Path, args: list[str], message: str) -> None:
    config = parquet_manifest(tmp_path)
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), *args)
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "out" / "report.json").exists()


def test_a_text_manifest_is_refused_out_of_core_with_what_to_do(tmp_path: Path) -> None:
    write_table(tmp_path / "manifest.csv", {"sample_id": ["a", "b"], "split": ["train", "test"]})
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "manifest.csv", "id": "sample_id", "split": "split"}}
    )
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", "duckdb")
    assert result.exit_code == 2
    assert "manifest.csv: the out-of-core engine reads Parquet manifests" in result.output
    assert "--engine memory" in result.output


def test_a_full_spill_disk_is_a_clear_error_never_a_verdict(tmp_path: Path) -> None:
    """Too little memory and a 1MB cap on the spill folder: the search for repeated ids cannot finish."""
    rows = 3_000_000
    ids = pa.array(np.char.add("sample-", np.arange(rows).astype(str)).astype(object))
    split = pa.array(np.where(np.arange(rows) % 5 == 0, "test", "train"))
    pq.write_table(pa.table({"sample_id": ids, "split": split}), tmp_path / "manifest.parquet")
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "manifest.parquet", "id": "sample_id", "split": "split"},
            "report": {"formats": ["json"]},
        },
    )
    out = tmp_path / "out"
    args = ["--engine", "duckdb", "--memory-limit", "64MB", "--temp-limit", "1MB", "--temp-dir", str(tmp_path)]
    result = invoke("run", str(config), "--out", str(out), "--only", "split_integrity", *args)
    assert result.exit_code == 2, result.output
    report = json.loads((out / "report.json").read_text())
    (stage,) = report["stages"]
    assert stage["status"] == "error"
    assert "ran out of disk space in its temp folder" in stage["error"]["message"]
    assert not list(tmp_path.glob("split-auditor-duckdb-*")), "the spill folder is removed afterwards"


def test_an_interrupted_run_stops_queries_in_flight_and_removes_the_spill(tmp_path: Path) -> None:
    """close(wait=False), as an interrupt calls it, while another thread is inside a long DuckDB query."""
    import threading

    from auditor.backends.duck import load_duck_manifest
    from auditor.core.errors import StageInputError

    config = parquet_manifest(tmp_path)
    manifest = load_duck_manifest(load_config(config), EngineSettings("duckdb", temp_dir=tmp_path))
    spill = next(tmp_path.glob("split-auditor-duckdb-*"))
    outcome: list[BaseException] = []

    def long_query() -> None:
        try:
            manifest._query("SELECT count(*) AS n FROM range(100000000000) a")  # minutes, unless interrupted
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=long_query)
    worker.start()
    while not manifest._cursors:  # the worker's connection exists once its query has started
        worker.join(0.01)
    worker.join(0.2)
    manifest.close(wait=False)
    worker.join(10)
    assert not worker.is_alive(), "the query in flight was not interrupted"
    assert outcome and isinstance(outcome[0], StageInputError)
    assert not spill.exists()


def test_rows_are_read_back_by_number_across_files_and_row_groups(tmp_path: Path) -> None:
    from auditor.backends.duck import load_duck_manifest
    from auditor.manifest.table import load_manifest

    ids = [f"id{i}" for i in range(50)]
    for part, (lo, hi) in enumerate([(0, 17), (17, 50)]):
        table = pa.table(
            {"sample_id": ids[lo:hi], "split": ["train", "test"] * ((hi - lo) // 2) + ["train"] * ((hi - lo) % 2)}
        )
        pq.write_table(table, tmp_path / f"part-{part}.parquet", row_group_size=4)
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"}}
    )
    loaded = load_config(config)
    rows = np.array([49, 0, 16, 17, 3, 3, 48, 20, 33])
    duck = load_duck_manifest(loaded, EngineSettings("duckdb", temp_dir=tmp_path))
    try:
        assert duck.take("sample_id", rows).to_pylist() == load_manifest(loaded).take("sample_id", rows).to_pylist()
        assert duck.ids(rows) == [ids[r] for r in rows]
    finally:
        duck.close()


def test_a_spill_left_by_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    """kill -9 runs no cleanup: the next run removes spill folders whose process is gone, and no other."""
    import subprocess
    import sys

    from auditor.backends.duck import load_duck_manifest

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"split-auditor-duckdb-{gone.stdout.strip()}-abc"
    (stale / "spill").mkdir(parents=True)
    living = tmp_path / "split-auditor-duckdb-1-abc"  # pid 1 is always alive
    living.mkdir()
    config = parquet_manifest(tmp_path)
    manifest = load_duck_manifest(load_config(config), EngineSettings("duckdb", temp_dir=tmp_path))
    try:
        assert not stale.exists() and living.exists()
    finally:
        manifest.close()


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("kind", [pa.binary(32), pa.binary(), pa.large_binary()])
def test_a_digest_of_raw_bytes_is_refused_by_every_engine_with_what_to_do(
    tmp_path: Path, engine: str, kind: pa.DataType
) -> None:
    """sha256 digests kept as their 32 bytes (a fixed-size binary column) were an internal error: a UTF-8 decode
    deep inside the content check. Every engine refuses them before reading, naming the column and the fix."""
    if engine == "dask":
        pytest.importorskip("distributed", reason="the Dask engine's tests need the `dask` extra")
    digests = [bytes([i]) * 32 for i in range(3)]
    pq.write_table(
        pa.table({"sample_id": ["a", "b", "c"], "split": ["train", "train", "test"], "sha": pa.array(digests, kind)}),
        tmp_path / "m.parquet",
    )
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["test"]},
            "keys": {"content_hash": "sha"},
        },
    )
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", engine)
    assert result.exit_code == 2 and not (tmp_path / "out" / "report.json").exists()
    assert f"m.parquet: column 'sha' holds {kind} values" in result.output and "bytes.hex()" in result.output


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_split_column_of_ids_is_refused_naming_the_column_and_the_count(tmp_path: Path, engine: str) -> None:
    from auditor.manifest.table import MAX_SPLITS

    n = MAX_SPLITS + 5
    pq.write_table(pa.table({"sample_id": [f"s{i}" for i in range(n)]}), tmp_path / "m.parquet")
    config = write_config(tmp_path, {"version": 1, "manifest": {"path": "m.parquet", "split": "sample_id"}})
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", engine)
    assert result.exit_code == 2 and not (tmp_path / "out" / "report.json").exists()
    assert "audit.yaml:1:" in result.output or "audit.yaml" in result.output
    assert f"the split column 'sample_id' holds {n:,} distinct values; at most {MAX_SPLITS:,} splits" in result.output


def test_a_file_with_a_column_named_file_row_number_is_refused_out_of_core_with_what_to_do(tmp_path: Path) -> None:
    """DuckDB numbers a file's rows under `file_row_number` and cannot while the file has a column of that name
    (even one the config does not name): exit 2 naming the column and the engines that read the file."""
    write_table(
        tmp_path / "manifest.parquet",
        {"sample_id": ["a", "b"], "split": ["train", "test"], "file_row_number": [7, 8]},
    )
    config = write_config(
        tmp_path, {"version": 1, "manifest": {"path": "manifest.parquet", "id": "sample_id", "split": "split"}}
    )
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", "duckdb")
    assert result.exit_code == 2
    assert "a column named 'file_row_number'" in result.output
    assert "--engine memory or --engine dask" in result.output


def test_a_decimal_wider_than_duckdb_holds_is_refused_out_of_core_with_what_to_do(tmp_path: Path) -> None:
    """DuckDB reads a decimal of more than 38 digits as floating point, where two values could become one: the
    engine refuses it (exit 2) naming the column and the engines that read it exactly."""
    from decimal import Decimal

    wide = pa.array([Decimal(10**38) + 1, Decimal(10**38) + 2], pa.decimal256(40, 0))
    table = pa.table({"sample_id": ["a", "b"], "split": ["train", "test"], "writer": wide})
    pq.write_table(table, tmp_path / "manifest.parquet")
    config = write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "manifest.parquet", "id": "sample_id", "split": "split"},
            "keys": {"groups": ["writer"]},
        },
    )
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", "duckdb")
    assert result.exit_code == 2
    assert "column 'writer' holds decimal256(40, 0) values" in result.output
    assert "--engine memory or --engine dask" in result.output


def _two_spellings(folder: Path, both_on_a_row: bool) -> Path:
    """A Parquet manifest of two row groups whose writers are under 'writer' and, in the test rows of the second
    group, under 'Writer' (two frames concatenated); with ``both_on_a_row`` the last row fills both."""
    writer = ["w1", "w2", "w3", None, None]
    other = [None, None, None, "w1", "w9" if both_on_a_row else None]
    if both_on_a_row:
        writer[4] = "w5"
    table = pa.table(
        {
            "sample_id": ["a", "b", "c", "d", "e"],
            "split": ["train", "train", "train", "test", "test"],
            "writer": writer,
            "Writer": other,
        }
    )
    pq.write_table(table, folder / "m.parquet", row_group_size=3)
    return write_config(
        folder,
        {
            "version": 1,
            "manifest": {"path": "m.parquet", "id": "sample_id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["test"]},
            "keys": {"groups": ["writer"]},
            "report": {"formats": ["json"]},
        },
    )


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_a_column_under_two_spellings_is_refused_by_every_engine(tmp_path: Path, engine: str) -> None:
    """Test rows whose writer sits under 'Writer' were read as having no writer: the writer in train and test
    went unseen and the run passed. Every engine refuses the file, naming the row and both spellings."""
    if engine == "dask":
        pytest.importorskip("distributed", reason="the Dask engine's tests need the `dask` extra")
    config = _two_spellings(tmp_path, both_on_a_row=False)
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", engine, "-q")
    assert result.exit_code == 2, result.output
    assert "m.parquet: row 4: column 'writer' is empty here but 'Writer' holds 'w1'" in result.output


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_two_spellings_both_filled_on_a_row_are_two_columns(tmp_path: Path, engine: str) -> None:
    config = _two_spellings(tmp_path, both_on_a_row=True)
    result = invoke("run", str(config), "--out", str(tmp_path / "out"), "--engine", engine, "-q")
    assert result.exit_code in (0, 1), result.output
    assert "two spellings" not in result.output


def test_every_blank_text_starts_outside_the_bounds_the_out_of_core_query_keeps() -> None:
    """DuckDB's query for blank rows keeps texts below '!' or from U+0080 on: every whitespace character (and so
    every blank text's first one) lies there, in UTF-8 byte order as DuckDB compares."""
    from auditor.backends.duck import _BELOW_TEXT, _BEYOND_ASCII
    from auditor.manifest.groupcounts import WHITESPACE

    for char in WHITESPACE:
        first = char.encode()
        assert first < _BELOW_TEXT.encode() or first >= _BEYOND_ASCII.encode(), hex(ord(char))
