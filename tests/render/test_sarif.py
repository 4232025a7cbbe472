"""SARIF output: valid against the official 2.1.0 schema, one result per finding, stage errors as notifications."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor import run_audit
from auditor.core.config import ReportSpec
from auditor.core.findings import Finding, Report, Severity, StageError, StageResult, exit_code_for, summarize
from auditor.render import FILE_RENDERERS, render_sarif
from auditor.render.sarif import BASE_ID, FINGERPRINT_ID, installed_stages
from tests.conftest import REPO

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)

# Numeric samples run only the stages whose findings name the user's lines, to keep the suite quick.
SAMPLES: dict[str, list[str] | None] = {
    "handwriting": None,
    "video_frames": None,
    "clinic": None,
    "numeric/regression/buggy": ["broadcast", "detached_graph", "nonfinite_trace"],
    "numeric/language_model/buggy": ["stable_softmax", "token_alignment"],
}


class Samples:
    """Each sample audited once per process from a copy, on first use, so nothing is written into the repository."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.done: dict[str, Report] = {}

    def __getitem__(self, name: str) -> Report:
        if name not in self.done:
            target = self.root / name
            shutil.copytree(REPO / "sample_data" / name, target, ignore=shutil.ignore_patterns("audit-report"))
            self.done[name] = run_audit(target / "audit.yaml", only=SAMPLES[name])
        return self.done[name]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Samples:
    return Samples(tmp_path_factory.mktemp("sarif"))


def sarif(report: Report) -> dict[str, Any]:
    log = json.loads(render_sarif(report))
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    return log


