"""The peers' scripts give the audit's answers on a random manifest, and a manifest with more leaks changes them."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    """make_random and peer_bench, imported from bench/ (they import their sibling scripts)."""
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("make_random"), importlib.import_module("peer_bench")


@pytest.mark.parametrize("config", ["groups", "links"])
def test_every_peer_answers_as_the_report(bench: tuple[ModuleType, ModuleType], tmp_path: Path, config: str) -> None:
    make_random, peer = bench
    path = tmp_path / "manifest.parquet"
    make_random.generate(3_000, path, seed=5)
    # Two ids in two splits each: the answers hold a repeat, not only zeros.
    table = pq.read_table(path)
    ids = table["sample_id"].to_pylist()
    split = table["split"].to_pylist()
    first_train, first_test = split.index("train"), split.index("test")
    ids[first_test] = ids[first_train]
    ids[split.index("val")] = ids[[i for i, s in enumerate(split) if s == "train"][1]]
    pq.write_table(table.set_column(0, "sample_id", pa.array(ids)), path)
    keys, links = peer.KEYS[config], config == "links"
    report = peer.audit_answers(tmp_path / f"{config}.yaml", peer.STAGES[config], keys, links)
    assert report["ids"] == 2
    assert set(report["keys"]) == set(keys) and all(report["keys"][k] for k in keys)
    if links:
        assert report["digests"] and report["early"] > 0
        assert report["components"]["pairs"] and report["components"]["total"] >= 1
    assert peer.duckdb_answers(path, keys, links) == report
    assert peer.pandas_answers(path, keys, links) == report


def test_answers_differ_when_the_data_does(bench: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    """One writer's rows all moved to train changes the per-pair counts: equal answers are not vacuous."""
    make_random, peer = bench
    path = tmp_path / "manifest.parquet"
    make_random.generate(2_000, path, seed=6)
    before = peer.duckdb_answers(path, ["writer"], False)
    table = pq.read_table(path)
    mine = pc.equal(table["writer"], table["writer"][0].as_py())
    moved = pc.if_else(mine, pa.scalar("train"), table["split"])
    pq.write_table(table.set_column(table.schema.get_field_index("split"), "split", moved), path)
    after = peer.duckdb_answers(path, ["writer"], False)
    assert after != before
    assert after == peer.pandas_answers(path, ["writer"], False)


def test_pairs_are_keyed_by_sorted_split_names(bench: tuple[ModuleType, ModuleType]) -> None:
    _, peer = bench
    got = peer._pairs([("val", "train", 3, 10, 40), ("test", "val", 0, 0, 0)])
    assert got == {"train|val": {"values": 3, "val": 10, "train": 40}}


def test_linked_components_are_the_rows_joined_by_any_shared_key(bench: tuple[ModuleType, ModuleType]) -> None:
    """Rows 0-1 share a writer, rows 1-2 a source: one component over train and test; row 3 (val) alone."""
    _, peer = bench
    split = pa.array(["train", "test", "train", "val"])
    keys = [pa.array(["a", "a", "b", "c"]), pa.array(["x", "y", "y", "z"]), pa.array(["1", "2", "3", "4"])]
    got = peer.linked_components(split, keys)
    assert got == {"largest": 3, "pairs": {"test|train": 1}, "total": 2}


def test_a_shape_whose_columns_have_other_names_gets_the_same_answers(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """The group-wise shape's names (source_document, content_sha256, captured_at): every peer reads them."""
    make_random, peer = bench
    path = tmp_path / "manifest.parquet"
    make_random.generate(3_000, path, seed=7)
    names = peer.NAMES["groupwise"]
    table = pq.read_table(path)
    pq.write_table(table.rename_columns([names.get(c, c) for c in table.column_names]), path)
    config = tmp_path / "renamed.yaml"
    config.write_text(
        "version: 1\nmanifest: {path: manifest.parquet, id: sample_id, split: split}\n"
        "splits: {train: [train], holdout: [val, test]}\n"
        "keys: {groups: [writer], sources: [source_document], content_hash: content_sha256, time: captured_at}\n"
    )
    report = peer.audit_answers(config, peer.STAGES["links"], peer.KEYS["links"], True, names)
    assert report["keys"]["writer"] and report["digests"] and report["components"]["pairs"]
    assert peer.duckdb_answers(path, peer.KEYS["links"], True, names) == report
    assert peer.pandas_answers(path, peer.KEYS["links"], True, names) == report
