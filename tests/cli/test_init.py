"""`audit init`: a starting config guessed from a manifest, validated, that finds each sample's planted leak."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.core.yamlsource import yaml_scalar
from auditor.fitted import discover
from auditor.manifest import sampling
from auditor.manifest.guess import propose, render_config
from tests.conftest import REPO, write_table

runner = CliRunner()


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


def copy_sample(name: str, tmp_path: Path) -> Path:
    """The sample's manifest (and data files) without its audit.yaml, so the guess cannot lean on it."""
    target = tmp_path / name
    shutil.copytree(REPO / "sample_data" / name, target, ignore=shutil.ignore_patterns("audit-report", "*.yaml"))
    return target / "manifest.csv"


def init_and_run(manifest: Path) -> tuple[str, dict]:  # type: ignore[type-arg]
    config = manifest.parent / "audit.yaml"
    result = invoke("init", str(manifest), "--out", str(config))
    assert result.exit_code == 0, result.output
    assert invoke("validate", str(config)).exit_code == 0
    invoke("run", str(config), "-q")
    report = json.loads((manifest.parent / "audit-report" / "report.json").read_text())
    found = {f["code"] for stage in report["stages"] for f in stage.get("findings", [])}
    return config.read_text(), {"codes": found, "exit": report["exit_code"], "output": result.output}


def test_handwriting_guesses_writer_and_finds_writer_a(tmp_path: Path) -> None:
    text, run = init_and_run(copy_sample("handwriting", tmp_path))
    assert "  id: sample_id  # unique over 25 rows" in text
    assert "  split: split  #" in text
    assert "    - writer  # 4 distinct values over 25 rows (6.2 rows each): a unit of independence" in text
    assert "  label: label  #" in text
    # The image paths name files that are not there: offered, commented out, never switched on.
    assert "  # content_path: image  # relative file paths, but only 0 of 20" in text
    assert run["exit"] == 1 and "GRP001" in run["codes"]
    assert "check by hand:" in run["output"] and "no content key" in run["output"]


def test_video_frames_finds_the_chain_the_copy_and_the_time_leak(tmp_path: Path) -> None:
    text, run = init_and_run(copy_sample("video_frames", tmp_path))
    assert "    - person  #" in text and "    - video_id  #" in text
    assert "  content_path: file  # relative file paths, 20 of 20 sampled files exist" in text
    assert "  time: captured_at  #" in text
    assert "  entity: camera  # 2 of 4 values occur in both train and holdout rows" in text
    assert {"UPS001", "DUP001", "DUP003", "TMP002", "LAB001"} <= run["codes"]
    assert run["exit"] == 1


def test_clinic_proposes_its_artifacts_and_finds_the_scaler_fitted_on_all_rows(tmp_path: Path) -> None:
    text, run = init_and_run(copy_sample("clinic", tmp_path))
    assert "    - patient_id  # 80 distinct values over 240 rows (3 rows each)" in text
    assert "  label: diagnosis  #" in text
    assert (
        "  - name: scaler  # mean_, scale_, var_; columns named in the artifact\n"
        "    kind: standardize\n"
        "    artifact: artifacts/scaler.json\n"
        "    columns: [age, bmi, glucose]\n"
        "    fitted_on: [train]  # a claim, not a fact: the audit checks it against the data\n"
    ) in text
    assert "    kind: impute\n    artifact: artifacts/imputer.csv\n    columns: [bmi, glucose]\n" in text
    assert "    kind: categories\n    artifact: artifacts/smoker_onehot.json\n    columns: [smoker]\n" in text
    assert "    kind: vocabulary\n    artifact: artifacts/vocab.txt\n    text: note\n" in text
    # The scaler was fitted on every row; the claim `fitted_on: [train]` is what the audit disproves.
    assert {"FIT001", "LAB002"} <= run["codes"] and run["exit"] == 1
    assert "4 artifact(s) proposed" in run["output"]


def test_config_paths_are_relative_to_the_output_folder(tmp_path: Path) -> None:
    manifest = copy_sample("handwriting", tmp_path / "data")
    config = tmp_path / "configs" / "hw" / "audit.yaml"
    assert invoke("init", str(manifest), "--out", str(config)).exit_code == 0
    text = config.read_text()
    assert "  path: ../../data/handwriting/manifest.csv" in text
    assert "roots: [../../data/handwriting]" in text
    assert invoke("validate", str(config)).exit_code == 0


