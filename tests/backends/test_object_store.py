"""Manifests in an object store, read by URL through fsspec: here fsspec's in-memory store, which behaves as
s3:// or gs:// do for listing, reading by range and describing objects."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from auditor.backends.engines import EngineSettings
from auditor.pipeline.runner import run_audit
from tests.backends.test_equivalence import OUT_OF_CORE, as_parquet, assert_same, comparable

pytest.importorskip("distributed", reason="the Dask engine's tests need the `dask` extra")
fsspec = pytest.importorskip("fsspec")

SYNC = EngineSettings("dask", scheduler="synchronous")


@pytest.fixture
def store() -> Iterator[Any]:
    fs = fsspec.filesystem("memory")
    fs.rm("/bucket", recursive=True) if fs.exists("/bucket") else None
    yield fs
    if fs.exists("/bucket"):
        fs.rm("/bucket", recursive=True)


def _upload(local: Path, store: Any, prefix: str, parts: int = 2) -> None:
    table = pq.read_table(local)
    step = -(-table.num_rows // parts)
    for i in range(parts):
        with store.open(f"/bucket/{prefix}/part-{i}.parquet", "wb") as handle:
            pq.write_table(table.slice(i * step, step), handle, row_group_size=7)


def _remote_config(config: Path, url: str) -> Path:
    data = yaml.safe_load(config.read_text())
    data["manifest"]["path"] = url
    remote = config.with_name("remote.yaml")
    remote.write_text(yaml.safe_dump(data, sort_keys=False))
    return remote


def _without_location(report: Any) -> dict[str, Any]:
    data = comparable(report)
    data["manifest"].pop("paths")
    data["manifest"].pop("sha256")
    data.pop("config_path")  # two configs that differ in the manifest's location only
    data.pop("config_sha256")
    return data


@pytest.mark.parametrize("url", ["memory://bucket/hw/*.parquet", "memory://bucket/hw/"])
def test_a_manifest_in_an_object_store_reports_as_the_same_manifest_on_disk(
    url: str, store: Any, tmp_path: Path
) -> None:
    config = as_parquet("handwriting", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "hw")
    remote = _remote_config(config, url)
    local = run_audit(config, only=OUT_OF_CORE, engine=EngineSettings("memory"))
    read = run_audit(remote, only=OUT_OF_CORE, engine=SYNC)
    assert read.manifest is not None
    paths = read.manifest.paths  # as the store spells its URLs (the memory store keeps a leading slash)
    assert [p.replace("memory:///", "memory://") for p in paths] == [
        "memory://bucket/hw/part-0.parquet",
        "memory://bucket/hw/part-1.parquet",
    ]
    assert_same(_without_location(local), _without_location(read), "object store")


def test_a_changed_object_changes_the_manifest_digest(store: Any, tmp_path: Path) -> None:
    config = as_parquet("handwriting", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "hw")
    remote = _remote_config(config, "memory://bucket/hw/*.parquet")
    before = run_audit(remote, only=["split_integrity"], engine=SYNC)
    table = pq.read_table(config.parent / "manifest.parquet")
    with store.open("/bucket/hw/part-1.parquet", "wb") as handle:
        pq.write_table(table.slice(0, 3), handle)
    after = run_audit(remote, only=["split_integrity"], engine=SYNC)
    assert before.manifest is not None and after.manifest is not None
    assert before.manifest.sha256 != after.manifest.sha256


def test_a_url_on_another_engine_says_which_engine_reads_it(store: Any, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "hw")
    remote = _remote_config(config, "memory://bucket/hw/*.parquet")
    result = CliRunner().invoke(app, ["run", str(remote), "--engine", "memory"])
    assert result.exit_code == 2
    assert "is a URL" in result.output and "--engine dask" in result.output


def test_a_url_that_names_nothing_is_exit_2_with_the_url(store: Any, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    remote = _remote_config(config, "memory://bucket/nothing-here/*.parquet")
    result = CliRunner().invoke(app, ["run", str(remote), "--engine", "dask", "--scheduler", "synchronous"])
    assert result.exit_code == 2
    assert "memory://bucket/nothing-here/*.parquet names no Parquet file" in result.output


@pytest.mark.skipif(importlib.util.find_spec("s3fs") is not None, reason="s3fs is installed here")
def test_an_s3_url_without_its_extra_names_the_extra(tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    remote = _remote_config(config, "s3://some-bucket/manifest/")
    result = CliRunner().invoke(app, ["run", str(remote), "--engine", "dask", "--scheduler", "synchronous"])
    assert result.exit_code == 2
    assert "split-auditor[s3]" in result.output
    assert "gcs" not in result.output  # the one extra that reads this URL


def _config_position(config: Path, *keys: str | int) -> str:
    """'file:line:column' of a key in a config, as the messages name it."""
    from auditor.core.config import load_config

    return load_config(config).locate(keys)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("memory://bucket/hw/*.csv", "names no Parquet file"),
        ("memory://bucket/hw/missing.parquet", "does not exist"),
        ("nosuchstore://bucket/hw/", "no filesystem reads the nosuchstore:// protocol"),
    ],
)
def test_a_url_error_names_the_config_line_and_column(url: str, says: str, store: Any, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "hw")
    remote = _remote_config(config, url)
    where = _config_position(remote, "manifest", "path")
    assert where.count(":") == 2  # file:line:column
    result = CliRunner().invoke(app, ["run", str(remote), "--engine", "dask", "--scheduler", "synchronous"])
    assert result.exit_code == 2
    assert f"{where}: manifest.path {url}" in result.output and says in result.output, result.output
    checked = CliRunner().invoke(app, ["validate", str(remote)])
    assert checked.exit_code == 2
    assert f"{where}: manifest.path {url}" in checked.output and says in checked.output, checked.output


def test_validate_checks_a_manifest_in_an_object_store(store: Any, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "hw")
    result = CliRunner().invoke(app, ["validate", str(_remote_config(config, "memory://bucket/hw/"))])
    assert result.exit_code == 0, result.output
    assert "memory://bucket/hw/part-0.parquet: all named columns present" in result.output.replace(":///", "://")
    assert "memory://bucket/hw/part-1.parquet: all named columns present" in result.output.replace(":///", "://")


def test_validate_names_a_column_missing_from_a_manifest_in_an_object_store(store: Any, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    table = pq.read_table(config.parent / "manifest.parquet")
    data = yaml.safe_load(config.read_text())
    dropped = data["keys"]["groups"][0]
    with store.open("/bucket/hw/part-0.parquet", "wb") as handle:
        pq.write_table(table.drop_columns([dropped]), handle)
    remote = _remote_config(config, "memory://bucket/hw/")
    result = CliRunner().invoke(app, ["validate", str(remote)])
    assert result.exit_code == 2
    assert f"memory://bucket/hw/part-0.parquet: no column '{dropped}'" in result.output.replace(":///", "://")
    assert f"is named at {_config_position(remote, 'keys', 'groups', 0)}" in result.output, result.output


def test_validate_without_fsspec_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    remote = _remote_config(config, "s3://some-bucket/manifest/")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "fsspec" else real(name, *a))
    result = CliRunner().invoke(app, ["validate", str(remote)])
    assert result.exit_code == 2
    assert _config_position(remote, "manifest", "path") in result.output
    assert "needs fsspec" in result.output and "pip install 'split-auditor[dask,s3]'" in result.output


def test_validate_says_which_stages_cannot_run_on_a_manifest_in_an_object_store(store: Any, tmp_path: Path) -> None:
    # A URL is read by the dask engine only, which never holds the whole table: near_duplicates would be an error.
    from auditor.cli import app

    config = as_parquet("support_tickets", tmp_path)
    _upload(config.parent / "manifest.parquet", store, "tickets")
    result = CliRunner().invoke(app, ["validate", str(_remote_config(config, "memory://bucket/tickets/"))])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    would_run = output.split("stages that would run:")[1].split("stages that cannot")[0]
    assert "near_duplicates" not in would_run and "group_overlap" in would_run
    held = output.split("stages that cannot run on a manifest in an object store:")[1].split("(")[0]
    assert "near_duplicates" in held and "group_overlap" not in held
    assert "leave them out of `audit run` with --only" in output
