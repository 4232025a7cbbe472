"""`audit evaluated`: recording evaluations of a holdout split in the local ledger, and what `audit run` counts."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from tests.conftest import REPO, write_config, write_table

runner = CliRunner()
EXPOSURE_CODES = ("EXP000", "EXP001")  # a fresh set and a seen one carry the same evidence
SAMPLE = REPO / "sample_data" / "video_frames"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the video-frames sample, so its ledger and reports land in a temporary folder."""
    shutil.copytree(SAMPLE, tmp_path / "vf")
    return tmp_path / "vf" / "audit.yaml"


def exposure_of(config: Path, split: str) -> dict:  # type: ignore[type-arg]
    """The EXP001 evidence of ``split`` in a fresh `audit run --only test_exposure`."""
    out = config.parent / "out"
    done = invoke("run", str(config), "--only", "test_exposure", "--format", "json", "--out", str(out), "-q")
    assert done.exit_code in (0, 1), done.output
    report = json.loads((out / "report.json").read_text())
    found = [f for s in report["stages"] for f in s["findings"] if f["code"] in EXPOSURE_CODES]
    return next(f["evidence"] for f in found if f["evidence"]["split"] == split)


def one_error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return str(lines[0])


def test_three_recorded_evaluations_are_counted_by_the_audit(sample: Path) -> None:
    assert exposure_of(sample, "test")["evaluations"] == 0
    for i in range(3):
        done = invoke("evaluated", str(sample), "--split", "test", "--metric", f"acc=0.9{i}", "--note", f"try {i}")
        assert done.exit_code == 0, done.output
    ledger = sample.parent / ".split-auditor" / "ledger.sqlite"
    line = done.output.strip()
    assert line.startswith("recorded: 'test' (fingerprint ")
    assert "10 rows by row content" in line and "[acc=0.92]" in line
    assert f"in {ledger}; this set now has 3 evaluation(s)" in line
    evidence = exposure_of(sample, "test")
    assert evidence["evaluations"] == 3
    assert evidence["sets"][0]["recorded_as"] == ["test"]
    assert exposure_of(sample, "val")["evaluations"] == 0


def test_ledger_option_and_the_stages_ledger_are_where_it_records(sample: Path, tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere" / "team.sqlite"
    done = invoke("evaluated", str(sample), "--split", "val", "--ledger", str(chosen))
    assert done.exit_code == 0, done.output
    assert chosen.is_file() and f"in {chosen};" in done.output
    # The ledger the audit reads (the stage's option) is where a record without --ledger goes.
    text = sample.read_text().replace("stages:\n", "stages:\n  test_exposure: {ledger: shared/ledger.sqlite}\n", 1)
    sample.write_text(text)
    done = invoke("evaluated", str(sample), "--split", "val")
    assert done.exit_code == 0, done.output
    assert (sample.parent / "shared" / "ledger.sqlite").is_file()
    assert exposure_of(sample, "val")["evaluations"] == 1


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("acc", "expected NAME=VALUE, e.g. acc=0.913"),
        ("=0.9", "expected NAME=VALUE"),
        ("acc=high", "'high' is not a number"),
        ("acc=nan", "NaN and infinity are not results"),
        ("acc=-inf", "NaN and infinity are not results"),
    ],
)
def test_a_bad_metric_is_refused_before_anything_is_recorded(sample: Path, metric: str, expected: str) -> None:
    message = one_error(invoke("evaluated", str(sample), "--split", "test", "--metric", metric))
    assert expected in message
    assert not (sample.parent / ".split-auditor").exists()


def test_a_metric_given_twice_is_refused(sample: Path) -> None:
    done = invoke("evaluated", str(sample), "--split", "test", "--metric", "acc=0.9", "--metric", "acc=0.8")
    assert "'acc' is given twice" in one_error(done)


def test_an_unknown_split_names_the_splits(sample: Path) -> None:
    message = one_error(invoke("evaluated", str(sample), "--split", "tset"))
    assert "'tset' is not in the manifest" in message
    assert all(name in message for name in ("train", "val", "test"))


def test_a_config_without_a_row_identity_is_refused(sample: Path) -> None:
    text = sample.read_text().replace("  id: frame_id\n", "").replace("  content_path: file ", "  # ")
    sample.write_text(text)
    message = one_error(invoke("evaluated", str(sample), "--split", "test"))
    assert "manifest.id" in message and "keys.content_hash" in message


def test_a_corrupt_ledger_is_reported_and_left_as_it_is(sample: Path) -> None:
    ledger = sample.parent / "broken.sqlite"
    ledger.write_bytes(b"not a database at all" * 100)
    message = one_error(invoke("evaluated", str(sample), "--split", "test", "--ledger", str(ledger)))
    assert str(ledger) in message and "left as it is" in message
    assert ledger.read_bytes() == b"not a database at all" * 100


def test_a_locked_ledger_waits_then_says_so(sample: Path) -> None:
    assert invoke("evaluated", str(sample), "--split", "test").exit_code == 0
    text = sample.read_text().replace("stages:\n", "stages:\n  test_exposure: {busy_timeout_s: 0.2}\n", 1)
    sample.write_text(text)
    ledger = sample.parent / ".split-auditor" / "ledger.sqlite"
    holder = sqlite3.connect(ledger, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        message = one_error(invoke("evaluated", str(sample), "--split", "test"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "is locked by another process (waited 0.2 s)" in message
    assert exposure_of(sample, "test")["evaluations"] == 1


def test_server_options_need_submit_and_exclude_a_local_ledger(sample: Path) -> None:
    assert "belong to --submit" in one_error(invoke("evaluated", str(sample), "--split", "test", "--project", "p"))
    done = invoke("evaluated", str(sample), "--split", "test", "--ledger", "x.sqlite", "--submit", "http://127.0.0.1:9")
    assert "give one" in one_error(done)
    done = invoke("evaluated", str(sample), "--split", "test", "--submit", "http://127.0.0.1:9", "--project", "p")
    assert "token" in one_error(done)


def test_a_fold_holdout_is_not_recorded_and_the_fixed_test_split_is(tmp_path: Path) -> None:
    split = ["test" if i % 5 == 0 else "train" for i in range(50)]
    fold = ["" if s == "test" else str(i % 3) for i, s in enumerate(split)]
    write_table(tmp_path / "m.csv", {"id": [f"r{i}" for i in range(50)], "split": split, "fold": fold})
    config = write_config(tmp_path, {"manifest": {"path": "m.csv", "id": "id", "split": "split", "folds": "fold"}})
    line = one_error(invoke("evaluated", str(config), "--split", "fold 0"))
    assert "validation fold" in line and "'test'" in line
    assert not (tmp_path / ".split-auditor").exists()
    assert invoke("evaluated", str(config), "--split", "test").exit_code == 0
    assert exposure_of(config, "test")["evaluations"] == 1
