"""Report files: atomic writes, the in-progress marker, stale temp files, and telling a verdict from a marker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.core.errors import ReportReadError, ReportWriteError
from auditor.core.output import (
    REPORT_JSON,
    RunMarker,
    RunStatus,
    _host_tag,
    _temp_prefix,
    check_writable,
    read_report_state,
    remove_own_temps,
    remove_stale_temps,
    require_verdict,
    write_atomic,
    write_marker,
)

COMPLETED = {"schema_version": "1", "status": "completed", "exit_code": 0, "stages": []}


def dead_pid() -> int:
    """The pid of a process that has already exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def marker(**changes: object) -> RunMarker:
    return RunMarker.start("/cfg/audit.yaml", "ab" * 32, "9.9").model_copy(update=changes)


OLD_MD = "## split-auditor report\n\n**old**\n"
OLD_HTML = "<!doctype html>\n<html><head><title>split-auditor report</title></head></html>\n"


def test_write_marker_replaces_report_json_and_removes_the_other_reports(tmp_path: Path) -> None:
    for name, text in {REPORT_JSON: json.dumps(COMPLETED), "report.md": OLD_MD, "report.html": OLD_HTML}.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "report.sarif").write_text("my own notes\n")  # not written by this tool: kept
    write_marker(tmp_path, marker(), [REPORT_JSON, "report.md", "report.html", "report.sarif"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [REPORT_JSON, "report.sarif"]
    assert (tmp_path / "report.sarif").read_text() == "my own notes\n"
    data = json.loads((tmp_path / REPORT_JSON).read_text())
    assert data["status"] == "running" and data["pid"] == os.getpid() and data["config_sha256"] == "ab" * 32
    assert "exit_code" not in data and "signal" not in data
    assert {"hostname", "started_at", "tool_version", "config_path"} <= data.keys()


@pytest.mark.parametrize(
    ("text", "status"),
    [
        (json.dumps(COMPLETED), RunStatus.COMPLETED),
        (json.dumps({k: v for k, v in COMPLETED.items() if k != "status"}), RunStatus.COMPLETED),  # older reports
        (marker().model_dump_json(), RunStatus.RUNNING),
        (marker().interrupted("SIGTERM").model_dump_json(), RunStatus.INTERRUPTED),
        (json.dumps({**COMPLETED, "status": "running"}), RunStatus.RUNNING),
        (json.dumps({**COMPLETED, "status": "bogus"}), RunStatus.NOT_A_REPORT),
        (json.dumps({"status": "completed"}), RunStatus.NOT_A_REPORT),  # no exit code: no verdict
        (json.dumps([1, 2]), RunStatus.NOT_A_REPORT),
        ("{truncated", RunStatus.NOT_A_REPORT),
        ("", RunStatus.NOT_A_REPORT),
    ],
)
def test_read_report_state_classifies(tmp_path: Path, text: str, status: RunStatus) -> None:
    path = tmp_path / REPORT_JSON
    path.write_text(text)
    state = read_report_state(path)
    assert state.status is status
    assert state.is_verdict is (status is RunStatus.COMPLETED)
    assert str(path) in state.reason


def test_a_missing_report_is_not_a_report(tmp_path: Path) -> None:
    state = read_report_state(tmp_path / REPORT_JSON)
    assert state.status is RunStatus.NOT_A_REPORT and "does not exist" in state.reason


def test_running_marker_says_whether_its_writer_is_alive(tmp_path: Path) -> None:
    path = tmp_path / REPORT_JSON
    path.write_text(marker().model_dump_json())
    alive = read_report_state(path)
    assert alive.writer_alive is True and "still in progress" in alive.reason
    path.write_text(marker(pid=dead_pid()).model_dump_json())
    dead = read_report_state(path)
    assert dead.status is RunStatus.RUNNING and dead.writer_alive is False
    assert "ended without a verdict" in dead.reason
    path.write_text(marker(pid=dead_pid(), hostname="another-host").model_dump_json())
    assert read_report_state(path).writer_alive is None  # another host's pid cannot be checked from here


def test_require_verdict_refuses_a_marker_and_returns_a_report(tmp_path: Path) -> None:
    path = tmp_path / REPORT_JSON
    path.write_text(marker().interrupted("SIGINT").model_dump_json())
    with pytest.raises(ReportReadError, match="not a verdict: .*interrupted by SIGINT"):
        require_verdict(path)
    path.write_text(json.dumps(COMPLETED))
    assert require_verdict(path)["exit_code"] == 0


@pytest.mark.parametrize("code", [False, True, 0.0, "0", 3, -1, None])
def test_an_exit_code_that_is_not_0_1_or_2_is_no_verdict(tmp_path: Path, code: object) -> None:
    """JSON's false is 0 to isinstance(int): a report saying `"exit_code": false` is not a passing verdict."""
    path = tmp_path / REPORT_JSON
    path.write_text(json.dumps({**COMPLETED, "exit_code": code}))
    with pytest.raises(ReportReadError, match="not an audit report"):
        require_verdict(path)


def test_a_report_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")  # opened as a file would block until a writer came
    for path, kind in ((tmp_path / "fifo.json", "a FIFO (named pipe)"), (Path("/dev/zero"), "a character device")):
        state = read_report_state(path)
        assert state.status is RunStatus.NOT_A_REPORT and state.reason == f"{path}: is {kind}, not a regular file"
        with pytest.raises(ReportReadError) as raised:
            require_verdict(path)
        assert str(raised.value) == f"not a verdict: {state.reason}; expected a report.json written by `audit run`"


def test_a_report_nested_too_deeply_or_too_large_is_not_a_report(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import auditor.core.output as output

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert read_report_state(deep).reason == f"{deep}: JSON nested too deeply to be a report"
    path = tmp_path / REPORT_JSON
    path.write_text(json.dumps(COMPLETED))
    monkeypatch.setattr(output, "REPORT_READ_LIMIT", 2**20)
    assert read_report_state(path).is_verdict  # at the limit: read
    path.write_text(json.dumps({**COMPLETED, "pad": "x" * 2**20}))
    assert read_report_state(path).reason == f"{path}: larger than 1 MiB"


def test_write_atomic_renames_report_json_last_and_leaves_no_temp(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    order: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: Path) -> None:
        order.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_atomic(tmp_path, {REPORT_JSON: "{}", "report.md": "m", "report.html": "h"})
    assert order == ["report.md", "report.html", REPORT_JSON]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", REPORT_JSON, "report.md"]


def test_write_atomic_interrupted_while_staging_removes_its_temps(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path, {REPORT_JSON: "{}", "report.md": "m"})
    assert list(tmp_path.iterdir()) == []


def test_stale_temps_of_a_dead_writer_go_live_ones_stay(tmp_path: Path) -> None:
    host = _host_tag()
    dead = tmp_path / f".{REPORT_JSON}.{dead_pid()}-{host}.x1y2z3.tmp"
    bare = tmp_path / f".{REPORT_JSON}.{dead_pid()}.tmp"  # a pid alone: taken to be from this host
    live = tmp_path / f".report.md.{os.getpid()}-{host}.x1y2z3.tmp"
    foreign = tmp_path / f".report.md.{dead_pid()}-00000000.x1y2z3.tmp"  # another host: only age counts
    old = tmp_path / ".report.html.k2j3h4g5.tmp"  # no pid in the name (an older writer): age decides
    other = tmp_path / ".notes.txt.x.tmp"
    for path in (dead, bare, live, foreign, old, other):
        path.write_text("partial")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    os.utime(other, (hour_ago, hour_ago))
    removed = remove_stale_temps(tmp_path, [REPORT_JSON, "report.md", "report.html"])
    assert sorted(removed) == sorted([dead, bare, old])
    assert live.exists() and foreign.exists() and other.exists()


def test_remove_own_temps(tmp_path: Path) -> None:
    write_atomic(tmp_path, {"report.md": "m"})
    own = tmp_path / f"{_temp_prefix('report.md')}abc.tmp"
    own.write_text("partial")
    remove_own_temps(tmp_path, ["report.md"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_check_writable_names_a_path_too_long(tmp_path: Path) -> None:
    with pytest.raises(ReportWriteError, match="longer than the file system allows"):
        check_writable(tmp_path / ("x" * 300) / "reports")


def test_a_path_given_as_text_is_read_too(tmp_path: Path) -> None:
    (tmp_path / REPORT_JSON).write_text('{"status": "running", "pid": 1}')
    state = read_report_state(str(tmp_path / REPORT_JSON))
    assert state.status is RunStatus.RUNNING and not state.is_verdict
    assert read_report_state(str(tmp_path / "missing.json")).status is RunStatus.NOT_A_REPORT


def test_every_file_this_tool_writes_is_recognised_by_its_content_and_nothing_else(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from auditor.cli import app
    from auditor.core.output import written_here
    from auditor.render import FILE_RENDERERS
    from auditor.render.diff import DIFF_RENDERERS
    from tests.conftest import write_config, write_table

    write_table(tmp_path / "m.csv", {"w": ["a", "b", "a"], "split": ["train", "test", "test"]})
    config = write_config(tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["w"]}})
    out, diffs = tmp_path / "out", tmp_path / "diffs"
    formats = ",".join(FILE_RENDERERS)
    assert CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--format", formats]).exit_code == 1
    report = str(out / REPORT_JSON)
    assert CliRunner().invoke(app, ["diff", report, report, "--out", str(diffs)]).exit_code == 0
    written = [out / name for _, name in FILE_RENDERERS.values()] + [diffs / n for _, n in DIFF_RENDERERS.values()]
    assert all(written_here(path) for path in written)
    write_marker(out, marker(), [])
    assert written_here(out / REPORT_JSON)  # a run's marker is this tool's too
    for path in written:  # the same names holding what a user keeps: a manifest, notes, an artifact
        lookalikes = [
            b'{"sample_id": "a", "split": "train"}\n{"sample_id": "b", "split": "test"}\n',
            b"sample_id,split\na,train\n",
            b"# notes on the split-auditor report\n",
            b'{"mean_": [1.5], "scale_": [0.5]}',
        ]
        for text in lookalikes:
            path.write_bytes(text)
            assert not written_here(path), (path.name, text)
    assert not written_here(tmp_path / "m.csv") and not written_here(tmp_path / "missing.md")
