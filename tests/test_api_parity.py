"""The in-code API on a par with the CLI: each scenario builds one audit in code (auditor.audit, audit_splitter) and
as files (a CSV and an audit.yaml run by `audit run`), and both must give the same findings (codes, severities,
titles, evidence with the columns, values and folds they name) or refuse the rows alike."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import auditor
from auditor.cli import app
from auditor.core.errors import ArgumentError, ManifestError
from auditor.core.findings import Report

sklearn = pytest.importorskip("sklearn.model_selection")


def summary(stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What must agree between the forms: each finding's code, severity, title, evidence and examples."""
    return [
        {k: f[k] for k in ("code", "severity", "title", "examples")} | {"evidence": _relative(f["evidence"])}
        for s in stages
        for f in s["findings"]
    ]


def _relative(evidence: dict[str, Any]) -> dict[str, Any]:
    """An artifact is cited by its resolved path, which differs by the folder each form reads it from."""
    return {k: Path(v).name if k == "artifact" else v for k, v in evidence.items()}


def in_code(report: Report) -> list[dict[str, Any]]:
    return summary(json.loads(report.model_dump_json())["stages"])


def cli(tmp_path: Path, rows: pd.DataFrame | str, manifest: dict[str, Any], only: list[str], **sections: Any) -> Any:
    """`audit run audit.yaml` on ``rows`` written as a CSV (or the CSV text itself): the CLI's result."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "manifest.csv"
    if isinstance(rows, str):
        path.write_text(rows, encoding="utf-8")
    else:
        rows.to_csv(path, index=False)
    config = {"version": 1, "manifest": {"path": "manifest.csv", **manifest}, **sections}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "audit.yaml"), "--out", str(out), "--format", "json", "--only", ",".join(only)]
    return CliRunner().invoke(app, args, catch_exceptions=False)


def from_file(tmp_path: Path, rows: pd.DataFrame, manifest: dict[str, Any], only: list[str], **sections: Any) -> Any:
    """The findings `audit run` wrote for ``rows``, and its exit code."""
    result = cli(tmp_path, rows, manifest, only, **sections)
    assert result.exit_code in (0, 1), result.output
    stages = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))["stages"]
    return summary(stages), result.exit_code


def patients(n_patients: int = 12, per_patient: int = 3, seed: int = 0) -> pd.DataFrame:
    """Several visits per patient, a binary label and two measurements."""
    rng = np.random.default_rng(seed)
    n = n_patients * per_patient
    return pd.DataFrame(
        {
            "sid": [f"s{i:03d}" for i in range(n)],
            "patient": [f"p{i % n_patients:02d}" for i in range(n)],
            "label": rng.integers(0, 2, n),
            "age": rng.normal(50, 15, n).round(1),
            "bmi": rng.normal(26, 4, n).round(2),
        }
    )


ROW_KFOLD = sklearn.KFold(3, shuffle=True, random_state=0)  # folds of rows: every fold shares patients


def fold_ids(df: pd.DataFrame, cv: Any = ROW_KFOLD) -> np.ndarray:
    fold = np.full(len(df), -1)
    for k, (_, holdout) in enumerate(cv.split(df)):
        fold[holdout] = k
    return fold


def role_columns(df: pd.DataFrame, cv: Any = ROW_KFOLD, prefix: str = "fold_") -> dict[str, np.ndarray]:
    """One train / holdout column per fold, made here from cv.split without the auditor."""
    columns = {}
    for k, (train, holdout) in enumerate(cv.split(df)):
        role = np.full(len(df), "unused", dtype=object)
        role[train], role[holdout] = "train", "holdout"
        columns[f"{prefix}{k}"] = role
    return columns


# -- fixed splits -------------------------------------------------------------------------------------------


def test_a_frames_shared_writer_is_the_files(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {
            "sid": ["a1", "a2", "a3", "a4", "a5", "a6"],
            "split": ["train", "train", "test", "test", "train", "test"],
            "writer": ["w-a", "w-b", "w-a", "w-c", "w-d", "w-e"],
            "note": ["split", "sid", "text", "more", "other", "words"],  # header names as data: no header row
        }
    )
    only = ["split_integrity", "group_overlap"]
    keys = {"groups": ["writer"], "text": "note"}
    code = auditor.audit(df, id="sid", keys=keys, only=only)
    files, exit_code = from_file(tmp_path, df, {"id": "sid", "split": "split"}, only, keys=keys)
    assert in_code(code) == files and code.exit_code == exit_code == 1
    (grp,) = [f for f in code.findings if f.code == "GRP001"]
    assert grp.evidence["key"] == "writer" and [e["group"] for e in grp.examples] == ["w-a"]


def test_a_frame_with_nothing_held_out_fails_as_the_files_do(tmp_path: Path) -> None:
    df = pd.DataFrame({"sid": ["a1", "a2", "a3"], "split": ["train"] * 3, "writer": ["w-a", "w-b", "w-a"]})
    only = ["split_integrity", "group_overlap"]
    code = auditor.audit(df, id="sid", keys={"groups": ["writer"]}, only=only)
    files, exit_code = from_file(tmp_path, df, {"id": "sid", "split": "split"}, only, keys={"groups": ["writer"]})
    assert in_code(code) == files and code.exit_code == exit_code == 1
    assert "SPL014" in [f["code"] for f in files]


@pytest.mark.parametrize(
    "entry",
    [
        {"code": "GRP001", "key": "x1", "column": "writer", "reason": "reviewed"},  # one column's value
        {"code": "GRP001", "key": "x1", "reason": "reviewed"},  # a value of two columns: accepted in neither
    ],
)
def test_an_accept_entry_judges_a_frame_as_it_judges_the_files(tmp_path: Path, entry: dict[str, str]) -> None:
    df = pd.DataFrame(
        {
            "sid": ["a", "b", "c", "d"],
            "split": ["train", "test", "train", "test"],
            "writer": ["x1", "x1", "w2", "w3"],
            "source": ["s1", "s2", "x1", "x1"],
        }
    )
    only, keys = ["group_overlap"], {"groups": ["writer", "source"]}
    code = auditor.audit(df, id="sid", keys=keys, only=only, accept=[entry])
    cli(tmp_path, df, {"id": "sid", "split": "split"}, only, keys=keys, accept=[entry])
    stages = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))["stages"]
    judged = [(f["code"], f["evidence"].get("key"), f["accepted"]) for s in stages for f in s["findings"]]
    assert [(f.code, f.evidence.get("key"), f.accepted) for f in code.findings] == judged
    assert (("GRP001", "writer", True) in judged) == ("column" in entry)


# -- a repeated header row ------------------------------------------------------------------------------------

CONCATENATED = "sid,split,writer\ns1,train,a\ns2,test,b\nsid,split,writer\ns3,train,c\ns4,test,d\n"


def test_a_repeated_header_row_in_a_frame_is_refused_as_the_csvs_line_is(tmp_path: Path) -> None:
    result = cli(tmp_path, CONCATENATED, {"id": "sid", "split": "split"}, ["split_integrity"])
    assert result.exit_code == 2 and "manifest.csv:4: this line repeats the header" in " ".join(result.output.split())
    frame = pd.read_csv(io.StringIO(CONCATENATED))  # pandas keeps the second header as a row
    with pytest.raises(ManifestError, match=r"audit\(data=…\): row 2 \(0-based\) repeats the column names"):
        auditor.audit(frame, id="sid", keys={"groups": ["writer"]})
    # Spelt as a pasted header may be (case, spaces), and under number ids (pd.concat of a frame and its header).
    loose = frame.assign(split=lambda f: f["split"].replace({"split": " Split "}))
    with pytest.raises(ManifestError, match=r"row 2 \(0-based\) repeats the column names"):
        auditor.audit(loose, id="sid")
    numbered = pd.concat([pd.DataFrame({"sid": [1, 2], "split": ["train", "test"]}), frame.iloc[[2]][["sid", "split"]]])
    with pytest.raises(ManifestError, match=r"row 2 \(0-based\) repeats the column names"):
        auditor.audit(numbered, id="sid")


def test_a_repeated_header_row_after_a_byte_order_mark_is_refused_in_a_frame(tmp_path: Path) -> None:
    """Files saved with a BOM, concatenated and read by pandas: the later header's first name starts with U+FEFF."""
    text = "\ufeffsid,split,writer\r\ns1,train,a\r\n\ufeffsid,split,writer\r\ns2,test,b\r\n"
    frame = pd.read_csv(io.BytesIO(text.encode()))
    assert frame["sid"].tolist() == ["s1", "\ufeffsid", "s2"]
    with pytest.raises(ManifestError, match=r"row 1 \(0-based\) repeats the column names"):
        auditor.audit(frame, id="sid", keys={"groups": ["writer"]})
    spaced = frame.assign(writer=frame["writer"].replace({"writer": " WRITER\ufeff "}))
    with pytest.raises(ManifestError, match=r"row 1 \(0-based\) repeats the column names"):
        auditor.audit(spaced, id="sid")