def test_existing_config_is_kept_without_force(tmp_path: Path) -> None:
    manifest = copy_sample("handwriting", tmp_path)
    config = manifest.parent / "audit.yaml"
    config.write_text("# mine\n")
    result = invoke("init", str(manifest), "--out", str(config))
    assert result.exit_code == 2 and "already exists" in result.output and "--force" in result.output
    assert config.read_text() == "# mine\n"
    assert invoke("init", str(manifest), "--out", str(config), "--force").exit_code == 0
    assert "split: split" in config.read_text()
    assert [p.name for p in manifest.parent.iterdir() if p.name.endswith(".tmp")] == []


def rows(n: int = 60) -> pd.DataFrame:
    split = (["train"] * 4 + ["valid", "test"]) * (n // 6)
    return pd.DataFrame(
        {
            "uid": [f"u{i:04d}" for i in range(n)],
            "speaker": [f"s{i % 6}" for i in range(n)],
            "sha256": [hashlib.sha256(str(i % 50).encode()).hexdigest() for i in range(n)],
            "recorded_at": pd.date_range("2024-01-01", periods=n, freq="h"),
            "target": [i % 3 for i in range(n)],
            "subset": split,
        }
    )


def test_parquet_manifest_typed_columns(tmp_path: Path) -> None:
    rows().to_parquet(tmp_path / "m.parquet")
    text = render_config(propose(tmp_path / "m.parquet", tmp_path))
    assert "  id: uid  #" in text and "  split: subset  #" in text
    assert "    - speaker  # 6 distinct values over 60 rows (10 rows each)" in text
    assert "  content_hash: sha256  # 64-character hex digests" in text
    assert "  time: recorded_at  # 60 timestamps that parse" in text
    assert "  label: target  # 3 distinct values" in text
    assert "  train: [train]" in text and "# holdout: [test, valid]" in text
    assert invoke("init", str(tmp_path / "m.parquet"), "--out", str(tmp_path / "a.yaml")).exit_code == 0


def test_jsonl_manifest(tmp_path: Path) -> None:
    frame = rows().assign(recorded_at=lambda d: d.recorded_at.dt.strftime("%Y-%m-%dT%H:%M:%S"))
    frame.to_json(tmp_path / "m.jsonl", orient="records", lines=True)
    result = invoke("init", str(tmp_path / "m.jsonl"), "--out", str(tmp_path / "a.yaml"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "a.yaml").read_text()
    assert "  time: recorded_at  # 60 timestamps that parse" in text and "  content_hash: sha256" in text


def test_directory_with_one_file_per_split_becomes_paths(tmp_path: Path) -> None:
    frame = rows().drop(columns="subset")
    frame[:40].to_csv(tmp_path / "train.csv", index=False)
    frame[40:].to_csv(tmp_path / "Test.csv", index=False)
    result = invoke("init", str(tmp_path), "--out", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "audit.yaml").read_text()
    assert "  paths:" in text and "    Test: Test.csv" in text and "    train: train.csv" in text
    assert "split:" not in text.split("splits:")[0]


def test_large_manifest_is_sampled_across_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Sorted by split: the head alone holds only train rows; the windows reach the test rows.
    monkeypatch.setattr(sampling, "_HEAD_BYTES", 64 << 10)
    monkeypatch.setattr(sampling, "_WINDOW_BYTES", 16 << 10)
    n = 100_000
    pd.DataFrame({"id": [f"r{i:07d}" for i in range(n)], "split": ["train"] * (n - 40_000) + ["test"] * 40_000}).to_csv(
        tmp_path / "big.csv", index=False
    )
    proposal = propose(tmp_path / "big.csv", tmp_path, limit=4_000)
    assert proposal.holdout == ("test",) and proposal.id.first is not None
    assert "sampled" in proposal.rows_note and any("sample" in n for n in proposal.to_check)


@pytest.mark.parametrize(
    ("content", "name", "expected"),
    [
        ("", "m.csv", "the file is empty; expected a header line"),
        ("id,split\n", "m.csv", "has no rows"),
        ("id,fold\n1,0\n2,1\n3,0\n", "m.csv", "no plausible split column"),
        ("id,split\n1,a\n2,b\n3,a\n", "m.csv", "'split' named like one but not holding split names"),
        ('{"id": 1}\n{oops\n', "m.jsonl", "m.jsonl:2"),
        ("id,split\n1,train\n2,test,extra\n", "m.csv", "m.csv:3: expected 2 fields"),
        ("id,split\n1,train\n2,te\x00st\n", "m.csv", "m.csv:3:5: a NUL byte"),
        ("PAR1 not really", "m.parquet", "not a readable parquet file"),
    ],
)
def test_bad_manifest_exits_2_naming_the_file_and_writes_nothing(
    tmp_path: Path, content: str, name: str, expected: str
) -> None:
    (tmp_path / name).write_text(content)
    result = invoke("init", str(tmp_path / name), "--out", str(tmp_path / "out" / "audit.yaml"))
    assert result.exit_code == 2
    assert expected in result.output and name in result.output
    assert not (tmp_path / "out").exists()


def test_missing_manifest_names_the_resolved_path(tmp_path: Path) -> None:
    result = invoke("init", str(tmp_path / "nope.csv"), "--out", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 2 and "nope.csv" in result.output and "not found" in result.output
    assert not (tmp_path / "audit.yaml").exists()


def test_yaml_scalar_quotes_what_yaml_would_misread() -> None:
    assert yaml_scalar("writer") == "writer"
    assert yaml_scalar("no") == '"no"' and yaml_scalar("a: b") == '"a: b"' and yaml_scalar("#x") == '"#x"'


def small_manifest(folder: Path) -> Path:
    """A manifest with two numeric feature columns and a free-text column, and an artifacts/ folder."""
    (folder / "artifacts").mkdir(parents=True)
    pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(12)],
            "split": ["train"] * 8 + ["test"] * 4,
            "age": [20.0 + i for i in range(12)],
            "bmi": [22.5 + i / 2 for i in range(12)],
            "note": [f"fever and cough day {i}" for i in range(12)],
        }
    ).to_csv(folder / "manifest.csv", index=False)
    return folder / "manifest.csv"


