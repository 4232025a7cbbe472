"""Input paths stay under the config's folder or a configured root; only regular files are read."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from auditor import load_config, run_audit
from auditor.cli import app
from auditor.core.errors import ConfigError
from auditor.core.paths import NotRegularFileError, is_under, open_regular
from auditor.manifest import table
from auditor.manifest.table import load_manifest
from tests.conftest import codes, finding, write_config, write_table

runner = CliRunner()
ROWS = {"id": ["a", "b", "c", "d"], "split": ["train", "train", "test", "test"], "w": ["x", "y", "x", "z"]}
SECRET = "API_KEY=sk-live-0123456789abcdef"


def project(tmp_path: Path, config: dict[str, Any] | None = None, manifest: str = "m.csv") -> Path:
    """tmp/proj/audit.yaml with a four-row manifest beside it; tmp/outside/ holds files it must not read."""
    proj = tmp_path / "proj"
    write_table(proj / "m.csv", ROWS)
    write_table(tmp_path / "outside" / "m.csv", ROWS)
    base: dict[str, Any] = {"manifest": {"path": manifest, "id": "id", "split": "split"}, "keys": {"groups": ["w"]}}
    return write_config(proj, {**base, **(config or {})})


def config_error(path: Path, roots: tuple[str | Path, ...] = ()) -> str:
    with pytest.raises(ConfigError) as exc:
        load_config(path, roots=roots)
    return str(exc.value)


def finishes(work: Callable[[], Any], seconds: float = 20) -> Any:
    """Run ``work`` in a daemon thread: a read that blocks fails the test instead of hanging it."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds}s: a blocking file was read"
    if "error" in box:
        raise box["error"]
    return box["result"]


# -- config paths --------------------------------------------------------------------------------------


def test_dotdot_manifest_path_is_a_config_error_naming_key_path_and_fix(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="../outside/m.csv")
    msg = config_error(cfg)
    assert f"{cfg}:2:" in msg and "manifest.path" in msg
    assert f"'../outside/m.csv' resolves to {tmp_path / 'outside' / 'm.csv'}" in msg
    assert "roots:" in msg and "--root" in msg and str(tmp_path / "proj") in msg


def test_absolute_artifact_and_manifest_paths_outside_are_refused_together(tmp_path: Path) -> None:
    fitted = [{"name": "v", "kind": "vocabulary", "artifact": "/etc/passwd", "text": "w"}]
    cfg = project(tmp_path, {"fitted": fitted}, manifest=str(tmp_path / "outside" / "m.csv"))
    msg = config_error(cfg)
    assert "manifest.path" in msg and "fitted.0.artifact: '/etc/passwd' resolves to /etc/passwd" in msg


def test_manifest_paths_and_python_path_are_confined(tmp_path: Path) -> None:
    cfg = project(tmp_path)
    cfg.write_text(
        "manifest: {paths: {train: m.csv, test: ../outside/m.csv}}\n"
        "numeric: {python_path: [/usr], model: a:b, batch: a:c, loss: a:d}\n",
        encoding="utf-8",
    )
    msg = config_error(cfg)
    assert "manifest.paths.test: '../outside/m.csv'" in msg and "numeric.python_path.0: '/usr'" in msg


def test_symlink_inside_pointing_outside_is_refused(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="link.csv")
    (tmp_path / "proj" / "link.csv").symlink_to(tmp_path / "outside" / "m.csv")
    assert f"'link.csv' resolves to {tmp_path / 'outside' / 'm.csv'}" in config_error(cfg)


def test_symlink_pointing_inside_is_allowed(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="link.csv")
    (tmp_path / "proj" / "link.csv").symlink_to(tmp_path / "proj" / "m.csv")
    assert "GRP001" in codes(run_audit(load_config(cfg)))


def test_glob_match_through_a_symlink_outside_is_refused(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="parts/*.csv")
    (tmp_path / "proj" / "parts").mkdir()
    (tmp_path / "proj" / "parts" / "a.csv").symlink_to(tmp_path / "outside" / "m.csv")
    loaded = load_config(cfg)  # a glob is checked file by file when it is expanded
    with pytest.raises(ConfigError, match=r"manifest 'parts/\*\.csv' resolves to .*outside/m\.csv, outside"):
        load_manifest(loaded)


def test_roots_key_allows_an_outside_folder(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"roots": ["../outside"]}, manifest="../outside/m.csv")
    loaded = load_config(cfg)
    assert loaded.roots == ((tmp_path / "outside").resolve(),)
    assert "GRP001" in codes(run_audit(loaded))


def test_root_argument_allows_an_outside_folder_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = project(tmp_path, manifest="../outside/m.csv")
    monkeypatch.chdir(tmp_path)
    assert "GRP001" in codes(run_audit(load_config(cfg, roots=["outside"])))


