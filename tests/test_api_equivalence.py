"""One contract, every entry point: the rows given in code (a DataFrame, an Arrow table, a splitter's folds, a
DatasetDict) report what the same rows written to a file (CSV or Parquet) with an audit.yaml report, for each
set of options, including the columns `keys.features: auto` takes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

import auditor
from auditor import run_audit
from auditor.core.findings import Report

STAGES = [
    "split_integrity",
    "group_overlap",
    "shared_upstream",
    "duplicate_content",
    "temporal_order",
    "label_coverage",
    "near_duplicates",
    "feature_leakage",
]


def _customers(n: int = 1000, seed: int = 3) -> pd.DataFrame:
    """Customers with a label proxy no option names (`closed` = label * 10 + noise), honest features, writers
    shared across splits, a few copied texts and digests, and times."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    words = np.array(["late", "fee", "router", "slow", "bill", "refund", "install", "modem", "outage", "plan"])
    texts = [" ".join(rng.choice(words, 14)) for _ in range(n)]
    texts[n - 1] = texts[0]  # a training text copied into the test split
    return pd.DataFrame(
        {
            "customer": [f"c{i:04d}" for i in range(n)],
            "split": np.select([np.arange(n) < n // 2, np.arange(n) < n * 9 // 10], ["train", "test"], "val"),
            "writer": [f"w{i % 37}" for i in range(n)],
            "note": texts,
            "digest": [f"{i % (n - 9):032x}" for i in range(n)],
            "day": pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.permutation(n) % 200, unit="D"),
            "churned": np.where(label == 1, "yes", "no"),
            "closed": label * 10 + rng.normal(0, 0.1, n),
            "tenure": rng.integers(1, 72, n),
            "charges": np.round(rng.normal(50, 10, n), 2),
            "region": rng.choice(["north", "south", "east"], n),
        }
    )


OPTIONS: dict[str, dict[str, Any]] = {
    "features-auto": {"keys": {"label": "churned", "features": "auto"}},
    "features-listed": {"keys": {"label": "churned", "features": ["tenure", "charges", "closed"]}},
    "features-auto-besides-keys": {
        "keys": {
            "groups": ["writer"],
            "content_hash": "digest",
            "text": "note",
            "time": "day",
            "label": "churned",
            "features": "auto",
        },
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
    },
    "stage-options": {
        "keys": {"groups": ["writer"], "label": "churned", "time": "day", "features": "auto"},
        "stages": {
            "feature_leakage": {"max_error": 0.1, "min_rows": 40, "task": "classification"},
            "group_overlap": {"max_examples": 3},
            "near_duplicates": {"shingle_words": 3},
            "temporal_order": {"enabled": False},
        },
    },
    "no-features": {"keys": {"groups": ["writer"], "label": "churned"}},
    # A writer accepted as shared across every pair of splits it spans links no rows in shared_upstream.
    "reviewed-links": {
        "keys": {"groups": ["writer"], "sources": ["digest"], "label": "churned"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "accept": [
            {"code": code, "key": "w5", "column": "writer", "reason": "a shared writer"}
            for code in ("GRP001", "GRP002")
        ],
    },
}


def summary(report: Report) -> list[dict[str, Any]]:
    """What must agree between the forms: each stage's status and findings (code, severity, evidence, examples)."""
    data = json.loads(report.model_dump_json())
    return [
        {
            "stage": s["stage"],
            "status": s["status"],
            "skip": s.get("skip_reason"),
            "findings": [
                {k: f[k] for k in ("code", "severity", "evidence")} | {"examples": len(f["examples"])}
                for f in s["findings"]
            ],
        }
        for s in data["stages"]
    ]


def _codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def file_form(
    tmp_path: Path, frame: pd.DataFrame | pa.Table, manifest: dict[str, Any], sections: dict[str, Any], fmt: str
) -> Report:
    """The rows written as a manifest file beside an audit.yaml, audited from the file."""
    if fmt == "csv":
        out = frame if isinstance(frame, pd.DataFrame) else frame.to_pandas()
        out.to_csv(tmp_path / "manifest.csv", index=False, date_format="%Y-%m-%dT%H:%M:%S")
    else:
        table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
        pq.write_table(table, tmp_path / "manifest.parquet", row_group_size=97)
    config = {"version": 1, "manifest": {"path": f"manifest.{fmt}", **manifest}, **sections}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return run_audit(tmp_path / "audit.yaml", only=STAGES)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("options", list(OPTIONS))
def test_a_frame_reports_what_its_file_reports(options: str, fmt: str, tmp_path: Path) -> None:
    frame = _customers()
    sections = OPTIONS[options]
    from_file = file_form(tmp_path, frame, {"id": "customer", "split": "split"}, sections, fmt)
    in_code = auditor.audit(frame, id="customer", split="split", only=STAGES, **sections)
    assert summary(in_code) == summary(from_file)
    assert in_code.exit_code == from_file.exit_code
    if options not in ("no-features", "reviewed-links"):  # the proxy no option names is found in every form
        assert "FLK001" in _codes(in_code), summary(in_code)
    if options == "reviewed-links":
        (largest,) = [f for f in in_code.findings if f.code == "UPS003"]
        assert largest.evidence["reviewed"] == {"writer": {"values": ["w5"], "spellings_apart": []}}


@pytest.mark.parametrize(
    "writers",
    [
        [7.0, 8, None, "7", "v", "8"],  # 8 shared; 7.0 and "7" one writer spelled two ways
        [2**63 + 5, 8, None, str(2**63 + 5), 7.0, 8],  # an integer past 64 bits beside its text
        [2**64, 2**63 + 1, None, 2**64, 7.0, 2**63 + 1.0],  # integers past 64 bits only
    ],
)
def test_a_column_of_numbers_beside_text_reports_what_its_csv_reports(tmp_path: Path, writers: list[Any]) -> None:
    """An object column of texts and numbers Arrow holds in no one type is text in a CSV: in code it is read as that
    text too, not refused."""
    frame = pd.DataFrame(
        {
            "sid": ["a", "b", "c", "d", "e", "f"],
            "split": ["train", "train", "val", "test", "test", "test"],
            "writer": pd.Series(writers, dtype=object),
        }
    )
    sections = {"keys": {"groups": ["writer"]}}
    from_file = file_form(tmp_path, frame, {"id": "sid", "split": "split"}, sections, "csv")
    in_code = auditor.audit(frame, id="sid", split="split", only=STAGES, **sections)
    assert summary(in_code) == summary(from_file)
    assert "GRP001" in _codes(in_code) and in_code.exit_code == 1


def test_an_arrow_table_takes_the_same_columns_as_its_frame(tmp_path: Path) -> None:
    frame = _customers()
    sections = OPTIONS["features-auto"]
    table = pa.Table.from_pandas(frame, preserve_index=False)
    from_frame = auditor.audit(frame, id="customer", only=["feature_leakage"], **sections)
    from_table = auditor.audit(table, id="customer", only=["feature_leakage"], **sections)
    assert summary(from_table) == summary(from_frame)
    scored = {f.evidence["columns"] for f in from_table.findings if f.code == "FLK000"}
    assert scored == {9}  # against each holdout: the id and every column but the split and the label


sklearn = pytest.importorskip("sklearn.model_selection")


def _fold_file(cv: Any, X: Any, y: Any, groups: Any, data: pd.DataFrame | None) -> tuple[pd.DataFrame, list[str]]:
    """The splitter's rows as a file would hold them: X's (or data's) columns, groups, y and a role column per
    fold, each made here from cv.split without the auditor."""
    rows = len(y)
    columns: dict[str, Any] = {}
    if isinstance(X, pd.DataFrame):
        columns.update({c: X[c].to_numpy() for c in X.columns})
    else:
        if data is not None:
            columns.update({c: data[c].to_numpy() for c in data.columns})
        columns.update({f"X[:, {j}]": X[:, j] for j in range(X.shape[1])})
    columns[getattr(groups, "name", None) or "groups"] = np.asarray(groups)  # a Series keeps its name
    columns[getattr(y, "name", None) or "y"] = np.asarray(y)
    names = []
    for k, (train, holdout) in enumerate(cv.split(X, y, groups)):
        role = np.full(rows, "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        columns[f"fold_{k}"] = role
        names.append(f"fold_{k}")
    return pd.DataFrame(columns), names


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("x_form", ["frame", "array"])
def test_a_splitters_folds_report_what_their_file_reports(x_form: str, fmt: str, tmp_path: Path) -> None:
    """features: auto takes X's columns (a DataFrame's, or an array's as X[:, j]) but for y and groups."""
    frame = _customers()
    labels = (frame["churned"] == "yes").astype(int).rename("y")
    features = frame[["closed", "tenure", "charges"]]
    X = features if x_form == "frame" else features.to_numpy()
    data = frame[["customer", "region"]] if x_form == "array" else None
    cv = sklearn.GroupKFold(n_splits=3)
    stages = {"feature_leakage": {"min_rows": 40}}
    in_code = auditor.audit_splitter(
        cv, X, labels, frame["writer"], data=data, keys={"features": "auto"}, stages=stages, only=STAGES
    )
    rows, folds = _fold_file(cv, X, labels, frame["writer"], data)
    keys = {"groups": ["writer"], "label": "y", "features": "auto"}
    from_file = file_form(tmp_path, rows, {"folds": {"columns": folds}}, {"keys": keys, "stages": stages}, fmt)
    assert summary(in_code) == summary(from_file)
    assert "FLK001" in _codes(in_code), summary(in_code)


def test_the_splitters_label_and_groups_taken_from_x_are_no_features() -> None:
    """X the whole frame, y and groups its columns: they keep their roles, and only the other columns are scored."""
    frame = _customers().drop(columns=["closed"])
    frame["churned"] = (frame["churned"] == "yes").astype(int)
    report = auditor.audit_splitter(
        sklearn.GroupKFold(n_splits=3),
        frame,
        frame["churned"],
        frame["writer"],
        id="customer",
        keys={"features": "auto"},
        only=["feature_leakage"],
    )
    assert "FLK001" not in _codes(report), summary(report)  # the label itself is not a proxy of itself
    scored = {row[0] for f in report.findings if f.code == "FLK000" for row in f.tables[0].rows}
    assert scored == {"customer", "split", "note", "digest", "day", "tenure", "charges", "region"}  # the id, 7 features


def test_a_sparse_or_image_shaped_x_under_auto_is_refused_with_what_to_do() -> None:
    from scipy import sparse

    from auditor.core.errors import ArgumentError

    y = np.arange(8) % 2
    with pytest.raises(ArgumentError, match=r"X is a scipy\..*; pass the feature columns as data="):
        auditor.audit_splitter(sklearn.KFold(2), sparse.csr_matrix(np.eye(8)), y, keys={"features": "auto"})
    with pytest.raises(ArgumentError, match=r"X has shape \(8, 2, 2\)"):
        auditor.audit_splitter(sklearn.KFold(2), np.zeros((8, 2, 2)), y, keys={"features": "auto"})


def test_a_dataset_dict_reports_what_its_file_reports(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    frame = _customers()
    sections = OPTIONS["features-auto-besides-keys"]
    dd = datasets.DatasetDict(
        {
            name: datasets.Dataset.from_pandas(part.drop(columns=["split"]), preserve_index=False)
            for name, part in frame.groupby("split", sort=False)
        }
    )
    in_code = auditor.audit_dataset_dict(dd, id="customer", only=STAGES, **sections)
    ordered = pd.concat([frame[frame["split"] == name] for name in dd], ignore_index=True)
    from_file = file_form(tmp_path, ordered, {"id": "customer", "split": "split"}, sections, "parquet")
    assert summary(in_code) == summary(from_file)
    assert "FLK001" in _codes(in_code)