def init_text(manifest: Path) -> tuple[str, str]:
    config = manifest.parent / "audit.yaml"
    result = invoke("init", str(manifest), "--out", str(config))
    assert result.exit_code == 0, result.output
    assert invoke("validate", str(config)).exit_code == 0
    return config.read_text(), result.output


def test_pickle_is_commented_out_and_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = small_manifest(tmp_path)
    (tmp_path / "artifacts" / "scaler.pkl").write_bytes(b"\x80\x04not read")
    read: list[str] = []
    real = discover.read_utf8
    monkeypatch.setattr(discover, "read_utf8", lambda p: read.append(p.name) or real(p))
    text, output = init_text(manifest)
    assert "  # - name: scaler  # a pickle (.pkl): loading one runs code stored in it, so it was not read" in text
    assert "  #   artifact: artifacts/scaler.pkl\n" in text and "\nfitted:" not in text
    assert read == [] and "fitted 'scaler' (scaler.pkl) is commented out: a pickle" in output


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"mean_": [1.0,\n  oops]}', "broken.json:2:3: fitted 'broken' (proposed by audit init): not valid JSON"),
        ('{"weights": [1, 2]}', "kind not inferred: no key names a fitted statistic (keys: weights)"),
        ('{"mean_": [1.0], "data_min_": [0.0]}', "kind not inferred: its keys point to kinds minmax and standardize"),
        ('{"mean_": [1, 2, 3], "scale_": [1, 1, 1]}', "TODO: columns not inferred: the artifact holds 3 value(s)"),
        ('{"feature_names_in_": ["age", "weight"], "mean_": [1, 2]}', "names column(s) ['weight'] that the manifest"),
        ('{"feature_names_in_": ["age", "bmi"], "mean_": [1]}', "1 value(s) for 'mean' but 2 column name(s)"),
        ("[1, 2]", "kind not inferred: a JSON list"),
    ],
)
def test_odd_json_is_commented_out_with_the_reason(tmp_path: Path, content: str, reason: str) -> None:
    manifest = small_manifest(tmp_path)
    (tmp_path / "artifacts" / "broken.json").write_text(content)
    text, _ = init_text(manifest)
    entry = next(line for line in text.splitlines() if line.startswith("  # - name: broken"))
    assert reason in entry
    assert "\nfitted:" not in text and "# fitted:" in text


