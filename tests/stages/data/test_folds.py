"""Cross-validation folds audited fold by fold, on folds made by the real scikit-learn splitters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from auditor.core.findings import Report
from tests.conftest import AuditFn, codes

sklearn = pytest.importorskip("sklearn.model_selection")

FOLDS = {"split": None, "folds": "fold", "id": "sid"}


def patients(n_patients: int = 30, per_patient: int = 4, seed: int = 0) -> pd.DataFrame:
    """Rows of patients, several rows each, with a binary label."""
    rng = np.random.default_rng(seed)
    n = n_patients * per_patient
    return pd.DataFrame(
        {
            "sid": [f"s{i:04d}" for i in range(n)],
            "patient": [f"p{i % n_patients:03d}" for i in range(n)],
            "label": rng.integers(0, 2, n),
        }
    )


def with_folds(df: pd.DataFrame, splits: Any, column: str = "fold") -> pd.DataFrame:
    """``df`` with the fold each row is the holdout of (each row in exactly one holdout)."""
    fold = np.full(len(df), -1)
    for k, (_, holdout) in enumerate(splits):
        assert (fold[holdout] == -1).all()
        fold[holdout] = k
    assert (fold >= 0).all()
    return df.assign(**{column: fold})


def per_fold(report: Report, code: str) -> dict[str, Any]:
    return {f.evidence["fold"]: f for f in report.findings if f.code == code}


def test_shuffled_kfold_on_rows_of_patients_is_flagged_on_every_fold(audit: AuditFn) -> None:
    df = patients()
    df = with_folds(df, sklearn.KFold(5, shuffle=True, random_state=0).split(df))
    r = audit(df, manifest=FOLDS, keys={"groups": ["patient"]}, only=["group_overlap"])
    found = per_fold(r, "GRP001")
    assert sorted(found) == [f"fold {k}" for k in range(5)]
    for k in range(5):
        holdout = df[df.fold == k]
        train = df[df.fold != k]
        shared = set(holdout.patient) & set(train.patient)
        e = found[f"fold {k}"].evidence
        assert e["groups"] == len(shared)
        assert e["holdout_rows_sharing_train_groups"] == int(holdout.patient.isin(shared).sum())
        assert e["holdout_rows"] == len(holdout)
    # Each fold's finding has its own fingerprint; the folds x folds matrix is shown once.
    assert len({f.fingerprint for f in found.values()}) == 5
    with_matrix = [f for f in found.values() if f.tables]
    assert len(with_matrix) == 1
    matrix = with_matrix[0].tables[1]
    assert matrix.columns == ("", *(f"fold {k}" for k in range(5)))
    a, b = df[df.fold == 0].patient, df[df.fold == 1].patient
    assert matrix.rows[0][2] == len(set(a) & set(b))
    assert r.exit_code == 1


@pytest.mark.parametrize(
    "splitter",
    [
        sklearn.GroupKFold(5),
        sklearn.StratifiedGroupKFold(4, shuffle=True, random_state=1),
        sklearn.LeaveOneGroupOut(),
    ],
    ids=["GroupKFold", "StratifiedGroupKFold", "LeaveOneGroupOut"],
)
def test_group_aware_splitters_are_clean_on_their_groups(audit: AuditFn, splitter: Any) -> None:
    df = patients(n_patients=12 if isinstance(splitter, sklearn.LeaveOneGroupOut) else 30)
    df = with_folds(df, splitter.split(df, df.label, groups=df.patient))
    r = audit(df, manifest=FOLDS, keys={"groups": ["patient"]}, only=["group_overlap", "split_integrity"])
    assert [c for c in codes(r) if c.startswith("GRP")] == []
    sizes = next(f for f in r.findings if f.code == "SPL012")
    n_folds = df.fold.nunique()
    assert len(sizes.evidence["folds"]) == n_folds
    assert all(v["holdout"] + v["train"] == len(df) for v in sizes.evidence["folds"].values())
    assert r.exit_code == 0


def test_group_kfold_that_still_shares_a_source_is_found_per_fold(audit: AuditFn) -> None:
    # Folds by patient, but two patients (in different folds) were scanned on the same slide.
    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    df["slide"] = [f"slide-{sid}" for sid in df.sid]
    a = df.index[df.fold == 0][0]
    b = df.index[df.fold == 3][0]
    df.loc[b, "slide"] = df.loc[a, "slide"]
    r = audit(df, manifest=FOLDS, keys={"groups": ["patient"], "sources": ["slide"]}, only=["shared_upstream"])
    found = per_fold(r, "UPS001")
    # Fold 0's holdout is linked to fold 3 (which trains fold 0), and the other way round; no other fold is
    # affected: both patients are training rows there, on the same side.
    assert sorted(found) == ["fold 0", "fold 3"]
    p0, p3 = df.loc[a, "patient"], df.loc[b, "patient"]
    assert found["fold 0"].evidence["holdout_rows_linked_to_train"] == int((df.patient == p0).sum())
    assert found["fold 3"].evidence["holdout_rows_linked_to_train"] == int((df.patient == p3).sum())
    chain = found["fold 0"].examples[0]["chains"][0]["text"]
    assert "slide" in chain


def test_time_series_split_as_one_column_per_fold(audit: AuditFn) -> None:
    # TimeSeriesSplit: fold k trains on everything before its holdout; the first chunk is never a holdout.
    df = patients(n_patients=40, per_patient=3)
    columns = []
    for k, (train, holdout) in enumerate(sklearn.TimeSeriesSplit(4).split(df)):
        role = np.full(len(df), "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        df[f"cv{k}"] = role
        columns.append(f"cv{k}")
    manifest = {"split": None, "id": "sid", "folds": {"columns": columns}}
    r = audit(df, manifest=manifest, keys={"groups": ["patient"]}, only=["group_overlap", "split_integrity"])
    found = per_fold(r, "GRP001")
    assert sorted(found) == columns  # rows of a patient are spread over time: every fold shares patients
    for column in columns:
        holdout, train = df[df[column] == "holdout"], df[df[column] == "train"]
        shared = set(holdout.patient) & set(train.patient)
        assert found[column].evidence["groups"] == len(shared)
    sizes = next(f for f in r.findings if f.code == "SPL012").evidence["folds"]
    assert sizes["cv0"] == {
        "holdout": int((df.cv0 == "holdout").sum()),
        "train": int((df.cv0 == "train").sum()),
        "unused": int((df.cv0 == "unused").sum()),
    }


def test_time_series_split_on_ordered_patients_is_clean(audit: AuditFn) -> None:
    # Each patient's rows are consecutive and the chunks fall on patient boundaries: nothing is shared.
    df = patients(n_patients=25, per_patient=4).sort_values("patient", kind="stable").reset_index(drop=True)
    columns = []
    for k, (train, holdout) in enumerate(sklearn.TimeSeriesSplit(4, test_size=20).split(df)):
        role = np.full(len(df), "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        df[f"cv{k}"] = role
        columns.append(f"cv{k}")
    manifest = {"split": None, "id": "sid", "folds": {"columns": columns}}
    r = audit(df, manifest=manifest, keys={"groups": ["patient"]}, only=["group_overlap"])
    assert codes(r) == [] and r.exit_code == 0


def test_rolling_scheme_trains_each_fold_only_on_the_folds_before_it(audit: AuditFn) -> None:
    # Chunks 0..3 in time; patient p-late is in chunks 2 and 3: fold 3 trains on chunk 2 (a leak), while
    # fold 2 does not train on chunk 3 (no leak there).
    df = pd.DataFrame(
        {
            "sid": [f"s{i}" for i in range(8)],
            "patient": ["a", "b", "c", "d", "e", "late", "late", "h"],
            "fold": [0, 0, 1, 1, 2, 2, 3, 3],
        }
    )
    manifest = {"split": None, "id": "sid", "folds": {"column": "fold", "scheme": "rolling"}}
    r = audit(df, manifest=manifest, keys={"groups": ["patient"]}, only=["group_overlap", "split_integrity"])
    found = per_fold(r, "GRP001")
    assert sorted(found) == ["fold 3"]
    assert found["fold 3"].evidence["holdout_rows_sharing_train_groups"] == 1
    sizes = next(f for f in r.findings if f.code == "SPL012").evidence["folds"]
    assert list(sizes) == ["fold 1", "fold 2", "fold 3"]  # fold 0 trains only
    assert sizes["fold 1"] == {"holdout": 2, "train": 2, "unused": 4}
    assert sizes["fold 3"] == {"holdout": 2, "train": 6, "unused": 0}


def test_fixed_test_split_beside_folds_is_judged_on_its_own(audit: AuditFn) -> None:
    df = patients(n_patients=30)
    is_test = df.patient.isin([f"p{i:03d}" for i in range(6)])
    cv = df[~is_test].reset_index(drop=True)
    cv = with_folds(cv, sklearn.GroupKFold(4).split(cv, groups=cv.patient))
    test = df[is_test].assign(fold=None)
    # One test patient also has a row inside the folds: the test split leaks; the folds themselves do not.
    leaked = cv.index[cv.fold == 2][0]
    cv.loc[leaked, "patient"] = "p000"
    table = pd.concat([cv.assign(split="train"), test.assign(split="test")], ignore_index=True)
    manifest = {"split": "split", "folds": "fold", "id": "sid"}
    r = audit(table, manifest=manifest, keys={"groups": ["patient"]}, only=["group_overlap", "split_integrity"])
    found = per_fold(r, "GRP001")
    assert sorted(found) == ["test"]  # its own leak, named as its own, and never blamed on a fold
    test_rows = int((table.patient == "p000").sum()) - 1
    assert found["test"].evidence["holdout_rows_sharing_train_groups"] == test_rows
    assert found["test"].evidence["holdout_rows"] == int(is_test.sum())
    sizes = next(f for f in r.findings if f.code == "SPL012").evidence
    assert sizes["folds"]["fold 0"]["holdout"] == int((table.fold == 0).sum())  # a fold holds out its own rows
    assert sizes["fixed"]["test"] == {"holdout": int(is_test.sum()), "train": len(cv), "unused": 0}


def test_fixed_test_beside_group_folds_is_clean(audit: AuditFn) -> None:
    df = patients(n_patients=30)
    is_test = df.patient.isin([f"p{i:03d}" for i in range(6)])
    cv = df[~is_test].reset_index(drop=True)
    cv = with_folds(cv, sklearn.GroupKFold(4).split(cv, groups=cv.patient))
    table = pd.concat([cv.assign(split="train"), df[is_test].assign(fold=None, split="test")], ignore_index=True)
    manifest = {"split": "split", "folds": "fold", "id": "sid"}
    r = audit(table, manifest=manifest, keys={"groups": ["patient"]}, only=["group_overlap", "split_integrity"])
    assert [c for c in codes(r) if c.startswith("GRP")] == []
    assert "SPL005" not in codes(r) and "SPL006" not in codes(r)


def test_test_exposure_on_folds_alone_is_skipped_with_the_reason(audit: AuditFn) -> None:
    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    df["sha"] = [f"{i:064x}" for i in range(len(df))]
    r = audit(df, manifest=FOLDS, keys={"content_hash": "sha"}, only=["test_exposure"])
    stage = next(s for s in r.stages if s.stage == "test_exposure")
    assert stage.status == "skipped" and "cross-validation fold is a validation fold" in (stage.skip_reason or "")


def test_identical_content_is_reported_per_fold(audit: AuditFn) -> None:
    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    df["sha"] = [f"{i:064x}" for i in range(len(df))]
    # A copy of a fold-1 row in fold 4: each of the two folds holds out a copy of one of its training rows.
    a, b = df.index[df.fold == 1][0], df.index[df.fold == 4][0]
    df.loc[b, "sha"] = df.loc[a, "sha"]
    r = audit(df, manifest=FOLDS, keys={"content_hash": "sha"}, only=["duplicate_content"])
    found = per_fold(r, "DUP001")
    assert sorted(found) == ["fold 1", "fold 4"]
    for fold in ("fold 1", "fold 4"):
        e = found[fold].evidence
        assert e["holdout_rows_identical_to_train"] == 1
        assert e["holdout_rows"] == int((df.fold == int(fold.split()[1])).sum())


def test_copies_within_one_fold_are_not_a_leak(audit: AuditFn) -> None:
    # Two copies in the same fold are held out together and trained on together: never across.
    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    df["sha"] = [f"{i:064x}" for i in range(len(df))]
    rows = df.index[df.fold == 2][:2]
    df.loc[rows[1], "sha"] = df.loc[rows[0], "sha"]
    r = audit(df, manifest=FOLDS, keys={"content_hash": "sha"}, only=["duplicate_content"])
    assert "DUP001" not in codes(r) and r.exit_code == 0


def test_a_label_only_one_fold_holds_is_unseen_in_that_fold(audit: AuditFn) -> None:
    df = patients(n_patients=30)
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    rare = df.index[df.fold == 3][:2]
    df.loc[rare, "label"] = 7
    r = audit(df, manifest=FOLDS, keys={"label": "label"}, only=["label_coverage"])
    found = [f for f in r.findings if f.code == "LAB001"]
    assert [f.evidence["fold"] for f in found] == ["fold 3"]
    assert found[0].evidence["rows"] == 2 and found[0].examples == ({"label": "7", "rows": 2},)
    assert "the holdout of fold 3" in found[0].message


def test_stratified_folds_have_the_label_shares_of_their_training_rows(audit: AuditFn) -> None:
    df = patients(n_patients=50)
    df = with_folds(df, sklearn.StratifiedKFold(5, shuffle=True, random_state=0).split(df, df.label))
    r = audit(df, manifest=FOLDS, keys={"label": "label"}, only=["label_coverage"])
    assert [c for c in codes(r) if c in ("LAB001", "LAB002")] == []


def test_a_fold_whose_labels_differ_from_its_training_rows_is_named(audit: AuditFn) -> None:
    # Folds cut along a sorted label: the last fold holds out only label 1, trained mostly on label 0.
    df = patients(n_patients=50).sort_values("label", kind="stable").reset_index(drop=True)
    df = with_folds(df, sklearn.KFold(4).split(df))
    r = audit(df, manifest=FOLDS, keys={"label": "label"}, only=["label_coverage"])
    shifted = {f.evidence["fold"] for f in r.findings if f.code == "LAB002"}
    assert "fold 3" in shifted and "fold 0" in shifted


def test_the_fold_matrix_is_drawn_fold_by_fold(audit: AuditFn) -> None:
    from auditor.render.figures import figures_for

    df = patients()
    df = with_folds(df, sklearn.KFold(5, shuffle=True, random_state=0).split(df))
    r = audit(df, manifest=FOLDS, keys={"groups": ["patient"]}, only=["group_overlap"])
    first = next(f for f in r.findings if f.code == "GRP001" and f.tables)
    figures = figures_for(first, [f"fold {k}" for k in range(5)])
    assert len(figures) == 1 and "fold by fold" in figures[0].svg
    pairs = first.tables[0]
    assert {(row[0], row[1]) for row in pairs.rows} <= {(f"fold {i}", f"fold {j}") for i in range(5) for j in range(5)}
    assert all(row[2] == "train-holdout" for row in pairs.rows)


def _scaler_json(path: Path, rows: pd.DataFrame, columns: list[str]) -> None:
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(rows[columns].to_numpy())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "feature_names_in_": columns,
                "mean_": scaler.mean_.tolist(),
                "scale_": scaler.scale_.tolist(),
                "var_": scaler.var_.tolist(),
                "n_samples_seen_": int(scaler.n_samples_seen_),
            }
        )
    )


def _measured(n_patients: int = 40) -> pd.DataFrame:
    df = patients(n_patients=n_patients)
    rng = np.random.default_rng(3)
    df["age"] = rng.normal(50, 15, len(df)).round(1)
    df["bmi"] = rng.normal(26, 4, len(df)).round(2)
    return with_folds(df, sklearn.GroupKFold(4).split(df, groups=df.patient))


SCALER = {"name": "scaler", "kind": "standardize", "columns": ["age", "bmi"]}


def test_a_scaler_fitted_inside_the_cv_loop_reproduces_from_each_folds_training_rows(
    audit: AuditFn, tmp_path: Path
) -> None:
    df = _measured()
    for k in range(4):
        _scaler_json(tmp_path / f"artifacts/scaler_fold{k}.json", df[df.fold != k], ["age", "bmi"])
    fitted = [{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}]
    r = audit(df, manifest=FOLDS, fitted=fitted, only=["fitted_statistics"])
    assert sorted((f.code, f.evidence["fold"]) for f in r.findings) == [("FIT000", f"fold {k}") for k in range(4)]
    assert r.exit_code == 0


def test_a_scaler_fitted_before_the_cv_loop_is_fit001_on_every_fold(audit: AuditFn, tmp_path: Path) -> None:
    df = _measured()
    _scaler_json(tmp_path / "artifacts/scaler.json", df, ["age", "bmi"])
    r = audit(df, manifest=FOLDS, fitted=[{**SCALER, "artifact": "artifacts/scaler.json"}], only=["fitted_statistics"])
    found = per_fold(r, "FIT001")
    assert sorted(found) == [f"fold {k}" for k in range(4)]
    assert all(f.evidence["reproduces_from"] == ["all rows"] for f in found.values())
    assert len({f.fingerprint for f in found.values()}) == 4
    assert r.exit_code == 1


def test_one_folds_scaler_fitted_on_all_rows_is_named(audit: AuditFn, tmp_path: Path) -> None:
    df = _measured()
    for k in range(4):
        rows = df if k == 2 else df[df.fold != k]
        _scaler_json(tmp_path / f"artifacts/scaler_fold{k}.json", rows, ["age", "bmi"])
    fitted = [{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}]
    r = audit(df, manifest=FOLDS, fitted=fitted, only=["fitted_statistics"])
    assert sorted(per_fold(r, "FIT001")) == ["fold 2"]
    assert sorted(per_fold(r, "FIT000")) == ["fold 0", "fold 1", "fold 3"]
    assert "scaler_fold2.json" in per_fold(r, "FIT001")["fold 2"].evidence["artifact"]


def test_per_fold_scalers_beside_a_fixed_test_split_are_checked_fold_by_fold(audit: AuditFn, tmp_path: Path) -> None:
    """The test split is judged on its own, but it has no `{fold}` artifact of its own: none is looked for."""
    df = _measured()
    for k in range(4):
        _scaler_json(tmp_path / f"artifacts/scaler_fold{k}.json", df[df.fold != k], ["age", "bmi"])
    test = _measured(n_patients=8).assign(sid=lambda t: "t" + t.sid, patient=lambda t: "q" + t.patient, fold=None)
    table = pd.concat([df.assign(split="train"), test.assign(split="test")], ignore_index=True)
    fitted = [{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}]
    manifest = {"split": "split", "folds": "fold", "id": "sid"}
    r = audit(table, manifest=manifest, fitted=fitted, only=["fitted_statistics"])
    assert sorted((f.code, f.evidence["fold"]) for f in r.findings) == [("FIT000", f"fold {k}") for k in range(4)]
    assert r.exit_code == 0
    # One scaler fitted on every row of the folds is the final model's: right for the test split, not for a fold.
    _scaler_json(tmp_path / "artifacts/scaler.json", df, ["age", "bmi"])
    r = audit(
        table, manifest=manifest, fitted=[{**SCALER, "artifact": "artifacts/scaler.json"}], only=["fitted_statistics"]
    )
    assert sorted(per_fold(r, "FIT001")) == [f"fold {k}" for k in range(4)]
    assert "test" in per_fold(r, "FIT000")


def test_a_missing_fold_artifact_is_named(audit: AuditFn, tmp_path: Path) -> None:
    df = _measured()
    for k in range(3):
        _scaler_json(tmp_path / f"artifacts/scaler_fold{k}.json", df[df.fold != k], ["age", "bmi"])
    fitted = [{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}]
    r = audit(df, manifest=FOLDS, fitted=fitted, only=["fitted_statistics"])
    stage = next(s for s in r.stages if s.stage == "fitted_statistics")
    assert stage.status == "error" and stage.error is not None and "scaler_fold3.json" in stage.error.message


def _dated(n_patients: int = 20, per_patient: int = 5) -> pd.DataFrame:
    """Visits in time order, each patient's visits a week apart, patients interleaved."""
    df = patients(n_patients=n_patients, per_patient=per_patient)
    df["t"] = pd.date_range("2024-01-01", periods=len(df), freq="D").strftime("%Y-%m-%d")
    return df


