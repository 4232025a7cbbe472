"""near_duplicates on a feature table (`keys.features`): rows nudged by small noise across splits (NDP009),
within one split (NDP010), and the real tables, lattices and category-heavy tables that must stay silent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from auditor import load_config, run_audit
from auditor.core.findings import Report
from tests.conftest import codes, finding, write_config, write_table

ONLY = ["near_duplicates"]
ROW_CODES = {"NDP002", "NDP006", "NDP009", "NDP010"}


def audit_frame(tmp_path: Path, df: pd.DataFrame, features: Any = "auto", **options: Any) -> Report:
    write_table(tmp_path / "m.parquet", df)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sid", "split": "split"},
        "splits": {"train": ["train"]},
        "keys": {"features": features},
        "stages": {"near_duplicates": options} if options else {},
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


def real(name: str) -> pd.DataFrame:
    """A table scikit-learn ships, split at random into train and test (a quarter)."""
    import sklearn.datasets

    data = getattr(sklearn.datasets, f"load_{name}")()
    df = pd.DataFrame(data.data, columns=[str(c) for c in data.feature_names])
    df["split"] = np.where(np.random.default_rng(0).random(len(df)) < 0.25, "test", "train")
    df["sid"] = [f"r{i}" for i in range(len(df))]
    return df


def nudged(df: pd.DataFrame, rows: list[int], split: str, seed: int, share: float = 0.01) -> pd.DataFrame:
    """Copies of ``rows`` with noise at ``share`` of each feature's spread, put in ``split``."""
    features = [c for c in df.columns if c not in ("split", "sid")]
    copy = df.iloc[rows].copy()
    noise = np.random.default_rng(seed).standard_normal((len(rows), len(features)))
    copy[features] = copy[features].to_numpy() + noise * share * df[features].std().to_numpy()
    copy["split"] = split
    copy["sid"] = [f"copy{i}" for i in range(len(rows))]
    return pd.concat([df, copy], ignore_index=True)


def test_rows_copied_into_test_with_one_percent_noise_are_an_error_with_the_features_that_differ(
    tmp_path: Path,
) -> None:
    df = real("breast_cancer")
    train = np.flatnonzero(df.split == "train")[:4].tolist()
    r = audit_frame(tmp_path, nudged(df, train, "test", seed=1))
    f = finding(r, "NDP009")
    assert f.severity.value == "error"
    assert f.evidence["pairs"] == 4
    assert f.evidence["split_pairs"] == {"train–test": {"pairs": 4, "rows": 4}}
    assert f.evidence["search"] == {"method": "exact"}
    pairs = {(e["holdout"], e["near"]) for e in f.examples}
    assert pairs == {(f"copy{i}", f"r{row}") for i, row in enumerate(train)}
    diff = f.examples[0]["features"][0]
    assert set(diff) == {"feature", "holdout", "near", "difference", "of_spread"}
    assert 0 < diff["of_spread"] < 0.05  # noise of 1% of the spread: a few hundredths at most
    assert f.examples[0]["distance"] < 0.1 * f.examples[0]["local_scale"]
    assert f.scope.n_values == 4
    assert r.exit_code == 1
    assert not set(codes(r)) & {"NDP010", "NDP002"}


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "diabetes", "iris", "digits"])
def test_distinct_rows_of_real_data_split_at_random_are_no_finding(tmp_path: Path, name: str) -> None:
    r = audit_frame(tmp_path, real(name))
    assert not set(codes(r)) & ROW_CODES
    assert r.exit_code == 0


def test_rows_equal_on_a_few_low_variance_features_are_not_copies(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 4000
    df = pd.DataFrame({f"x{i}": rng.standard_normal(n) for i in range(8)})
    # Three features with little spread and few (but more than 20) values: thousands of rows agree on them.
    for i in range(3):
        df[f"low{i}"] = np.round(rng.normal(0, 0.01, n), 3)
    df["split"] = np.where(rng.random(n) < 0.2, "test", "train")
    df["sid"] = [f"r{i}" for i in range(n)]
    r = audit_frame(tmp_path, df)
    assert not set(codes(r)) & ROW_CODES


def test_integer_and_category_heavy_tables_where_rows_coincide_by_chance_are_no_finding(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    n = 20000
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),  # whole years: many customers share an age and a visit count
            "visits": rng.poisson(30, n),
            "children": rng.integers(0, 5, n),
            "plan": rng.choice(["basic", "plus", "pro"], n),
            "region": rng.choice([f"r{i}" for i in range(40)], n),
            "split": np.where(rng.random(n) < 0.2, "test", "train"),
        }
    )
    df["sid"] = [f"c{i}" for i in range(n)]
    r = audit_frame(tmp_path, df)
    assert not set(codes(r)) & ROW_CODES
    assert r.exit_code == 0