def test_a_repeated_header_row_under_a_splitter_is_refused() -> None:
    frame = pd.read_csv(io.StringIO(CONCATENATED))
    with pytest.raises(ManifestError, match=r"audit_splitter\(X=…\): row 2 \(0-based\) repeats the column names"):
        auditor.audit_splitter(sklearn.KFold(2), frame[["sid", "writer"]], groups=frame["writer"], id="sid")


def test_header_names_as_values_of_some_columns_are_data_in_both_forms(tmp_path: Path) -> None:
    """A text "split" or "writer" in a row whose other columns hold data is no header row, in a file or a frame."""
    df = pd.DataFrame(
        {
            "sid": ["s1", "s2", "s3", "s4"],
            "split": ["train", "test", "train", "test"],
            "writer": ["writer", "writer", "a", "b"],  # a writer called "writer", in both splits
            "note": ["split", "sid writer split", "x", "y"],
        }
    )
    only = ["split_integrity", "group_overlap"]
    keys = {"groups": ["writer"], "text": "note"}
    code = auditor.audit(df, id="sid", keys=keys, only=only)
    files, exit_code = from_file(tmp_path, df, {"id": "sid", "split": "split"}, only, keys=keys)
    assert in_code(code) == files and code.exit_code == exit_code == 1
    assert [f.evidence["key"] for f in code.findings if f.code == "GRP001"] == ["writer"]
    # A frame of the split column alone whose row says "split" is refused, as that CSV's line is.
    lone = df[["split"]].assign(split=["train", "split", "test", "train"])
    assert cli(tmp_path / "lone", lone, {"split": "split"}, ["split_integrity"]).exit_code == 2
    with pytest.raises(ManifestError, match="repeats the column names"):
        auditor.audit(lone)


