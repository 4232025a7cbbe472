"""The cv_patients sample: a row-wise KFold leaks patients on every fold, a GroupKFold does not, and the
scaler fitted before either is FIT001 on every fold."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from auditor import load_config, run_audit
from tests.conftest import REPO

pytest.importorskip("sklearn")

SAMPLE = REPO / "sample_data" / "cv_patients"
FOLDS = [f"fold {k}" for k in range(5)]


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_cv_patients", SAMPLE / "make_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path: Path, config: str):  # type: ignore[no-untyped-def]
    shutil.copytree(SAMPLE, tmp_path / "cv_patients", ignore=shutil.ignore_patterns("audit-report"))
    return run_audit(load_config(tmp_path / "cv_patients" / config))


def test_the_committed_manifest_is_what_the_builder_writes() -> None:
    built = _builder().manifest()
    committed = pd.read_csv(SAMPLE / "manifest.csv")
    pd.testing.assert_frame_equal(built, committed, check_dtype=False)


def test_row_wise_kfold_leaks_patients_and_the_scaler_on_every_fold(tmp_path: Path) -> None:
    report = _run(tmp_path, "audit.yaml")
    by_code: dict[str, list[str]] = {}
    for f in report.findings:
        if "fold" in f.evidence:
            by_code.setdefault(f.code, []).append(f.evidence["fold"])
    assert sorted(by_code["GRP001"]) == FOLDS
    assert sorted(by_code["FIT001"]) == FOLDS
    assert report.exit_code == 1


def test_group_kfold_keeps_patients_apart_but_not_the_scaler(tmp_path: Path) -> None:
    report = _run(tmp_path, "audit_grouped.yaml")
    assert not [f for f in report.findings if f.code.startswith("GRP")]
    assert sorted(f.evidence["fold"] for f in report.findings if f.code == "FIT001") == FOLDS
