"""Finding fingerprints and the comparison of two reports: new, resolved, persisting, unchecked, baseline marks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.core.diff import config_place, diff_reports, load_report, manifest_place, mark_baseline
from auditor.core.errors import ReportMismatchError, ReportReadError
from auditor.core.findings import (
    Finding,
    ManifestInfo,
    Report,
    Severity,
    StageResult,
    with_fail_on,
)
from auditor.core.output import RunMarker, write_marker
from auditor.core.portable import portable
from auditor.core.scope import scope_of, spelled
from auditor.render.diff import baseline_line, headline, render_diff_text
from tests.conftest import REPO, AuditFn, SampleReports, report_of

SAMPLES = sorted(p.relative_to(REPO / "sample_data").parent.as_posix() for p in REPO.glob("sample_data/**/audit.yaml"))
OVERLAP = {
    "sid": ["a", "b", "c", "d"],
    "split": ["train", "train", "test", "test"],
    "writer": ["w1", "w2", "w1", "w3"],
    "site": ["s1", "s2", "s2", "s3"],
}


def grp(writer: str = "writer", groups: int = 3, severity: Severity = Severity.ERROR, **extra: Any) -> Finding:
    return Finding(
        code="GRP001",
        stage="group_overlap",
        severity=severity,
        title="groups shared",
        message=f"{groups} '{writer}' values are shared",
        evidence={"key": writer, "groups": groups, "pairs": [{"splits": ["train", "test"], "groups": groups}]},
        examples=({"id": str(groups)},),
        **extra,
    )


def nan(key: str = "logfeat") -> Finding:
    return Finding(code="NAN001", stage="nonfinite_trace", severity=Severity.ERROR, title="nan", message="m", key=key)


def report(
    *results: tuple[str, str, tuple[Finding, ...]],
    manifest: str | None = "data/manifest.csv",
    sha256: str = "ab" * 32,
    folder: str = "/proj",
) -> Report:
    stages = tuple(StageResult(stage=s, status=st, duration_s=0.0, findings=fs) for s, st, fs in results)  # type: ignore[arg-type]
    info = (
        ManifestInfo(paths=(f"{folder}/{manifest}",), sha256=sha256, rows=4, rows_per_split={"train": 4})
        if manifest
        else None
    )
    return report_of(stages, config_path=f"{folder}/audit.yaml", manifest=info)


# -- fingerprints --------------------------------------------------------------------------------------


def test_fingerprint_ignores_message_counts_examples_and_severity() -> None:
    a, b = grp(groups=3), grp(groups=5, severity=Severity.WARNING)
    assert a.message != b.message and a.examples != b.examples
    assert a.fingerprint == b.fingerprint
    assert len(a.fingerprint) == 16 and int(a.fingerprint, 16) >= 0


def test_fingerprint_tells_apart_code_stage_key_and_subject() -> None:
    prints = {
        grp().fingerprint,
        grp(writer="site").fingerprint,
        grp().model_validate({**grp().model_dump(), "code": "GRP002"}).fingerprint,
        grp().model_validate({**grp().model_dump(), "stage": "other"}).fingerprint,
        nan("logfeat").fingerprint,
        nan("head").fingerprint,
    }
    assert len(prints) == 6


def test_a_respelled_key_is_the_same_finding() -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert nan(f"  {composed.upper()} ").fingerprint == nan(decomposed).fingerprint
    assert grp(writer=" Writer").fingerprint == grp(writer="writer").fingerprint


@pytest.mark.parametrize(
    ("a", "b"),
    [("w1", "w\u200b1"), ("w1", "\uff57\uff11"), ("file", "\ufb01le"), ("strasse", "Stra\u00dfe"), ("1000", "1e3")],
)
def test_a_key_the_spelling_checks_call_one_value_keeps_its_fingerprint(a: str, b: str) -> None:
    assert nan(a).fingerprint == nan(b).fingerprint
    assert grp(writer=a).fingerprint == grp(writer=b).fingerprint


@pytest.mark.parametrize(("a", "b"), [("w1", "w11"), ("A-1", "A1"), ("1e3", "1001")])
def test_keys_that_are_different_values_keep_different_fingerprints(a: str, b: str) -> None:
    assert nan(a).fingerprint != nan(b).fingerprint


def test_fingerprint_is_recomputed_when_read_not_trusted() -> None:
    data = json.loads(nan().model_dump_json())
    assert data["fingerprint"] == nan().fingerprint
    data["fingerprint"] = "0" * 16
    assert Finding.model_validate(data).fingerprint == nan().fingerprint


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_report_has_unique_fingerprints(sample: str, sample_report: SampleReports) -> None:
    prints = [f.fingerprint for f in sample_report(sample).findings]
    assert prints and len(prints) == len(set(prints))


def test_same_input_twice_gives_the_same_fingerprints(audit: AuditFn) -> None:
    first = audit(OVERLAP, manifest={"id": "sid"}, keys={"groups": ["writer", "site"]})
    second = audit(OVERLAP, manifest={"id": "sid"}, keys={"groups": ["writer", "site"]})
    prints = [f.fingerprint for f in first.findings]
    assert prints == [f.fingerprint for f in second.findings]
    overlaps = [f for f in first.findings if f.code == "GRP001"]
    assert len(overlaps) == 2 and overlaps[0].fingerprint != overlaps[1].fingerprint  # one per group key
    assert len(prints) == len(set(prints))


# -- diff ----------------------------------------------------------------------------------------------


def test_diff_sorts_findings_into_new_resolved_and_persisting_with_changed_counts() -> None:
    old = report(("group_overlap", "failed", (grp(groups=5),)), ("nonfinite_trace", "failed", (nan(),)))
    new = report(("group_overlap", "failed", (grp(groups=3), grp(writer="site"))), ("nonfinite_trace", "passed", ()))
    d = diff_reports(old, new)
    assert [f.evidence["key"] for f in d.new_findings] == ["site"]
    assert [f.code for f in d.resolved] == ["NAN001"]
    [kept] = d.persisting
    assert {(c.field, c.old, c.new) for c in kept.changes} == {("groups", 5, 3), ("pairs.train|test.groups", 5, 3)}
    assert d.exit_code == 1 and d.failing == d.new_findings


def test_diff_exit_code_follows_fail_on_and_ignores_accepted_and_resolved() -> None:
    old = report(("group_overlap", "failed", (grp(),)), ("nonfinite_trace", "failed", (nan(),)))
    fixed = report(("group_overlap", "failed", (grp(groups=2),)), ("nonfinite_trace", "passed", ()))
    assert diff_reports(old, fixed).exit_code == 0
    warned = report(("group_overlap", "failed", (grp(), grp(writer="site", severity=Severity.WARNING))))
    assert diff_reports(old, warned).exit_code == 0
    assert diff_reports(old, warned, fail_on="warning").exit_code == 1
    assert diff_reports(old, warned, fail_on="never").exit_code == 0
    accepted = report(("group_overlap", "passed", (grp(), grp(writer="site", accepted=True, accept_reason="ok"))))
    assert diff_reports(old, accepted).exit_code == 0


def test_a_fail_on_relaxed_in_the_new_report_does_not_pass_a_new_leak() -> None:
    """The new config set to `fail_on: never`: the stricter of the two thresholds still counts a new error, unless
    --fail-on says otherwise (as the service gates on the stricter too)."""
    old = report(("group_overlap", "failed", (grp(),)))
    relaxed = with_fail_on(report(("group_overlap", "failed", (grp(), grp(writer="site")))), "never")
    d = diff_reports(old, relaxed)
    assert d.fail_on == "error" and d.exit_code == 1
    assert diff_reports(old, relaxed, fail_on="never").exit_code == 0
    assert diff_reports(with_fail_on(old, "never"), relaxed).exit_code == 0


def test_a_persisting_finding_that_rises_to_fail_on_fails_the_diff() -> None:
    old = report(("group_overlap", "passed", (grp(severity=Severity.WARNING),)))
    new = report(("group_overlap", "failed", (grp(severity=Severity.ERROR),)))
    d = diff_reports(old, new)
    assert d.persisting[0].escalated and d.exit_code == 1


def test_a_finding_no_longer_accepted_fails_the_diff_and_says_so() -> None:
    """Accepted in the approved report, counted in the new one (its acceptance removed or lapsed): it fails."""
    old = report(("group_overlap", "passed", (grp(accepted=True, accept_reason="calibration writers"),)))
    new = report(("group_overlap", "failed", (grp(),)))
    d = diff_reports(old, new)
    assert d.persisting[0].no_longer_accepted and d.exit_code == 1
    assert "no longer accepted (was: calibration writers)" in render_diff_text(d)
    # The headline counts it and says why the diff fails: nothing is new.
    assert headline(d) == (
        "0 new, 0 resolved, 1 persisting (1 no longer accepted) — exit 1 (findings escalated or no longer "
        "accepted, at or above fail_on, fail_on: error)"
    )
    # Accepted in both, or in neither: as before.
    assert diff_reports(old, old).exit_code == 0 and not diff_reports(old, old).persisting[0].no_longer_accepted
    assert diff_reports(new, new).exit_code == 0


def test_a_finding_no_longer_accepted_fails_a_new_only_baseline() -> None:
    """Accepted in the baseline, counted now (the `accept:` entry removed): escalated, as the diff fails it."""
    old = report(("group_overlap", "passed", (grp(accepted=True, accept_reason="calibration writers"),)))
    new = report(("group_overlap", "failed", (grp(),)))
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    assert marked.baseline is not None and (marked.baseline.escalated, marked.baseline.persisting) == (1, 0)
    # Accepted in both, or counted in both: persisting, and --new-only passes as before.
    assert [f.baseline for f in mark_baseline(old, old, path="a.json", new_only=True).findings] == ["persisting"]
    assert mark_baseline(old, old, path="a.json", new_only=True).exit_code == 0
    assert mark_baseline(new, new, path="a.json", new_only=True).exit_code == 0
    # Accepted now, counted in the baseline: no alarm either.
    assert mark_baseline(old, new, path="a.json", new_only=True).findings[0].baseline == "persisting"


def test_a_leak_that_grows_fails_the_diff_and_a_new_only_baseline() -> None:
    # A newly leaking writer keeps the fingerprint of its column's GRP001: the rising count is what shows it.
    old = report(("group_overlap", "failed", (grp(groups=1),)))
    new = report(("group_overlap", "failed", (grp(groups=2),)))
    d = diff_reports(old, new)
    assert d.persisting[0].escalated and d.exit_code == 1
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    shrunk = report(("group_overlap", "failed", (grp(groups=1),)))
    assert diff_reports(new, shrunk).exit_code == 0
    assert mark_baseline(shrunk, new, path="approved.json", new_only=True).exit_code == 0


def test_a_new_spelling_of_a_value_is_escalated_where_every_count_is_the_same() -> None:
    """`Alice` / `alice` approved; `ALICE` beside them adds no value and no count, only a spelling never reviewed."""

    def respelled(*spellings: str) -> Finding:
        return Finding(
            code="GRP005",
            stage="group_overlap",
            severity=Severity.ERROR,
            title="spellings",
            message="1 'writer' value is spelled differently across splits",
            key="writer",
            evidence={"key": "writer", "values": 1},
            scope=spelled(scope_of(["alice"], {"values": 1}), spellings),
        )

    old = report(("group_overlap", "failed", (respelled("Alice", "alice"),)))
    new = report(("group_overlap", "failed", (respelled("ALICE", "Alice", "alice"),)))
    d = diff_reports(old, new)
    (kept,) = d.persisting
    assert kept.escalated and d.exit_code == 1 and kept.scope_growth is not None
    assert kept.scope_growth.new_values == ("ALICE",)
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    assert "new values: ALICE" in (marked.findings[0].baseline_reason or "")
    back = mark_baseline(old, new, path="approved.json", new_only=True)
    assert [f.baseline for f in back.findings] == ["persisting"] and back.exit_code == 0


def test_a_leak_that_reaches_another_split_pair_is_escalated() -> None:
    # writer-a shared train|test, then also train|val: the same value and group count, a new split pair.
    one = {"key": "writer", "groups": 1, "pairs": [{"splits": ["train", "test"], "groups": 1, "rows": [6, 3]}]}
    two = {**one, "pairs": [{"splits": ["train", "val"], "groups": 1, "rows": [6, 1]}, *one["pairs"]]}
    old = report(("group_overlap", "failed", (Finding.model_validate({**grp().model_dump(), "evidence": one}),)))
    new = report(("group_overlap", "failed", (Finding.model_validate({**grp().model_dump(), "evidence": two}),)))
    d = diff_reports(old, new)
    (kept,) = d.persisting
    assert kept.escalated and d.exit_code == 1
    assert ("pairs.train|val.groups", 0, 1) in [(c.field, c.old, c.new) for c in kept.changes]
    assert "(1 escalated)" in render_diff_text(d)
    assert "exit 1 (findings escalated or no longer accepted, at or above fail_on" in headline(d)
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    back = mark_baseline(old, new, path="approved.json", new_only=True)  # the pair fixed again: no alarm
    assert [f.baseline for f in back.findings] == ["persisting"] and back.exit_code == 0


def test_another_leaking_value_at_the_same_count_is_escalated_and_named() -> None:
    # w1 fixed, w2 leaking: the counts are equal, only the scope says the leak is a new one.
    old = report(("group_overlap", "failed", (grp(groups=1, scope=scope_of(["w1"], {"groups": 1})),)))
    new = report(("group_overlap", "failed", (grp(groups=1, scope=scope_of(["w2"], {"groups": 1})),)))
    d = diff_reports(old, new)
    (kept,) = d.persisting
    assert kept.changes == () and kept.escalated and d.exit_code == 1
    assert kept.scope_growth is not None and kept.scope_growth.new_values == ("w2",)
    assert "new values: w2" in render_diff_text(d)
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    assert marked.baseline is not None and [v.values for v in marked.baseline.new_values] == [("w2",)]
    assert "GRP001 new values: w2" in (baseline_line(marked) or "")
    fewer = report(("group_overlap", "failed", (grp(groups=1, scope=scope_of(["w1"], {"groups": 1})),)))
    wider = report(("group_overlap", "failed", (grp(groups=2, scope=scope_of(["w1", "w2"], {"groups": 2})),)))
    assert diff_reports(wider, fewer).exit_code == 0  # a smaller scope: no alarm


def test_a_group_that_is_the_same_number_but_another_group_to_the_checks_is_escalated() -> None:
    # `1.1` and `1.10`: one number by value (one fingerprint form) but two groups (a dotted id's fraction is
    # written digits); `01.1` is `1.1` spelt otherwise, the same group.
    def one(section: str) -> Report:
        return report(("group_overlap", "failed", (grp(groups=1, scope=scope_of([section], {"groups": 1})),)))

    d = diff_reports(one("1.1"), one("1.10"))
    (kept,) = d.persisting
    assert kept.scope_growth is not None and kept.scope_growth.new_values == ("1.10",) and d.exit_code == 1
    marked = mark_baseline(one("1.10"), one("1.1"), path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    (same,) = diff_reports(one("1.1"), one("01.1")).persisting
    assert same.scope_growth is None and not same.escalated


def test_a_baseline_written_before_scopes_is_no_false_alarm() -> None:
    old = report(("group_overlap", "failed", (grp(groups=1),)))  # its finding names no values
    new = report(("group_overlap", "failed", (grp(groups=1, scope=scope_of(["w1"], {"groups": 1, "rows": 2})),)))
    (kept,) = diff_reports(old, new).persisting
    assert not kept.escalated and kept.scope_growth is None
    assert mark_baseline(new, old, path="approved.json", new_only=True).exit_code == 0


def test_a_stage_that_did_not_run_resolves_nothing() -> None:
    old = report(("group_overlap", "failed", (grp(),)), ("nonfinite_trace", "failed", (nan(),)))
    new = report(("group_overlap", "passed", ()), ("nonfinite_trace", "skipped", ()))
    d = diff_reports(old, new)
    assert [f.code for f in d.resolved] == ["GRP001"] and [f.code for f in d.unchecked] == ["NAN001"]
    crashed = report(("group_overlap", "passed", ()), ("nonfinite_trace", "error", ()))
    assert diff_reports(old, crashed).exit_code == 2  # the new report could not audit: never a clean diff


def test_repeated_fingerprints_match_one_for_one() -> None:
    old = report(("nonfinite_trace", "failed", (nan(), nan())))
    new = report(("nonfinite_trace", "failed", (nan(), nan(), nan())))
    d = diff_reports(old, new)
    assert (len(d.persisting), len(d.new_findings), len(d.resolved)) == (2, 1, 0)


def test_different_manifests_are_refused_unless_forced() -> None:
    old = report(("group_overlap", "failed", (grp(),)))
    other = report(("group_overlap", "failed", (grp(),)), manifest="other.csv", sha256="cd" * 32)
    with pytest.raises(ReportMismatchError, match="different manifests: proj/data/manifest.csv .sha256 abababababab. "):
        diff_reports(old, other)
    forced = diff_reports(old, other, force=True)
    assert "compared anyway" in forced.notes[0] and len(forced.persisting) == 1
    with pytest.raises(ReportMismatchError, match="none \\(numeric checks only\\)"):
        diff_reports(report(manifest=None), old)


def test_two_datasets_both_named_manifest_csv_are_not_one_manifest() -> None:
    a = report(("group_overlap", "failed", (grp(),)), folder="/data/faces", manifest="manifest.csv")
    b = report(("group_overlap", "failed", (grp(),)), folder="/data/voices", manifest="manifest.csv", sha256="cd" * 32)
    with pytest.raises(ReportMismatchError, match="faces/manifest.csv .* and voices/manifest.csv"):
        diff_reports(a, b)
    with pytest.raises(ReportMismatchError, match="a baseline must audit the same manifest"):
        mark_baseline(b, a, path="a.json", new_only=False)


def test_the_same_manifest_reached_by_another_path_is_compared_and_said_so() -> None:
    old = report(("group_overlap", "failed", (grp(),)), folder="/proj", manifest="data/manifest.csv")
    moved = report(("group_overlap", "failed", (grp(),)), folder="/elsewhere/copy", manifest="frames.csv")
    d = diff_reports(old, moved)
    assert len(d.persisting) == 1 and d.exit_code == 0
    assert d.notes == (
        "the same manifest (sha256 abababababab) at another place: proj/data/manifest.csv and copy/frames.csv",
    )
    assert mark_baseline(moved, old, path="o.json", new_only=True).exit_code == 0


def test_a_changed_manifest_of_the_same_path_is_a_note_not_a_refusal() -> None:
    old = report(("group_overlap", "failed", (grp(),)))
    assert old.manifest is not None
    new = old.model_copy(update={"manifest": old.manifest.model_copy(update={"sha256": "cd" * 32})})
    assert diff_reports(old, new).notes == (
        "the manifest changed: sha256 abababababab → cdcdcdcdcdcd (proj/data/manifest.csv)",
    )


def test_an_edited_manifest_in_another_checkout_of_the_project_is_the_same_place() -> None:
    # Approved on CI, checked on a laptop after an edit: other absolute paths, one project folder.
    ci = report(("group_overlap", "failed", (grp(),)), folder="/builds/team/proj")
    laptop = report(("group_overlap", "failed", (grp(groups=5),)), folder="/home/ana/proj", sha256="cd" * 32)
    d = diff_reports(ci, laptop)
    assert d.notes == ("the manifest changed: sha256 abababababab → cdcdcdcdcdcd (proj/data/manifest.csv)",)
    assert d.exit_code == 1 and d.persisting[0].escalated  # compared: the grown leak fails


def test_a_server_side_run_is_in_the_place_its_config_names() -> None:
    """The service names a run's paths under its data root; the folder is not joined to them a second time, and
    the place is the one an uploaded (portable) report of the same folder gives."""
    server = report(("group_overlap", "failed", (grp(),)), folder="<data root samples>/video_frames")
    assert manifest_place(server) == ("data/manifest.csv",)
    edited = server.model_copy(update={"manifest": server.manifest.model_copy(update={"sha256": "cd" * 32})})  # type: ignore[union-attr]
    assert diff_reports(server, edited).notes == (
        "the manifest changed: sha256 abababababab → cdcdcdcdcdcd (data/manifest.csv)",
    )
    uploaded = portable(report(("group_overlap", "failed", (grp(),)), folder="/home/ana/video_frames"))
    assert diff_reports(uploaded, server).notes == () and diff_reports(uploaded, edited).notes == (
        "the manifest changed: sha256 abababababab → cdcdcdcdcdcd (data/manifest.csv)",
    )


def numeric(folder: str, sha256: str | None = "12" * 32, **extra: Any) -> Report:
    """A report of the numeric checks alone (no manifest), made from ``folder``/audit.yaml."""
    made = report(("nonfinite_trace", "failed", (nan(),)), manifest=None, folder=folder)
    return made.model_copy(update={"config_sha256": sha256, **extra})


def test_numeric_reports_of_the_same_config_compare_without_a_note() -> None:
    ci, laptop = numeric("/builds/team/classifier"), numeric("/home/ana/classifier")
    assert config_place(ci) == config_place(laptop) == "classifier/audit.yaml"
    assert diff_reports(ci, laptop).notes == () and diff_reports(ci, ci).notes == ()
    # An uploaded report names its config without its folder: its file name and content are the same config.
    assert diff_reports(portable(laptop), ci).notes == ()
    assert portable(laptop).config_path == "audit.yaml"
    # Two reports with no config file at all (`audit code` on paths) have nothing to compare.
    bare = numeric("/x", None, config_path=None)
    assert diff_reports(bare, bare).notes == ()


def test_numeric_reports_of_different_configs_are_compared_with_a_note() -> None:
    """Without a manifest the config tells what was audited: compared as a manifest is, by content then place,
    but only ever noted (a config's digest changes with each edit of it)."""
    faces, voices = numeric("/data/faces"), numeric("/data/voices", "34" * 32)
    d = diff_reports(faces, voices)
    assert d.notes == (
        "the reports audit no manifest (numeric checks only) and were made from different configs: faces/audit.yaml "
        "(sha256 121212121212) and voices/audit.yaml (sha256 343434343434) (neither the content nor the place is "
        "the same): they may audit different projects",
    )
    assert len(d.persisting) == 1 and d.exit_code == 0  # a note, not a refusal
    assert "note: the reports audit no manifest (numeric checks only) and were made from different configs" in (
        render_diff_text(d)
    )
    assert mark_baseline(voices, faces, path="o.json", new_only=True).exit_code == 0
    edited = numeric("/data/faces", "34" * 32)
    assert diff_reports(faces, edited).notes == (
        "the reports audit no manifest (numeric checks only); the config changed: sha256 121212121212 → "
        "343434343434 (faces/audit.yaml)",
    )
    assert diff_reports(faces, numeric("/data/faces-copy")).notes == (
        "the reports audit no manifest (numeric checks only); the same config (sha256 121212121212) at another "
        "place: faces/audit.yaml and faces-copy/audit.yaml",
    )
    in_code = numeric("/x", None, config_path=None)
    assert "none (given in code) and faces/audit.yaml (sha256 121212121212)" in diff_reports(in_code, faces).notes[0]
    # Reports of a manifest are still told apart by it, not by their configs.
    assert diff_reports(report(folder="/data/faces"), report(folder="/data/faces")).notes == ()


# -- reading reports -----------------------------------------------------------------------------------


def test_load_report_refuses_markers_non_reports_bad_fields_and_other_versions(tmp_path: Path) -> None:
    write_marker(tmp_path / "run", RunMarker.start(None, None, "0"), [])
    with pytest.raises(ReportReadError, match="still in progress"):
        load_report(tmp_path / "run" / "report.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ReportReadError, match="list.json: not a report"):
        load_report(tmp_path / "list.json")
    data = json.loads(report(("nonfinite_trace", "failed", (nan(),))).model_dump_json())
    data["stages"][0]["findings"][0]["severity"] = "fatal"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ReportReadError, match=r"bad.json: not a valid audit report at stages.0.findings.0.severity"):
        load_report(tmp_path / "bad.json")
    data = {**json.loads(report().model_dump_json()), "schema_version": "0"}
    (tmp_path / "old.json").write_text(json.dumps(data))
    with pytest.raises(ReportReadError, match="schema version '0'; this split-auditor reads version '1'"):
        load_report(tmp_path / "old.json")


def test_a_report_round_trips_with_its_fingerprints(tmp_path: Path) -> None:
    original = report(("group_overlap", "failed", (grp(),)))
    (tmp_path / "r.json").write_text(original.model_dump_json())
    assert load_report(tmp_path / "r.json") == original


# -- baseline ------------------------------------------------------------------------------------------


def test_baseline_marks_findings_and_lists_resolved_ones() -> None:
    old = report(("group_overlap", "failed", (grp(),)), ("nonfinite_trace", "failed", (nan(),)))
    new = report(("group_overlap", "failed", (grp(groups=2), grp(writer="site"))), ("nonfinite_trace", "passed", ()))
    marked = mark_baseline(new, old, path="old.json", new_only=False)
    assert [f.baseline for f in marked.findings] == ["persisting", "new"]
    assert marked.baseline is not None and [f.code for f in marked.baseline.resolved] == ["NAN001"]
    assert (marked.baseline.new, marked.baseline.persisting) == (1, 1)
    assert marked.exit_code == 1


def test_new_only_counts_only_new_and_escalated_findings() -> None:
    old = report(("group_overlap", "failed", (grp(),)))
    same = mark_baseline(report(("group_overlap", "failed", (grp(groups=2),))), old, path="o", new_only=True)
    assert same.exit_code == 0
    assert mark_baseline(report(("group_overlap", "failed", (grp(),))), old, path="o", new_only=False).exit_code == 1
    more = report(("group_overlap", "failed", (grp(), grp(writer="site"))))
    assert mark_baseline(more, old, path="o", new_only=True).exit_code == 1
    warned = report(("group_overlap", "passed", (grp(severity=Severity.WARNING),)))
    worse = mark_baseline(report(("group_overlap", "failed", (grp(),))), warned, path="o", new_only=True)
    assert worse.findings[0].baseline == "escalated" and worse.exit_code == 1
    assert with_fail_on(same, "warning").exit_code == 0  # a new threshold keeps counting only new findings


def test_an_escalated_finding_says_why_in_its_baseline_reason() -> None:
    """`escalated` names what made it so, in `audit diff`'s words: the severity, the counts, the new values, the
    acceptance the baseline had."""

    def why(new: Report, old: Report) -> list[str | None]:
        marked = mark_baseline(new, old, path="approved.json", new_only=True)
        assert marked.exit_code == 1 and [f.baseline for f in marked.findings] == ["escalated"]
        return [f.baseline_reason for f in marked.findings]

    one = report(("group_overlap", "failed", (grp(groups=1),)))
    assert why(one, report(("group_overlap", "passed", (grp(groups=1, severity=Severity.WARNING),)))) == [
        "severity warning → error"
    ]
    assert why(report(("group_overlap", "failed", (grp(groups=2),))), one) == [
        "groups 1 → 2; pairs.train|test.groups 1 → 2"
    ]
    w1, w2 = (grp(groups=1, scope=scope_of([w], {"groups": 1})) for w in ("w1", "w2"))
    assert why(report(("group_overlap", "failed", (w2,))), report(("group_overlap", "failed", (w1,)))) == [
        "new values: w2"
    ]
    accepted = report(("group_overlap", "passed", (grp(groups=1, accepted=True, accept_reason="calibration"),)))
    assert why(one, accepted) == ["no longer accepted (was: calibration)"]
    # A finding that is no worse (fewer groups, the same) is persisting, with no reason; a new one has none.
    fewer = mark_baseline(one, report(("group_overlap", "failed", (grp(groups=2),))), path="a.json", new_only=True)
    assert [(f.baseline, f.baseline_reason) for f in fewer.findings] == [("persisting", None)]
    fresh = mark_baseline(one, report(("group_overlap", "passed", ())), path="a.json", new_only=True)
    assert [(f.baseline, f.baseline_reason) for f in fresh.findings] == [("new", None)]
    assert one.findings[0].baseline_reason is None  # no baseline, no reason


def test_new_only_never_hides_a_stage_error() -> None:
    old = report(("group_overlap", "failed", (grp(),)))
    new = report(("group_overlap", "failed", (grp(),)), ("nonfinite_trace", "error", ()))
    assert mark_baseline(new, old, path="o", new_only=True).exit_code == 2


def test_a_baseline_of_another_manifest_is_refused() -> None:
    old = report(("group_overlap", "failed", (grp(),)), manifest="other.csv", sha256="cd" * 32)
    with pytest.raises(ReportMismatchError, match="baseline o.json: the reports audit different manifests"):
        mark_baseline(report(("group_overlap", "failed", (grp(),))), old, path="o.json", new_only=True)


def test_a_finding_in_the_users_code_keeps_its_fingerprint_in_another_checkout() -> None:
    from auditor.core.findings import fingerprint

    here = fingerprint("BRD001", "broadcast", "/home/ana/repo/src/housing.py:38", {})
    there = fingerprint("BRD001", "broadcast", "/builds/ci/7/src/housing.py:38", {})
    windows = fingerprint("BRD001", "broadcast", "C:\\work\\src\\housing.py:38", {})
    assert here == there == windows
    assert fingerprint("BRD001", "broadcast", "/home/ana/repo/src/housing.py:39", {}) != here
    assert fingerprint("GRP001", "group_overlap", "writer-a", {}) != fingerprint(
        "GRP001", "group_overlap", "writer-b", {}
    )


def _leak_at(statement: str) -> Finding:
    """CDL001 at train.py:7, the line holding ``statement``."""
    return Finding(
        code="CDL001",
        stage="code_leakage",
        severity=Severity.ERROR,
        title="preprocessing fitted before the split",
        message="m",
        key="train.py:7",
        evidence={"statement": statement},
        scope=scope_of([statement]),
    )


def test_a_statement_changed_only_in_case_is_escalated_against_a_new_only_baseline() -> None:
    """`df.drop(columns='Y')` is another statement than the `'y'` in the baseline, though they spell alike."""
    reviewed = "X = StandardScaler().fit_transform(df.drop(columns='y'))"
    old = report(("code_leakage", "failed", (_leak_at(reviewed),)), manifest=None)
    changed = report(("code_leakage", "failed", (_leak_at(reviewed.replace("'y'", "'Y'")),)), manifest=None)
    marked = mark_baseline(changed, old, path="approved.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    same = mark_baseline(old, old, path="approved.json", new_only=True)
    assert [f.baseline for f in same.findings] == ["persisting"] and same.exit_code == 0


def _identified(key: str, statement: str, occurrence: int = 0) -> Finding:
    """A CDL001 at ``key`` as this version writes it: with its line-free identity."""
    found = _leak_at(statement)
    identity = {"file": "train.py", "context": "", "statement": statement[:16], "occurrence": occurrence}
    return Finding.model_validate(
        {**found.model_dump(), "key": key, "evidence": {**found.evidence, "identity": identity}}
    )


def test_an_older_report_without_identities_is_matched_on_the_place_it_named() -> None:
    """A baseline written before findings of code had an identity holds fingerprints of their key (with its
    line): a leak still at its place persists (not new, the old one not resolved); one at another place is new and
    one whose statement changed escalated, as they were before."""
    reviewed = "X = StandardScaler().fit_transform(df.drop(columns='y'))"
    # The second of two identical statements: its occurrence is no count that grew from the baseline's nothing.
    now = _identified("train.py:7", reviewed, occurrence=1)
    assert now.fingerprint != _leak_at(reviewed).fingerprint == now.keyed_fingerprint
    older = report(("code_leakage", "failed", (_leak_at(reviewed),)), manifest=None)
    newer = report(("code_leakage", "failed", (now,)), manifest=None)
    marked = mark_baseline(newer, older, path="old.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["persisting"] and marked.exit_code == 0
    assert marked.baseline is not None and marked.baseline.resolved == ()
    diff = diff_reports(older, newer)
    assert (len(diff.persisting), diff.new_findings, diff.resolved, diff.exit_code) == (1, (), (), 0)
    moved = report(("code_leakage", "failed", (_identified("train.py:8", reviewed),)), manifest=None)
    marked = mark_baseline(moved, older, path="old.json", new_only=True)
    assert [f.baseline for f in marked.findings] == ["new"] and marked.exit_code == 1
    assert marked.baseline is not None and len(marked.baseline.resolved) == 1
    changed = _identified("train.py:7", reviewed.replace("'y'", "'Y'"))
    marked = mark_baseline(
        report(("code_leakage", "failed", (changed,)), manifest=None), older, path="o", new_only=True
    )
    assert [f.baseline for f in marked.findings] == ["escalated"] and marked.exit_code == 1
    # Two reports of this version match by identity alone: the same leak two lines lower persists.
    lower = report(("code_leakage", "failed", (_identified("train.py:9", reviewed, occurrence=1),)), manifest=None)
    assert [f.baseline for f in mark_baseline(lower, newer, path="n.json", new_only=True).findings] == ["persisting"]


def test_a_report_written_before_identities_keeps_its_fingerprints_when_read_back(tmp_path: Path) -> None:
    reviewed = "X = StandardScaler().fit_transform(df.drop(columns='y'))"
    older = report(("code_leakage", "failed", (_leak_at(reviewed),)), manifest=None)
    path = tmp_path / "old.json"
    path.write_text(older.model_dump_json())
    assert [f.fingerprint for f in load_report(path).findings] == [_leak_at(reviewed).fingerprint]
    assert not load_report(path).findings[0].has_identity


def _writers_audit(tmp_path: Path, name: str, accepted: list[str], test_writers: list[str]) -> Report:
    """group_overlap of train writers w1..w9 against ``test_writers``, with ``accepted`` values under `accept`."""
    from auditor import load_config, run_audit
    from tests.conftest import write_config, write_table

    folder = tmp_path / name
    folder.mkdir()
    train = [f"w{i}" for i in range(1, 10)]
    rows = {
        "sid": [f"s{i}" for i in range(len(train) + len(test_writers))],
        "split": ["train"] * len(train) + ["test"] * len(test_writers),
        "writer": [*train, *test_writers],
    }
    write_table(folder / "m.csv", rows)
    accept = [{"code": "GRP001", "key": w, "reason": f"{w} wrote the instructions"} for w in accepted]
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
        "keys": {"groups": ["writer"]},
    }
    return run_audit(load_config(write_config(folder, {**config, "accept": accept})), only="group_overlap")


def test_an_accepted_value_whose_acceptance_is_removed_is_no_longer_accepted_not_resolved(tmp_path: Path) -> None:
    """An accepted value has its own finding; without its `accept` entry it joins the key's finding. The diff and a
    baseline said the key's finding was new and the accepted value's was resolved: a leak called fixed."""
    old = _writers_audit(tmp_path, "old", ["w8", "w9"], ["w8", "w9", "x1", "x2"])
    new = _writers_audit(tmp_path, "new", ["w8"], ["w8", "w9", "x1", "x2"])
    d = diff_reports(old, new, force=True)
    assert d.resolved == () and d.new_findings == ()
    (dropped,) = [p for p in d.persisting if p.no_longer_accepted]
    assert dropped.finding.scope.values == ("w9",) and dropped.changes == () and dropped.scope_growth is None
    marked = mark_baseline(new, old, path="approved.json", new_only=True)
    assert marked.baseline is not None and marked.baseline.resolved == ()
    (escalated,) = [f for f in marked.findings if f.baseline == "escalated"]
    assert escalated.baseline_reason == "no longer accepted (was: w9 wrote the instructions)"
    # Beside a value leaking anew, the new one is named; the value accepted before is not.
    more = _writers_audit(tmp_path, "more", ["w8"], ["w8", "w9", "w1", "x2"])
    grown = [p for p in diff_reports(old, more, force=True).persisting if p.no_longer_accepted]
    assert grown[0].scope_growth is not None and grown[0].scope_growth.new_values == ("w1",)
    # With the key's finding already there, the accepted value joins it: escalated by that value, not resolved.
    both = _writers_audit(tmp_path, "both", ["w9"], ["w9", "w1", "x2"])
    joined = _writers_audit(tmp_path, "joined", [], ["w9", "w1", "x2"])
    d = diff_reports(both, joined, force=True)
    assert d.resolved == () and d.persisting[0].scope_growth is not None
    assert d.persisting[0].scope_growth.new_values == ("w9",) and d.exit_code == 1


def test_an_accepted_value_that_left_the_test_split_is_resolved_beside_another_leak(tmp_path: Path) -> None:
    old = _writers_audit(tmp_path, "old", ["w9"], ["w9", "x1"])
    new = _writers_audit(tmp_path, "new", [], ["w7", "x1"])  # w9 gone from test, w7 leaking anew
    d = diff_reports(old, new, force=True)
    assert [f.scope.values for f in d.resolved] == [("w9",)]
    assert [f.scope.values for f in d.new_findings] == [("w7",)]