def test_a_table_of_discrete_features_only_is_not_compared_and_said(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 500
    df = pd.DataFrame({f"q{i}": rng.integers(0, 5, n) for i in range(6)})
    df["split"] = np.where(rng.random(n) < 0.3, "test", "train")
    df["sid"] = [f"r{i}" for i in range(n)]
    r = audit_frame(tmp_path, df)
    assert not set(codes(r)) & ROW_CODES
    note = finding(r, "NDP007")
    assert note.evidence["rows_not_compared"] == n
    assert "no feature has more than 20 distinct values" in note.message


def test_a_copy_must_agree_on_the_discrete_features(tmp_path: Path) -> None:
    df = real("wine")
    df["cellar"] = np.where(np.arange(len(df)) % 2 == 0, "north", "south")
    row = int(np.flatnonzero(df.split == "train")[0])
    df = nudged(df.drop(columns="cellar"), [row, row], "test", seed=2).assign(
        cellar=[*df.cellar, df.cellar[row], "north" if df.cellar[row] == "south" else "south"]
    )
    f = finding(audit_frame(tmp_path, df), "NDP009")
    assert f.evidence["pairs"] == 1  # the copy in the other cellar is another row
    assert f.examples[0]["holdout"] == "copy0"
    assert f.evidence["features"] == {"continuous": 13, "discrete": 1}


def test_an_exact_copy_of_a_distinctive_row_is_a_near_copy(tmp_path: Path) -> None:
    df = real("wine")
    row = int(np.flatnonzero(df.split == "train")[5])
    df = nudged(df, [row], "test", seed=0, share=0.0)
    f = finding(audit_frame(tmp_path, df), "NDP009")
    assert f.examples[0]["distance"] == 0
    assert f.examples[0]["features"] == []


def test_edited_copies_within_training_are_info_with_their_count_not_a_leak(tmp_path: Path) -> None:
    df = real("breast_cancer")
    train = np.flatnonzero(df.split == "train")
    df = nudged(df, train[:3].tolist(), "train", seed=3)
    r = audit_frame(tmp_path, df)
    assert "NDP009" not in codes(r)
    f = finding(r, "NDP010")
    assert f.severity.value == "info"
    assert f.evidence["per_split"] == {"train": {"pairs": 3, "rows": 6}}
    assert {e["split"] for e in f.examples} == {"train"}
    assert r.exit_code == 0


def test_copies_across_and_within_splits_are_reported_side_by_side(tmp_path: Path) -> None:
    df = real("breast_cancer")
    train, test = np.flatnonzero(df.split == "train"), np.flatnonzero(df.split == "test")
    df = nudged(df, [int(train[0])], "test", seed=4)
    df = nudged(df, [int(test[0]), int(test[1])], "test", seed=5).assign(
        sid=lambda d: [*d.sid[:-2], "tcopy0", "tcopy1"]
    )
    r = audit_frame(tmp_path, df)
    assert finding(r, "NDP009").evidence["pairs"] == 1
    assert finding(r, "NDP010").evidence["per_split"] == {"test": {"pairs": 2, "rows": 4}}


def test_listed_features_only_are_compared(tmp_path: Path) -> None:
    df = real("wine")
    row = int(np.flatnonzero(df.split == "train")[0])
    df = nudged(df, [row], "test", seed=6)
    df["noise"] = np.random.default_rng(7).standard_normal(len(df))
    df.loc[len(df) - 1, "noise"] = df.noise[row] + 20  # unlisted: the copy is far from its original here
    listed = [c for c in df.columns if c not in ("split", "sid", "noise")]
    assert finding(audit_frame(tmp_path, df, features=listed), "NDP009").evidence["pairs"] == 1
    assert "NDP009" not in codes(audit_frame(tmp_path / "all", df))


def test_past_the_exact_size_an_index_with_measured_recall_finds_the_same_pairs(tmp_path: Path) -> None:
    pytest.importorskip("faiss")
    rng = np.random.default_rng(8)
    n, d = 6000, 12
    base = rng.standard_normal((n, d)) @ rng.standard_normal((d, d))
    df = pd.DataFrame(base, columns=[f"f{i}" for i in range(d)])
    df["split"] = np.where(rng.random(n) < 0.2, "test", "train")
    df["sid"] = [f"r{i}" for i in range(n)]
    df = nudged(df, np.flatnonzero(df.split == "train")[:20].tolist(), "test", seed=9)
    exact = finding(audit_frame(tmp_path / "exact", df), "NDP009")
    index = finding(audit_frame(tmp_path / "index", df, row_exact_rows=1000), "NDP009")
    assert exact.evidence["search"] == {"method": "exact"}
    assert index.evidence["search"]["method"] == "approximate"
    assert index.evidence["search"]["recall"] >= 0.99
    assert index.scope == exact.scope  # the same 20 pairs


def test_folds_report_the_feature_row_copies_per_fold(tmp_path: Path) -> None:
    df = real("breast_cancer").drop(columns="split")
    df["fold"] = [f"fold{i % 3}" for i in range(len(df))]
    copy = df.iloc[[0]].copy()
    copy["fold"], copy["sid"] = "fold1", "copy0"
    df = pd.concat([df, copy], ignore_index=True)
    write_table(tmp_path / "m.parquet", df)
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sid", "folds": "fold"},
        "keys": {"features": "auto"},
    }
    r = run_audit(load_config(write_config(tmp_path, config)), only=ONLY)
    folds = sorted(f.evidence["fold"] for f in r.findings if f.code == "NDP009")
    assert len(folds) == 2  # fold0 and fold1 each hold one side out while training on the other
    assert "NDP001" not in codes(r)