def test_a_root_must_be_an_existing_folder(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"roots": ["../nowhere"]})
    assert f"{cfg}:" in (msg := config_error(cfg)) and "roots[0] '../nowhere'" in msg and "not a directory" in msg
    file = tmp_path / "proj" / "m.csv"
    assert f"--root '{file}': {file} is not a directory" in config_error(project(tmp_path), roots=(file,))


def test_unresolvable_paths_are_config_errors_not_crashes(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="m\0.csv")
    assert "manifest.path: cannot resolve 'm\\x00.csv': embedded null byte" in config_error(cfg)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert f"--root '{tmp_path / 'loop'}': cannot resolve" in config_error(
        project(tmp_path), roots=(tmp_path / "loop",)
    )


def test_report_out_dir_outside_is_an_output_and_allowed(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"report": {"out_dir": "../reports"}})
    result = runner.invoke(app, ["run", str(cfg), "--quiet"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert (tmp_path / "reports" / "report.json").is_file()


def test_is_under_compares_whole_path_parts() -> None:
    assert is_under(Path("/data/proj/x"), [Path("/data/proj")])
    assert not is_under(Path("/data/project2/x"), [Path("/data/proj")])
    assert is_under(Path("/etc/passwd"), [Path("/")])


# -- content_path files --------------------------------------------------------------------------------


def content_project(tmp_path: Path, files: list[str]) -> Path:
    proj = tmp_path / "proj"
    (proj / "img").mkdir(parents=True)
    (proj / "img" / "a.png").write_bytes(b"pixels")
    (tmp_path / "x").write_bytes(b"pixels")
    data = {"id": [f"s{i}" for i in range(len(files))], "split": ["train", "test"] * (len(files) // 2), "f": files}
    write_table(proj / "m.csv", data)
    cfg = {"manifest": {"path": "m.csv", "id": "id", "split": "split"}, "keys": {"content_path": "f"}}
    return write_config(proj, cfg)


def test_content_rows_naming_outside_files_error_by_id_and_are_never_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[Path] = []
    real = table.hash_files

    def recording(paths: list[Path], cache_dir: Path | None) -> Any:
        hashed.extend(paths)
        return real(paths, cache_dir)

    monkeypatch.setattr(table, "hash_files", recording)
    cfg = content_project(tmp_path, ["img/a.png", "/etc/passwd", "img/a.png", "../x"])
    report = run_audit(load_config(cfg), only=["duplicate_content"])
    assert report.exit_code == 2 and not report.findings
    error = report.stages[0].error
    assert error is not None
    assert "column 'f' names 2 file(s) outside" in error.message and "in 2 row(s) with id s1, s3" in error.message
    assert (
        "'/etc/passwd' resolves to /etc/passwd" in error.message
        and f"'../x' resolves to {tmp_path / 'x'}" in error.message
    )
    assert "roots:" in error.message and "--root" in error.message
    assert hashed == []


def test_content_files_under_a_root_are_hashed(tmp_path: Path) -> None:
    cfg = content_project(tmp_path, ["img/a.png", "../x"])
    report = run_audit(load_config(cfg, roots=[tmp_path]), only=["duplicate_content"])
    assert finding(report, "DUP001").evidence["digests"] == 1


# -- files that are not regular files ------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Callable[[Path], Path]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")

    def make(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        return path

    return make


def test_fifo_manifest_is_refused_not_read(tmp_path: Path, fifo: Callable[[Path], Path]) -> None:
    cfg = project(tmp_path, manifest="pipe.csv")
    fifo(tmp_path / "proj" / "pipe.csv")
    report = finishes(lambda: runner.invoke(app, ["run", str(cfg), "--quiet"], catch_exceptions=False))
    assert report.exit_code == 2 and "pipe.csv is a FIFO (named pipe), not a regular file" in report.output


def test_fifo_artifact_is_refused_not_read(tmp_path: Path, fifo: Callable[[Path], Path]) -> None:
    cfg = project(tmp_path, {"fitted": [{"name": "v", "kind": "vocabulary", "artifact": "vocab.txt", "text": "w"}]})
    fifo(tmp_path / "proj" / "vocab.txt")
    report = finishes(lambda: run_audit(load_config(cfg), only=["fitted_statistics"]))
    error = report.stages[0].error
    assert report.exit_code == 2 and error is not None
    assert "vocab.txt: fitted 'v'" in error.message and "is a FIFO (named pipe), not a regular file" in error.message


def test_fifo_content_file_is_reported_not_read(tmp_path: Path, fifo: Callable[[Path], Path]) -> None:
    # the FIFO is one of the test split's two files: the other is compared, the FIFO named (and never opened)
    cfg = content_project(tmp_path, ["img/a.png", "img/pipe.png", "img/b.png", "img/c.png"])
    for name in ("b.png", "c.png"):
        (tmp_path / "proj" / "img" / name).write_bytes(name.encode())
    fifo(tmp_path / "proj" / "img" / "pipe.png")
    report = finishes(lambda: run_audit(load_config(cfg), only=["duplicate_content"]))
    assert finding(report, "DUP005").examples[0]["reason"] == "a FIFO (named pipe), not a regular file"


def test_a_fifo_as_the_only_holdout_file_leaves_nothing_compared(tmp_path: Path, fifo: Callable[[Path], Path]) -> None:
    cfg = content_project(tmp_path, ["img/a.png", "img/pipe.png"])
    fifo(tmp_path / "proj" / "img" / "pipe.png")
    report = finishes(lambda: run_audit(load_config(cfg), only=["duplicate_content"]))
    error = report.stages[0].error
    assert report.exit_code == 2 and error is not None and "a FIFO (named pipe), not a regular file" in error.message


def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path, fifo: Callable[[Path], Path]) -> None:
    pipe = fifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        finishes(lambda: open_regular(pipe))


@pytest.mark.parametrize(("artifact", "kind"), [("/dev/zero", "a character device"), ("folder", "a directory")])
def test_device_or_directory_artifact_is_refused(tmp_path: Path, artifact: str, kind: str) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    cfg = project(tmp_path, {"fitted": [{"name": "v", "kind": "vocabulary", "artifact": artifact, "text": "w"}]})
    (tmp_path / "proj" / "folder").mkdir()
    report = finishes(lambda: run_audit(load_config(cfg, roots=["/dev"]), only=["fitted_statistics"]))
    error = report.stages[0].error
    assert error is not None and f"is {kind}, not a regular file" in error.message


# -- what reports quote from artifacts -----------------------------------------------------------------


def test_secret_file_named_as_vocabulary_never_reaches_a_report(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text(f"{SECRET}\nDB_PASSWORD=hunter2\n", encoding="utf-8")
    fitted = [{"name": "v", "kind": "vocabulary", "artifact": "../secret.txt", "text": "w"}]
    cfg = project(tmp_path, {"fitted": fitted})
    out = tmp_path / "proj" / "audit-report"
    out.mkdir()
    (out / "report.json").write_text("{}", encoding="utf-8")  # an earlier run's report must not stay behind
    result = runner.invoke(app, ["run", str(cfg)], catch_exceptions=False)
    assert result.exit_code == 2 and "fitted.0.artifact: '../secret.txt' resolves to" in result.output
    assert SECRET not in result.output and "hunter2" not in result.output
    written = [p.read_text(encoding="utf-8", errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    assert sum(SECRET in text for text in written) == 1  # the secret file itself, nothing else


def test_validate_takes_root_too(tmp_path: Path) -> None:
    cfg = project(tmp_path, manifest="../outside/m.csv")
    refused = runner.invoke(app, ["validate", str(cfg)], catch_exceptions=False)
    assert refused.exit_code == 2 and "--root" in refused.output
    allowed = runner.invoke(app, ["validate", str(cfg), "--root", str(tmp_path / "outside")], catch_exceptions=False)
    assert allowed.exit_code == 0, allowed.output


def test_run_takes_repeatable_root(tmp_path: Path) -> None:
    fitted = [{"name": "c", "kind": "categories", "artifact": "../extra/cats.json", "columns": ["w"]}]
    cfg = project(tmp_path, {"fitted": fitted}, manifest="../outside/m.csv")
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "cats.json").write_text(json.dumps({"classes_": ["x", "y"]}), encoding="utf-8")
    args = ["run", str(cfg), "--quiet", "--root", str(tmp_path / "outside"), "--root", str(tmp_path / "extra")]
    result = runner.invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 1, result.output


def test_long_artifact_values_are_clipped_in_examples_and_messages(tmp_path: Path) -> None:
    long_holdout, long_unused = "z" * 500, "q" * 300
    rows = {"id": ["a", "b", "c"], "split": ["train", "test", "test"], "w": ["x", long_holdout, "y"]}
    write_table(tmp_path / "m.csv", rows)
    vocab = ["x", long_holdout, "y", *(f"{long_unused}{i}" for i in range(12))]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (tmp_path / "cats.json").write_text(json.dumps({"classes_": ["x", long_holdout]}), encoding="utf-8")
    fitted = [
        {"name": "v", "kind": "vocabulary", "artifact": "vocab.txt", "text": "w"},
        {"name": "c", "kind": "categories", "artifact": "cats.json", "columns": ["w"]},
    ]
    cfg = write_config(tmp_path, {"manifest": {"path": "m.csv", "id": "id", "split": "split"}, "fitted": fitted})
    report = run_audit(load_config(cfg), only=["fitted_statistics"])
    quoted = [
        *(e["token"] for code in ("FIT006", "FIT007") for e in finding(report, code).examples),
        *(e["category"] for e in finding(report, "FIT008").examples),
    ]
    assert quoted and all(len(v) <= 80 for v in quoted)
    assert "z" * 79 + "…" in quoted and len(finding(report, "FIT007").examples) <= 5
    assert all(long_holdout not in f.message and long_unused not in f.message for f in report.findings)