# -- cross-validation: the three forms name folds alike ----------------------------------------------------------


def test_folds_without_a_split_column_need_no_split_argument(tmp_path: Path) -> None:
    df = patients().assign(fold=lambda f: fold_ids(f))
    only = ["split_integrity", "group_overlap"]
    code = auditor.audit(df, folds="fold", id="sid", keys={"groups": ["patient"]}, only=only)
    files, exit_code = from_file(tmp_path, df, {"id": "sid", "folds": "fold"}, only, keys={"groups": ["patient"]})
    assert in_code(code) == files and code.exit_code == exit_code == 1
    assert sorted(f.evidence["fold"] for f in code.findings if f.code == "GRP001") == ["fold 0", "fold 1", "fold 2"]
    # Beside a split column the split is named, as a config names it.
    fixed = df.assign(split="train")
    named = auditor.audit(fixed, split="split", folds="fold", id="sid", keys={"groups": ["patient"]}, only=only)
    assert in_code(named) == in_code(code)


def test_a_split_column_beside_folds_is_named_or_refused_never_dropped() -> None:
    """A fixed test split held in a `split` column beside folds= was left out unseen (its rows read as rows of no
    fold, a patient shared with the folds passed); now the call names the column until split= says which."""
    visits = pd.DataFrame(
        {
            "visit_id": range(8),
            "patient": ["P1", "P2", "P3", "P4", "P5", "P6", "P1", "P7"],
            "fold": [0, 0, 1, 1, 2, 2, None, None],
            "split": ["train"] * 6 + ["test"] * 2,
        }
    )
    keys = {"groups": ["patient"]}
    with pytest.raises(ArgumentError, match=r"column 'split' beside folds=; pass split='split'.*split=None"):
        auditor.audit(visits, id="visit_id", folds="fold", keys=keys)
    named = auditor.audit(visits, id="visit_id", folds="fold", split="split", keys=keys)
    assert named.exit_code == 1 and any(f.code == "GRP001" and "test" in f.message for f in named.findings)
    left_out = auditor.audit(visits.drop(columns="split"), id="visit_id", folds="fold", keys=keys)
    assert left_out.exit_code == auditor.audit(visits, id="visit_id", folds="fold", split=None, keys=keys).exit_code