def _per_column(df: pd.DataFrame, splits: Any) -> tuple[pd.DataFrame, list[str]]:
    columns = []
    for k, (train, holdout) in enumerate(splits):
        role = np.full(len(df), "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        df[f"cv{k}"] = role
        columns.append(f"cv{k}")
    return df, columns


def test_shuffled_kfold_over_time_trains_on_the_future_of_every_fold(audit: AuditFn) -> None:
    df = _dated()
    df = with_folds(df, sklearn.KFold(4, shuffle=True, random_state=0).split(df))
    keys = {"time": "t", "entity": "patient"}
    r = audit(df, manifest=FOLDS, keys=keys, only=["temporal_order"])
    older = per_fold(r, "TMP001")
    assert sorted(older) == [f"fold {k}" for k in range(4)]
    for k in range(4):
        newest = df[df.fold != k].t.max()
        holdout = df[df.fold == k]
        e = older[f"fold {k}"].evidence
        assert e["newest_train"].startswith(newest) and e["rows"] == int((holdout.t < newest).sum())
    entities = per_fold(r, "TMP002")
    assert sorted(entities) == [f"fold {k}" for k in range(4)]
    for k in range(4):
        newest_own = df[df.fold != k].groupby("patient").t.max()
        holdout = df[df.fold == k]
        early = holdout.t < holdout.patient.map(newest_own).fillna("")
        assert entities[f"fold {k}"].evidence["rows"] == int(early.sum())


def test_time_series_split_is_in_order_on_every_fold(audit: AuditFn) -> None:
    df, columns = _per_column(_dated(), sklearn.TimeSeriesSplit(4).split(_dated()))
    manifest = {"split": None, "id": "sid", "folds": {"columns": columns}}
    r = audit(df, manifest=manifest, keys={"time": "t", "entity": "patient"}, only=["temporal_order"])
    assert [c for c in codes(r) if c in ("TMP001", "TMP002")] == []


def test_rolling_folds_in_time_order_are_in_order(audit: AuditFn) -> None:
    df = _dated()
    df["fold"] = np.arange(len(df)) * 5 // len(df)  # five consecutive stretches of time
    manifest = {"split": None, "id": "sid", "folds": {"column": "fold", "scheme": "rolling"}}
    r = audit(df, manifest=manifest, keys={"time": "t", "entity": "patient"}, only=["temporal_order"])
    assert [c for c in codes(r) if c in ("TMP001", "TMP002")] == [] and r.exit_code == 0
    # The same stretches as k-fold: each fold but the last trains on later stretches.
    r = audit(df, manifest={**manifest, "folds": "fold"}, keys={"time": "t"}, only=["temporal_order"])
    assert sorted(per_fold(r, "TMP001")) == [f"fold {k}" for k in range(4)]


def test_forecast_folds_over_rows_out_of_time_order_are_an_error(audit: AuditFn) -> None:
    """TimeSeriesSplit over rows not sorted by time (or `scheme: rolling` over shuffled dates): folds made for a
    forecast that train on the future. TMP001 was a warning, exit 0; the folds say the task is a forecast."""
    shuffled = _dated().sample(frac=1.0, random_state=0).reset_index(drop=True)
    df, columns = _per_column(shuffled, sklearn.TimeSeriesSplit(4).split(shuffled))
    manifest = {"split": None, "id": "sid", "folds": {"columns": columns}}
    r = audit(df, manifest=manifest, keys={"time": "t"}, only=["temporal_order"])
    older = per_fold(r, "TMP001")
    assert older and {f.severity for f in older.values()} == {"error"} and r.exit_code == 1
    assert "sort them by time" in next(iter(older.values())).message
    shuffled["fold"] = np.arange(len(shuffled)) * 5 // len(shuffled)
    rolling = {"split": None, "id": "sid", "folds": {"column": "fold", "scheme": "rolling"}}
    r = audit(shuffled, manifest=rolling, keys={"time": "t"}, only=["temporal_order"])
    assert {f.severity for f in per_fold(r, "TMP001").values()} == {"error"} and r.exit_code == 1


def test_k_fold_over_shuffled_dates_stays_a_warning(audit: AuditFn) -> None:
    """Shuffled k-fold folds make no claim that the task is a forecast: TMP001 stays the question it was."""
    df = with_folds(_dated(), sklearn.KFold(4, shuffle=True, random_state=0).split(_dated()))
    r = audit(df, manifest=FOLDS, keys={"time": "t"}, only=["temporal_order"])
    assert {f.severity for f in per_fold(r, "TMP001").values()} == {"warning"} and r.exit_code == 0


@pytest.mark.parametrize(
    ("splitter", "chaining"),
    [
        (sklearn.TimeSeriesSplit(4), True),
        (sklearn.TimeSeriesSplit(3, gap=2), True),
        (sklearn.KFold(4), False),
        (sklearn.KFold(4, shuffle=True, random_state=0), False),
        (sklearn.GroupKFold(4), False),
    ],
    ids=["tss", "tss-gap", "kfold", "kfold-shuffled", "group-kfold"],
)
def test_folds_that_chain_forward_are_told_from_k_fold(splitter: Any, chaining: bool) -> None:
    from auditor.core.splits import FoldLayout, FoldRole

    df = _dated()
    folds = list(splitter.split(df, groups=df["patient"] if isinstance(splitter, sklearn.GroupKFold) else None))
    roles = np.full((len(df), len(folds)), FoldRole.UNUSED, dtype=np.int8)
    for k, (train, holdout) in enumerate(folds):
        roles[train, k], roles[holdout, k] = FoldRole.TRAIN, FoldRole.HOLDOUT
    roles = roles[roles.any(axis=1)]  # a row of no fold has no pattern
    names = tuple(f"fold {k}" for k in range(len(folds)))
    layout = FoldLayout(names, tuple(f"p{i}" for i in range(len(roles))), roles)
    assert layout.forward_chaining is chaining


WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
]


