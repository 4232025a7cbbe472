"""A run's report directory holds only its own reports: a file that appears at a report's name while the audit
runs (the user's code can write there) is never left beside the verdict as if it were one of its reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor import load_config
from auditor.cli.reportdir import ReportDir
from auditor.core.config import LoadedConfig
from auditor.core.errors import ReportWriteError
from auditor.core.output import read_report_state
from auditor.render import FILE_RENDERERS
from tests.conftest import write_config, write_table

FORGED = "FORGED split-auditor report: exit 0, every check passed\n"


def _loaded(tmp_path: Path) -> LoadedConfig:
    write_table(tmp_path / "m.csv", {"w": ["a", "b"], "split": ["train", "test"]})
    return load_config(write_config(tmp_path, {"manifest": {"path": "m.csv", "split": "split"}}))


def _started(tmp_path: Path, formats: list[str]) -> tuple[ReportDir, dict[str, str]]:
    """A started report directory and the files the run would write for ``formats`` (rendered for real)."""
    from auditor import run_audit

    loaded = _loaded(tmp_path)
    reports = ReportDir(out_dir=tmp_path / "out", inputs=[("the config", loaded.path)])  # type: ignore[list-item]
    reports.start(loaded, formats)
    report = run_audit(loaded, only=["split_integrity"])
    return reports, {FILE_RENDERERS[f][1]: FILE_RENDERERS[f][0](report) for f in formats}


@pytest.mark.parametrize("planted", ["report.sarif", "report.html", "report.junit.xml", "report.md"])
def test_a_file_planted_at_a_report_name_the_run_does_not_write_is_exit_2_and_no_verdict(
    tmp_path: Path, planted: str
) -> None:
    reports, rendered = _started(tmp_path, ["json"])
    out = tmp_path / "out"
    (out / planted).write_text(FORGED)  # what the user's code can do while the audit runs
    with pytest.raises(ReportWriteError) as raised:
        reports.finish(rendered)
    assert f"{out / planted}: appeared in the report directory while the audit ran" in str(raised.value)
    assert "remove it and run the audit again" in str(raised.value)
    reports.forget()  # as `audit run` does on any AuditError: no marker, no verdict is left
    assert sorted(p.name for p in out.iterdir()) == [planted]
    assert (out / planted).read_text() == FORGED  # not this tool's to remove
    assert not read_report_state(out / "report.json").is_verdict


def test_a_file_rewritten_while_the_run_ran_is_refused_like_a_new_one(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.sarif").write_text("my own sarif notes\n")  # the user's, before the run: it stays
    reports, rendered = _started(tmp_path, ["json"])
    (tmp_path / "out" / "report.sarif").write_text(FORGED)
    with pytest.raises(ReportWriteError, match="report.sarif: appeared"):
        reports.finish(rendered)


def test_every_format_written_replaces_what_was_planted_at_its_name(tmp_path: Path) -> None:
    formats = ["json", "markdown", "html", "sarif", "junit"]
    reports, rendered = _started(tmp_path, formats)
    for name in rendered:
        (tmp_path / "out" / name).write_text(FORGED)
    written = reports.finish(rendered)
    assert sorted(p.name for p in written) == sorted(rendered)
    for path in written:
        assert path.read_text(encoding="utf-8") == rendered[path.name]  # the run's own, byte for byte
    assert read_report_state(tmp_path / "out" / "report.json").is_verdict


def test_a_forged_copy_of_a_report_of_this_tool_is_removed_like_an_earlier_one(tmp_path: Path) -> None:
    """A planted file that begins as this tool's report does is taken for one: removed, never left standing."""
    reports, rendered = _started(tmp_path, ["json"])
    (tmp_path / "out" / "report.md").write_text("## split-auditor report\n" + FORGED)
    reports.finish(rendered)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.json"]


def test_a_file_of_the_users_there_before_the_run_stays_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The suspicious-looking but right case: the user's own notes at a report's name the run does not write."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.md").write_text("# my notes on the split\n")
    reports, rendered = _started(tmp_path, ["json"])
    assert "report.md was not written by split-auditor: it stays, and is no report of this run" in (
        " ".join(capsys.readouterr().err.split())
    )
    reports.finish(rendered)
    assert (tmp_path / "out" / "report.md").read_text() == "# my notes on the split\n"
    assert read_report_state(tmp_path / "out" / "report.json").is_verdict


def test_a_format_that_cannot_be_put_in_place_is_exit_2_and_no_verdict(tmp_path: Path) -> None:
    reports, rendered = _started(tmp_path, ["json", "html"])
    (tmp_path / "out" / "report.html").mkdir()  # planted where the report goes: no rename can replace it
    with pytest.raises(ReportWriteError, match="cannot write the report into"):
        reports.finish(rendered)
    reports.forget()
    assert not read_report_state(tmp_path / "out" / "report.json").is_verdict
    assert not [p for p in (tmp_path / "out").iterdir() if p.name != "report.html"]  # no temp file either


def test_a_run_that_finishes_over_another_runs_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs into one folder: the later to finish replaces the other's verdict, which that run's user would
    take for theirs; the finishing run says so (the first to start already said so when the second began)."""
    from auditor.core.output import RunMarker, write_atomic

    reports, rendered = _started(tmp_path, ["json"])
    other = RunMarker.start("/elsewhere/audit.yaml", "ab" * 32, "0").model_copy(update={"pid": 1})
    write_atomic(tmp_path / "out", {"report.json": other.model_dump_json()})
    reports.finish(rendered)
    err = capsys.readouterr().err
    assert "another run wrote to this report directory while this one ran" in err and "pid 1" in err
    assert read_report_state(tmp_path / "out" / "report.json").is_verdict


def test_a_run_alone_in_its_folder_says_nothing_of_other_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports, rendered = _started(tmp_path, ["json"])
    reports.finish(rendered)
    assert "another run" not in capsys.readouterr().err