def test_bare_statistics_take_the_numeric_columns_when_the_count_matches(tmp_path: Path) -> None:
    manifest = small_manifest(tmp_path)
    (tmp_path / "artifacts" / "norm.json").write_text('{"mean_": [25.5, 25.25], "scale_": [3.4, 1.7]}')
    text, _ = init_text(manifest)
    assert "  - name: norm  # mean_, scale_; no column names in it: the manifest's 2 numeric columns" in text
    assert "    columns: [age, bmi]\n" in text


def test_vocab_txt_reads_the_longest_free_text_column(tmp_path: Path) -> None:
    manifest = small_manifest(tmp_path)
    (tmp_path / "preprocessing").mkdir()
    (tmp_path / "preprocessing" / "vocab.txt").write_text("[PAD]\nfever\ncough\n")
    (tmp_path / "preprocessing" / "notes.txt").write_text("not an artifact\n")
    text, _ = init_text(manifest)
    assert (
        "  - name: vocab  # one token a line; text: the longest free-text column\n"
        "    kind: vocabulary\n    artifact: preprocessing/vocab.txt\n    text: note\n    fitted_on: [train]"
    ) in text
    assert "notes" not in text


def test_at_most_50_files_are_looked_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = small_manifest(tmp_path)
    for i in range(60):
        (tmp_path / "artifacts" / f"s{i:02d}.json").write_text('{"feature_names_in_": ["age"], "mean_": [1.0]}')
    read: list[str] = []
    real = discover.read_utf8
    monkeypatch.setattr(discover, "read_utf8", lambda p: read.append(p.name) or real(p))
    text, output = init_text(manifest)
    assert text.count("    kind: standardize") == 50 and "artifacts/s49.json" in text and "s50" not in text
    assert len(read) == 50  # the 10 files past the bound are never opened
    assert "more than 50 candidate artifact files" in output


def test_symlinks_out_of_the_folder_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "norm.json").write_text('{"feature_names_in_": ["age"], "mean_": [1.0]}')
    manifest = small_manifest(tmp_path / "data")
    (tmp_path / "data" / "artifacts" / "norm.json").symlink_to(outside / "norm.json")
    (tmp_path / "data" / "models").symlink_to(outside, target_is_directory=True)
    text, _ = init_text(manifest)
    assert "  # - name: norm  # a symlink to a file outside the manifest's folder: not followed" in text
    assert "models/" not in text


def test_no_artifacts_leaves_fitted_to_the_author(tmp_path: Path) -> None:
    text, output = init_text(small_manifest(tmp_path))
    assert "# fitted: []  # no preprocessing artifacts found beside the manifest" in text
    assert "no preprocessing artifacts found beside the manifest" in output


