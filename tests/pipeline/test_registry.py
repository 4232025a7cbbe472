from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint

import pytest

from auditor.core.config import AuditConfig, config_from_mapping
from auditor.core.errors import ConfigError, StageLoadError
from auditor.core.findings import Finding
from auditor.pipeline.registry import discover, instantiate, load_stages, select, verify_stage_class
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

BUILT_IN = {
    "split_integrity",
    "group_overlap",
    "shared_upstream",
    "duplicate_content",
    "temporal_order",
    "label_coverage",
    "fitted_statistics",
    "test_exposure",
    "batch_inspect",
    "broadcast",
    "detached_graph",
    "stable_softmax",
    "nonfinite_trace",
    "token_alignment",
    "batch_independence",
    "eval_mode",
}


class ThresholdOptions(StageOptions):
    threshold: float = 0.5


class Custom(Stage):
    name = "custom"
    summary = "a third-party check"
    Options = ThresholdOptions

    def run(self, context: AuditContext) -> Iterator[Finding]:
        return iter(())


def test_built_ins_are_discovered_through_entry_points_sorted_without_import() -> None:
    plugins = discover()
    names = [p.name for p in plugins]
    assert set(names) >= BUILT_IN and names == sorted(names)
    assert all(p.package == "split-auditor" for p in plugins if p.name in BUILT_IN)


def test_same_name_from_two_packages_is_an_error() -> None:
    eps = [EntryPoint("x", "a.b:C", "auditor.stages"), EntryPoint("x", "d.e:F", "auditor.stages")]
    with pytest.raises(StageLoadError, match="stage name 'x' is claimed twice"):
        discover(eps)


def test_broken_plugin_is_wrapped_with_its_name() -> None:
    (plugin,) = discover([EntryPoint("broken", "no_such_module_xyz:Stage", "auditor.stages")])
    with pytest.raises(StageLoadError, match="stage 'broken' .* failed to load .*ModuleNotFoundError"):
        plugin.load()


def test_plugin_that_is_not_a_stage() -> None:
    with pytest.raises(StageLoadError, match="not a subclass"):
        verify_stage_class(dict, "x", "pkg")
    with pytest.raises(StageLoadError, match="expected 'other'"):
        verify_stage_class(Custom, "other", "pkg")


def test_options_are_validated_before_running_with_stage_and_field(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "audit.yaml").write_text("manifest: {path: m.csv, split: s}\nstages:\n  custom:\n    threshhold: 2\n")
    from auditor.core.config import load_config

    loaded = load_config(tmp_path / "audit.yaml")
    with pytest.raises(StageLoadError) as info:
        instantiate([Custom], loaded)
    msg = str(info.value)
    assert "audit.yaml:4:5" in msg and "stages.custom.threshhold" in msg
    assert "did you mean 'threshold'?" in msg and "[stage 'custom']" in msg


def test_wrong_option_type() -> None:
    loaded = config_from_mapping({"manifest": {"path": "m", "split": "s"}, "stages": {"custom": {"threshold": "hi"}}})
    with pytest.raises(StageLoadError, match="stages.custom.threshold"):
        instantiate([Custom], loaded)


def test_a_stage_name_in_another_case_is_offered_as_written() -> None:
    stages = instantiate(load_stages(discover()), config_from_mapping({"manifest": {"path": "m", "split": "s"}}))
    with pytest.raises(StageLoadError, match="unknown stage 'GROUP_OVERLAP'; did you mean 'group_overlap'"):
        select(stages, ["GROUP_OVERLAP"])
    loaded = config_from_mapping({"manifest": {"path": "m", "split": "s"}, "stages": {"Group_Overlap": {}}})
    with pytest.raises(StageLoadError, match="did you mean 'group_overlap'"):
        instantiate(load_stages(discover()), loaded)


def test_unknown_stage_in_config_suggests() -> None:
    loaded = config_from_mapping({"manifest": {"path": "m", "split": "s"}, "stages": {"group_overlp": {}}})
    with pytest.raises(StageLoadError, match="unknown stage 'group_overlp'; did you mean 'group_overlap'"):
        instantiate(load_stages(discover()), loaded)


def test_stage_options_must_be_a_mapping() -> None:
    with pytest.raises(ConfigError):
        config_from_mapping({"manifest": {"path": "m", "split": "s"}, "stages": {"custom": 3}})


def test_select_unknown_stage() -> None:
    stages = [Custom()]
    with pytest.raises(StageLoadError, match="unknown stage 'custm'; did you mean 'custom'"):
        select(stages, ["custm"])
    assert select(stages, None) == stages


def test_disabled_stage_skips_with_reason() -> None:
    loaded = config_from_mapping({"manifest": {"path": "m", "split": "s"}, "stages": {"custom": {"enabled": False}}})
    (stage,) = instantiate([Custom], loaded)
    assert "disabled" in (stage.skip_reason(loaded.config) or "")


class NeedsText(Custom):
    name = "needs_text"

    def missing_input(self, config: AuditConfig) -> str | None:
        return "no texts: set `keys.text`" if config.keys.text is None else None


@pytest.mark.parametrize("layout", [{"split": "s"}, {"folds": "fold"}])
def test_a_stage_whose_keys_are_not_set_does_not_apply_with_folds_as_without(layout: dict[str, str]) -> None:
    """Without its keys a stage does not apply, folds or not: it was 'does not judge cross-validation folds yet'
    on folds, listed as a stage that could not judge what the config asked of it."""
    loaded = config_from_mapping({"manifest": {"path": "m", **layout}})
    (stage,) = instantiate([NeedsText], loaded)
    assert stage.skip_reason(loaded.config) == "no texts: set `keys.text`" and stage.not_applicable(loaded.config)
    # Given its keys, a stage that does not judge folds still says so on folds.
    asked = config_from_mapping({"manifest": {"path": "m", **layout}, "keys": {"text": "t"}})
    (stage,) = instantiate([NeedsText], asked)
    folds = "folds" in layout
    assert stage.skip_reason(asked.config) == (
        "does not judge cross-validation folds yet (manifest.folds)" if folds else None
    )
    assert not stage.not_applicable(asked.config)


def test_a_stage_that_does_not_judge_folds_skips_them_with_the_reason() -> None:
    loaded = config_from_mapping({"manifest": {"path": "m", "folds": "fold"}})
    (stage,) = instantiate([Custom], loaded)
    assert stage.skip_reason(loaded.config) == "does not judge cross-validation folds yet (manifest.folds)"
    judged = config_from_mapping({"manifest": {"path": "m", "split": "s"}})
    assert instantiate([Custom], judged)[0].skip_reason(judged.config) is None
