"""The folds bench writes one set of rows in three split forms, with the per-fold counts its truth.json claims."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
import pytest
import yaml

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    """make_random and folds_bench, imported from bench/ (they import their sibling scripts)."""
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("make_random"), importlib.import_module("folds_bench")


def test_forms_hold_the_same_rows_and_truth_counts_each_fold(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    make_random, folds_bench = bench
    make_random.generate(20_000, tmp_path / "random" / "manifest.parquet", seed=2)
    truth = folds_bench.derive(tmp_path / "random" / "manifest.parquet", tmp_path / "folds", seed=4)
    fixed, kfold, columns = (pq.read_table(tmp_path / "folds" / f"{f}.parquet").to_pandas() for f in folds_bench.FORMS)
    assert list(kfold.columns) == ["sample_id", "fold", "writer", "source", "sha", "ts"]
    assert list(columns.columns[1:6]) == [f"cv{k}" for k in range(5)]
    assert (fixed.sample_id == kfold.sample_id).all() and (columns.sample_id == kfold.sample_id).all()
    assert ((fixed.split == "test") == (kfold.fold == 0)).all()
    for k in range(5):
        assert ((columns[f"cv{k}"] == "holdout") == (kfold.fold == k)).all()
        assert set(columns[f"cv{k}"]) == {"train", "holdout"}
    assert truth["rows_per_fold"] == {str(k): int((kfold.fold == k).sum()) for k in range(5)}
    for key in ("writer", "source"):
        for k in range(5):
            holdout, train = set(kfold[key][kfold.fold == k]), set(kfold[key][kfold.fold != k])
            assert truth["GRP001"]["folds"][key][str(k)] == len(holdout & train) > 0
        assert truth["GRP001"]["fixed"][key] == {"-": truth["GRP001"]["folds"][key]["0"]}
    kfold_links = yaml.safe_load((tmp_path / "folds" / "kfold_links.yaml").read_text())
    assert kfold_links["manifest"] == {"path": "kfold.parquet", "id": "sample_id", "folds": "fold"}
    columns_groups = yaml.safe_load((tmp_path / "folds" / "columns_groups.yaml").read_text())
    assert columns_groups["manifest"]["folds"] == {"columns": [f"cv{k}" for k in range(5)]}
    assert json.loads((tmp_path / "folds" / "truth.json").read_text()) == truth


def test_check_wants_every_fold_as_counted(bench: tuple[ModuleType, ModuleType]) -> None:
    _, folds_bench = bench
    truth = {"GRP001": {"fixed": {"writer": {"-": 3}}, "folds": {"writer": {"0": 3, "1": 4}}}}
    want = folds_bench.expected("kfold", "links", truth)
    assert want == {"writer": {"fold 0": 3, "fold 1": 4}}
    audit = {"errors": {}, "facts": {"GRP001": {}, "GRP001 folds": {"writer": {"fold 0": 3, "fold 1": 4}}}}
    assert folds_bench.check(audit, want) == []
    short = {"errors": {}, "facts": {"GRP001": {}, "GRP001 folds": {"writer": {"fold 0": 3}}}}
    assert folds_bench.check(short, want) == ["GRP001 writer {'fold 0': 3} != {'fold 0': 3, 'fold 1': 4}"]
    # A fixed-split audit that found nothing per fold is no pass for the fold form.
    assert folds_bench.check({"errors": {}, "facts": {"GRP001": {"writer": 3}}}, want) != []
    fixed = folds_bench.expected("fixed", "links", truth)
    assert folds_bench.check({"errors": {}, "facts": {"GRP001": {"writer": 3}}}, fixed) == []
    assert folds_bench.check({"timeout": True}, want) == ["timeout"]


def test_ratios_are_against_the_fixed_split_of_the_same_rows(bench: tuple[ModuleType, ModuleType]) -> None:
    _, folds_bench = bench

    def result(form: str, seconds: float, mb: float) -> dict[str, object]:
        return {"rows": 10, "config": "groups", "form": form, "audit_s": seconds, "peak_rss_mb": mb,
                "loadavg": [1.0], "problems": []}  # fmt: skip

    out = folds_bench.ratios([result("fixed", 2.0, 1000.0), result("kfold", 2.8, 1150.0), result("columns", 3.2, 1000)])
    assert [(r["form"], r["time_ratio"], r["rss_ratio"], r["met"]) for r in out] == [
        ("kfold", pytest.approx(1.4), pytest.approx(1.15), True),
        ("columns", pytest.approx(1.6), pytest.approx(1.0), False),
    ]