def _notes(df: pd.DataFrame) -> pd.DataFrame:
    """A distinct note of 24 words per row (no two share a run of five words)."""
    rng = np.random.default_rng(5)
    notes = [" ".join(f"{w}{rng.integers(0, 10**6)}" for w in rng.permutation(WORDS)[:24]) for _ in range(len(df))]
    return df.assign(note=notes)


def test_near_copies_are_reported_per_fold(audit: AuditFn) -> None:
    df = _notes(with_folds(patients(), sklearn.GroupKFold(4).split(patients(), groups=patients().patient)))
    a, b = df.index[df.fold == 0][0], df.index[df.fold == 2][0]
    words = df.loc[a, "note"].split()
    df.loc[b, "note"] = " ".join([*words[:-1], "edited"])  # one word changed
    r = audit(df, manifest=FOLDS, keys={"text": "note"}, only=["near_duplicates"])
    found = per_fold(r, "NDP001")
    assert sorted(found) == ["fold 0", "fold 2"]
    for fold, row in (("fold 0", a), ("fold 2", b)):
        e = found[fold].evidence
        assert e["holdout_rows_near_train"] == 1 and e["pairs"] == 1
        assert found[fold].examples[0]["holdout"] == df.loc[row, "sid"]
    assert "NDP007" not in codes(r)  # verbatim overlap is measured per fold too: nothing left unmeasured


