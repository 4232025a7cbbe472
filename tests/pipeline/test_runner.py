from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor import config_from_mapping, run_audit
from auditor.core.config import AuditConfig
from auditor.core.errors import ManifestError, StageNotApplicable
from auditor.core.findings import Finding, Severity
from auditor.core.scope import scope_of
from auditor.pipeline.registry import discover, load_stages
from auditor.pipeline.stage import AuditContext, Stage, StageOptions
from tests.conftest import write_table


class Boom(Stage):
    name = "boom"
    summary = "always crashes"

    def run(self, context: AuditContext) -> Iterator[Finding]:
        raise ValueError("kaboom")


class Warns(Stage):
    name = "warns"
    summary = "one warning"
    codes = {"W001": "a warning"}

    def run(self, context: AuditContext) -> Iterator[Finding]:
        yield self.finding("W001", Severity.WARNING, "careful", key="k1")


class NotHere(Stage):
    name = "not_here"
    summary = "finds out while running that it has nothing to check"

    def run(self, context: AuditContext) -> Iterator[Finding]:
        yield self.finding("NH001", Severity.ERROR, "never reported")
        raise StageNotApplicable("the batch holds one sample")


class LeaksOptions(StageOptions):
    cameras: list[str] = []


class Leaks(Stage):
    """A finding about the cameras its options name, the way TMP002 is about entities."""

    name = "leaks"
    summary = "one error about some cameras"
    codes = {"LK001": "cameras that leak"}
    Options = LeaksOptions

    def run(self, context: AuditContext) -> Iterator[Finding]:
        assert isinstance(self.options, LeaksOptions)
        cameras = self.options.cameras
        yield self.finding(
            "LK001",
            Severity.ERROR,
            f"{len(cameras)} camera(s) leak",
            key="camera",
            evidence={"entities": len(cameras)},
            scope=scope_of(cameras, {"entities": len(cameras)}),
        )


class CodeOnly(Stage):
    name = "code_only"
    summary = "numeric-only stage"
    needs_manifest = False

    def run(self, context: AuditContext) -> Iterator[Finding]:
        yield self.finding("N001", Severity.INFO, f"manifest loaded: {context.manifest is not None}")


@pytest.fixture
def loaded(tmp_path: Path):  # type: ignore[no-untyped-def]
    write_table(tmp_path / "m.csv", {"sid": ["a", "b"], "split": ["train", "test"]})
    return lambda **extra: config_from_mapping(
        {"manifest": {"path": "m.csv", "split": "split", "id": "sid"}, **extra}, tmp_path
    )


def test_a_crashing_stage_becomes_an_error_result_and_others_still_run(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(), classes=[Boom, Warns], fail_on="warning")
    boom, warns = report.stages
    assert boom.status == "error" and boom.error is not None
    assert boom.error.type == "ValueError" and "kaboom" in boom.error.traceback
    assert warns.status == "failed" and warns.findings[0].code == "W001"
    assert report.exit_code == 2 and report.summary.stages_errored == 1


