"""The `audit` command: exit codes, files written, and a clear message for every bad input."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from auditor.cli import app
from auditor.core.output import RunStatus, read_report_state
from tests import forked
from tests.conftest import REPO, write_config, write_table

runner = CliRunner()
SAMPLE = REPO / "sample_data" / "handwriting"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the handwriting sample, so tests never write into the repository."""
    target = tmp_path / "handwriting"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns("audit-report"))
    return target / "audit.yaml"


def test_sample_exits_1_names_writer_a_and_writes_reports(sample: Path) -> None:
    result = invoke("run", str(sample))
    assert result.exit_code == 1, result.output
    assert "writer-a" in result.output and "GRP001" in result.output
    out = sample.parent / "audit-report"
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md"]
    data = json.loads((out / "report.json").read_text())
    assert data["exit_code"] == 1
    assert data["manifest"]["rows_per_split"] == {"train": 13, "val": 4, "test": 8}


def test_out_format_fail_on_and_only(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere"
    result = invoke(
        "run",
        str(sample),
        "--out",
        str(out),
        "--format",
        "json,junit",
        "--fail-on",
        "never",
        "--only",
        "split_integrity",
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.junit.xml"]
    stages = [s["stage"] for s in json.loads((out / "report.json").read_text())["stages"]]
    assert stages == ["split_integrity"]


@pytest.mark.parametrize(("fail_on", "code", "failures"), [("never", 0, "0"), ("error", 1, "1")])
def test_the_junit_file_fails_as_the_exit_code_does(
    sample: Path, tmp_path: Path, fail_on: str, code: int, failures: str
) -> None:
    """`--fail-on never` exits 0: the JUnit file a CI reads passes too, the error shown in its output."""
    import xml.etree.ElementTree as ET

    out = tmp_path / "out"
    result = invoke("run", str(sample), "--out", str(out), "--format", "junit", "--fail-on", fail_on, "-q")
    assert result.exit_code == code, result.output
    root = ET.parse(out / "report.junit.xml").getroot()
    assert root.get("failures") == failures
    case = next(c for c in root.iter("testcase") if c.get("name") == "group_overlap")
    shown = case.find("failure") if code else case.find("system-out")
    assert shown is not None and "error GRP001" in (shown.text or "")


@pytest.mark.parametrize(("formats", "files"), [("sarif,junit", ["report.junit.xml", "report.sarif"]), ("", [])])
def test_report_json_is_written_whatever_the_formats(
    sample: Path, tmp_path: Path, formats: str, files: list[str]
) -> None:
    out = tmp_path / "out"
    config = sample
    if formats:
        result = invoke("run", str(config), "--out", str(out), "--format", formats, "-q")
    else:  # a config that asks for no report at all still leaves its verdict
        data = yaml.safe_load(sample.read_text())
        data["report"] = {"formats": []}
        config = sample.with_name("none.yaml")
        config.write_text(yaml.safe_dump(data))
        result = invoke("run", str(config), "--out", str(out), "-q")
    assert result.exit_code == 1, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(["report.json", *files])
    state = read_report_state(out / "report.json")
    assert state.status.value == "completed" and state.data is not None and state.data["exit_code"] == 1


def test_clean_manifest_exits_0(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    cfg = write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "split": "split"},
            "keys": {"groups": ["w"]},
            "report": {"formats": []},
        },
    )
    result = invoke("run", str(cfg))
    assert result.exit_code == 0, result.output
    assert "exit 0" in result.output


def _blood_and_subjects(tmp_path: Path, train: list[str], test: list[str]) -> Path:
    """A manifest whose train rows hold blood type and subject ``train`` and whose test rows hold ``test``."""
    write_table(
        tmp_path / "m.csv",
        {
            "sid": ["r1", "r2", "r3", "r4"],
            "blood": [train[0], "O", test[0], "B"],
            "subject": [train[1], "2.1", test[1], "3.1"],
            "split": ["train", "train", "test", "test"],
        },
    )
    return write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
            "keys": {"groups": ["blood", "subject"]},
            "report": {"formats": ["json"]},
        },
    )


def test_values_apart_by_an_end_symbol_or_a_fractions_last_zero_exit_0(tmp_path: Path) -> None:
    """`A+`/`A-` (blood types) and `1.1`/`1.10` (subject.session) are different values, not one value spelled
    two ways: no GRP005."""
    result = invoke("run", str(_blood_and_subjects(tmp_path, ["A+", "1.1"], ["A-", "1.10"])))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "audit-report" / "report.json").read_text())
    assert [f["code"] for s in report["stages"] for f in s["findings"] if f["severity"] != "info"] == []


@pytest.mark.parametrize(("train", "test"), [(["W1", "7"], ["w1 ", "7.0"]), (['"deep."', "1.10"], ["deep", "01.10"])])
def test_one_value_spelled_two_ways_across_train_and_test_is_grp005(
    tmp_path: Path, train: list[str], test: list[str]
) -> None:
    result = invoke("run", str(_blood_and_subjects(tmp_path, train, test)))
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "audit-report" / "report.json").read_text())
    found = [
        (f["code"], f["evidence"]["key"]) for s in report["stages"] for f in s["findings"] if f["code"] == "GRP005"
    ]
    assert found == [("GRP005", "blood"), ("GRP005", "subject")]