def _collage(df: pd.DataFrame, collage_fold: int, part_folds: list[int]) -> tuple[pd.DataFrame, Any, list[Any]]:
    """Three long texts in rows of ``part_folds`` and, in a row of ``collage_fold``, one text made of a passage
    of each (near none of them, mostly verbatim in them together)."""
    from tests.stages.data.test_near_duplicates import join, text

    parts = [text(20 + i, n=600) for i in range(3)]
    used = {collage_fold: 0}
    rows = []
    for f in part_folds:
        row = df.index[df.fold == f][used.get(f, 0)]
        used[f] = used.get(f, 0) + 1
        rows.append(row)
    collage = df.index[df.fold == collage_fold][0]
    for row, words in zip(rows, parts, strict=True):
        df.loc[row, "note"] = join(words)
    df.loc[collage, "note"] = join(parts[0][:100] + parts[1][:100] + parts[2][:100])
    return df, collage, rows


def test_verbatim_overlap_is_measured_per_fold_against_its_own_training_texts(audit: AuditFn) -> None:
    df = _notes(with_folds(patients(), sklearn.GroupKFold(4).split(patients(), groups=patients().patient)))
    df, collage, parts = _collage(df, 0, [1, 2, 3])
    r = audit(df, manifest=FOLDS, keys={"text": "note"}, only=["near_duplicates"])
    (mostly,) = [f for f in r.findings if f.code == "NDP004"]  # fold 0's holdout text, trained on in folds 1-3
    assert mostly.evidence["fold"] == "fold 0" and mostly.evidence["texts"] == 1
    assert mostly.examples[0]["holdout"] == df.loc[collage, "sid"] and mostly.examples[0]["verbatim_share"] > 0.9
    assert mostly.scope is not None and mostly.scope.values == (df.loc[collage, "sid"],)
    overlap = per_fold(r, "NDP008")
    # Each fold's holdout part shares a passage with the collage it trains on: a sixth of it, below the share.
    assert sorted(overlap) == ["fold 0", "fold 1", "fold 2", "fold 3"]
    assert overlap["fold 0"].evidence["with_overlap"] == 1 and overlap["fold 0"].evidence["at_or_above_share"] == 1
    for fold, row in zip(["fold 1", "fold 2", "fold 3"], parts, strict=True):
        e = overlap[fold].evidence
        assert (e["with_overlap"], e["at_or_above_share"]) == (1, 0)
        assert overlap[fold].scope is not None and overlap[fold].scope.values == (df.loc[row, "sid"],)
    fingerprints = {f.fingerprint for f in overlap.values()}
    assert len(fingerprints) == 4  # the fold is part of each finding's identity
    assert "NDP001" not in codes(r) and "NDP007" not in codes(r)