def test_copies_between_two_holdout_splits_are_a_warning_as_for_other_content(tmp_path: Path) -> None:
    df = real("breast_cancer")
    df.loc[df.index[:60], "split"] = "val"
    val = np.flatnonzero(df.split == "val")
    r = audit_frame(tmp_path, nudged(df, [int(val[0])], "test", seed=10))
    f = finding(r, "NDP002")
    assert f.severity.value == "warning" and f.evidence["content"] == "rows of the feature table"
    assert "NDP009" not in codes(r)


def test_a_table_over_the_memory_budget_is_not_compared_and_says_so(tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    df = pd.DataFrame(rng.standard_normal((20_000, 8)), columns=[f"f{i}" for i in range(8)])
    df["split"] = np.where(rng.random(len(df)) < 0.2, "test", "train")
    df["sid"] = [f"r{i}" for i in range(len(df))]
    df = nudged(df, [0, 1, 2], "test", seed=13)  # copies it cannot see: no pass is given on them
    report = audit_frame(tmp_path, df, row_memory=1 << 20)
    f = finding(report, "NDP011")
    assert f.severity.value == "warning" and not ROW_CODES & set(codes(report))
    assert f.message == (
        "the rows of the feature table were not compared for near copies: 20,003 rows of 8 feature(s) need about "
        "113.7 MiB to search, more than the 1.0 MiB budget (stages.near_duplicates.row_memory). No verdict is given "
        "on near copies among them."
    )
    assert f.evidence == {"rows_not_compared": 20_003, "row_memory": 1 << 20}


def test_an_index_short_of_its_recall_says_a_copy_may_be_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("faiss")
    from auditor.similarity import featurerows

    monkeypatch.setattr(featurerows, "MAX_PROBES", 1)  # one list a query: the recall falls short on these rows
    rng = np.random.default_rng(14)
    df = pd.DataFrame(rng.standard_normal((6000, 16)), columns=[f"f{i}" for i in range(16)])
    df["split"] = np.where(rng.random(len(df)) < 0.2, "test", "train")
    df["sid"] = [f"r{i}" for i in range(len(df))]
    f = finding(audit_frame(tmp_path, df, row_exact_rows=1000), "NDP011")
    assert f.evidence["probes"] == 2 and f.evidence["recall"] < 0.99 and "a near copy may be missed" in f.message


@pytest.mark.parametrize("features", [["age", "tenure_months", "score"], "auto"], ids=["k-d tree", "index"])
def test_a_lattice_of_whole_numbers_past_the_exact_size_is_no_finding(tmp_path: Path, features: Any) -> None:
    """Rows tied by the thousand (whole years, whole months, cents), searched by their distinct rows."""
    if features == "auto":
        pytest.importorskip("faiss")
    rng = np.random.default_rng(15)
    n = 8000
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 91, n),
            "tenure_months": rng.integers(0, 61, n),
            "score": np.round(rng.standard_normal(n), 1),
            "income": np.round(rng.lognormal(10.5, 0.6, n), -3),
            "balance": np.round(rng.normal(5000, 2000, n), -1),
            "rate": np.round(rng.random(n), 2),
            "split": np.where(rng.random(n) < 0.2, "test", "train"),
        }
    )
    df["sid"] = [f"c{i}" for i in range(n)]
    r = audit_frame(tmp_path, df, features=features, row_exact_rows=1000)
    assert not set(codes(r)) & (ROW_CODES | {"NDP011"})
    assert r.exit_code == 0
