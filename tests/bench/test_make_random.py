"""The random-split bench manifest has the shape its truth.json claims, and the bench's check catches lies."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    """make_random and scale_bench, imported from bench/ (they import their sibling scripts)."""
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("make_random"), importlib.import_module("scale_bench")


def test_random_manifest_matches_its_truth(bench: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    make_random, _ = bench
    out = tmp_path / "manifest.parquet"
    truth = make_random.generate(20_000, out, seed=3)
    table = pq.read_table(out)
    assert table.column_names == ["sample_id", "split", "writer", "source", "sha", "ts"]
    assert pa.types.is_timestamp(table.schema.field("ts").type)
    assert pc.count_distinct(table["sample_id"]).as_py() == 20_000
    shares = {k: v / 20_000 for k, v in truth["rows_per_split"].items()}
    assert shares == pytest.approx({"train": 0.8, "val": 0.1, "test": 0.1}, abs=0.02)
    split_counts = {c["values"]: c["counts"] for c in pc.value_counts(table["split"]).to_pylist()}
    assert split_counts == truth["rows_per_split"]
    counts = pc.value_counts(table["sha"]).to_pylist()
    top = max(counts, key=lambda c: c["counts"])
    assert top == {"values": truth["shared_digest"], "counts": 200}
    assert sum(c["counts"] for c in counts) - 200 == len(counts) - 1  # every other digest once
    assert set(pc.utf8_length(table["sha"]).to_pylist()) == {64}
    assert pc.count_distinct(table["writer"]).as_py() == truth["writers"] <= 400
    assert pc.count_distinct(table["source"]).as_py() == truth["sources"] <= 4_000
    df = table.select(["split", "writer", "source"]).to_pandas()
    train = df[df.split == "train"]
    holdout = df[df.split != "train"]
    assert len(set(train.writer) & set(holdout.writer)) == truth["writers_crossing"]
    assert len(set(train.source) & set(holdout.source)) == truth["sources_crossing"]
    links = yaml.safe_load((tmp_path / "links.yaml").read_text())
    assert links["keys"] == {"groups": ["writer"], "sources": ["source"], "content_hash": "sha", "time": "ts"}
    assert yaml.safe_load((tmp_path / "groups.yaml").read_text())["keys"] == {"groups": ["writer", "source"]}
    assert json.loads((tmp_path / "truth.json").read_text()) == truth


def test_sources_option_draws_from_more_values(bench: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    make_random, _ = bench
    truth = make_random.generate(20_000, tmp_path / "m.parquet", sources=1_000_000)
    assert truth["sources_drawn_from"] == 1_000_000
    assert truth["sources"] > 19_500  # nearly every source distinct


def test_check_reports_wrong_counts_errors_and_timeouts(bench: tuple[ModuleType, ModuleType]) -> None:
    _, scale_bench = bench
    truth = {
        "writers_crossing": 5,
        "sources_crossing": 7,
        "shared_digest_rows_per_split": {"train": 8, "val": 1, "test": 2},
        "holdout_rows_before_train_max": 3,
        "crossing_components": 1,
        "crossing_component_rows": 100,
        "largest_component_rows": 100,
        "components": 1,
    }
    want = scale_bench.expected("random", "links", truth)
    facts = {
        "GRP001": {"writer": 5},
        "DUP001": {"digests": 1, "pairs": {"train-val": [8, 1], "train-test": [8, 2]}},
        "TMP001": 3,
        "UPS001": {"components": 1, "rows": 100},
        "UPS003": {"largest": 100, "components": 1},
    }
    assert scale_bench.check({"errors": {}, "facts": facts}, want) == []
    assert scale_bench.check({"errors": {}, "facts": {**facts, "TMP001": 0}}, want) == ["TMP001 0 != 3"]
    assert scale_bench.check({"errors": {}, "facts": {**facts, "SPL001": 4}}, want) == ["SPL001 4 != None"]
    assert scale_bench.check({"errors": {"group_overlap": "boom"}, "facts": facts}, want) == [
        "group_overlap error: boom"
    ]
    assert scale_bench.check({"timeout": True}, want) == ["timeout"]


def test_writers_option_keeps_the_writers_whatever_the_rows(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """random-fixed-keys draws from the same writers and sources at every size: more rows, the same values."""
    make_random, _ = bench
    small = make_random.generate(5_000, tmp_path / "a" / "m.parquet", writers=40, sources=400)
    large = make_random.generate(20_000, tmp_path / "b" / "m.parquet", writers=40, sources=400)
    assert small["writers_drawn_from"] == large["writers_drawn_from"] == 40
    assert small["writers"] == large["writers"] == 40  # 125 and 500 rows a writer: every one drawn
    assert large["sources"] == 400
    assert pc.count_distinct(pq.read_table(tmp_path / "b" / "m.parquet")["writer"]).as_py() == 40