def test_verbatim_overlap_inside_one_fold_is_not_a_finding(audit: AuditFn) -> None:
    """The collage and the texts it quotes all in fold 1: together in its holdout, together in the other folds'
    training rows, never one in a holdout and the other in its training rows."""
    df = _notes(with_folds(patients(), sklearn.GroupKFold(4).split(patients(), groups=patients().patient)))
    df, _, _ = _collage(df, 1, [1, 1, 1])
    r = audit(df, manifest=FOLDS, keys={"text": "note"}, only=["near_duplicates"])
    assert not {"NDP001", "NDP004", "NDP008", "NDP007"} & set(codes(r)) and r.exit_code == 0
    assert next(s for s in r.stages if s.stage == "near_duplicates").status == "passed"


def test_near_copies_within_one_fold_are_not_a_leak(audit: AuditFn) -> None:
    df = _notes(with_folds(patients(), sklearn.GroupKFold(4).split(patients(), groups=patients().patient)))
    a, b = df.index[df.fold == 1][:2]
    df.loc[b, "note"] = " ".join([*df.loc[a, "note"].split()[:-1], "edited"])
    r = audit(df, manifest=FOLDS, keys={"text": "note"}, only=["near_duplicates"])
    assert "NDP001" not in codes(r) and r.exit_code == 0