def test_a_missing_manifest_is_named_before_an_existing_config(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from auditor.cli import app

    (tmp_path / "audit.yaml").write_text("version: 1\n")
    result = CliRunner().invoke(app, ["init", str(tmp_path / "nothing.csv"), "--out", str(tmp_path / "audit.yaml")])
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "nothing.csv" in flat and "already exists" not in flat
    assert (tmp_path / "audit.yaml").read_text() == "version: 1\n"


def test_a_group_named_key_that_repeats_rarely_in_the_sample_is_still_proposed(tmp_path: Path) -> None:
    # 2,000 rows, 1,500 patients: most appear once, some twice; in a sample of a large manifest this is how a
    # key of many rows per value looks, and leaving it out would let a patient-level leak pass.
    import numpy as np

    rng = np.random.default_rng(0)
    patients = np.concatenate([np.arange(1500), rng.integers(0, 1500, 500)])
    rows = [f"s{i},{['train', 'val', 'test'][i % 3]},p{p}" for i, p in enumerate(patients)]
    (tmp_path / "m.csv").write_text("sample_id,split,patient_id\n" + "\n".join(rows) + "\n")
    proposal = propose(tmp_path / "m.csv", tmp_path)
    import yaml

    assert yaml.safe_load(render_config(proposal))["keys"]["groups"] == ["patient_id"]


def test_a_repeated_header_line_is_refused_as_audit_run_refuses_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from auditor.cli import app

    lines = (REPO / "sample_data" / "handwriting" / "manifest.csv").read_text().splitlines()
    (tmp_path / "stray.csv").write_text("\n".join([*lines[:11], lines[0], *lines[11:]]) + "\n")
    result = CliRunner().invoke(app, ["init", str(tmp_path / "stray.csv"), "--out", str(tmp_path / "a.yaml")])
    assert result.exit_code == 2
    assert "stray.csv:12: this line repeats the header" in " ".join(result.output.split())
    assert not (tmp_path / "a.yaml").exists()


def test_a_column_of_documents_is_proposed_as_keys_text_short_text_only_commented(tmp_path: Path) -> None:
    long = ["the review of this product goes on for a while " * 6 + str(i) for i in range(8)]
    short = [f"red shoe size {i}" for i in range(8)]
    split = ["train"] * 6 + ["test"] * 2
    write_table(tmp_path / "docs.csv", {"body": long, "split": split})
    assert "\n  text: body  # free text" in render_config(propose(tmp_path / "docs.csv", tmp_path))
    write_table(tmp_path / "captions.csv", {"caption": short, "split": split})
    assert "\n  # text: caption  # free text" in render_config(propose(tmp_path / "captions.csv", tmp_path))


# -- cross-validation folds ----------------------------------------------------------------------------


def visits(n_patients: int = 40, per_patient: int = 4) -> pd.DataFrame:
    """Patients' visits with a label of five balanced classes (0..4): a column that must never read as folds."""
    n = n_patients * per_patient
    return pd.DataFrame(
        {
            "visit_id": [f"v{i:04d}" for i in range(n)],
            "patient_id": [f"p{i // per_patient:03d}" for i in range(n)],
            "age": [20 + (i * 7) % 50 for i in range(n)],
            "label": [i % 5 for i in range(n)],
        }
    )


def fold_column(n: int, splits: Iterable[tuple[Any, Sequence[int]]]) -> list[int]:
    """Each row's fold: the split in which it is the holdout."""
    fold = [-1] * n
    for k, (_, holdout) in enumerate(splits):
        for i in holdout:
            fold[i] = k
    assert -1 not in fold
    return fold


def test_kfold_and_group_kfold_columns_become_folds_that_audit(tmp_path: Path) -> None:
    model_selection = pytest.importorskip("sklearn.model_selection")
    df = visits()
    df["kfold"] = fold_column(len(df), model_selection.KFold(5, shuffle=True, random_state=0).split(df))
    groups = df["patient_id"]
    df["cv_group"] = fold_column(len(df), model_selection.GroupKFold(5).split(df, groups=groups))
    df["taken_at"] = pd.date_range("2024-01-01", periods=len(df), freq="D").strftime("%Y-%m-%d")
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, run = init_and_run(manifest)
    # The entity is judged fold by fold: a patient with visits in two folds is in one fold's training rows
    # and the other's holdout.
    spread = int((df.groupby("patient_id")["kfold"].nunique() > 1).sum())
    assert spread > 0
    assert f"  entity: patient_id  # {spread} of 40 values occur in both train and holdout rows" in text
    assert (
        "  folds: kfold  # 5 fold ids 0..4 over 160 rows (32 rows each), named like folds: each fold in turn is "
        "the holdout\n"
    ) in text
    assert "  # folds: cv_group  # 5 fold ids 0..4 over 160 rows (32 rows each), named like folds\n" in text
    assert "splits:" not in text and "split:" not in text  # folds alone: no fixed split
    assert "  label: label  #" in text and "    - patient_id  #" in text
    assert "manifest.folds: chose 'kfold'; commented-out alternatives: cv_group" in run["output"]
    assert "GRP001" in run["codes"] and run["exit"] == 1  # row-wise KFold: patients in several folds

    # The GroupKFold alone is found as well, and keeps every patient in one fold.
    (tmp_path / "grouped").mkdir()
    grouped = write_table(tmp_path / "grouped" / "manifest.csv", df.drop(columns="kfold"))
    text, run = init_and_run(grouped)
    assert "  folds: cv_group  #" in text
    assert "GRP001" not in run["codes"] and run["exit"] == 0


def test_label_of_five_balanced_classes_is_never_folds(tmp_path: Path) -> None:
    # label/target/y/class with values 0..4 and many rows each: labels, not folds; a count of many values
    # is no fold id either. The split column stays the split.
    df = visits().assign(
        target=lambda d: d.label,
        y=lambda d: d.label,
        class_=lambda d: d.label,
        cv_rank=lambda d: [i % 25 for i in range(len(d))],  # named like folds, but 25 ids: a rank, not folds
    )
    df = df.rename(columns={"class_": "class"})
    df["split"] = ["train"] * 120 + ["test"] * 40
    proposal = propose(write_table(tmp_path / "m.csv", df), tmp_path)
    assert proposal.folds is None and proposal.fold_alternatives == ()
    assert proposal.split is not None and proposal.split.column == "split"
    text = render_config(proposal)
    assert "folds" not in text and "  label: label  #" in text


def test_a_balanced_integer_column_not_named_like_folds_is_only_offered(tmp_path: Path) -> None:
    df = visits().assign(bucket=lambda d: [i % 4 for i in range(len(d))])
    manifest = write_table(tmp_path / "m.csv", df)
    # No split column, and no column taken as folds: nothing to audit, and the error says what was not taken.
    result = invoke("init", str(manifest), "--out", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 2 and "no plausible split column" in result.output
    assert "Not taken as folds: bucket: 4 fold ids 0..3 over 160 rows (40 rows each), but not named like folds" in (
        " ".join(result.output.split())
    )
    assert not (tmp_path / "audit.yaml").exists()
    # Beside a split it is offered commented out, never written.
    df["split"] = ["train"] * 120 + ["test"] * 40
    df.loc[120:, "bucket"] = None
    text = render_config(propose(write_table(tmp_path / "s.csv", df), tmp_path))
    assert "  split: split  #" in text and "\n  folds:" not in text
    assert "  # folds: bucket  # 4 fold ids 0..3 over 120 rows (30 rows each), but not named like folds" in text


def test_folds_beside_a_split_inside_its_training_rows(tmp_path: Path) -> None:
    df = visits()
    df["split"] = ["train"] * 120 + ["test"] * 40
    df["fold"] = [str(i % 4) for i in range(120)] + [""] * 40  # fixed test rows carry no fold
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, run = init_and_run(manifest)
    assert "  split: split  #" in text and "  train: [train]" in text
    assert (
        "  folds: fold  # 4 fold ids 0..3 over 120 rows (30 rows each), named like folds; no fold on the rows of "
        "holdout split(s) test: folds inside the training splits: each fold in turn is the holdout\n"
    ) in text
    assert run["exit"] in (0, 1) and "SPL012" in run["codes"]  # audited fold by fold


def test_a_fold_on_holdout_split_rows_is_only_offered_with_the_reason(tmp_path: Path) -> None:
    df = visits()
    df["split"] = ["train"] * 120 + ["test"] * 40
    df["fold"] = [i % 4 for i in range(160)]  # the test rows carry a fold too: the folds reader refuses that
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, run = init_and_run(manifest)
    assert "  split: split  #" in text and "\n  folds:" not in text
    assert (
        "  # folds: fold  # 4 fold ids 0..3 over 160 rows (40 rows each), named like folds, but 40 row(s) of holdout "
        "split 'test' carry a fold; a holdout split's rows are judged on their own and carry no fold. Clear "
        "their fold, or list the split in `splits.train` if its rows take part in the folds.\n"
    ) in text
    assert "manifest.folds: none written; offered commented out: fold" in run["output"]


@pytest.mark.parametrize(
    ("column", "values", "shown"),
    [
        ("cv_fold", [f"f{i % 3}" for i in range(160)], "f0..f2"),
        ("partition", [f"fold_{i % 3 + 1}" for i in range(160)], "fold_1..fold_3"),  # not named so: fold names
        ("folds", [str(i % 3) for i in range(160)], "0..2"),
    ],
)
def test_fold_names_and_ids_as_text_are_folds(tmp_path: Path, column: str, values: list[str], shown: str) -> None:
    manifest = write_table(tmp_path / "manifest.jsonl", visits().assign(**{column: values}))
    text, run = init_and_run(manifest)
    assert f"  folds: {column}  # 3 fold ids {shown} over 160 rows" in text
    assert run["exit"] in (0, 1) and "SPL012" in run["codes"]


def test_one_column_per_fold_from_a_time_series_split(tmp_path: Path) -> None:
    model_selection = pytest.importorskip("sklearn.model_selection")
    df = visits().assign(taken_at=lambda d: pd.date_range("2024-01-01", periods=len(d), freq="D"))
    for k, (train, holdout) in enumerate(model_selection.TimeSeriesSplit(3).split(df)):
        role = ["unused"] * len(df)
        for i in train:
            role[i] = "train"
        for i in holdout:
            role[i] = "holdout"
        df[f"cv{k}"] = role
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, run = init_and_run(manifest)
    assert (
        "  folds: {columns: [cv0, cv1, cv2]}  # 3 columns whose values are only train / holdout / unused: one "
        "column per fold: each fold in turn is the holdout\n"
    ) in text
    assert "split:" not in text
    assert "SPL012" in run["codes"] and run["exit"] in (0, 1)


def test_one_column_per_fold_spelt_train_test_is_offered_with_what_to_rewrite(tmp_path: Path) -> None:
    df = visits()
    df["split"] = ["train"] * 120 + ["test"] * 40
    for k in range(3):
        df[f"cv{k}"] = ["test" if i % 3 == k else "train" for i in range(120)] + ["-"] * 40
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, _ = init_and_run(manifest)
    assert "  split: split  #" in text  # the split, not a per-fold column, is the split
    assert "  # folds: {columns: [cv0, cv1, cv2]}  # one column per fold, but their values (-, test, train)" in text
    assert "\n  folds:" not in text


def test_folds_in_consecutive_stretches_of_time_offer_the_rolling_scheme(tmp_path: Path) -> None:
    df = visits().assign(taken_at=lambda d: pd.date_range("2024-01-01", periods=len(d), freq="D").strftime("%Y-%m-%d"))
    df["fold"] = [i * 4 // len(df) for i in range(len(df))]  # four stretches of 40 days, as TimeSeriesSplit makes
    manifest = write_table(tmp_path / "manifest.csv", df)
    text, run = init_and_run(manifest)
    assert "  folds: fold  # 4 fold ids 0..3" in text
    rolling = "  # folds: {column: fold, scheme: rolling}  # the 4 folds are consecutive stretches of taken_at: "
    assert rolling in text
    assert "the folds are consecutive stretches of time, so each fold also trains on later folds" in run["output"]
    assert "TMP001" in run["codes"]  # as written (kfold), a fold's training rows are newer than its holdout
    # The commented-out scheme loads and audits as written.
    config = manifest.parent / "rolling.yaml"
    lines = text.splitlines()
    lines = [line for line in lines if not line.startswith("  folds: ")]
    config.write_text("\n".join(line.replace("  # folds: {column", "  folds: {column") for line in lines) + "\n")
    assert invoke("validate", str(config)).exit_code == 0
    assert invoke("run", str(config), "-q", "--out", str(tmp_path / "rolling-report")).exit_code == 0
    report = json.loads((tmp_path / "rolling-report" / "report.json").read_text())
    codes = {f["code"] for stage in report["stages"] for f in stage.get("findings", [])}
    assert "SPL012" in codes and "TMP001" not in codes  # each fold trains on earlier stretches only
    # Shuffled folds are no stretches of time: no rolling scheme is offered.
    df["fold"] = [(i * 7) % 4 for i in range(len(df))]
    assert "rolling" not in render_config(propose(write_table(tmp_path / "shuffled.csv", df), tmp_path))