def test_groups_from_a_series_are_named_after_it(tmp_path: Path) -> None:
    df = patients()
    only = ["split_integrity", "group_overlap"]
    code = auditor.audit_splitter(
        ROW_KFOLD, df[["age", "bmi"]], groups=df["patient"], data=df[["sid"]], id="sid", only=only
    )
    rows = df[["sid", "patient"]].assign(**role_columns(df))
    manifest = {"id": "sid", "folds": {"columns": ["fold_0", "fold_1", "fold_2"]}}
    files, exit_code = from_file(tmp_path, rows, manifest, only, keys={"groups": ["patient"]})
    assert in_code(code) == files and code.exit_code == exit_code == 1
    grp = [f for f in code.findings if f.code == "GRP001"]
    assert {f.evidence["key"] for f in grp} == {"patient"} and all("'patient'" in f.message for f in grp)
    # An array has no name: its column is `groups`, in the file as in code.
    code = auditor.audit_splitter(
        ROW_KFOLD, df[["age"]], groups=df["patient"].to_numpy(), data=df[["sid"]], id="sid", only=only
    )
    files, _ = from_file(
        tmp_path / "array", rows.rename(columns={"patient": "groups"}), manifest, only, keys={"groups": ["groups"]}
    )
    assert in_code(code) == files
    assert {f.evidence["key"] for f in code.findings if f.code == "GRP001"} == {"groups"}


def _scaler_json(path: Path, rows: pd.DataFrame) -> None:
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(rows[["age", "bmi"]].to_numpy())
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = {"mean_": scaler.mean_.tolist(), "scale_": scaler.scale_.tolist(), "var_": scaler.var_.tolist()}
    path.write_text(json.dumps({"feature_names_in_": ["age", "bmi"], **fields, "n_samples_seen_": len(rows)}))


SCALER = {"name": "scaler", "kind": "standardize", "columns": ["age", "bmi"], "artifact": "scaler_fold{fold}.json"}