def test_a_fold_template_without_folds_is_an_input_error(audit: AuditFn) -> None:
    df = _measured().assign(split="train")
    r = audit(df, fitted=[{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}], only=["fitted_statistics"])
    stage = next(s for s in r.stages if s.stage == "fitted_statistics")
    assert stage.status == "error" and stage.error is not None
    assert (
        "names `{fold}`, but the manifest has no `folds`" in stage.error.message
        and "audit.yaml:" in stage.error.message
    )


def test_an_accepted_group_leaves_every_folds_count(audit: AuditFn) -> None:
    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    # One calibration patient is in every fold on purpose, and accepted as such.
    df.loc[df.index[:5], "patient"] = "calibration"
    assert df.loc[df.index[:5], "fold"].nunique() > 1
    accept = [{"code": "GRP001", "key": "calibration", "reason": "a calibration patient in every fold by design"}]
    r = audit(df, manifest=FOLDS, keys={"groups": ["patient"]}, accept=accept, only=["group_overlap"])
    live = [f for f in r.findings if f.code == "GRP001" and not f.accepted]
    assert [f.evidence.get("fold") for f in live] == []
    assert [f.key for f in r.findings if f.accepted] == ["calibration"]
    assert r.exit_code == 0


def test_fitted_ids_are_checked_against_each_folds_holdout(audit: AuditFn, tmp_path: Path) -> None:
    df = _measured()
    for k in range(4):
        train = df[df.fold != k]
        _scaler_json(tmp_path / f"artifacts/scaler_fold{k}.json", train, ["age", "bmi"])
        path = tmp_path / f"artifacts/scaler_fold{k}.json"
        data = json.loads(path.read_text())
        # Fold 1's artifact lists every id as fitted on; the others list their training ids.
        data["fitted_ids"] = (df if k == 1 else train).sid.tolist()
        path.write_text(json.dumps(data))
    fitted = [{**SCALER, "artifact": "artifacts/scaler_fold{fold}.json"}]
    r = audit(df, manifest=FOLDS, fitted=fitted, only=["fitted_statistics"])
    found = per_fold(r, "FIT010")
    assert sorted(found) == ["fold 1"]
    assert found["fold 1"].evidence["holdout_ids"] == {"fold 1": int((df.fold == 1).sum())}