def test_the_users_code_cannot_skip_a_stage_by_raising_its_skip(loaded, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A program under audit that raises StageNotApplicable itself gets an error, not a skipped check."""
    import importlib.util

    (tmp_path / "userprog.py").write_text(
        "from auditor.core.errors import StageNotApplicable\n"
        "def loss():\n    raise StageNotApplicable('nothing to see here')\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("userprog", tmp_path / "userprog.py")
    assert spec is not None and spec.loader is not None
    user = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(user)

    class RunsUserCode(Stage):
        name = "runs_user_code"
        summary = "calls the program under audit"

        def run(self, context: AuditContext) -> Iterator[Finding]:
            user.loss()
            yield from ()

    report = run_audit(loaded(), classes=[RunsUserCode, Warns])
    stage = report.stages[0]
    assert stage.status == "error" and stage.error is not None and "nothing to see here" in stage.error.message
    assert report.exit_code == 2


def test_a_stage_that_finds_it_cannot_apply_is_skipped_with_its_reason(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(), classes=[NotHere, Warns], fail_on="warning")
    skipped, warns = report.stages
    assert skipped.status == "skipped" and skipped.skip_reason == "the batch holds one sample"
    assert skipped.findings == () and warns.status == "failed" and report.exit_code == 1


def test_fail_on_thresholds(loaded) -> None:  # type: ignore[no-untyped-def]
    assert run_audit(loaded(), classes=[Warns]).exit_code == 0  # default fail_on: error
    assert run_audit(loaded(), classes=[Warns], fail_on="warning").exit_code == 1
    assert run_audit(loaded(report={"fail_on": "warning"}), classes=[Warns]).exit_code == 1
    assert run_audit(loaded(report={"fail_on": "never"}), classes=[Warns]).exit_code == 0


def test_accept_by_code_and_key(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(
        loaded(accept=[{"code": "W001", "key": "k1", "reason": "known"}]), classes=[Warns], fail_on="warning"
    )
    (f,) = report.findings
    assert f.accepted and f.accept_reason == "known" and report.exit_code == 0
    assert report.summary.accepted == 1 and report.summary.warnings == 0


def test_manifest_is_not_loaded_when_no_stage_needs_it(tmp_path: Path) -> None:
    loaded = config_from_mapping({"manifest": {"path": "missing.csv", "split": "s"}}, tmp_path)
    report = run_audit(loaded, classes=[CodeOnly])
    assert report.findings[0].message == "manifest loaded: False" and report.manifest is None
    with pytest.raises(ManifestError):
        run_audit(loaded, classes=[Warns])


def test_report_records_inputs(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(), only=["split_integrity"])
    assert report.manifest is not None
    assert report.manifest.rows == 2 and report.manifest.rows_per_split == {"train": 1, "test": 1}
    assert len(report.manifest.sha256) == 64 and report.tool_version and report.schema_version == "1"


def test_same_input_same_findings(loaded) -> None:  # type: ignore[no-untyped-def]
    classes = load_stages(discover())
    a, b = run_audit(loaded(), classes=classes), run_audit(loaded(), classes=classes)
    strip = lambda r: [s.model_dump(exclude={"duration_s"}) for s in r.stages]  # noqa: E731
    assert strip(a) == strip(b)


def test_stages_without_their_inputs_skip_with_the_reason(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded())
    skipped = {r.stage: r.skip_reason for r in report.stages if r.status == "skipped"}
    assert skipped["fitted_statistics"] == "no `fitted` entries in the config"
    assert skipped["broadcast"] == "no `numeric` section in the config"
    assert all(reason != "not implemented yet" for reason in skipped.values())


def test_a_skip_is_not_applicable_only_when_the_config_gives_the_stage_nothing_and_names_it_nowhere(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(stages={"temporal_order": {"enabled": False}, "contamination": {"definition": "exact"}}))
    applies = {r.stage: r.not_applicable for r in report.stages if r.status == "skipped"}
    assert applies["broadcast"] and applies["fitted_statistics"]  # no numeric section, no fitted entries
    assert not applies["temporal_order"]  # disabled: a choice a reviewer must see
    assert not applies["contamination"]  # configured, yet it has no texts to read
    only = run_audit(loaded(), only=["group_overlap", "split_integrity"])
    assert {r.stage: r.not_applicable for r in only.stages} == {"group_overlap": False, "split_integrity": False}
    assert all(not r.not_applicable for r in report.stages if r.status != "skipped")


def test_findings_are_frozen() -> None:
    f = Finding(code="X", stage="s", severity=Severity.INFO, title="t", message="m")
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError on frozen assignment
        f.code = "Y"  # type: ignore[misc]


def test_severity_order() -> None:
    assert Severity.INFO < Severity.WARNING < Severity.ERROR
    assert max([Severity.WARNING, Severity.ERROR, Severity.INFO]) is Severity.ERROR


def test_accept_without_key_or_values_is_too_broad_and_accepts_nothing(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(accept=[{"code": "W001", "reason": "all reviewed"}]), classes=[Warns], fail_on="warning")
    w001, acc002 = report.findings
    assert not w001.accepted and report.exit_code == 1
    assert acc002.code == "ACC002" and acc002.severity is Severity.WARNING and "accept[0] (W001" in acc002.message
    assert [f.code for f in report.findings] == ["W001", "ACC002"]  # too broad, not stale: no ACC001 too


def test_too_broad_names_the_key_that_accepts_the_finding(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(accept=[{"code": "W001", "reason": "all reviewed"}]), classes=[Warns], fail_on="warning")
    acc002 = next(f for f in report.findings if f.code == "ACC002")
    assert 'add `key: "k1"` to the entry' in acc002.message and acc002.evidence["naming"] == ['key: "k1"']
    # Written as said, the entry accepts the finding.
    fixed = run_audit(
        loaded(accept=[{"code": "W001", "key": "k1", "reason": "reviewed"}]), classes=[Warns], fail_on="warning"
    )
    assert [(f.code, f.accepted) for f in fixed.findings] == [("W001", True)] and fixed.exit_code == 0


def test_too_broad_names_a_few_values_and_not_many(loaded) -> None:  # type: ignore[no-untyped-def]
    # A finding about values (its key is no value of it) is named by its values, while they are few.
    entry = {"code": "LK001", "reason": "reviewed"}
    few = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-B", "cam-A"]}}), classes=[Leaks])
    acc002 = next(f for f in few.findings if f.code == "ACC002")
    assert acc002.evidence["naming"] == ['values: ["cam-A", "cam-B"]'] and "`values: [" in acc002.message
    many = [f"cam-{i}" for i in range(40)]
    report = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": many}}), classes=[Leaks])
    acc002 = next(f for f in report.findings if f.code == "ACC002")
    assert "naming" not in acc002.evidence and "Name the value with `key:`" in acc002.message


def test_accept_key_accepts_only_the_value_it_names(loaded) -> None:  # type: ignore[no-untyped-def]
    entry = {"code": "LK001", "key": "cam-B", "reason": "a known clock fault"}
    alone = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-B"]}}), classes=[Leaks])
    assert alone.findings[0].accepted and alone.exit_code == 0
    both = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-B", "cam-A"]}}), classes=[Leaks])
    (f,) = both.findings
    assert not f.accepted and both.exit_code == 1 and both.summary.errors == 1
    assert f.escalated is not None and f.escalated.new_values == ("cam-A",)
    assert f.escalated.accepted_values == ("cam-B",) and f.accept_reason == "a known clock fault"
    assert "new value(s) 'cam-A'" in f.escalated.text and "still accepted: 'cam-B'" in f.escalated.text


def test_accept_key_naming_the_column_is_too_broad(loaded) -> None:  # type: ignore[no-untyped-def]
    entry = {"code": "LK001", "key": "camera", "reason": "every camera"}
    report = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-B"]}}), classes=[Leaks])
    assert [(f.code, f.accepted) for f in report.findings] == [("LK001", False), ("ACC002", False)]
    assert report.exit_code == 1


def test_accept_values_cover_the_recorded_scope_and_no_more(loaded) -> None:  # type: ignore[no-untyped-def]
    entry = {"code": "LK001", "values": ["cam-A", "cam-B"], "reason": "both reviewed"}

    def audit(cameras: list[str]) -> Finding:
        found = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": cameras}}), classes=[Leaks]).findings
        return next(f for f in found if f.code == "LK001")

    assert audit(["cam-B"]).accepted  # a smaller scope: still accepted, no false alarm
    assert audit(["CAM-A ", "cam-B"]).accepted  # the same values in another spelling
    grown = audit(["cam-A", "cam-C"])
    assert not grown.accepted and grown.escalated is not None and grown.escalated.new_values == ("cam-C",)


def test_accept_values_that_no_finding_holds_are_acc003(loaded) -> None:  # type: ignore[no-untyped-def]
    # cam-D is listed before it leaks: the entry would accept its leak unreviewed, so the report says so.
    entry = {"code": "LK001", "values": ["cam-A", "cam-D"], "reason": "reviewed"}
    report = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-A"]}}), classes=[Leaks])
    assert [(f.code, f.accepted) for f in report.findings] == [("LK001", True), ("ACC003", False)]
    (stale,) = [f for f in report.findings if f.code == "ACC003"]
    assert stale.severity.value == "warning" and stale.evidence["values"] == ["cam-D"]
    every = run_audit(loaded(accept=[entry], stages={"leaks": {"cameras": ["cam-A", "cam-d "]}}), classes=[Leaks])
    assert [f.code for f in every.findings] == ["LK001"]  # each value is held (in another spelling too)


def test_accept_of_a_code_spelled_in_lower_case_suggests_the_code(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(accept=[{"code": "w001", "key": "k1", "reason": "typo"}]), classes=[Warns])
    (stale,) = [f for f in report.findings if f.code == "ACC001"]
    assert "no stage reports this code (did you mean 'W001'?)" in stale.message
    other = run_audit(loaded(accept=[{"code": "ZZZ999", "key": "k1", "reason": "gone"}]), classes=[Warns])
    assert "did you mean" not in next(f for f in other.findings if f.code == "ACC001").message


def test_accept_with_another_key_does_not_match(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(
        loaded(accept=[{"code": "W001", "key": "k2", "reason": "other"}]), classes=[Warns], fail_on="warning"
    )
    assert not report.findings[0].accepted and report.exit_code == 1
    assert [f.code for f in report.findings] == ["W001", "ACC001"]


def test_nothing_audited_is_exit_2_not_clean(loaded) -> None:  # type: ignore[no-untyped-def]
    report = run_audit(loaded(stages={"warns": {"enabled": False}}), classes=[Warns])
    assert report.stages[0].status == "skipped" and report.exit_code == 2


def test_stage_status_follows_fail_on(loaded) -> None:  # type: ignore[no-untyped-def]
    assert run_audit(loaded(), classes=[Warns]).stages[0].status == "passed"
    assert run_audit(loaded(), classes=[Warns], fail_on="warning").stages[0].status == "failed"


def test_accept_for_a_stage_not_selected_is_not_stale(loaded) -> None:  # type: ignore[no-untyped-def]
    cfg = loaded(accept=[{"code": "W001", "key": "k1", "reason": "known"}])
    report = run_audit(cfg, classes=[Warns, CodeOnly], only=["code_only"])
    assert "ACC001" not in [f.code for f in report.findings]


def test_bad_fail_on_and_single_only_string(loaded) -> None:  # type: ignore[no-untyped-def]
    from auditor.core.errors import ConfigError

    with pytest.raises(ConfigError, match="fail_on 'bogus'"):
        run_audit(loaded(), classes=[Warns], fail_on="bogus")  # type: ignore[arg-type]
    assert [r.stage for r in run_audit(loaded(), classes=[Warns, CodeOnly], only="warns").stages] == ["warns"]


class Rewrites(Stage):
    """Stands for another process writing the manifest while the audit runs."""

    name = "rewrites"
    summary = "appends a row to the manifest file"

    def run(self, context: AuditContext) -> Iterator[Finding]:
        assert context.manifest is not None
        with open(context.manifest.files[0], "a") as fh:
            fh.write("c,test\n")
        return iter(())


def test_a_manifest_changed_during_the_audit_gets_no_verdict(loaded) -> None:  # type: ignore[no-untyped-def]
    # The digest is made after the stages: had the file changed since it was read, the report would vouch
    # for bytes that were never audited.
    with pytest.raises(ManifestError, match="m.csv: the manifest file changed while it was audited"):
        run_audit(loaded(), classes=[Rewrites])


def test_the_reported_digest_is_of_the_files_bytes(loaded, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import hashlib

    from auditor.manifest import table

    monkeypatch.setattr(table, "_HASH_BLOCK", 7)  # the file is read in many blocks through one buffer
    report = run_audit(loaded(), only=["split_integrity"])
    assert report.manifest is not None
    assert report.manifest.sha256 == hashlib.sha256((tmp_path / "m.csv").read_bytes()).hexdigest()


class NamesWriter(Warns):
    name = "names_writer"

    def manifest_keys(self, config: AuditConfig) -> list[str | list[str]]:
        return ["writer", ["writer", "source"]]

    def manifest_counts(self, config: AuditConfig) -> list[str | list[str]]:
        return ["source"]


def test_each_stage_that_ran_tells_the_manifest_what_later_stages_need(loaded, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """An engine out of core gives back what a stage freed before the next one starts (crashed or not) and
    keeps only the keys a stage still to run names; a skipped stage did nothing to give back."""
    from auditor.manifest.table import Manifest

    done: list[tuple[int, frozenset[tuple[str, ...]]]] = []
    monkeypatch.setattr(Manifest, "stage_done", lambda self, keep: done.append((id(self), frozenset(keep))))
    report = run_audit(loaded(), classes=[Boom, NamesWriter, NotHere, Warns])
    assert [s.status for s in report.stages] == ["error", "passed", "skipped", "passed"]
    assert len({m for m, _ in done}) == 1
    named = {("key", "writer"), ("key", "writer", "source"), ("group_counts", "source")}
    assert [keep for _, keep in done] == [named, set(), set(), set()]


def _two_row_file_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[bool]]:
    """A two-row manifest on the DuckDB engine, and the list each give-back of freed memory appends to."""
    import auditor.backends.files as files
    from auditor.backends.engines import EngineSettings
    from auditor.backends.load import load_for

    pytest.importorskip("duckdb")
    write_table(tmp_path / "m.parquet", {"sid": ["a", "b"], "split": ["train", "test"]})
    loaded = config_from_mapping({"manifest": {"path": "m.parquet", "split": "split", "id": "sid"}}, tmp_path)
    calls: list[bool] = []
    monkeypatch.setattr(files, "release_freed", lambda: calls.append(True))
    manifest, _ = load_for(loaded, EngineSettings(engine="duckdb"))
    return manifest, calls


def test_a_file_engine_gives_back_the_freed_heap_after_a_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import auditor.backends.files as files
    from auditor.manifest.table import SPLIT_COLUMN as SPLIT

    monkeypatch.setattr(files, "RELEASE_ROWS", 2)  # the size from which an engine gives memory back
    manifest, calls = _two_row_file_manifest(tmp_path, monkeypatch)
    manifest.key("sid")
    manifest.group_counts("split")
    manifest.stage_done([("key", "sid"), ("group_counts", "split")])
    assert ("sid",) in manifest._keys and ("group_counts", "split") in manifest._memo  # named later: kept
    manifest.stage_done([("key", "split")])
    assert ("sid",) not in manifest._keys and (SPLIT,) in manifest._keys
    assert ("group_counts", "split") not in manifest._memo
    assert manifest.key("sid").n_values == 2  # asked for again: computed again
    manifest.close()
    assert calls == [True, True]


def test_a_small_manifest_is_not_collected_after_each_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector's pass costs more than a few rows free: only a large manifest gives memory back."""
    manifest, calls = _two_row_file_manifest(tmp_path, monkeypatch)
    manifest.stage_done([])
    manifest.close()
    assert calls == []