@pytest.mark.parametrize(
    ("config_text", "expected"),
    [
        ("manifest: {path: m.csv, split: split\n", "YAML syntax error"),
        ("manifest: {path: m.csv, split: split}\nkeys: {grups: [w]}\n", "did you mean 'groups'?"),
        ("manifest: {path: m.csv, split: split}\nreport: {fail_on: 3}\n", "report.fail_on"),
        ("manifest: {path: gone.csv, split: split}\n", "working directory"),
        ("manifest: {path: m.csv, split: split}\nkeys: {groups: [writr]}\n", "available columns: w, split"),
        (
            "manifest: {path: m.csv, split: split}\nstages: {group_overlap: {max_exampels: 2}}\n",
            "did you mean 'max_examples'?",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message_and_writes_nothing(tmp_path: Path, config_text: str, expected: str) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    (tmp_path / "audit.yaml").write_text(config_text)
    result = invoke("run", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 2
    assert "error:" in result.output and expected in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "audit-report").exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\nw,split\na,train\n", "m.csv:1: blank line before the header"),
        (b"w,split\ra,train\r", "m.csv:1:8: the file ends its lines with a carriage return alone"),
        ("w,split\na,train\n".encode("utf-16-le"), "m.csv:1:2: the header holds NUL bytes"),
    ],
)
def test_unreadable_csv_exits_2_naming_the_line(tmp_path: Path, content: bytes, expected: str) -> None:
    (tmp_path / "m.csv").write_bytes(content)
    (tmp_path / "audit.yaml").write_text("manifest: {path: m.csv, split: split}\nkeys: {groups: [w]}\n")
    result = invoke("run", str(tmp_path / "audit.yaml"))
    assert result.exit_code == 2 and expected in " ".join(result.output.split())
    assert "Traceback" not in result.output and not (tmp_path / "audit-report").exists()


def test_missing_config_exits_2(tmp_path: Path) -> None:
    result = invoke("run", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2 and "not found" in result.output


def test_run_on_a_manifest_suggests_init_and_touches_nothing(tmp_path: Path) -> None:
    write_table(tmp_path / "train.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    before = sorted(p.name for p in tmp_path.iterdir())
    result = invoke("run", str(tmp_path / "train.csv"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"audit init {tmp_path / 'train.csv'}" in result.output and "mapping of sections" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_unwritable_out_dir_exits_2_before_auditing(sample: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = invoke("run", str(sample), "--out", str(blocker / "reports"))
    assert result.exit_code == 2 and "cannot write the report directory" in result.output
    assert blocker.read_text() == "not a directory"


@pytest.mark.parametrize("command", [["run", "audit.yaml"], ["code", "train.py"]])
def test_an_empty_out_argument_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """--out '' (an unset variable) would write the reports into the working directory."""
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    (tmp_path / "audit.yaml").write_text("manifest: {path: m.csv, split: split}\n")
    (tmp_path / "train.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = invoke(*command, "--out", "")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value for '--out': an empty path" in " ".join(result.output.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_unknown_format_and_fail_on(sample: Path) -> None:
    assert "unknown report format" in invoke("run", str(sample), "--format", "pdf").output
    result = invoke("run", str(sample), "--fail-on", "sometimes")
    assert result.exit_code == 2 and "--fail-on" in result.output


def test_unknown_only_stage(sample: Path) -> None:
    result = invoke("run", str(sample), "--only", "group_overlp")
    assert result.exit_code == 2 and "did you mean 'group_overlap'" in result.output


def test_validate_checks_columns_without_running(sample: Path, tmp_path: Path) -> None:
    result = invoke("validate", str(sample))
    assert result.exit_code == 0 and "valid" in result.output and "group_overlap" in result.output
    assert not (sample.parent / "audit-report").exists()
    bad = sample.parent / "bad.yaml"
    bad.write_text(sample.read_text().replace("groups: [writer]", "groups: [author]"))
    result = invoke("validate", str(bad))
    assert result.exit_code == 2 and "no column 'author'" in result.output


def test_stages_lists_every_stage_and_whether_it_applies(sample: Path) -> None:
    result = runner.invoke(app, ["stages", str(sample)], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "group_overlap" in result.output and "runs" in result.output
    assert "test_exposure" in result.output and "fitted" in result.output  # skipped here, with its reason
    bare = runner.invoke(app, ["stages"], env={"COLUMNS": "250"}).output
    assert "keys.groups" in bare and "test_exposure" in bare


def _blocks(text: str) -> dict[str, dict[str, str]]:
    """`audit stages` as a file reads it: per stage, each field's wrapped lines joined again."""
    found: dict[str, dict[str, str]] = {}
    for block in text.strip().split("\n\n"):
        name, *lines = block.splitlines()
        fields: dict[str, str] = {}
        for line in lines:
            head, text_ = line[:19].strip(), line[19:]
            if head:
                fields[head] = text_
            else:
                fields[list(fields)[-1]] += " " + text_
        found[name] = fields
    return found


@pytest.mark.parametrize(("columns", "width"), [(None, 80), ("60", 60)])
def test_stages_piped_to_a_file_wrap_at_the_width_words_whole(columns: str | None, width: int) -> None:
    """A pipe gets each stage as a block wrapped at COLUMNS (80 without it): the table, padded to its longest
    cell, made every line of a file 300 to 470 characters long."""
    from auditor.pipeline.registry import discover, load_stages

    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | ({"COLUMNS": columns} if columns else {})
    done = subprocess.run(
        [sys.executable, "-m", "auditor.cli", "stages", str(SAMPLE / "audit.yaml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert max(len(line) for line in done.stdout.splitlines()) <= width and "…" not in done.stdout
    blocks = _blocks(done.stdout)
    stages = load_stages(discover())
    assert list(blocks) == [cls.name for cls in stages]
    for cls in stages:
        fields = blocks[cls.name]
        assert fields["checks"] == cls.summary and fields["needs"] == (", ".join(cls.needs) or "nothing")
    assert blocks["group_overlap"]["for this config"] == "runs"
    assert blocks["temporal_order"]["for this config"] == "skipped: no time column: set `keys.time`"


def test_stages_text_never_splits_a_word_or_a_path() -> None:
    from auditor.cli.review import stages_text

    path = "/data/" + "a-rather-long-folder-name/" * 4 + "ledger.jsonl"
    text = stages_text(["checks", "for this config"], [["s", "a b " * 30, f"skipped: cannot read {path} here"]], 80)
    assert f"\n{' ' * 19}{path}\n" in text  # longer than the line: alone on its own, whole
    assert [len(line) <= 80 for line in text.splitlines()].count(False) == 1


def test_output_that_is_not_a_terminal_is_never_wrapped_or_cut(tmp_path: Path) -> None:
    # A folder name long enough that the manifest line cannot fit any width a log would be given.
    deep = tmp_path / ("a-rather-long-folder-name-" * 6) / "video_frames"
    shutil.copytree(REPO / "sample_data" / "video_frames", deep, ignore=shutil.ignore_patterns("audit-report"))
    narrow = {"COLUMNS": "60"}  # a pipe or a log keeps its lines whole, whatever COLUMNS says
    done = runner.invoke(app, ["run", str(deep / "audit.yaml"), "--format", "json"], env=narrow)
    report = json.loads((deep / "audit-report" / "report.json").read_text())
    (line,) = [line for line in done.output.splitlines() if line.startswith("manifest: ")]
    assert line.endswith(f"sha256 {report['manifest']['sha256'][:12]}") and str(deep / "manifest.csv") in line


def test_schema_writes_and_checks(tmp_path: Path) -> None:
    assert invoke("schema", "--out", str(tmp_path)).exit_code == 0
    assert invoke("schema", "--out", str(tmp_path), "--check").exit_code == 0
    (tmp_path / "report.schema.json").write_text("{}")
    assert invoke("schema", "--out", str(tmp_path), "--check").exit_code == 1


def test_console_script_entry_point(sample: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditor.cli", "run", str(sample), "--format", "json", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""


def test_verbose_shows_info_findings_and_skip_reasons(sample: Path) -> None:
    quiet = runner.invoke(app, ["run", str(sample), "--format", "json"], env={"COLUMNS": "200"}).output
    loud = runner.invoke(app, ["run", str(sample), "--format", "json", "-v"], env={"COLUMNS": "200"}).output
    assert "SPL000" not in quiet and "SPL000" in loud
    assert "no `fitted` entries" in loud and "no `fitted` entries" not in quiet  # a skip reason


def test_reports_are_readable_by_others_and_stale_ones_go(sample: Path) -> None:
    import os
    import stat

    out = sample.parent / "audit-report"
    old = os.umask(0o022)
    try:
        invoke("run", str(sample))
        assert stat.S_IMODE((out / "report.json").stat().st_mode) == 0o644
        invoke("run", str(sample), "--format", "json")
        assert sorted(p.name for p in out.iterdir()) == ["report.json"]
        (sample.parent / "manifest.csv").write_text("")
        assert invoke("run", str(sample)).exit_code == 2
        assert list(out.iterdir()) == []  # an audit that could not run leaves no old report behind
    finally:
        os.umask(old)


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.startswith("split-auditor ")


def test_numeric_only_config_with_a_missing_module_names_it(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path, {"numeric": {"model": "m:a", "batch": "m:b", "loss": "m:c"}, "report": {"formats": []}}
    )
    result = runner.invoke(app, ["run", str(cfg)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "no module named 'm'" in result.output
    assert "audit.yaml:" in result.output  # where the reference is written


@pytest.fixture
def clinic(tmp_path: Path) -> Path:
    target = tmp_path / "clinic"
    shutil.copytree(REPO / "sample_data" / "clinic", target, ignore=shutil.ignore_patterns("audit-report"))
    return target / "audit.yaml"


def test_clinic_sample_finds_the_scaler_fitted_on_all_rows(clinic: Path) -> None:
    result = runner.invoke(app, ["run", str(clinic), "--only", "fitted_statistics", "-v"], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert "FIT001" in result.output and "'feature_scaler'" in result.output and "all rows" in result.output
    report = json.loads((clinic.parent / "audit-report" / "report.json").read_text())
    found = sorted((f["code"], f["key"]) for s in report["stages"] for f in s["findings"])
    assert found == [
        ("FIT000", "missing_values"),
        ("FIT000", "note_vocabulary"),
        ("FIT000", "smoker_onehot"),
        ("FIT001", "feature_scaler"),
    ]


def test_validate_reads_artifacts(clinic: Path) -> None:
    assert invoke("validate", str(clinic)).exit_code == 0
    (clinic.parent / "artifacts" / "vocab.txt").unlink()
    pickled = clinic.read_text().replace("artifacts/scaler.json", "artifacts/scaler.pkl")
    clinic.write_text(pickled)
    (clinic.parent / "artifacts" / "scaler.pkl").write_bytes(b"\x80\x04.")
    result = invoke("validate", str(clinic))
    assert result.exit_code == 2
    assert "scaler.pkl" in result.output and "is a pickle" in result.output
    assert "vocab.txt" in result.output and "not found" in result.output
    assert not (clinic.parent / "audit-report").exists()


def test_lab_computes_the_four_faults() -> None:
    result = invoke("lab")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "broadcast error shape: (3, 3), wrong MSE=1.333333, right MSE=0.000000"
    assert lines[1] == "backward after .item() re-wrap fails: True; gradient with the graph kept = 4.0"
    assert lines[2] == "direct exp probabilities all finite: False; stable probabilities sum = 1.000000"
    assert lines[3] == "writers crossing splits: ['writer-a']"
    assert "not yet a model that generalizes" in result.output
    assert "broadcast BRD001, BRD003" in result.output and "detached_graph GRD001" in result.output


def test_quiet_still_says_why_the_audit_could_not_run(clinic: Path) -> None:
    (clinic.parent / "artifacts" / "scaler.json").write_text("{broken", encoding="utf-8")
    result = runner.invoke(app, ["run", str(clinic), "-q"])
    assert result.exit_code == 2
    assert "fitted_statistics:" in result.output and "scaler.json:1:2" in result.output


def test_validate_checks_claimed_splits_against_the_declared_ones(clinic: Path) -> None:
    clinic.write_text(
        clinic.read_text().replace("fitted_on: [train]\n  - name: missing", "fitted_on: [training]\n  - name: missing")
    )
    result = runner.invoke(app, ["validate", str(clinic)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "claims split(s) training, which `splits` does not declare" in result.output


def test_validate_imports_the_numeric_code(tmp_path: Path) -> None:
    sample = tmp_path / "regression"
    shutil.copytree(REPO / "sample_data" / "numeric" / "regression" / "fixed", sample)
    assert invoke("validate", str(sample / "audit.yaml")).exit_code == 0
    config = sample / "audit.yaml"
    config.write_text(config.read_text().replace("housing:build_model", "housing:buld_model"))
    result = runner.invoke(app, ["validate", str(config)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "has no attribute 'buld_model'; did you mean 'build_model'?" in result.output


def test_bad_options_still_clear_old_reports(sample: Path) -> None:
    assert invoke("run", str(sample)).exit_code == 1
    out = sample.parent / "audit-report"
    assert (out / "report.json").exists()
    assert invoke("run", str(sample), "--format", "jsn").exit_code == 2
    assert not (out / "report.json").exists()
    assert invoke("run", str(sample)).exit_code == 1
    assert invoke("run", str(sample), "--fail-on", "warn").exit_code == 2
    assert not (out / "report.json").exists()


def test_quiet_says_why_nothing_ran(tmp_path: Path) -> None:
    sample = tmp_path / "regression"
    shutil.copytree(REPO / "sample_data" / "numeric" / "regression" / "fixed", sample)
    result = runner.invoke(app, ["run", str(sample / "audit.yaml"), "--only", "fitted_statistics", "-q"])
    assert result.exit_code == 2
    assert "fitted_statistics: skipped, the config has no `manifest`" in result.output


# --- a run never leaves an earlier verdict looking current ---------------------------------------------------


REPORT_FILES = ["report.html", "report.json", "report.md"]


def clean_config(directory: Path, name: str = "audit.yaml") -> Path:
    """A small manifest whose audit passes (exit 0) and writes json, markdown and html."""
    write_table(directory / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    return write_config(directory, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}}, name)


@pytest.fixture(scope="session")
def slow_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run that is still hashing a 1 TiB file (sparse: no disk used) whenever it is signalled: mid-run whatever
    the machine's load (a large manifest could be audited before the signal on a fast machine)."""
    directory = tmp_path_factory.mktemp("slow")
    with (directory / "big.bin").open("wb") as fh:
        fh.truncate(1 << 40)
    (directory / "small.bin").write_bytes(b"x")
    write_table(directory / "m.csv", {"id": [1, 2], "split": ["train", "test"], "file": ["big.bin", "small.bin"]})
    return write_config(
        directory,
        {
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "keys": {"content_path": "file"},
            "stages": {"duplicate_content": {"cache_dir": "none"}},
        },
    )


def start_slow_run(config: Path, out: Path) -> subprocess.Popen[str]:
    """Start `audit run` in a real process; return once its `running` marker has replaced the old reports."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor.cli", "run", str(config), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test run in the background inherits an ignored SIGINT; an interactive `audit run` does not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            running = json.loads((out / "report.json").read_text()).get("status") == "running"
            if running and sorted(p.name for p in out.iterdir()) == ["report.json"]:
                return proc
        time.sleep(0.02)
    proc.kill()
    raise AssertionError(f"no running marker appeared: {proc.communicate()}")


@pytest.fixture
def passed_before(tmp_path: Path) -> Path:
    """A report directory holding the json, markdown and html reports of a run that passed."""
    out = tmp_path / "reports"
    assert invoke("run", str(clean_config(tmp_path / "clean")), "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == REPORT_FILES
    return out


def test_a_killed_run_leaves_a_running_marker_not_the_last_verdict(slow_config: Path, passed_before: Path) -> None:
    proc = start_slow_run(slow_config, passed_before)
    proc.kill()
    proc.communicate()
    assert sorted(p.name for p in passed_before.iterdir()) == ["report.json"]  # no old report.md or .html
    data = json.loads((passed_before / "report.json").read_text())
    assert data["status"] == "running" and "exit_code" not in data
    assert data["pid"] == proc.pid and data["config_sha256"] == hashlib.sha256(slow_config.read_bytes()).hexdigest()
    state = read_report_state(passed_before / "report.json")
    assert not state.is_verdict and state.writer_alive is False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_exit_2_and_leave_an_interrupted_marker(
    slow_config: Path, passed_before: Path, sig: signal.Signals
) -> None:
    proc = start_slow_run(slow_config, passed_before)
    time.sleep(0.2)
    proc.send_signal(sig)
    try:
        _, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # never left behind hashing its 1 TiB file
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == 2, stderr
    assert f"interrupted by {sig.name}" in stderr and "Traceback" not in stderr
    assert sorted(p.name for p in passed_before.iterdir()) == ["report.json"]  # no temp file either
    data = json.loads((passed_before / "report.json").read_text())
    assert data["status"] == "interrupted" and data["signal"] == sig.name and "exit_code" not in data


def test_an_interrupt_does_not_wait_for_a_file_being_hashed(slow_config: Path, tmp_path: Path) -> None:
    """The 1 TiB file takes far longer to hash than the run is given to end after SIGTERM (about 17 GB/s would be
    needed): the run ending at all shows it did not wait for the hash."""
    config = slow_config
    out = tmp_path / "out"
    proc = start_slow_run(config, out)
    time.sleep(1.0)  # well into the hash of the big file
    proc.send_signal(signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the run waited for the hash to finish") from None
    assert proc.returncode == 2 and "interrupted by SIGTERM" in stderr, stderr
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


def test_a_completed_run_says_so_and_carries_its_input_digests(tmp_path: Path) -> None:
    config = clean_config(tmp_path)
    assert invoke("run", str(config)).exit_code == 0
    out = tmp_path / "audit-report"
    assert sorted(p.name for p in out.iterdir()) == REPORT_FILES  # no temp file, no marker
    data = json.loads((out / "report.json").read_text())
    assert data["status"] == "completed" and data["exit_code"] == 0
    assert data["config_sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()
    assert data["manifest"]["sha256"] and len(data["manifest"]["sha256"]) == 64
    assert read_report_state(out / "report.json").is_verdict


def test_the_next_run_removes_a_temp_file_left_by_a_dead_writer(tmp_path: Path) -> None:
    config = clean_config(tmp_path)
    out = tmp_path / "audit-report"
    out.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
    stale = out / f".report.json.{int(gone.stdout)}-{host}.q8w7e6.tmp"
    stale.write_text('{"exit_code": 0')
    assert invoke("run", str(config)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == REPORT_FILES


def test_warns_when_replacing_a_report_made_from_another_config(tmp_path: Path) -> None:
    first, second = clean_config(tmp_path, "first.yaml"), clean_config(tmp_path, "second.yaml")
    out = tmp_path / "shared"
    assert invoke("run", str(first), "--out", str(out)).stderr == ""
    assert invoke("run", str(first), "--out", str(out)).stderr == ""  # the same inputs: nothing to say
    result = invoke("run", str(second), "--out", str(out))
    assert result.exit_code == 0
    assert f"warning: {out / 'report.json'} was made from another config ({first})" in result.stderr
    second.write_text(second.read_text() + "# edited\n")
    assert "was made from another version of" in invoke("run", str(second), "--out", str(out)).stderr


def test_a_failed_run_removes_its_marker_and_the_directory_it_created(tmp_path: Path) -> None:
    config = clean_config(tmp_path)
    config.write_text(config.read_text().replace("groups:\n  - w", "groups:\n  - writer"))
    result = invoke("run", str(config), "--out", str(tmp_path / "new" / "reports"))
    assert result.exit_code == 2 and "writer" in result.output
    assert not (tmp_path / "new").exists()


# --- bad command lines: one clear line, exit 2 ------------------------------------------------------------


def test_a_reader_that_leaves_early_does_not_change_the_exit_code(sample: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the summary is printed, as with `| head -1`
    try:
        done = forked.run(
            [sys.executable, "-m", "auditor.cli", "run", str(sample), "-v", "--fail-on", "never"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert "BrokenPipe" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("option", "value"), [("--only", ""), ("--only", " , "), ("--format", "")])
def test_an_empty_list_option_is_refused(sample: Path, option: str, value: str) -> None:
    result = invoke("run", str(sample), option, value)
    assert result.exit_code == 2
    assert f"error: {option} {value!r}: expected one or more names" in result.output


def test_a_bad_out_path_is_one_clear_line(sample: Path) -> None:
    result = invoke("run", str(sample), "--out", "x" * 300)
    assert result.exit_code == 2, result.output
    assert "error: --out " in result.output and "Traceback" not in result.output
    assert "a name in the path is longer than the file system allows (usually 255 bytes)" in result.output
    result = invoke("run", str(sample), "--out", "reports\0x")
    assert result.exit_code == 2 and "'--out'" in result.output and "null byte" in result.output
    assert "Traceback" not in result.output


def test_a_nul_byte_in_report_out_dir_is_one_clear_line(sample: Path) -> None:
    sample.write_text(sample.read_text().replace("out_dir: audit-report", 'out_dir: "audit\\0report"'))
    result = invoke("run", str(sample))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{sample}:" in result.output and "report.out_dir 'audit\\x00report': a path cannot contain a NUL byte" in (
        result.output
    )


def test_a_bad_config_path_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    loop = invoke("run", str(tmp_path / "a.yaml"))
    assert loop.exit_code == 2 and "a loop of symbolic links" in loop.output and "Traceback" not in loop.output
    nul = invoke("run", str(tmp_path / "audit\0.yaml"))
    assert nul.exit_code == 2 and "'config'" in nul.output and "null byte" in nul.output
    assert "Traceback" not in nul.output


# -- audit diff and run --baseline ---------------------------------------------------------------------


def _run_json(config: Path, out: Path, *extra: str) -> Path:
    result = invoke("run", str(config), "--out", str(out), "--format", "json,markdown", "-q", *extra)
    assert result.exit_code in (0, 1), result.output
    return out / "report.json"


@pytest.fixture(scope="module")
def numeric_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """report.json of `audit run` on the buggy and the fixed regression sample: each numeric audit starts an
    interpreter that imports torch, so the diff tests, which only read these files, share one run of each."""
    out = tmp_path_factory.mktemp("numeric-reports")
    samples = REPO / "sample_data" / "numeric" / "regression"
    return {name: _run_json(samples / name / "audit.yaml", out / name) for name in ("buggy", "fixed")}


def test_diff_of_the_buggy_and_fixed_numeric_samples_shows_the_resolved_findings(
    tmp_path: Path, numeric_reports: dict[str, Path]
) -> None:
    buggy, fixed = numeric_reports["buggy"], numeric_reports["fixed"]
    result = invoke("diff", str(buggy), str(fixed), "--out", str(tmp_path / "diff"))
    assert result.exit_code == 0, result.output
    resolved = result.output.split("Resolved:")[1].split("Persisting:")[0]
    for code in ("BAT002", "BRD001", "BRD003", "GRD004", "NAN001"):
        assert code in resolved
    assert "not_optimized 2 → 0" in result.output
    # No manifest: the configs say what was audited, here one text in two folders.
    assert "note: the reports audit no manifest (numeric checks only); the same config (sha256 " in result.output
    assert "at another place: buggy/audit.yaml and fixed/audit.yaml" in result.output
    assert sorted(p.name for p in (tmp_path / "diff").iterdir()) == ["diff.html", "diff.json", "diff.md"]
    back = invoke("diff", str(fixed), str(buggy), "--format", "json", "--out", str(tmp_path / "back"))
    assert back.exit_code == 1 and "(fails)" in back.output
    assert len(json.loads((tmp_path / "back" / "diff.json").read_text())["new_findings"]) == 5


def test_diff_fail_on_defaults_to_the_new_report_and_can_be_set(sample: Path, tmp_path: Path) -> None:
    old = _run_json(sample, tmp_path / "old", "--only", "split_integrity")
    new = _run_json(sample, tmp_path / "new")
    assert invoke("diff", str(old), str(new)).exit_code == 1  # GRP001 is new, an error
    assert invoke("diff", str(old), str(new), "--fail-on", "never").exit_code == 0
    assert invoke("diff", str(new), str(new)).exit_code == 0
    bad = invoke("diff", str(old), str(new), "--fail-on", "sometimes")
    assert bad.exit_code == 2 and "--fail-on 'sometimes'" in bad.output
    fmt = invoke("diff", str(old), str(new), "--format", "pdf", "--out", str(tmp_path / "d"))
    assert fmt.exit_code == 2 and "unknown diff format(s) ['pdf']" in fmt.output
    assert invoke("diff", str(old), str(new), "--format", "json").exit_code == 2  # no --out: nowhere to write


def test_a_diff_writing_fewer_formats_removes_the_older_files(sample: Path, tmp_path: Path) -> None:
    old = _run_json(sample, tmp_path / "old", "--only", "split_integrity")
    new = _run_json(sample, tmp_path / "new")
    out = tmp_path / "d"
    assert invoke("diff", str(old), str(new), "--out", str(out)).exit_code == 1
    assert sorted(p.name for p in out.iterdir()) == ["diff.html", "diff.json", "diff.md"]
    assert invoke("diff", str(new), str(new), "--format", "json", "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["diff.json"]


def test_diff_refuses_what_it_cannot_compare(sample: Path, tmp_path: Path, numeric_reports: dict[str, Path]) -> None:
    new = _run_json(sample, tmp_path / "new")
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    result = invoke("diff", str(tmp_path / "notes.json"), str(new))
    assert result.exit_code == 2 and "notes.json: not an audit report" in result.output
    marker_dir = tmp_path / "running"
    marker_dir.mkdir()
    (marker_dir / "report.json").write_text(
        json.dumps({"status": "interrupted", "pid": 1, "hostname": "h", "started_at": "t", "signal": "SIGTERM"})
    )
    result = invoke("diff", str(marker_dir / "report.json"), str(new))
    assert result.exit_code == 2 and "was interrupted by SIGTERM; it has no verdict" in result.output
    other = json.loads(new.read_text()) | {"schema_version": "9"}
    (tmp_path / "v9.json").write_text(json.dumps(other))
    result = invoke("diff", str(tmp_path / "v9.json"), str(new))
    assert result.exit_code == 2 and "different schema versions" in result.output
    numeric = numeric_reports["fixed"]
    result = invoke("diff", str(numeric), str(new))
    assert result.exit_code == 2 and "different manifests" in result.output and "--force" in result.output
    forced = invoke("diff", str(numeric), str(new), "--force")
    assert forced.exit_code == 1 and "compared anyway" in forced.output


def test_diff_and_baseline_know_a_manifest_by_its_content_not_its_path(sample: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved" / "writers"  # the same files under another folder and another manifest name
    shutil.copytree(sample.parent, moved, ignore=shutil.ignore_patterns("audit-report"))
    (moved / "manifest.csv").rename(moved / "writers.csv")
    config = moved / "audit.yaml"
    config.write_text(sample.read_text().replace("manifest.csv", "writers.csv"))
    old, new = _run_json(sample, tmp_path / "old"), _run_json(config, tmp_path / "new")
    result = invoke("diff", str(old), str(new))
    assert result.exit_code == 0, result.output
    assert "note: the same manifest (sha256 " in result.output and "writers/writers.csv" in result.output
    again = invoke("run", str(config), "--out", str(tmp_path / "again"), "--baseline", str(old), "--new-only", "-q")
    assert again.exit_code == 0, again.output
    assert f"--baseline {old}: the same manifest (sha256 " in again.output
    with (moved / "writers.csv").open("a") as edited:  # the same place, edited: compared, and said so
        edited.write((moved / "writers.csv").read_text().splitlines()[-1].replace(",", "x,", 1) + "\n")
    changed = invoke("run", str(config), "--out", str(tmp_path / "again"), "--baseline", str(new), "-q")
    assert changed.exit_code == 1 and f"--baseline {new}: the manifest changed: sha256 " in changed.output

    # Another dataset whose manifest is also manifest.csv beside its audit.yaml: not comparable.
    other = tmp_path / "video_frames"
    shutil.copytree(REPO / "sample_data" / "video_frames", other, ignore=shutil.ignore_patterns("audit-report"))
    unrelated = _run_json(other / "audit.yaml", tmp_path / "unrelated")
    refused = invoke("diff", str(old), str(unrelated))
    assert refused.exit_code == 2 and "different manifests: handwriting/manifest.csv (sha256 " in refused.output
    assert "--force" in refused.output
    base = invoke("run", str(other / "audit.yaml"), "--out", str(tmp_path / "b"), "--baseline", str(old), "-q")
    assert base.exit_code == 2 and "a baseline must audit the same manifest" in base.output


def test_run_with_a_baseline_marks_findings_and_new_only_counts_only_new_ones(sample: Path, tmp_path: Path) -> None:
    approved = _run_json(sample, tmp_path / "approved")
    result = invoke("run", str(sample), "--out", str(tmp_path / "again"), "--baseline", str(approved))
    assert result.exit_code == 1 and "[persisting] GRP001" in result.output
    result = invoke("run", str(sample), "--out", str(tmp_path / "again"), "--baseline", str(approved), "--new-only")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "again" / "report.json").read_text())
    assert data["baseline"]["new_only"] is True and data["exit_code"] == 0
    assert {f["baseline"] for s in data["stages"] for f in s["findings"]} == {"persisting"}
    older = _run_json(sample, tmp_path / "older", "--only", "split_integrity")
    result = invoke("run", str(sample), "--out", str(tmp_path / "third"), "--baseline", str(older), "--new-only")
    assert result.exit_code == 1 and "[new] GRP001" in result.output


def test_new_only_fails_a_finding_the_baseline_accepted_and_this_config_no_longer_does(
    sample: Path, tmp_path: Path
) -> None:
    """The approved run accepted the shared writer; the `accept:` entry is gone now: --new-only fails, as diff does."""
    accepting = sample  # a copy
    plain = accepting.read_text()
    entry = '{code: GRP001, values: [writer-a], column: writer, reason: "calibration"}'
    accepting.write_text(f"{plain}\naccept:\n  - {entry}\n")
    approved = _run_json(accepting, tmp_path / "approved")
    assert json.loads(approved.read_text())["exit_code"] == 0
    again = invoke("run", str(accepting), "--out", str(tmp_path / "same"), "--baseline", str(approved), "--new-only")
    assert again.exit_code == 0, again.output  # still accepted: persisting
    accepting.write_text(plain)
    result = invoke("run", str(accepting), "--out", str(tmp_path / "now"), "--baseline", str(approved), "--new-only")
    # Why it is escalated, in the terminal, report.md and report.json alike.
    why = "no longer accepted (was: calibration)"
    assert result.exit_code == 1 and f"[escalated: {why}] GRP001" in result.output, result.output
    assert f"[escalated: {why}] error GRP001" in (tmp_path / "now" / "report.md").read_text()
    found = json.loads((tmp_path / "now" / "report.json").read_text())["stages"]
    assert [(f["baseline"], f["baseline_reason"]) for s in found for f in s["findings"] if f["code"] == "GRP001"] == [
        ("escalated", why)
    ]
    assert invoke("diff", str(approved), str(tmp_path / "now" / "report.json")).exit_code == 1


def test_a_run_that_could_not_audit_is_no_baseline(sample: Path, tmp_path: Path) -> None:
    approved = _run_json(sample, tmp_path / "approved")
    data = json.loads(approved.read_text())
    data["exit_code"] = 2  # as a run with a stage that errored writes it: some checks never ran
    approved.write_text(json.dumps(data))
    result = invoke("run", str(sample), "--out", str(tmp_path / "now"), "--baseline", str(approved), "--new-only")
    assert result.exit_code == 2 and "that run could not audit (exit 2)" in result.output
    assert not (tmp_path / "now").exists()


def test_run_refuses_a_bad_baseline_before_auditing(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("run", str(sample), "--out", str(out), "--baseline", str(tmp_path / "missing.json"))
    assert result.exit_code == 2 and "missing.json does not exist" in result.output
    assert not out.exists()
    result = invoke("run", str(sample), "--out", str(out), "--new-only")
    assert result.exit_code == 2 and "--new-only needs --baseline" in result.output


@pytest.mark.parametrize(
    "broken",
    [
        "version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\nkeys: {groups: [writer]\n",
        "version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\nreport: {fail_on: warn}\n",
        "version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\nreport: {formats: [jsn]}\n",
    ],
    ids=["yaml-error", "bad-fail-on", "bad-format"],
)
def test_a_config_that_no_longer_loads_removes_its_earlier_verdict(sample: Path, broken: str) -> None:
    sample.write_text("version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\n")
    assert invoke("run", str(sample)).exit_code == 0
    reports = sample.parent / "audit-report"
    assert (reports / "report.json").exists()
    sample.write_text(broken)
    assert invoke("run", str(sample)).exit_code == 2
    assert not any(reports.glob("report.*")), "the earlier pass still stands beside a config that fails"


def test_a_broken_config_never_removes_another_configs_reports(sample: Path, tmp_path: Path) -> None:
    other = sample.parent / "other.yaml"
    other.write_text("version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\n")
    assert invoke("run", str(other)).exit_code == 0
    sample.write_text("version: 1\nmanifest: [\n")
    assert invoke("run", str(sample)).exit_code == 2
    assert (sample.parent / "audit-report" / "report.json").exists()


def test_an_interrupt_before_the_run_starts_is_exit_2_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    # The module, not the typer application that `auditor.cli.app` names.
    cli_app = importlib.import_module("auditor.cli.app")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_app, "app", interrupted)
    with pytest.raises(SystemExit) as exited:
        cli_app.main()
    assert exited.value.code == 2
    assert "interrupted before the audit started" in capsys.readouterr().err


def test_a_start_up_signal_whose_raise_was_lost_still_ends_the_run_with_exit_2(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handler's raise can be lost inside compile() (a module imported from source, PYTHONDONTWRITEBYTECODE):
    the run must not then go on and leave a completed verdict; the earlier one is removed too."""
    from auditor.cli import run as run_module
    from auditor.cli.signals import StartupInterrupted

    cli_app = importlib.import_module("auditor.cli.app")
    assert invoke("run", str(sample), "-q").exit_code == 1
    real_make_uploader = run_module.make_uploader

    def signalled_then_run(*args: object) -> object:  # called just before the run's own handling begins
        with contextlib.suppress(StartupInterrupted):  # what compile() does to the raise
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
        return real_make_uploader(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "make_uploader", signalled_then_run)
    monkeypatch.setattr(sys, "argv", ["audit", "run", str(sample), "-q"])
    with pytest.raises(SystemExit) as exited:
        cli_app.main()
    assert exited.value.code == 2
    assert not read_report_state(sample.parent / "audit-report" / "report.json").is_verdict


def test_a_signal_whose_raise_was_lost_during_the_run_leaves_an_interrupted_marker(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's handler noted the signal; its Interrupted lost on the way, the verdict is still not written."""
    from auditor.cli import run as run_module
    from tests.cli.lostsignal import signal_lost_after_the_audit

    assert invoke("run", str(sample), "-q").exit_code == 1
    signal_lost_after_the_audit(monkeypatch, run_module)
    assert invoke("run", str(sample), "-q").exit_code == 2
    state = read_report_state(sample.parent / "audit-report" / "report.json")
    assert state.status == RunStatus.INTERRUPTED


def test_a_signal_whose_raise_was_lost_early_is_sent_again_and_ends_the_run(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM whose Interrupted is lost at the start of a long run: the run went on to its end (a 10M-row audit,
    minutes), and a second Ctrl-C was ignored. The signal is sent again until the run takes it."""
    import contextlib
    import os
    import signal
    import time

    from auditor.cli import run as run_module
    from auditor.cli.signals import Interrupted
    from auditor.pipeline import runner as pipeline_runner

    worked: list[float] = []

    def lost_then_long(*args: object, **kwargs: object) -> object:
        with contextlib.suppress(Interrupted):  # what compile() does to the raise
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
        start = time.monotonic()
        while time.monotonic() - start < 20:  # a long audit, a step at a time
            time.sleep(0.01)
            worked.append(time.monotonic() - start)
        raise AssertionError("the run was not stopped")

    def exit_raising(code: int) -> None:  # os._exit would end the test process
        raise SystemExit(code)

    monkeypatch.setattr(pipeline_runner, "run_audit", lost_then_long)
    monkeypatch.setattr(run_module, "exit_now", exit_raising)
    assert invoke("run", str(sample), "-q").exit_code == 2
    assert worked and worked[-1] < 5  # sent again after about a second
    state = read_report_state(sample.parent / "audit-report" / "report.json")
    assert state.status == RunStatus.INTERRUPTED


def test_a_signal_on_its_way_through_a_slow_clean_up_is_not_sent_again(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Interrupted of a signal is on its way up through a clean-up that takes seconds (a child process being
    stopped): it is not lost, so the signal is not sent again to cut that clean-up short."""
    import os
    import signal
    import time

    from auditor.cli import run as run_module
    from auditor.pipeline import runner as pipeline_runner

    cleaned: list[bool] = []

    def signalled_then_slow_clean_up(*args: object, **kwargs: object) -> object:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
            raise AssertionError("the signal did not interrupt the run")
        finally:
            time.sleep(2.5)  # longer than the signal's redelivery
            cleaned.append(True)

    def exit_raising(code: int) -> None:  # os._exit would end the test process
        raise SystemExit(code)

    monkeypatch.setattr(pipeline_runner, "run_audit", signalled_then_slow_clean_up)
    monkeypatch.setattr(run_module, "exit_now", exit_raising)
    assert invoke("run", str(sample), "-q").exit_code == 2
    assert cleaned == [True]


# Moments of start-up, each the import just finished (`-X importtime` prints one line per module): typer
# while the command modules are still importing, the `run` command's module, the YAML parser half imported
# (its C extension cannot be imported again in that process), the config models and Arrow once `run` has begun.
STARTUP_MOMENTS = ["typer", "auditor.cli.run", "yaml.reader", "yaml.resolver", "auditor.core.config", "pyarrow"]


def test_a_run_finds_and_loads_the_stages_once(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stages checked before the report directory is touched are the ones that run: found once, not again."""
    from auditor.pipeline import registry, runner

    found: list[int] = []

    def counted() -> object:
        found.append(1)
        return registry_discover()

    registry_discover = registry.discover
    monkeypatch.setattr(registry, "discover", counted)
    monkeypatch.setattr(runner, "discover", counted)
    assert invoke("run", str(sample), "-q").exit_code == 1
    assert len(found) == 1


# The real command, then the rich modules it loaded on its last line.
_RICH_LOADED = """
import sys
from auditor.cli import main
try:
    main()
finally:
    print(sorted(m for m in sys.modules if m.split(".")[0] == "rich"))
"""


def test_a_quiet_run_that_writes_only_files_never_loads_rich(sample: Path) -> None:
    """rich is for what a terminal shows: a quiet run that succeeds prints nothing, and rich's import alone
    adds some 0.03 s to every start."""
    script = _RICH_LOADED
    out = sample.parent / "audit-report"
    done = subprocess.run(
        [sys.executable, "-c", script, "run", str(sample), "--out", str(out), "-q"], capture_output=True, text=True
    )
    assert done.returncode == 1 and (out / "report.html").exists(), done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
    loud = subprocess.run(
        [sys.executable, "-c", script, "run", str(sample), "--out", str(out)], capture_output=True, text=True
    )
    assert "rich.console" in loud.stdout.strip().splitlines()[-1]  # the summary is rich's: the check can see it


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("moment", STARTUP_MOMENTS)
def test_a_signal_during_start_up_is_exit_2_in_one_line(sample: Path, sig: signal.Signals, moment: str) -> None:
    """Whenever it comes, the earlier run's verdict does not stay looking like this run's."""
    out = sample.parent / "audit-report"
    assert invoke("run", str(sample), "-q").exit_code == 1 and read_report_state(out / "report.json").is_verdict
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "auditor.cli", "run", str(sample), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background test ignores SIGINT
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.rsplit("|", 1)[-1].strip() == moment:
            proc.send_signal(sig)
            break
    _, rest = proc.communicate(timeout=60)
    stderr = "".join(seen) + rest
    assert proc.returncode == 2, stderr[-2000:]
    assert "Traceback" not in stderr
    assert f"interrupted by {sig.name} before the audit" in stderr
    assert not read_report_state(out / "report.json").is_verdict


def test_a_typo_in_a_stage_option_leaves_the_reports_of_another_config_in_place(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    base = {"version": 1, "manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}}
    good = write_config(tmp_path, {**base, "report": {"out_dir": "out"}}, "good.yaml")
    assert invoke("run", str(good)).exit_code == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    typo = {**base, "report": {"out_dir": "out"}, "stages": {"group_overlap": {"max_exampels": 3}}}
    result = invoke("run", str(write_config(tmp_path, typo, "typo.yaml")))
    assert result.exit_code == 2 and "max_exampels" in result.output
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_a_typo_in_a_stage_option_of_the_same_config_leaves_no_stale_verdict(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    base = {"version": 1, "manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}}
    config = write_config(tmp_path, {**base, "report": {"out_dir": "out"}})
    assert invoke("run", str(config)).exit_code == 0 and (tmp_path / "out" / "report.json").exists()
    write_config(tmp_path, {**base, "report": {"out_dir": "out"}, "stages": {"group_overlap": {"max_exampels": 3}}})
    assert invoke("run", str(config)).exit_code == 2
    assert not (tmp_path / "out" / "report.json").exists()  # the earlier pass must not look current


# The child runs the real command with a k-d tree whose query blocks in C (a mutex never unlocked, where no
# signal handler runs), as a query over millions of rows holds the main thread for minutes.
_STUCK_QUERY = """
import ctypes, os, pathlib
import scipy.spatial
libc = ctypes.CDLL(None)
mutex = ctypes.create_string_buffer(64)
libc.pthread_mutex_lock(mutex)
class Stuck(scipy.spatial.cKDTree):
    def query(self, *args, **kwargs):
        pathlib.Path(os.environ["STUCK_MARK"]).write_text("in the query")
        libc.pthread_mutex_lock(mutex)
scipy.spatial.cKDTree = Stuck
from auditor.cli import main
main()
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_the_feature_row_search_exits_2_without_waiting_for_it(
    tmp_path: Path, passed_before: Path, sig: signal.Signals
) -> None:
    """SIGTERM during near_duplicates waited for the neighbour search's call into C to return (227 s): the run
    ending at all, while the query can never return, shows it did not wait; it leaves no verdict behind."""
    import numpy as np

    rng = np.random.default_rng(0)
    n = 400
    write_table(
        tmp_path / "m.csv",
        {
            "sid": list(range(n)),
            "split": ["train", "train", "train", "test"] * (n // 4),
            "f0": rng.standard_normal(n).tolist(),
            "f1": rng.standard_normal(n).tolist(),
        },
    )
    stages = {"near_duplicates": {"row_exact_rows": 100}}  # past it, two features: the k-d tree
    manifest = {"path": "m.csv", "id": "sid", "split": "split"}
    config = write_config(
        tmp_path, {"version": 1, "manifest": manifest, "keys": {"features": "auto"}, "stages": stages}
    )
    mark = tmp_path / "in-query"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _STUCK_QUERY,
            "run",
            str(config),
            "--only",
            "near_duplicates",
            "-q",
            "--out",
            str(passed_before),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "STUCK_MARK": str(mark)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background test ignores SIGINT
    )
    guard = time.monotonic() + 120  # against a hang only
    while not mark.exists() and proc.poll() is None and time.monotonic() < guard:
        time.sleep(0.02)
    assert mark.exists(), proc.communicate(timeout=60)[1] if proc.poll() is not None else "never reached the query"
    proc.send_signal(sig)
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"{sig.name} waited for the neighbour search to return") from None
    assert proc.returncode == 2 and f"interrupted by {sig.name}" in stderr and "Traceback" not in stderr, stderr
    assert sorted(p.name for p in passed_before.iterdir()) == ["report.json"]  # the earlier pass is gone
    data = json.loads((passed_before / "report.json").read_text())
    assert data["status"] == "interrupted" and data["signal"] == sig.name and "exit_code" not in data
    assert not read_report_state(passed_before / "report.json").is_verdict


def test_sarif_uris_are_relative_to_the_working_directory_as_code_scanning_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config in a subfolder of the repository, audited from its root (as the GitHub Action does): the uris
    name the files from the root, where code scanning looks for them, not from the config's folder."""
    repo = tmp_path / "repo"
    (repo / "audits").mkdir(parents=True)
    write_table(repo / "audits" / "m.csv", {"w": ["a", "a"], "split": ["train", "test"]})
    write_config(repo / "audits", {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}})
    monkeypatch.chdir(repo)
    done = invoke("run", "audits/audit.yaml", "--out", str(tmp_path / "out"), "--format", "sarif")
    assert done.exit_code == 1, done.output
    run = json.loads((tmp_path / "out" / "report.sarif").read_text())["runs"][0]
    (leak,) = [r for r in run["results"] if r["ruleId"] == "GRP001"]
    location = leak["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "audits/m.csv", "uriBaseId": "SRCROOT"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.as_uri() + "/"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the files are not under the working directory: absolute uris
    assert (
        invoke("run", str(repo / "audits/audit.yaml"), "--out", str(tmp_path / "out"), "--format", "sarif").exit_code
        == 1
    )
    run = json.loads((tmp_path / "out" / "report.sarif").read_text())["runs"][0]
    (leak,) = [r for r in run["results"] if r["ruleId"] == "GRP001"]
    assert leak["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": (repo / "audits/m.csv").as_uri()}


def test_sarif_uris_are_relative_to_the_git_work_tree_when_run_from_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from `audits/` of a checkout, the uris still name the files from the repository's root (the git work
    tree), where code scanning looks for them; outside any work tree the working directory stays the root."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "audits").mkdir()
    write_table(repo / "audits" / "m.csv", {"w": ["a", "a"], "split": ["train", "test"]})
    write_config(repo / "audits", {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}})
    monkeypatch.chdir(repo / "audits")
    assert invoke("run", "audit.yaml", "--out", str(tmp_path / "out"), "--format", "sarif").exit_code == 1
    run = json.loads((tmp_path / "out" / "report.sarif").read_text())["runs"][0]
    (leak,) = [r for r in run["results"] if r["ruleId"] == "GRP001"]
    location = leak["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "audits/m.csv", "uriBaseId": "SRCROOT"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.as_uri() + "/"