def _onehot(path: Path, rows: pd.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"feature_names_in_": ["site"], "categories_": [sorted(set(rows.site))]}))


def test_categories_seen_only_in_one_folds_holdout_are_named_for_that_fold(audit: AuditFn, tmp_path: Path) -> None:
    df = _measured()
    df["site"] = np.where(df.fold == 2, "site-b", "site-a")  # only fold 2's patients come from site b
    df.loc[df.index[df.fold == 2][::2], "site"] = "site-a"
    _onehot(tmp_path / "artifacts/onehot.json", df)  # fitted on every row
    for k in range(4):
        _onehot(tmp_path / f"artifacts/onehot_fold{k}.json", df[df.fold != k])
    encoder = {"name": "site_onehot", "kind": "categories", "columns": ["site"]}
    r = audit(df, manifest=FOLDS, fitted=[{**encoder, "artifact": "artifacts/onehot.json"}], only=["fitted_statistics"])
    assert sorted(per_fold(r, "FIT008")) == ["fold 2"]
    per_fold_artifacts = [{**encoder, "artifact": "artifacts/onehot_fold{fold}.json"}]
    r = audit(df, manifest=FOLDS, fitted=per_fold_artifacts, only=["fitted_statistics"])
    assert "FIT008" not in codes(r) and r.exit_code == 0