def test_fold_names_and_fold_paths_are_the_same_in_every_form(tmp_path: Path) -> None:
    """A fold column's ids 0-2, columns fold_0..fold_2 and a splitter's folds: "fold 0".. and `{fold}` = 0.."""
    df = patients().assign(fold=lambda f: fold_ids(f))
    for where in (tmp_path, tmp_path / "a", tmp_path / "b"):  # in code, and beside each config
        for k in range(3):  # fold 2's scaler was fitted on every row: FIT001 on fold 2 alone
            _scaler_json(where / f"scaler_fold{k}.json", df if k == 2 else df[df["fold"] != k])
    only = ["split_integrity", "group_overlap", "fitted_statistics"]
    sections: dict[str, Any] = {"keys": {"groups": ["patient"]}, "fitted": [SCALER]}
    per_column = df.drop(columns=["fold"]).assign(**role_columns(df))
    columns = {"columns": ["fold_0", "fold_1", "fold_2"]}
    forms = {
        "fold column": auditor.audit(df, folds="fold", id="sid", base_dir=tmp_path, only=only, **sections),
        "columns": auditor.audit(per_column, folds=columns, id="sid", base_dir=tmp_path, only=only, **sections),
        "splitter": auditor.audit_splitter(
            ROW_KFOLD,
            df[["age", "bmi"]],
            groups=df["patient"],
            data=df[["sid", "age", "bmi"]],
            base_dir=tmp_path,
            only=only,
            id="sid",
            fitted=[SCALER],
        ),
    }
    found = {form: in_code(report) for form, report in forms.items()}
    assert found["fold column"] == found["columns"] == found["splitter"]
    files, _ = from_file(tmp_path / "a", df, {"id": "sid", "folds": "fold"}, only, **sections)
    assert files == found["fold column"]
    files, _ = from_file(tmp_path / "b", per_column, {"id": "sid", "folds": columns}, only, **sections)
    assert files == found["columns"]
    fit = {(f.code, f.evidence["fold"]) for f in forms["splitter"].findings if f.code.startswith("FIT")}
    assert fit == {("FIT000", "fold 0"), ("FIT000", "fold 1"), ("FIT001", "fold 2")}
    sizes = next(f for f in forms["splitter"].findings if f.code == "SPL012").evidence["folds"]
    assert list(sizes) == ["fold 0", "fold 1", "fold 2"]


def test_fold_columns_not_named_by_number_keep_their_names(tmp_path: Path) -> None:
    """cv0, cv1, cv2 are the folds' names and `{fold}`; so are fold_1 and fold_01, which name one number twice."""
    df = patients()
    for prefix, names in (("cv", ["cv0", "cv1", "cv2"]), ("fold_0", ["fold_00", "fold_01", "fold_02"])):
        rows = df.assign(**role_columns(df, prefix=prefix))
        report = auditor.audit(rows, folds={"columns": names}, id="sid", only=["split_integrity"])
        sizes = next(f for f in report.findings if f.code == "SPL012").evidence["folds"]
        assert list(sizes) == (names if prefix == "cv" else ["fold 0", "fold 1", "fold 2"])
    rows = df.assign(fold_1=role_columns(df)["fold_0"], fold_01=role_columns(df)["fold_1"])
    report = auditor.audit(rows, folds={"columns": ["fold_1", "fold_01"]}, id="sid", only=["split_integrity"])
    assert list(next(f for f in report.findings if f.code == "SPL012").evidence["folds"]) == ["fold_1", "fold_01"]


# -- y beside a column named y ------------------------------------------------------------------------------------


def test_a_label_beside_a_feature_named_y_is_no_clash(tmp_path: Path) -> None:
    """Points (x, y) and a label that is x's sign: y is a feature, the label the label, in code as in the file."""
    rng = np.random.default_rng(1)
    n = 120
    df = pd.DataFrame({"x": rng.normal(0, 1, n), "y": rng.normal(0, 1, n)})
    df["label"] = np.where(df["x"] > 0, "pos", "neg")
    only = ["feature_leakage"]
    stages = {"feature_leakage": {"min_rows": 20}}
    keys = {"label": "label", "features": "auto"}
    rows = df.assign(**role_columns(df))
    manifest = {"folds": {"columns": ["fold_0", "fold_1", "fold_2"]}}
    files, _ = from_file(tmp_path, rows, manifest, only, keys=keys, stages=stages)
    code = auditor.audit_splitter(
        ROW_KFOLD, df[["x", "y"]], df["label"], keys={"features": "auto"}, stages=stages, only=only
    )
    assert in_code(code) == files
    assert _scored(code) == {"x", "y", "(row number)"}  # the feature y is scored; the label is not
    # An array y has no name: beside a column y it is the column `y (argument)`, in the file as in code.
    code = auditor.audit_splitter(
        ROW_KFOLD, df[["x", "y"]], df["label"].to_numpy(), keys={"features": "auto"}, stages=stages, only=only
    )
    files, _ = from_file(
        tmp_path / "array",
        rows.rename(columns={"label": "y (argument)"}),
        manifest,
        only,
        keys={"label": "y (argument)", "features": "auto"},
        stages=stages,
    )
    assert in_code(code) == files
    assert _scored(code) == {"x", "y", "(row number)"}