def results_of(log: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [r for r in log["runs"][0]["results"] if r["ruleId"] == code]


def notes_of(log: dict[str, Any], code: str) -> list[dict[str, Any]]:
    """The tool execution notifications of findings of ``code`` (infos, and findings that name no file)."""
    notes = log["runs"][0]["invocations"][0].get("toolExecutionNotifications", [])
    return [n for n in notes if n.get("associatedRule", {}).get("id") == code]


def alerts(report: Report) -> list[Finding]:
    """The findings that are results (code-scanning alerts): the errors and warnings."""
    return [f for f in report.findings if f.severity is not Severity.INFO]


def with_stage(report: Report, stage: StageResult) -> Report:
    stages = (*report.stages, stage)
    return report.model_copy(
        update={"stages": stages, "summary": summarize(stages), "exit_code": exit_code_for(stages, report.fail_on)}
    )


@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_sample_report_is_valid_sarif_with_a_result_per_error_or_warning(reports: Samples, name: str) -> None:
    report = reports[name]
    log = sarif(report)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == [f.code for f in alerts(report)]
    assert [r["message"]["text"] for r in run["results"]] == [f.message for f in alerts(report)]
    notes = run["invocations"][0].get("toolExecutionNotifications", [])
    infos = [f for f in report.findings if f.severity is Severity.INFO]
    assert [n["message"]["text"] for n in notes if "associatedRule" in n] == [f.message for f in infos]
    assert run["invocations"][0]["exitCode"] == report.exit_code == 1
    assert run["invocations"][0]["executionSuccessful"] is True


def test_rule_ids_are_the_codes_titled_from_the_stage_catalogue(reports: Samples) -> None:
    report = reports["video_frames"]
    stage = next(r for r in report.stages if r.findings)
    retitled = stage.findings[0].model_copy(update={"title": "a title of this one finding"})
    changed = stage.model_copy(update={"findings": (retitled, *stage.findings[1:])})
    report = report.model_copy(update={"stages": tuple(changed if r is stage else r for r in report.stages)})
    rules = sarif(report)["runs"][0]["tool"]["driver"]["rules"]
    catalogue = installed_stages()
    assert [r["id"] for r in rules] == list(dict.fromkeys(f.code for f in report.findings))
    for rule in rules:
        stage_name = rule["properties"]["stage"]
        assert rule["shortDescription"]["text"] == rule["name"] == catalogue[stage_name].codes[rule["id"]]
    with_help = {r["id"]: r["help"]["text"] for r in rules if "help" in r}
    assert with_help["GRP003"] == next(f.remediation for f in report.findings if f.code == "GRP003")


def test_results_point_at_their_rule_and_level_follows_severity(reports: Samples) -> None:
    run = sarif(reports["video_frames"])["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert (levels["UPS001"], levels["TMP001"]) == ("error", "warning")
    assert "SPL000" not in levels and [n["level"] for n in notes_of({"runs": [run]}, "SPL000")] == ["note"]


def test_an_info_finding_is_a_note_with_its_files_never_an_alert(reports: Samples) -> None:
    """Code scanning opens an alert for every result, a `note` one too: an info (a fact for the record, which no
    fail_on fails on) uploaded at every run would be an alert nobody can fix."""
    report = reports["handwriting"]
    infos = [f for f in report.findings if f.severity is Severity.INFO]
    assert {"SPL000", "LAB000"} <= {f.code for f in infos}
    log = sarif(report)
    assert not [r for r in log["runs"][0]["results"] if r["level"] == "note"]
    for code in ("SPL000", "LAB000"):
        assert results_of(log, code) == []
        (note,) = notes_of(log, code)
        rules = log["runs"][0]["tool"]["driver"]["rules"]
        assert rules[note["associatedRule"]["index"]]["id"] == code and note["level"] == "note"
        assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "manifest.csv"
    # The warnings and errors are alerts as before.
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["GRP001"] == [f.code for f in alerts(report)]


def test_numeric_findings_carry_the_users_file_and_line(reports: Samples) -> None:
    source = (REPO / "sample_data/numeric/regression/buggy/src/housing.py").read_text(encoding="utf-8").splitlines()

    def line(text: str) -> int:
        return next(i for i, s in enumerate(source, start=1) if text in s)

    log = sarif(reports["numeric/regression/buggy"])
    expected = {"BRD001": line("(pred - target) ** 2"), "NAN001": line("torch.log(x)")}
    for code, lineno in expected.items():
        (result,) = results_of(log, code)
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "src/housing.py", "uriBaseId": BASE_ID}
        assert physical["region"] == {"startLine": lineno}
    (shape_only,) = results_of(log, "BRD003")  # no line of its own: the config that names the code
    assert shape_only["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "audit.yaml"


def test_findings_without_a_line_point_at_the_manifest_artifact_or_config(reports: Samples) -> None:
    def uri(log: dict[str, Any], code: str) -> str:
        location: str = results_of(log, code)[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        return location

    hand = sarif(reports["handwriting"])
    assert uri(hand, "GRP001") == "manifest.csv"
    config_dir = Path(reports["handwriting"].config_path or "").parent
    assert hand["runs"][0]["originalUriBaseIds"][BASE_ID]["uri"] == config_dir.as_uri() + "/"
    assert uri(sarif(reports["clinic"]), "FIT001") == "artifacts/scaler.json"
    video = results_of(sarif(reports["video_frames"]), "SPL009")[0]["locations"][0]["physicalLocation"]
    assert video["artifactLocation"]["uri"] == "audit.yaml" and video["region"]["startLine"] > 0


def test_a_file_outside_the_config_folder_gets_an_absolute_uri(reports: Samples, tmp_path: Path) -> None:
    report = reports["handwriting"]
    elsewhere = tmp_path / "shared data" / "manifest.csv"
    assert report.manifest is not None
    moved = report.model_copy(update={"manifest": report.manifest.model_copy(update={"paths": (str(elsewhere),)})})
    location = results_of(sarif(moved), "GRP001")[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": elsewhere.as_uri()} and "%20" in location["uri"]


def test_a_stage_error_is_a_notification_not_a_result(reports: Samples) -> None:
    broken = StageResult(
        stage="temporal_order",
        status="error",
        duration_s=0.1,
        error=StageError(type="ValueError", message="cannot parse '2024-13-01'", traceback="Traceback ..."),
    )
    report = with_stage(reports["handwriting"], broken)
    invocation = sarif(report)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    (note,) = [n for n in invocation["toolExecutionNotifications"] if n["level"] == "error"]
    assert note["properties"]["stage"] == "temporal_order"
    assert "temporal_order" in note["message"]["text"] and "cannot parse '2024-13-01'" in note["message"]["text"]
    assert all(r["properties"]["stage"] != "temporal_order" for r in sarif(report)["runs"][0]["results"])


def test_skipped_stages_are_notes_never_results(reports: Samples) -> None:
    report = reports["handwriting"]
    skipped = {r.stage for r in report.stages if r.status == "skipped"}
    run = sarif(report)["runs"][0]
    assert skipped and not skipped & {r["properties"]["stage"] for r in run["results"]}
    notes = run["invocations"][0]["toolConfigurationNotifications"]
    assert {n["properties"]["stage"] for n in notes} == skipped and {n["level"] for n in notes} == {"note"}


def test_a_run_where_nothing_was_audited_is_not_successful(reports: Samples) -> None:
    report = reports["handwriting"]
    stages = tuple(r.model_copy(update={"status": "skipped", "findings": ()}) for r in report.stages)
    empty = report.model_copy(update={"stages": stages, "exit_code": exit_code_for(stages, report.fail_on)})
    invocation = sarif(empty)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert "nothing was audited" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_an_accepted_finding_is_suppressed_with_its_reason(reports: Samples) -> None:
    report = reports["handwriting"]
    stage = next(r for r in report.stages if r.stage == "group_overlap")
    accepted = stage.findings[0].model_copy(update={"accepted": True, "accept_reason": "writer-a calibrates"})
    stages = tuple(r.model_copy(update={"findings": (accepted,)}) if r is stage else r for r in report.stages)
    log = sarif(report.model_copy(update={"stages": stages}))
    (result,) = results_of(log, "GRP001")
    assert result["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "writer-a calibrates"}
    ]
    assert all("suppressions" not in r for r in log["runs"][0]["results"] if r["ruleId"] != "GRP001")


def test_partial_fingerprints_carry_the_findings_fingerprint(reports: Samples) -> None:
    report = reports["video_frames"]
    prints = [r["partialFingerprints"][FINGERPRINT_ID] for r in sarif(report)["runs"][0]["results"]]
    assert prints == [f.fingerprint for f in alerts(report)] and all(prints)


def test_sarif_is_a_report_format_written_as_report_sarif() -> None:
    assert FILE_RENDERERS["sarif"] == (render_sarif, "report.sarif")
    assert ReportSpec(formats=["sarif"]).formats == ["sarif"]


def test_sarif_is_deterministic(reports: Samples) -> None:
    assert render_sarif(reports["video_frames"]) == render_sarif(reports["video_frames"])


def test_a_finding_of_no_installed_stage_keeps_its_title_and_points_at_the_config(reports: Samples) -> None:
    report = reports["handwriting"]
    stage = next(r for r in report.stages if r.findings)
    stale = stage.findings[0].model_copy(update={"code": "ACC001", "stage": "accept", "title": "stale accept entry"})
    stages = (*report.stages, StageResult(stage="accept", status="failed", duration_s=0.0, findings=(stale,)))
    log = sarif(report.model_copy(update={"stages": stages}))
    rule = next(r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "ACC001")
    assert rule["name"] == "stale accept entry"
    (result,) = results_of(log, "ACC001")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "audit.yaml"


@pytest.mark.parametrize("name", ["handwriting", "video_frames", "clinic"])
def test_every_location_has_a_start_line_the_whole_file_ones_line_1(reports: Samples, name: str) -> None:
    run = sarif(reports[name])["runs"][0]
    locations = [loc for r in run["results"] for loc in (*r["locations"], *r.get("relatedLocations", ()))]
    assert locations and all(loc["physicalLocation"]["region"]["startLine"] >= 1 for loc in locations)
    log = sarif(reports[name])
    for located in (*results_of(log, "GRP001"), *notes_of(log, "SPL000")):
        assert located["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert notes_of(log, "SPL000")