def test_a_folds_finding_carries_its_values_so_another_value_is_a_growth(audit: AuditFn) -> None:
    """An acceptance of one fold's finding covers the values it saw: the same count on other values has grown."""
    from auditor.core.scope import growth

    df = patients()
    df = with_folds(df, sklearn.GroupKFold(5).split(df, groups=df.patient))
    fold0, fold1 = df.index[df.fold == 0], df.index[df.fold == 1]
    one, other = df.copy(), df.copy()
    one.loc[fold0[0], "patient"] = df.loc[fold1[0], "patient"]  # one patient of fold 1 also in fold 0's holdout
    other.loc[fold0[0], "patient"] = df.loc[fold1[-1], "patient"]  # another one, at the same counts
    assert df.loc[fold1[0], "patient"] != df.loc[fold1[-1], "patient"]
    keys, only = {"groups": ["patient"]}, ["group_overlap"]
    seen = per_fold(audit(one, manifest=FOLDS, keys=keys, only=only), "GRP001")["fold 0"]
    later = per_fold(audit(other, manifest=FOLDS, keys=keys, only=only), "GRP001")["fold 0"]
    assert seen.fingerprint == later.fingerprint and seen.evidence["groups"] == later.evidence["groups"] == 1
    assert seen.scope.values == (df.loc[fold1[0], "patient"],)
    grown = growth(seen.scope, later.scope)
    assert grown is not None and grown.new_values == (df.loc[fold1[-1], "patient"],)
    assert growth(seen.scope, seen.scope) is None


@pytest.mark.parametrize(("gap", "leaks"), [(0, True), (3, False)])
def test_time_series_split_folds_are_purged_fold_by_fold(audit: AuditFn, gap: int, leaks: bool) -> None:
    """TimeSeriesSplit as one column per fold, each label looking 3 steps ahead: without a gap every fold's last
    training steps see its holdout (TMP005 per fold); with gap=3 every fold is clean."""
    n = 40
    df = pd.DataFrame({"sid": [f"s{i:02d}" for i in range(n)], "step": np.arange(n), "step_end": np.arange(n) + 3})
    columns = []
    for k, (train, holdout) in enumerate(sklearn.TimeSeriesSplit(3, gap=gap).split(df)):
        role = np.full(n, "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        df[f"cv{k}"] = role
        columns.append(f"cv{k}")
    manifest = {"split": None, "id": "sid", "folds": {"columns": columns}}
    r = audit(df, manifest=manifest, keys={"time": "step", "time_end": "step_end"}, only=["temporal_order"])
    purged = [f for f in r.findings if f.code == "TMP005"]
    if leaks:
        assert len(purged) == 3  # one per fold, each named by its fold
        assert {next(iter(f.evidence["splits"])) for f in purged} == set(columns) and r.exit_code == 1
        assert all(f.evidence["rows"] == 3 for f in purged)
    else:
        assert purged == [] and r.exit_code == 0, codes(r)


def test_a_stage_without_its_keys_is_not_applicable_with_folds_as_without(audit: AuditFn) -> None:
    """No text keys: contamination does not apply, whether the rows are folds or a fixed split (on folds it was
    listed as 'does not judge cross-validation folds yet', a check the config never asked for)."""
    data = {
        "sid": [f"s{i}" for i in range(6)],
        "w": list("aabbcc"),
        "fold": [0, 1, 2] * 2,
        "split": ["train"] * 3 + ["test"] * 3,
    }
    skipped = {}
    for layout in ({"folds": "fold", "split": None}, {}):
        r = audit(data, manifest={"id": "sid", **layout}, keys={"groups": ["w"]})
        (result,) = [s for s in r.stages if s.stage == "contamination"]
        skipped[bool(layout)] = (result.status, result.skip_reason, result.not_applicable)
    assert skipped[True] == skipped[False] and skipped[True][2] is True
    assert "keys.text" in (skipped[True][1] or "")
    # Asked for (its texts named), it still says it does not judge folds.
    r = audit({**data, "q": ["why"] * 6}, manifest={"id": "sid", "folds": "fold", "split": None}, keys={"text": "q"})
    (result,) = [s for s in r.stages if s.stage == "contamination"]
    assert result.skip_reason == "does not judge cross-validation folds yet (manifest.folds)"
    assert not result.not_applicable
