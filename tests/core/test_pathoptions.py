"""Every path-valued stage option is declared ConfinedPath and confined by the loader, as the manifest is."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import pytest
from typer.testing import CliRunner

from auditor import load_config, run_audit
from auditor.cli import app
from auditor.core.config import config_from_mapping
from auditor.core.errors import ConfigError, StageLoadError
from auditor.core.findings import Finding
from auditor.core.pathoptions import (
    ConfinedCacheDir,
    ConfinedPath,
    NotAPath,
    confine_options,
    confined_fields,
    named_like_path,
    unconfined_path_fields,
)
from auditor.pipeline.registry import discover, load_stages, verify_stage_class
from auditor.pipeline.stage import AuditContext, Stage, StageOptions
from tests.conftest import write_config, write_table

runner = CliRunner()
# The path options the built-in stages have: the enumeration below must find at least these.
KNOWN = {
    ("duplicate_content", "cache_dir"),
    ("near_duplicates", "cache_dir"),
    ("shared_upstream", "cache_dir"),
    ("test_exposure", "ledger"),
}


def test_every_installed_stage_declares_each_path_option_confined() -> None:
    unmarked, confined = [], set()
    for cls in load_stages(discover()):
        unmarked += [f"{cls.name}.{f}" for f in unconfined_path_fields(cls.Options)]
        confined |= {(cls.name, f) for f in confined_fields(cls.Options)}
    assert unmarked == [], (
        f"option(s) {unmarked} look like paths: declare them auditor.core.pathoptions.ConfinedPath "
        "(resolved and confined by the loader) or NotAPath('why') if they name no file"
    )
    assert confined >= KNOWN


class _Suspicious(StageOptions):
    cache_dir: str | None = None
    corpus_glob: str = "corpus/*.jsonl"
    out: Path | None = None
    model_files: list[str] = []
    profile: str = "fast"  # 'file' inside a word is not a path
    ledger_label: Annotated[str | None, NotAPath("a name shown in the report")] = None
    ledger: ConfinedPath | None = None


def test_the_enumeration_flags_path_like_options_by_type_and_by_name() -> None:
    assert unconfined_path_fields(_Suspicious) == ["cache_dir", "corpus_glob", "out", "model_files"]
    assert unconfined_path_fields(_Suspicious, by_name=False) == ["out"]
    assert named_like_path("ledger") and named_like_path("cache_dir") and not named_like_path("max_examples")


class _PathOptions(StageOptions):
    data: Path | None = None


class _PathStage(Stage):
    name = "path_stage"
    summary = "reads a file its options name"
    Options = _PathOptions

    def run(self, context: AuditContext) -> list[Finding]:
        return []


def test_a_plugin_whose_path_option_is_not_confined_is_refused_when_loaded() -> None:
    with pytest.raises(StageLoadError, match=r"option\(s\) data hold a path but are not declared"):
        verify_stage_class(_PathStage, "path_stage", "some-plugin")


class _Confined(StageOptions):
    ledger: ConfinedPath | None = None
    cache_dir: ConfinedCacheDir | None = None
    extra: list[ConfinedPath] = []


def _loaded(tmp_path: Path, roots: tuple[Path, ...] = ()) -> Any:
    (tmp_path / "proj").mkdir(exist_ok=True)
    write_table(tmp_path / "proj" / "m.csv", {"id": ["a"], "split": ["train"]})
    mapping = {"manifest": {"path": "m.csv", "id": "id", "split": "split"}}
    return config_from_mapping(mapping, tmp_path / "proj", roots)


def test_confined_values_become_resolved_paths_inside_the_roots(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path)
    proj = (tmp_path / "proj").resolve()
    os.symlink(proj / "m.csv", proj / "inner-link")
    got = confine_options(_Confined(ledger="l/x.sqlite", cache_dir="none", extra=["inner-link"]), loaded, ("stages",))
    assert got.ledger == str(proj / "l" / "x.sqlite")
    assert got.cache_dir == "none"  # a keyword, not a path
    assert got.extra == [str(proj / "m.csv")]
    assert confine_options(_Confined(), loaded, ("stages",)) == _Confined()  # defaults are the program's


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink", "list"])
def test_confined_values_leaving_the_roots_are_config_errors_naming_the_key(tmp_path: Path, how: str) -> None:
    loaded = _loaded(tmp_path)
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", tmp_path / "proj" / "out-link")
    options = {
        "absolute": _Confined(ledger=str(tmp_path / "outside" / "l.sqlite")),
        "dotdot": _Confined(cache_dir="../../../x"),
        "symlink": _Confined(ledger="out-link/l.sqlite"),
        "list": _Confined(extra=["m.csv", "../outside"]),
    }[how]
    key = {"absolute": "s.t.ledger", "dotdot": "s.t.cache_dir", "symlink": "s.t.ledger", "list": "s.t.extra.1"}[how]
    with pytest.raises(ConfigError, match=rf"{key}: .* outside the folders an audit may read"):
        confine_options(options, loaded, ("s", "t"))
    # Allowed once its folder is a root (`--root`, `roots:`).
    if how in ("absolute", "symlink", "list"):
        confine_options(options, _loaded(tmp_path, (tmp_path / "outside",)), ("s", "t"))


def test_a_symlink_loop_outside_is_refused_as_outside(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path)
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    with pytest.raises(ConfigError, match="outside the folders an audit may read"):
        confine_options(_Confined(cache_dir=str(loop)), loaded, ("s",))


def _content_project(tmp_path: Path, stage: str, cache_dir: str) -> Path:
    proj = tmp_path / "a" / "b" / "proj"
    for name in ("one", "two"):
        (proj / "files").mkdir(parents=True, exist_ok=True)
        (proj / "files" / f"{name}.txt").write_text("the same words in both files, said twice over\n")
    write_table(proj / "m.csv", {"id": ["1", "2"], "split": ["train", "test"], "f": ["files/one.txt", "files/two.txt"]})
    config = {
        "manifest": {"path": "m.csv", "id": "id", "split": "split"},
        "keys": {"content_path": "f"},
        "stages": {stage: {"cache_dir": cache_dir}},
    }
    return write_config(proj, config)


STAGES = ["duplicate_content", "near_duplicates", "shared_upstream"]


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("how", ["absolute", "dotdot"])
def test_a_cache_dir_outside_the_roots_is_refused_and_never_created(tmp_path: Path, stage: str, how: str) -> None:
    target = tmp_path / "x" / "cache"
    config = _content_project(tmp_path, stage, str(target) if how == "absolute" else "../../../x/cache")
    done = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "report")])
    assert done.exit_code == 2, done.output
    assert f"stages.{stage}.cache_dir" in done.output and "outside the folders an audit may read" in done.output
    assert not (tmp_path / "x").exists()
    assert not (tmp_path / "report" / "report.json").exists()


@pytest.mark.parametrize("stage", STAGES)
def test_a_cache_dir_inside_the_config_folder_is_created_there(tmp_path: Path, stage: str) -> None:
    config = _content_project(tmp_path, stage, ".cache/digests")
    report = run_audit(load_config(config), only=stage)
    assert report.exit_code in (0, 1), report.stages
    assert any((config.parent / ".cache" / "digests").iterdir())