def _scored(report: Report) -> set[str]:
    """The columns feature_leakage scored on every fold."""
    return {row[0] for f in report.findings if f.code == "FLK000" for row in f.tables[0].rows}


def test_a_group_key_named_y_reads_the_data_not_the_label() -> None:
    df = patients().rename(columns={"patient": "y"})  # a data column that happens to be called y
    report = auditor.audit_splitter(
        ROW_KFOLD,
        df[["age"]],
        df["label"],
        data=df[["sid", "y"]],
        id="sid",
        keys={"groups": ["y"]},
        only=["group_overlap"],
    )
    grp = [f for f in report.findings if f.code == "GRP001"]
    assert len(grp) == 3 and all(f.evidence["key"] == "y" for f in grp)
    assert {e["group"][0] for f in grp for e in f.examples} == {"p"}  # patients, not labels 0 and 1


def test_a_repeated_header_row_in_a_dataset_dict_is_refused_as_in_a_file_per_split(tmp_path: Path) -> None:
    """One file per split (`paths:`) has no split column to repeat, nor has a DatasetDict: the other columns tell."""
    datasets = pytest.importorskip("datasets")
    train = pd.DataFrame({"sid": ["s1", "sid", "s2"], "writer": ["a", "writer", "b"]})
    test = pd.DataFrame({"sid": ["s3"], "writer": ["a"]})
    for name, rows in (("train", train), ("test", test)):
        rows.to_csv(tmp_path / f"{name}.csv", index=False)
    config = {"version": 1, "manifest": {"paths": {"train": "train.csv", "test": "test.csv"}, "id": "sid"}}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(tmp_path / "audit.yaml"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "train.csv:3: this line repeats the header" in " ".join(result.output.split())
    dd = datasets.DatasetDict({n: datasets.Dataset.from_pandas(r) for n, r in (("train", train), ("test", test))})
    with pytest.raises(ManifestError, match=r"audit_dataset_dict\(dd=…\): row 1 \(0-based\) repeats the column names"):
        auditor.audit_dataset_dict(dd, id="sid", keys={"groups": ["writer"]})


# -- one column under two spellings ------------------------------------------------------------------------------


def test_a_frame_concatenated_from_two_spellings_of_a_column_is_refused_as_the_file_is(tmp_path: Path) -> None:
    """pd.concat of a frame with 'writer' and one with 'Writer' keeps both, each empty in the other's rows: the test
    writers were read as missing and the writer in train and test passed unseen."""
    train = pd.DataFrame({"sid": ["s1", "s2"], "split": ["train", "train"], "writer": ["a", "b"]})
    test = pd.DataFrame({"sid": ["s3", "s4"], "split": ["test", "test"], "Writer": ["a", "c"]})
    frame = pd.concat([train, test], ignore_index=True)
    with pytest.raises(ManifestError, match=r"row 2 \(0-based\): column 'writer' is empty here but 'Writer' holds 'a'"):
        auditor.audit(frame, id="sid", keys={"groups": ["writer"]})
    rows = frame.to_csv(index=False)
    result = cli(tmp_path, rows, {"id": "sid", "split": "split"}, ["group_overlap"], keys={"groups": ["writer"]})
    assert result.exit_code == 2
    assert "manifest.csv:4: column 'writer' is empty here but 'Writer' holds 'a'" in " ".join(result.output.split())
    # Merged into one column, the writer in both splits is found.
    merged = frame.assign(writer=frame["writer"].fillna(frame["Writer"]))
    report = auditor.audit(merged, id="sid", keys={"groups": ["writer"]})
    assert "GRP001" in {f.code for s in report.stages for f in s.findings}


def test_a_splitter_given_a_frame_with_two_spellings_of_a_column_refuses_it_as_the_frame_form_does() -> None:
    """audit_splitter read only the named columns of X, so 'Writer' beside 'writer' (each empty in the other's rows)
    left the test writers missing and a writer in train and test unseen; the frame itself was refused by audit()."""
    sklearn = pytest.importorskip("sklearn.model_selection")
    train = pd.DataFrame({"sid": [f"s{i}" for i in range(6)], "writer": ["a", "b", "c", "a", "b", "c"]})
    test = pd.DataFrame({"sid": [f"t{i}" for i in range(6)], "Writer": ["a", "b", "c", "d", "e", "f"]})
    frame = pd.concat([train, test], ignore_index=True)
    with pytest.raises(ManifestError, match=r"row 6 \(0-based\): column 'writer' is empty here but 'Writer' holds 'a'"):
        auditor.audit_splitter(sklearn.KFold(2), frame, id="sid", keys={"groups": ["writer"]})
    # Two columns both filled on one row are two columns (a writer and an editor, say): the named one is audited.
    both = frame.assign(writer=frame["writer"].fillna("z"), Writer=frame["Writer"].fillna("y"))
    report = auditor.audit_splitter(sklearn.GroupKFold(2), both, groups=both["writer"], id="sid")
    assert report.exit_code == 0, [(f.code, f.message) for s in report.stages for f in s.findings]


# -- multi-label labels -------------------------------------------------------------------------------------


def test_multi_label_values_give_the_same_findings_in_a_frame_a_file_and_under_a_splitter(tmp_path: Path) -> None:
    """label_separator: 'bird;cat' is two trained labels and 'bird;zebra' names the unseen 'zebra', in every form."""
    df = pd.DataFrame(
        {
            "sid": [f"s{i}" for i in range(8)],
            "split": ["train"] * 5 + ["test"] * 3,
            "y": ["bird", "cat;dog", "cat", "dog", "bird;dog", "bird;cat", "dog ; cat", "bird;zebra"],
        }
    )
    only = ["label_coverage"]
    stages = {"label_coverage": {"label_separator": ";"}}
    code = auditor.audit(df, id="sid", keys={"label": "y"}, only=only, stages=stages)
    files, exit_code = from_file(
        tmp_path, df, {"id": "sid", "split": "split"}, only, keys={"label": "y"}, stages=stages
    )
    assert in_code(code) == files and code.exit_code == exit_code
    (unseen,) = [f for f in code.findings if f.code == "LAB001"]
    assert [e["label"] for e in unseen.examples] == ["zebra"]
    # Under a splitter, every fold's holdout is compared label by label too: no fold calls 'bird;cat' unseen.
    split = auditor.audit_splitter(
        sklearn.PredefinedSplit((df["split"] == "test").astype(int) - 1),
        df,
        id="sid",
        keys={"label": "y"},
        only=only,
        stages=stages,
    )
    labels = [e["label"] for f in split.findings if f.code == "LAB001" for e in f.examples]
    assert labels == ["zebra"]


# -- a list of groups per row -----------------------------------------------------------------------------------

_AUTHORS = pd.DataFrame(
    {
        "sid": ["s1", "s2", "s3", "s4"],
        "split": ["train", "train", "test", "test"],
        "authors": [["alice", "bob"], ["carol"], ["bob", "dave"], ["erin"]],
    }
)


def _jsonl(tmp_path: Path, rows: pd.DataFrame, name: str) -> Path:
    """``rows`` as a JSONL manifest and an audit.yaml naming `authors` as the group key; the config's path."""
    folder = tmp_path / name
    folder.mkdir()
    rows.to_json(folder / "m.jsonl", orient="records", lines=True)
    config = {"manifest": {"path": "m.jsonl", "id": "sid", "split": "split"}, "keys": {"groups": ["authors"]}}
    (folder / "audit.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return folder / "audit.yaml"


def test_a_list_of_authors_per_row_is_refused_alike_in_a_file_and_a_frame(tmp_path: Path) -> None:
    """The JSONL file and the same rows as a frame are refused with one message, which never advises joining the
    authors into one text ('alice;bob' beside 'bob;dave' shares no value: bob passed in silence)."""
    config = _jsonl(tmp_path, _AUTHORS, "lists")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out")], catch_exceptions=False)
    assert result.exit_code == 2
    with pytest.raises(ManifestError) as in_frame:
        auditor.audit(_AUTHORS, id="sid", keys={"groups": ["authors"]})
    message = str(in_frame.value)
    assert message.startswith("auditor.audit(data=…): column 'authors' holds list<")
    said = " ".join(result.output.split())
    assert message.split(": ", 1)[1].split(" values;", 1)[1] in said  # the same advice, after the type
    assert "join(items)" not in said and "label_separator" not in said
    assert "DataFrame.explode('authors')" in said and "--only group_overlap" in said


def test_what_the_refusal_advises_finds_the_shared_author_and_joining_would_not(tmp_path: Path) -> None:
    """One row per author, audited with --only group_overlap, names bob in the file and the frame; a column of
    each row's connected component finds the leak keeping one row per row; 'alice;bob' beside 'bob;dave' passes,
    which is why the refusal advises against it."""
    exploded = _AUTHORS.explode("authors", ignore_index=True)
    config = _jsonl(tmp_path, exploded, "exploded")
    result = CliRunner().invoke(
        app, ["run", str(config), "--out", str(tmp_path / "out"), "--only", "group_overlap"], catch_exceptions=False
    )
    assert result.exit_code == 1, result.output
    in_frame = auditor.audit(exploded, id="sid", keys={"groups": ["authors"]}, only=["group_overlap"])
    (shared,) = [f for f in in_frame.findings if f.code == "GRP001"]
    assert "1 'authors' value ('bob') occurs in both" in shared.message
    components = _AUTHORS.assign(authors=["c1", "c2", "c1", "c3"])  # s1 and s3 share bob
    assert auditor.audit(components, id="sid", keys={"groups": ["authors"]}).exit_code == 1
    joined = _AUTHORS.assign(authors=_AUTHORS["authors"].map(";".join))
    assert auditor.audit(joined, id="sid", keys={"groups": ["authors"]}).exit_code == 0  # the leak unseen


# -- a label proxy on few rows of a class -------------------------------------------------------------------------


def _copy_of_the_label() -> pd.DataFrame:
    """600 rows, 120 held out, a column that copies the label: under a hundred holdout rows of each class."""
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"id": np.arange(n), "x": rng.normal(size=n), "y": rng.choice(["pos", "neg"], n)})
    df["target_copy"] = df["y"]
    df["split"] = np.where(np.arange(n) < 480, "train", "test")
    return df


def _filled_for_the_rare_class() -> pd.DataFrame:
    """5,000 rows, 11% 'churn', 10% held out; a reason filled in for churners only (blank, or an empty string)."""
    rng = np.random.default_rng(2)
    n = 5000
    churn = rng.random(n) < 0.11
    df = pd.DataFrame({"id": np.arange(n), "tenure": rng.normal(24, 10, n).round(1), "y": churn})
    df["y"] = np.where(churn, "churn", "stay")
    df["cancel_reason"] = np.where(churn, rng.choice(["price", "moved", "service", "other"], n), "")
    df["split"] = np.where(rng.random(n) < 0.9, "train", "test")
    return df


@pytest.mark.parametrize(
    ("make", "proxy"), [(_copy_of_the_label, "target_copy"), (_filled_for_the_rare_class, "cancel_reason")]
)
def test_a_label_proxy_on_few_rows_of_a_class_is_the_same_error_in_code_and_in_a_file(
    tmp_path: Path, make: Any, proxy: str
) -> None:
    df = make()
    keys = {"label": "y", "features": "auto"}
    only = ["feature_leakage"]
    code = auditor.audit(df, id="id", keys=keys, only=only)
    files, exit_code = from_file(tmp_path, df, {"id": "id", "split": "split"}, only, keys=keys)
    assert in_code(code) == files and code.exit_code == exit_code == 1
    (flk,) = [f for f in code.findings if f.code == "FLK001"]
    assert flk.key == proxy and flk.severity.value == "error" and flk.evidence["p_value"] < 1e-30
