"""The review rules on both backends: acceptances by fingerprint that persist and expire, approval overrides,
the latest decision as the gate, and the diff against the last approved run."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from auditor import run_audit
from auditor.core.findings import Report
from auditor.core.scope import normalise_spelling, set_digest, spelling_set_digest
from auditor.render.json import render_json
from auditor.service import store
from auditor.service.app import create_app
from auditor.service.auth import Principal, Role
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.review import unaccepted_failing, with_acceptances
from tests.service.conftest import SAMPLES
from tests.service.leaks import (
    camera_report,
    dotted_report,
    finding,
    spelling_report,
    two_column_report,
    writer_report,
)


@cache
def sample_report() -> dict[str, Any]:
    report = run_audit(SAMPLES / "video_frames" / "audit.yaml")
    return json.loads(render_json(report))


def without(report: dict[str, Any], code: str) -> dict[str, Any]:
    """The report with every finding of ``code`` gone, as if the data had been fixed."""
    copy = json.loads(json.dumps(report))
    for stage in copy["stages"]:
        stage["findings"] = [f for f in stage["findings"] if f["code"] != code]
    return copy


@pytest.fixture
def engine_url(tmp_path: Path, database: str | None) -> str:
    url = database or sqlite_url(tmp_path)
    upgrade(url)
    return url


@pytest.fixture
def clients(engine_url: str) -> Iterator[dict[str, TestClient]]:
    """One client per role, all limited to project `demo`, plus an admin for every project."""
    engine = make_engine(engine_url)
    app = create_app(ServiceContext(engine=engine, public_url="http://testserver"))
    tokens = {
        role.value: store.create_token(engine, name=f"{role.value}-1", role=role, project="demo", created_by="test")
        for role in Role
    }
    with TestClient(app) as base:
        made = {}
        for role, token in tokens.items():
            c = TestClient(app)
            c.headers["Authorization"] = f"Bearer {token}"
            made[role] = c
        made["reviewer"].post("/api/projects", json={"name": "demo"})
        yield made
        del base
    engine.dispose()


def submit(c: TestClient, report: dict[str, Any]) -> dict[str, Any]:
    made = c.post("/api/projects/demo/runs", json={"report": report})
    assert made.status_code == 201, made.text
    return dict(made.json())


def review(c: TestClient, run: int, **body: Any) -> Any:
    return c.post(f"/api/projects/demo/runs/{run}/reviews", json=body)


def fingerprints(c: TestClient, run: int, code: str) -> list[str]:
    report = c.get(f"/api/projects/demo/runs/{run}/report").json()
    return [f["fingerprint"] for s in report["stages"] for f in s["findings"] if f["code"] == code]


def test_an_accepted_finding_stays_accepted_in_later_runs_while_its_fingerprint_persists(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    first = submit(clients["submitter"], sample_report())
    errors_before = first["effective"]["errors"]
    (fp,) = fingerprints(rev, first["id"], "TMP002")
    assert review(rev, first["id"], action="accept", fingerprint=fp, comment="cam-B was re-shot").status_code == 201
    assert rev.get(f"/api/projects/demo/runs/{first['id']}").json()["effective"]["errors"] == errors_before - 1

    second = submit(clients["submitter"], sample_report())
    assert second["effective"]["errors"] == errors_before - 1
    found = rev.get(f"/api/projects/demo/runs/{second['id']}/report").json()
    accepted = [f for s in found["stages"] for f in s["findings"] if f["fingerprint"] == fp]
    assert accepted[0]["accepted"] is True and "cam-B was re-shot" in accepted[0]["accept_reason"]
    # The report as submitted is kept: its own exit code and counts are not rewritten.
    assert second["exit_code"] == 1


def test_an_acceptance_is_not_in_force_after_it_expires(clients, engine_url) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())
    (fp,) = fingerprints(rev, run["id"], "TMP002")
    until = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    made = review(
        rev, run["id"], action="accept", fingerprint=fp, comment="until re-shoot", expires_at=until.isoformat()
    )
    assert made.status_code == 201, made.text
    engine = make_engine(engine_url)
    try:
        project = store.get_project(engine, "demo")
        assert fp in store.acceptances(engine, project, store.now())
        assert fp not in store.acceptances(engine, project, until + dt.timedelta(seconds=1))
    finally:
        engine.dispose()
    past = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)).isoformat()
    refused = review(rev, run["id"], action="accept", fingerprint=fp, comment="x", expires_at=past)
    assert refused.status_code == 422 and "past" in refused.json()["detail"]


@pytest.mark.parametrize("hours", [14, -12])
def test_an_expiry_with_a_utc_offset_is_the_instant_it_names(clients, engine_url, hours) -> None:  # type: ignore[no-untyped-def]
    """2026-12-05T04:43:50+14:00 is 14:43:50 UTC the day before: stored without its offset it lasted 14 h longer."""
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())
    (fp,) = fingerprints(rev, run["id"], "TMP002")
    until = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(microsecond=0)
    local = until.astimezone(dt.timezone(dt.timedelta(hours=hours)))
    made = review(
        rev, run["id"], action="accept", fingerprint=fp, comment="until re-shoot", expires_at=local.isoformat()
    )
    assert made.status_code == 201, made.text
    assert dt.datetime.fromisoformat(made.json()["expires_at"]) == until
    (kept,) = [r for r in rev.get(f"/api/projects/demo/runs/{run['id']}/reviews").json() if r["action"] == "accept"]
    assert dt.datetime.fromisoformat(kept["expires_at"]) == until
    engine = make_engine(engine_url)
    try:
        project = store.get_project(engine, "demo")
        assert fp in store.acceptances(engine, project, until - dt.timedelta(seconds=1))
        assert fp not in store.acceptances(engine, project, until + dt.timedelta(seconds=1))
    finally:
        engine.dispose()


INVISIBLE = ["\u2800", "\u200b", "\u3164", "\u115f\u1160", "\uffa0", " \u00a0\u200b\ufeff\u2060 ", "\u034f\ufe0f"]


@pytest.mark.parametrize("blank", INVISIBLE, ids=lambda text: "+".join(f"U{ord(c):04X}" for c in text))
def test_an_invisible_reason_is_no_reason(clients, blank) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())["id"]
    (fp,) = fingerprints(rev, run, "TMP002")
    override = review(rev, run, action="approve", comment="ok", override_reason=blank)
    assert override.status_code == 422 and "override_reason" in override.json()["detail"], override.text
    accept = review(rev, run, action="accept", fingerprint=fp, comment=blank)
    assert accept.status_code == 422 and "reason" in accept.json()["detail"], accept.text
    for action in ("request_changes", "comment"):
        refused = review(rev, run, action=action, comment=blank)
        assert refused.status_code == 422 and "needs a comment" in refused.json()["detail"], refused.text
    assert rev.get(f"/api/projects/demo/runs/{run}/reviews").json() == []
    assert rev.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is False
    assert review(rev, run, action="approve", comment="ok", override_reason=f"{blank}pilot{blank}").status_code == 201


def test_accepting_needs_a_reason_and_a_finding_of_the_run(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())
    (fp,) = fingerprints(rev, run["id"], "TMP002")
    no_reason = review(rev, run["id"], action="accept", fingerprint=fp, comment="  ")
    assert no_reason.status_code == 422 and "reason" in no_reason.json()["detail"]
    unknown = review(rev, run["id"], action="accept", fingerprint="0" * 16, comment="fine")
    assert unknown.status_code == 422 and "no finding" in unknown.json()["detail"]


def test_approval_with_unaccepted_failing_needs_an_override_reason(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())
    refused = review(rev, run["id"], action="approve", comment="looks fine")
    assert refused.status_code == 422
    assert "unaccepted error" in refused.json()["detail"] and "override_reason" in refused.json()["detail"]
    assert rev.get(f"/api/projects/demo/runs/{run['id']}/gate").json()["approved"] is False
    report = rev.get(f"/api/projects/demo/runs/{run['id']}/report").json()
    for f in (f for s in report["stages"] for f in s["findings"] if f["severity"] == "error"):
        ok = review(rev, run["id"], action="accept", fingerprint=f["fingerprint"], comment="known, tracked")
        assert ok.status_code == 201, ok.text
    # Every error accepted: approval needs no override any more.
    assert review(rev, run["id"], action="approve", comment="all accepted").status_code == 201
    assert rev.get(f"/api/projects/demo/runs/{run['id']}/gate").json()["approved"] is True


def test_the_latest_decision_is_the_gate_and_the_history_keeps_every_record(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())["id"]
    assert review(rev, run, action="approve", comment="ok", override_reason="pilot").status_code == 201
    reason = rev.get(f"/api/projects/demo/runs/{run}/gate").json()["reason"]
    assert "overriding: pilot" in reason and "uploaded from the submitter's machine" in reason, reason
    assert review(rev, run, action="request_changes", comment="the camera split is wrong").status_code == 201
    gate = rev.get(f"/api/projects/demo/runs/{run}/gate").json()
    assert gate["approved"] is False and "the camera split is wrong" in gate["reason"]
    history = rev.get(f"/api/projects/demo/runs/{run}/reviews").json()
    assert [h["action"] for h in history] == ["approve", "request_changes"]
    assert history[0]["override_reason"] == "pilot" and history[0]["actor"] == "reviewer-1"
    trail = rev.get("/api/projects/demo/trail").json()
    assert [h["id"] for h in trail] == sorted((h["id"] for h in history), reverse=True)


def test_review_records_cannot_be_changed_or_removed_through_the_api(clients) -> None:  # type: ignore[no-untyped-def]
    spec = clients["admin"].get("/openapi.json").json()
    methods = {m for item in spec["paths"].values() for m in item}
    assert methods <= {"get", "post"}, methods


def test_a_submitter_cannot_decide_or_accept(clients) -> None:  # type: ignore[no-untyped-def]
    sub = clients["submitter"]
    run = submit(sub, sample_report())["id"]
    assert review(sub, run, action="approve", comment="mine", override_reason="x").status_code == 403
    assert review(sub, run, action="comment", comment="please look at TMP002").status_code == 201


def test_the_diff_is_against_the_last_approved_run(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    first = submit(clients["submitter"], sample_report())["id"]
    assert rev.get(f"/api/projects/demo/runs/{first}/diff").status_code == 409  # nothing approved yet
    assert review(rev, first, action="approve", comment="baseline", override_reason="pilot").status_code == 201
    unapproved = submit(clients["submitter"], sample_report())["id"]
    fixed = submit(clients["submitter"], without(sample_report(), "TMP002"))["id"]
    d = rev.get(f"/api/projects/demo/runs/{fixed}/diff").json()
    assert d["old"]["path"] == f"run {first}"  # the approved run, not the newer unapproved one
    assert [f["code"] for f in d["resolved"]] == ["TMP002"]
    assert d["new_findings"] == []
    assert unapproved != first
    md = rev.get(f"/api/projects/demo/runs/{fixed}/diff", params={"format": "markdown"})
    assert md.status_code == 200 and "TMP002" in md.text


def test_a_report_without_a_verdict_cannot_be_approved_without_override(clients) -> None:  # type: ignore[no-untyped-def]
    broken = json.loads(json.dumps(sample_report()))
    for stage in broken["stages"]:
        stage["findings"] = []
        if stage["status"] != "skipped":
            stage["status"] = "error"
            stage["error"] = {"type": "RuntimeError", "message": "boom", "traceback": ""}
    run = submit(clients["submitter"], broken)["id"]
    refused = review(clients["reviewer"], run, action="approve", comment="fine")
    assert refused.status_code == 422 and "no verdict" in refused.json()["detail"]


def test_an_uploaded_report_cannot_claim_a_verdict_its_findings_contradict(clients) -> None:  # type: ignore[no-untyped-def]
    forged = json.loads(json.dumps(sample_report()))
    forged["exit_code"] = 0
    forged["summary"] = {**forged["summary"], "errors": 0, "warnings": 0, "stages_failed": 0}
    for stage in forged["stages"]:
        if stage["status"] == "failed":
            stage["status"] = "passed"
    run = submit(clients["submitter"], forged)
    assert run["exit_code"] == 1 and run["effective"]["errors"] == sample_report()["summary"]["errors"]
    stored = clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/report").json()
    assert stored["exit_code"] == 1
    assert {s["stage"] for s in stored["stages"] if s["status"] == "failed"} == {
        s["stage"] for s in sample_report()["stages"] if s["status"] == "failed"
    }


def test_a_config_uploaded_with_a_report_must_be_the_config_it_audited(clients) -> None:  # type: ignore[no-untyped-def]
    """A report ties itself to its config by config_sha256: one without it, or with another config's, is refused
    with a config, so the gate can never pass for a config no audit read."""
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    unrelated = "version: 1\nmanifest: {path: other.csv, split: split}\n"
    unsigned = {**sample_report(), "config_sha256": None}
    for report, text in ((unsigned, unrelated), (unsigned, config), (sample_report(), unrelated)):
        refused = clients["submitter"].post("/api/projects/demo/runs", json={"report": report, "config": text})
        assert refused.status_code == 422 and "config_sha256" in refused.json()["detail"], refused.text
    made = clients["submitter"].post("/api/projects/demo/runs", json={"report": sample_report(), "config": config})
    assert made.status_code == 201 and made.json()["config_sha256"] == sample_report()["config_sha256"]
    # A report made in code from a DataFrame has no config file: without a config it is stored, tied to none.
    assert submit(clients["submitter"], unsigned)["config_sha256"] is None


def test_a_report_uploaded_without_its_config_never_passes_a_gate_that_names_a_config(clients, engine_url) -> None:  # type: ignore[no-untyped-def]
    """Its config_sha256 is the report's unverified word: any report can name any config's digest."""
    rev, report = clients["reviewer"], sample_report()
    digests = {"config_sha256": report["config_sha256"], "manifest_sha256": report["manifest"]["sha256"]}
    alone = submit(clients["submitter"], report)
    assert alone["config_sha256"] is None  # tied to no config
    # A run stored with the report's own digest and no config (as uploads were once stored) is tied to none too.
    engine = make_engine(engine_url)
    try:
        parsed = Report.model_validate(report)
        kept = store.add_report(
            engine,
            store.get_project(engine, "demo"),
            report_json=parsed.model_dump_json(),
            summary=(1, 0, 0),
            exit_code=1,
            config_text=None,
            config_sha256=report["config_sha256"],
            manifest_sha256=report["manifest"]["sha256"],
            submitted_by="test",
        )
    finally:
        engine.dispose()
    approve = {"action": "approve", "comment": "ok", "override_reason": "known leaks, pilot run"}
    for run in (alone["id"], kept.id):
        assert review(rev, run, **approve).status_code == 201
        assert rev.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is True
        gate = rev.get(f"/api/projects/demo/runs/{run}/gate", params=digests).json()
        assert gate["approved"] is False and "uploaded without its config" in gate["reason"], gate
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    tied = clients["submitter"].post("/api/projects/demo/runs", json={"report": report, "config": config}).json()
    assert tied["config_sha256"] == report["config_sha256"]
    assert review(rev, tied["id"], **approve).status_code == 201
    assert rev.get(f"/api/projects/demo/runs/{tied['id']}/gate", params=digests).json()["approved"] is True


def _nested(report: dict[str, Any], depth: int) -> dict[str, Any]:
    """``report`` with one evidence field of its GRP001 finding nested ``depth`` lists deep."""
    forged = json.loads(json.dumps(report))
    (grp,) = [f for s in forged["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    grp["evidence"]["x"] = json.loads("[" * depth + "]" * depth)
    return forged


def test_a_report_nested_too_deep_to_read_back_is_refused_and_a_stored_one_breaks_no_list(  # type: ignore[no-untyped-def]
    clients, engine_url, tmp_path
) -> None:
    rev, report = clients["reviewer"], writer_report(tmp_path, {"w1": 1})
    refused = clients["submitter"].post("/api/projects/demo/runs", json={"report": _nested(report, 200)})
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert "stages.0.findings.0.evidence.x.0.0.0.0.0.0.…: nested more than 64 levels deep" in detail, detail
    assert "pydantic" not in detail
    assert rev.get("/api/projects/demo/runs").json() == []

    # A report stored before uploads were read back: it reads as unreadable, the rest of the project as before.
    good = submit(clients["submitter"], report)["id"]
    engine = make_engine(engine_url)
    try:
        bad = store.add_report(
            engine,
            store.get_project(engine, "demo"),
            report_json=Report.model_validate(_nested(report, 200)).model_dump_json(),
            summary=(1, 0, 0),
            exit_code=1,
            config_text=None,
            config_sha256=None,
            manifest_sha256=None,
            submitted_by="test",
        ).id
    finally:
        engine.dispose()
    listed = rev.get("/api/projects/demo/runs")
    assert listed.status_code == 200, listed.text
    runs = {r["id"]: r for r in listed.json()}
    assert runs[good]["effective"]["errors"] == 1
    assert runs[bad]["effective"] is None and "stored report cannot be read" in runs[bad]["error"]
    one = rev.get(f"/api/projects/demo/runs/{bad}")
    assert one.status_code == 200 and "stored report cannot be read" in one.json()["error"]
    for path in (f"runs/{bad}/report", f"runs/{bad}/diff?against={good}", f"runs/{good}/diff?against={bad}"):
        answer = rev.get(f"/api/projects/demo/{path}")
        assert answer.status_code == 409, (path, answer.text)
        assert f"run {bad}: its stored report cannot be read" in answer.json()["detail"]
        assert "pydantic" not in answer.text and '"input"' not in answer.text
    approve = review(rev, bad, action="approve", comment="ok", override_reason="x")
    assert approve.status_code == 409 and "cannot be read" in approve.json()["detail"]
    # Approved before it became unreadable: nothing tells what the approval covered, so the gate does not pass.
    engine = make_engine(engine_url)
    try:
        project = store.get_project(engine, "demo")
        who = Principal(token_id=0, name="reviewer-0", role=Role.REVIEWER, project="demo")
        store.add_review(
            engine,
            store.get_run(engine, "demo", bad),
            project,
            who,
            action="approve",
            comment="ok",
            override_reason="x",
        )
    finally:
        engine.dispose()
    gated = rev.get(f"/api/projects/demo/runs/{bad}/gate").json()
    assert gated["approved"] is False and "stored report cannot be read" in gated["reason"], gated


def _upload(c: TestClient, report: dict[str, Any], config: Path | None = None) -> Any:
    body = {"report": report} if config is None else {"report": report, "config": config.read_text()}
    return c.post("/api/projects/demo/runs", json=body)


def test_an_accept_entry_in_the_submitted_config_does_not_spare_the_reviewer(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    accept = [{"code": "GRP001", "key": "w1", "reason": "w1 is the calibration writer"}]
    report = writer_report(tmp_path, {"w1": 1}, accept=accept)
    made = _upload(clients["submitter"], report, tmp_path / "audit.yaml")
    assert made.status_code == 201, made.text
    run = made.json()
    assert run["effective"]["errors"] == 0 and run["exit_code"] == 0  # shown as the config accepted it
    assert finding(clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/report").json(), "GRP001")["accepted"]
    refused = review(clients["reviewer"], run["id"], action="approve", comment="ok")
    assert refused.status_code == 422 and "unaccepted error" in refused.json()["detail"]


def _forged(report: dict[str, Any], code: str, **fields: Any) -> dict[str, Any]:
    """``report`` with ``fields`` of its ``code`` findings edited after the audit."""
    forged = json.loads(json.dumps(report))
    for f in (f for s in forged["stages"] for f in s["findings"] if f["code"] == code):
        f.update(fields)
    return forged


@pytest.mark.parametrize("with_config", [True, False])
def test_a_severity_edited_below_what_its_code_is_reported_at_is_refused(clients, tmp_path, with_config) -> None:  # type: ignore[no-untyped-def]
    """GRP001 is an error wherever it is found: the same finding as info would pass the run and its approval."""
    report = writer_report(tmp_path, {"w1": 1})
    config = tmp_path / "audit.yaml" if with_config else None
    for lower in ("info", "warning"):
        refused = _upload(clients["submitter"], _forged(report, "GRP001", severity=lower), config)
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "(GRP001)" in detail and f"severity '{lower}'" in detail and "below 'error'" in detail, detail
    assert clients["reviewer"].get("/api/projects/demo/runs").json() == []
    assert _upload(clients["submitter"], report, config).json()["exit_code"] == 1  # as the audit wrote it


@pytest.mark.parametrize("with_config", [True, False])
def test_a_report_run_with_fail_on_never_or_new_only_is_judged_as_its_config_fails(  # type: ignore[no-untyped-def]
    clients, tmp_path, with_config
) -> None:
    """`--fail-on never` and `--baseline --new-only` are a CI run's choices: the server's verdict counts every
    finding at the config's threshold (or the stricter one the report used)."""
    report = writer_report(tmp_path, {"w1": 1})
    config = tmp_path / "audit.yaml" if with_config else None
    lax = dict(json.loads(json.dumps(report)), fail_on="never", exit_code=0)
    made = _upload(clients["submitter"], lax, config)
    assert made.status_code == 201, made.text
    assert made.json()["exit_code"] == 1


@pytest.mark.parametrize("with_config", [True, False])
def test_a_finding_is_accepted_only_by_the_verified_config_never_by_its_own_flag(  # type: ignore[no-untyped-def]
    clients, tmp_path, with_config
) -> None:
    report = writer_report(tmp_path, {"w1": 1})
    config = tmp_path / "audit.yaml" if with_config else None
    forged = _forged(report, "GRP001", accepted=True, accept_reason="fine by me")
    made = _upload(clients["submitter"], forged, config)
    assert made.status_code == 201, made.text
    run = made.json()
    assert run["exit_code"] == 1 and run["effective"]["errors"] == 1 and run["effective"]["accepted"] == 0
    shown = clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/report").json()
    assert shown["exit_code"] == 1 and not finding(shown, "GRP001")["accepted"]
    assert finding(shown, "GRP001")["accept_reason"] is None
    refused = review(clients["reviewer"], run["id"], action="approve", comment="ok")
    assert refused.status_code == 422 and "GRP001" in refused.json()["detail"]


def test_a_config_accepting_fewer_values_than_the_report_claims_escalates(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The config accepts w1; the finding (w1 and w2) marked accepted as a whole is escalated by w2."""
    accept = [{"code": "GRP001", "values": ["w1"], "reason": "w1 is the calibration writer"}]
    report = writer_report(tmp_path, {"w1": 1, "w2": 1}, accept=accept)
    assert not finding(report, "GRP001")["accepted"]
    forged = _forged(report, "GRP001", accepted=True, escalated=None)
    run = _upload(clients["submitter"], forged, tmp_path / "audit.yaml").json()
    assert run["exit_code"] == 1
    shown = finding(clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/report").json(), "GRP001")
    assert not shown["accepted"] and shown["escalated"]["new_values"] == ["w2"]


def test_a_config_accepting_a_value_of_one_column_does_not_accept_it_in_another(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The config accepts writer x1; source x1, forged as accepted in the upload, counts; a config naming x1 with no
    column accepts it in neither column."""
    entry = {"code": "GRP001", "key": "x1", "reason": "the calibration writer"}
    report = two_column_report(tmp_path / "one", accept=[dict(entry, column="writer")])
    forged = _forged(report, "GRP001", accepted=True, accept_reason="fine by me")
    run = _upload(clients["submitter"], forged, tmp_path / "one" / "audit.yaml").json()
    shown = clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/report").json()
    grp = [f for s in shown["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    assert [(f["evidence"]["key"], f["accepted"]) for f in grp] == [("writer", True), ("source", False)]
    assert run["exit_code"] == 1
    bare = two_column_report(tmp_path / "bare", accept=[entry])
    run = _upload(clients["submitter"], _forged(bare, "GRP001", accepted=True), tmp_path / "bare" / "audit.yaml")
    shown = clients["reviewer"].get(f"/api/projects/demo/runs/{run.json()['id']}/report").json()
    assert run.json()["exit_code"] == 1
    assert not any(f["accepted"] for s in shown["stages"] for f in s["findings"] if f["code"] == "GRP001")


def test_listing_runs_costs_the_same_queries_for_5_runs_as_for_1(engine_url) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import event

    engine = make_engine(engine_url)
    app = create_app(ServiceContext(engine=engine, public_url="http://testserver"))
    token = store.create_token(engine, name="r", role=Role.REVIEWER, project=None, created_by="test")
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as c:
            c.post("/api/projects", json={"name": "demo"})
            counts = []
            for n in (1, 5):
                while len(c.get("/api/projects/demo/runs").json()) < n:
                    submit(c, sample_report())
                c.get("/api/projects/demo/runs")  # reports parsed once, then kept
                statements.clear()
                listed = c.get("/api/projects/demo/runs").json()
                assert len(listed) == n
                counts.append(len(statements))
        assert counts[0] == counts[1], counts
    finally:
        engine.dispose()


def test_two_reviewers_of_one_name_are_told_apart_by_their_token(clients, engine_url) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(engine_url)
    try:
        twin = store.create_token(engine, name="reviewer-1", role=Role.REVIEWER, project="demo", created_by="test")
    finally:
        engine.dispose()
    run = submit(clients["submitter"], sample_report())
    assert run["submitted_by_token"] is not None
    review(clients["reviewer"], run["id"], action="comment", comment="first")
    other = TestClient(clients["reviewer"].app, headers={"Authorization": f"Bearer {twin}"})
    assert other.post(f"/api/projects/demo/runs/{run['id']}/reviews", json={"action": "comment", "comment": "second"})
    history = clients["reviewer"].get(f"/api/projects/demo/runs/{run['id']}/reviews").json()
    assert [h["actor"] for h in history] == ["reviewer-1", "reviewer-1"]
    assert history[0]["token_id"] != history[1]["token_id"]


def test_project_names_that_differ_only_in_case_are_one_project(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    again = rev.post("/api/projects", json={"name": "DEMO"})
    assert again.status_code == 409 and "exists already as 'demo'" in again.json()["detail"]
    run = submit(clients["submitter"], sample_report())
    assert rev.get(f"/api/projects/Demo/runs/{run['id']}").json()["project"] == "demo"
    assert [p["name"] for p in rev.get("/api/projects").json()] == ["demo"]


def test_a_partial_audit_says_which_stages_did_not_run_and_needs_an_override(clients) -> None:  # type: ignore[no-untyped-def]
    """`audit run --only group_overlap` is clean, but it is not an audit of the dataset."""
    partial = json.loads(json.dumps(sample_report()))
    partial["stages"] = [s for s in partial["stages"] if s["stage"] == "group_overlap"]
    run = submit(clients["submitter"], partial)
    assert run["exit_code"] == 0 and "temporal_order" in run["not_run"] and "group_overlap" not in run["not_run"]
    refused = review(clients["reviewer"], run["id"], action="approve", comment="clean")
    assert refused.status_code == 422 and "partial audit" in refused.json()["detail"], refused.text
    full = submit(clients["submitter"], sample_report())
    assert full["not_run"] == []
    ok = review(clients["reviewer"], run["id"], action="approve", comment="clean", override_reason="only groups")
    assert ok.status_code == 201


def test_a_refused_request_does_not_echo_its_input(clients) -> None:  # type: ignore[no-untyped-def]
    run = submit(clients["submitter"], sample_report())["id"]
    long = "x" * 20_000
    refused = review(clients["reviewer"], run, action="comment", comment=long)
    assert refused.status_code == 422 and len(refused.text) < 1000 and "at most 10000" in refused.text
    bad = clients["admin"].post("/api/projects", json={"name": "with space"})
    assert bad.status_code == 422 and "letters, digits" in bad.text and "with space" not in bad.text


def test_no_diff_against_a_run_that_could_not_audit(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    first = submit(clients["submitter"], sample_report())["id"]
    assert review(rev, first, action="approve", comment="ok", override_reason="pilot").status_code == 201
    broken = json.loads(json.dumps(sample_report()))
    broken["manifest"] = None
    for stage in broken["stages"]:
        stage["findings"] = []
        if stage["status"] != "skipped":
            stage["status"] = "error"
            stage["error"] = {"type": "ManifestError", "message": "manifest.csv: not found", "traceback": ""}
    run = submit(clients["submitter"], broken)["id"]
    answer = rev.get(f"/api/projects/demo/runs/{run}/diff")
    assert answer.status_code == 409 and "could not audit" in answer.json()["detail"], answer.text


# --- an acceptance covers the scope it was given -----------------------------------------------------------


def effective(c: TestClient, run: int) -> dict[str, Any]:
    return dict(c.get(f"/api/projects/demo/runs/{run}").json()["effective"])


def test_accepting_tmp002_for_one_camera_does_not_accept_the_next_camera_that_leaks(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, camera_report(tmp_path / "1", ["cam-B"]))["id"]
    (fp,) = fingerprints(rev, first, "TMP002")
    assert review(rev, first, action="accept", fingerprint=fp, comment="a known clock fault").status_code == 201
    assert effective(rev, first)["errors"] == 0
    recorded = rev.get(f"/api/projects/demo/runs/{first}/reviews").json()[-1]
    assert recorded["scope"]["values"] == ["cam-B"] and recorded["scope"]["counts"]["entities"] == 1
    approved = review(rev, first, action="approve", comment="known", override_reason="only temporal_order audited")
    assert approved.status_code == 201

    second = submit(sub, camera_report(tmp_path / "2", ["cam-A", "cam-B"]))["id"]
    assert fingerprints(rev, second, "TMP002") == [fp]  # the same finding by identity ...
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "TMP002")
    assert shown["accepted"] is False  # ... but not the same scope: escalated, and it fails
    assert shown["escalated"]["new_values"] == ["cam-A"] and shown["escalated"]["accepted_values"] == ["cam-B"]
    assert "a known clock fault" in shown["accept_reason"]
    assert effective(rev, second)["errors"] == 1 and effective(rev, second)["exit_code"] == 1
    refused = review(rev, second, action="approve", comment="looks the same")
    assert refused.status_code == 422 and "TMP002" in refused.json()["detail"]
    d = rev.get(f"/api/projects/demo/runs/{second}/diff").json()
    (kept,) = [p for p in d["persisting"] if p["finding"]["code"] == "TMP002"]
    assert kept["scope_growth"]["new_values"] == ["cam-A"]
    assert "new values: cam-A" in rev.get(f"/api/projects/demo/runs/{second}/diff", params={"format": "markdown"}).text

    # Accepted again for what it is now: both cameras.
    assert review(rev, second, action="accept", fingerprint=fp, comment="cam-A has the fault too").status_code == 201
    assert effective(rev, second)["errors"] == 0
    still_partial = review(rev, second, action="approve", comment="both known")
    assert still_partial.status_code == 422 and "partial audit" in still_partial.json()["detail"]  # no error left


def test_grp001_accepted_for_one_writer_escalates_when_a_second_writer_appears(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, writer_report(tmp_path / "1", {"w1": 1}))["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert (
        review(rev, first, action="accept", fingerprint=fp, comment="w1 is the calibration writer").status_code == 201
    )
    second = submit(sub, writer_report(tmp_path / "2", {"w1": 1, "w2": 1}))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "GRP001")
    assert shown["accepted"] is False and shown["escalated"]["new_values"] == ["w2"]
    assert effective(rev, second)["exit_code"] == 1
    md = rev.get(f"/api/projects/demo/runs/{second}/report", params={"format": "markdown"}).text
    assert "Escalated beyond its acceptance" in md and "new value(s) 'w2'" in md and "still accepted: 'w1'" in md


def test_a_count_that_rises_for_the_same_value_is_escalated(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, writer_report(tmp_path / "1", {"w1": 1}))["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert review(rev, first, action="accept", fingerprint=fp, comment="one calibration page").status_code == 201
    second = submit(sub, writer_report(tmp_path / "2", {"w1": 5}))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "GRP001")
    assert shown["accepted"] is False and shown["escalated"]["new_values"] == []
    grown = {c["field"]: (c["accepted"], c["seen"]) for c in shown["escalated"]["counts"]}
    assert grown["train|test.rows"] == (2, 6) and "groups" not in grown
    assert effective(rev, second)["errors"] == 1


def test_a_spelling_accepted_escalates_when_a_new_spelling_of_the_same_value_appears(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`alice` / `Alice` reviewed; then `ALICE` joins with a row of its own. The value and every count are as
    accepted, so only the spellings tell that `ALICE` was never looked at (it was covered before)."""
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, spelling_report(tmp_path / "1", ["Alice"]))["id"]
    (fp,) = fingerprints(rev, first, "GRP005")
    assert review(rev, first, action="accept", fingerprint=fp, comment="one writer, two keyboards").status_code == 201
    again = submit(sub, spelling_report(tmp_path / "2", ["Alice", "Alice"]))["id"]
    assert finding(rev.get(f"/api/projects/demo/runs/{again}/report").json(), "GRP005")["accepted"] is True
    second = submit(sub, spelling_report(tmp_path / "3", ["Alice", "ALICE"]))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "GRP005")
    assert shown["fingerprint"] == fp and shown["escalated"]["counts"] == []
    assert shown["accepted"] is False and shown["escalated"]["new_values"] == ["ALICE"]
    assert effective(rev, second)["exit_code"] == 1


def test_a_smaller_scope_stays_accepted(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, camera_report(tmp_path / "1", ["cam-A", "cam-B"]))["id"]
    (fp,) = fingerprints(rev, first, "TMP002")
    assert review(rev, first, action="accept", fingerprint=fp, comment="both clocks were off").status_code == 201
    second = submit(sub, camera_report(tmp_path / "2", ["cam-B"]))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "TMP002")
    assert shown["accepted"] is True and shown["escalated"] is None
    assert effective(rev, second) == {**effective(rev, second), "errors": 0, "exit_code": 0}
    partial = review(rev, second, action="approve", comment="fewer than accepted")
    assert partial.status_code == 422 and "unaccepted" not in partial.json()["detail"]  # only the --only audit


def test_an_expired_acceptance_stops_covering_its_scope(clients, engine_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    report = camera_report(tmp_path / "1", ["cam-B"])
    run = submit(sub, report)["id"]
    (fp,) = fingerprints(rev, run, "TMP002")
    until = store.now() + dt.timedelta(days=1)
    made = review(rev, run, action="accept", fingerprint=fp, comment="until re-shoot", expires_at=until.isoformat())
    assert made.status_code == 201 and effective(rev, run)["errors"] == 0
    engine = make_engine(engine_url)
    try:
        project = store.get_project(engine, "demo")
        later = store.acceptances(engine, project, until + dt.timedelta(seconds=1))
        now = store.acceptances(engine, project, store.now())
    finally:
        engine.dispose()
    parsed = Report.model_validate(report)
    assert [f.code for f in unaccepted_failing(parsed, now)] == []
    assert [f.code for f in unaccepted_failing(parsed, later)] == ["TMP002"]
    assert not finding(json.loads(render_json(with_acceptances(parsed, later))), "TMP002")["accepted"]


def _forged_grp001(report: dict[str, Any], **scope: Any) -> dict[str, Any]:
    """``report`` with its GRP001 finding's scope replaced by ``scope`` (values, n_values, digest, counts)."""
    forged = json.loads(json.dumps(report))
    (grp,) = [f for s in forged["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    grp["scope"] = scope
    return forged


def _refusal(c: TestClient, report: dict[str, Any]) -> str:
    refused = c.post("/api/projects/demo/runs", json={"report": report})
    assert refused.status_code == 422, refused.text
    return str(refused.json()["detail"])


def test_a_scope_that_leaves_out_a_value_its_examples_show_is_refused(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """GRP001 shows w1 and w2; a scope of w1 alone would let a later w2 pass as accepted."""
    report = writer_report(tmp_path / "1", {"w1": 1, "w2": 1})
    only_w1 = {"values": ["w1"], "n_values": 1, "digest": set_digest([normalise_spelling("w1")])}
    detail = _refusal(clients["submitter"], _forged_grp001(report, **only_w1, counts={"groups": 1}))
    assert "GRP001" in detail and "names 'w2', which its scope does not list" in detail
    one_counted = json.loads(json.dumps(_forged_grp001(report, **only_w1, counts={"groups": 1})))
    (grp,) = [f for s in one_counted["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    grp["evidence"]["groups"] = 1  # the count forged too: the examples still name w2
    assert "names 'w2', which its scope does not list" in _refusal(clients["submitter"], one_counted)
    assert submit(clients["submitter"], report)["id"]  # the report as the audit wrote it is taken


def test_an_uploaded_spelling_scope_must_bind_the_spellings_its_finding_shows(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A GRP005 scope with no spellings would cover every later spelling; one without `ALICE`, which the examples
    show, would bind fewer than seen; one adding `ALICE ` would cover a spelling nobody was shown."""
    report = spelling_report(tmp_path / "1", ["Alice", "ALICE"])

    def forged(**scope: Any) -> dict[str, Any]:
        copy = json.loads(json.dumps(report))
        (f,) = [f for s in copy["stages"] for f in s["findings"] if f["code"] == "GRP005"]
        assert f["scope"]["spellings"] == ["ALICE", "Alice", "alice"]
        f["scope"] = {k: v for k, v in {**f["scope"], **scope}.items() if v is not None}
        return copy

    unbound = forged(spellings=None, n_spellings=None, spelling_digest=None)
    assert "GRP005" in (detail := _refusal(clients["submitter"], unbound)) and "records no spellings" in detail
    fewer = ["Alice", "alice"]
    short = forged(spellings=fewer, n_spellings=2, spelling_digest=spelling_set_digest(fewer))
    assert "show the spelling 'ALICE', which its scope does not list" in _refusal(clients["submitter"], short)
    more = ["ALICE", "ALICE ", "Alice", "alice"]
    wide = forged(spellings=more, n_spellings=4, spelling_digest=spelling_set_digest(more))
    assert "lists the spelling 'ALICE ', which the finding does not show" in _refusal(clients["submitter"], wide)
    assert submit(clients["submitter"], report)["id"]  # the report as the audit wrote it is taken


def test_a_digest_only_scope_of_more_values_than_the_finding_counts_is_refused(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    report = writer_report(tmp_path / "1", {"w1": 1, "w2": 1})
    digest = set_digest(sorted(normalise_spelling(v) for v in ("w1", "w2")))
    forged = _forged_grp001(report, n_values=1001, digest=digest, counts={"groups": 2})
    assert "its scope has 1001 value(s) where its evidence counts 2 groups" in _refusal(clients["submitter"], forged)


def test_an_uploaded_scope_the_server_cannot_check_cannot_be_accepted(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Over 1,000 values a scope keeps only their digest: in an uploaded report nothing ties it to the data, so an
    acceptance would cover values nobody was shown; approving needs an override instead."""
    report = json.loads(json.dumps(writer_report(tmp_path / "1", {"w1": 1, "w2": 1})))
    (grp,) = [f for s in report["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    grp["evidence"]["groups"] = 1500
    grp["scope"] = {"n_values": 1500, "digest": "0" * 64, "counts": {"groups": 1500}}
    run = submit(clients["submitter"], report)["id"]
    (fp,) = fingerprints(clients["reviewer"], run, "GRP001")
    refused = review(clients["reviewer"], run, action="accept", fingerprint=fp, comment="calibration writers")
    assert refused.status_code == 422 and "1500 values" in refused.json()["detail"]
    assert "nobody was shown" in refused.json()["detail"]
    assert clients["reviewer"].get(f"/api/projects/demo/runs/{run}/reviews").json() == []


def test_a_scope_that_binds_no_counts_binds_those_its_finding_shows(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`counts: null` would let an acceptance absorb any later rise: the counts the finding shows are bound."""
    rev, sub = clients["reviewer"], clients["submitter"]

    def unbound(report: dict[str, Any]) -> dict[str, Any]:
        (grp,) = [f for s in report["stages"] for f in s["findings"] if f["code"] == "GRP001"]
        return _forged_grp001(report, **{k: v for k, v in grp["scope"].items() if k != "counts"})

    first = submit(sub, unbound(writer_report(tmp_path / "1", {"w1": 1})))["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert review(rev, first, action="accept", fingerprint=fp, comment="one calibration page").status_code == 201
    recorded = rev.get(f"/api/projects/demo/runs/{first}/reviews").json()[-1]
    assert recorded["scope"]["counts"]["groups"] == 1
    second = submit(sub, unbound(writer_report(tmp_path / "2", {"w1": 5})))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "GRP001")
    assert shown["accepted"] is False and shown["escalated"] is not None
    assert effective(rev, second)["errors"] == 1


def _code_report(folder: Path, line: str) -> Report:
    """A code audit of a script whose line 2 fits a scaler on every row, written as ``line``."""
    folder.mkdir(parents=True, exist_ok=True)
    script = (
        "import pandas as pd\n"
        "df = DF = pd.read_csv('d.csv')\n"
        f"{line}\n"
        "from sklearn.model_selection import train_test_split\n"
        "X_tr, X_te, y_tr, y_te = train_test_split(X, df['y'])\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
    )
    (folder / "train.py").write_text("from sklearn.preprocessing import StandardScaler\n" + script)
    (folder / "audit.yaml").write_text("version: 1\ncode:\n  paths: [train.py]\n")
    return run_audit(folder / "audit.yaml", only=["code_leakage"])


def test_a_reviewed_statement_does_not_cover_one_differing_only_in_case(tmp_path: Path) -> None:
    """Accepted: `df.drop(columns='y')` at train.py:4; later the line drops 'Y' (another column): not covered."""
    reviewed = _code_report(tmp_path / "a", "X = StandardScaler().fit_transform(df.drop(columns='y'))")
    (leak,) = [f for f in reviewed.findings if f.code == "CDL001"]
    record = store.ReviewRecord(
        id=1, run_id=1, at=store.now(), actor="rev", role="reviewer", action="accept", comment="plot only",
        fingerprint=leak.fingerprint, expires_at=None, override_reason=None, scope=leak.scope,
    )  # fmt: skip
    assert [f for f in unaccepted_failing(reviewed, {leak.fingerprint: record}) if f.code == "CDL001"] == []
    for line in (
        "X = StandardScaler().fit_transform(df.drop(columns='Y'))",
        "X = StandardScaler().fit_transform(DF.drop(columns='y'))",
    ):
        later = _code_report(tmp_path / "b", line)
        (grown,) = [f for f in later.findings if f.code == "CDL001"]
        assert grown.fingerprint != leak.fingerprint  # the same file and line, another statement: another finding
        unaccepted = unaccepted_failing(later, {leak.fingerprint: record})
        assert [f.key for f in unaccepted if f.code == "CDL001"] == ["train.py:4"]
    same = _code_report(tmp_path / "c", 'X = StandardScaler().fit_transform(df.drop(columns="y"))  # reformatted')
    assert [f for f in unaccepted_failing(same, {leak.fingerprint: record}) if f.code == "CDL001"] == []


def test_a_scope_counting_more_rows_or_pairs_than_its_finding_shows_is_refused(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Counts above those shown, or of a split pair not shown, would let an acceptance absorb w1's later rows."""
    rev, sub = clients["reviewer"], clients["submitter"]
    report = writer_report(tmp_path / "1", {"w1": 1})
    (grp,) = [f for s in report["stages"] for f in s["findings"] if f["code"] == "GRP001"]
    scope = grp["scope"]
    assert scope["counts"]["train|test.rows"] == 2
    more_rows = {**scope, "counts": {**scope["counts"], "train|test.rows": 1000, "rows": 1000}}
    detail = _refusal(sub, _forged_grp001(report, **more_rows))
    assert "GRP001" in detail and "counts rows 1000 where its evidence shows 2" in detail
    other_pair = {**scope, "counts": {**scope["counts"], "train|val.rows": 1000}}
    assert "train|val.rows (1000), of a split pair" in _refusal(sub, _forged_grp001(report, **other_pair))
    # As the audit wrote it, it is taken, and an acceptance of it does not cover w1's later rows.
    first = submit(sub, report)["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert review(rev, first, action="accept", fingerprint=fp, comment="one calibration page").status_code == 201
    second = submit(sub, writer_report(tmp_path / "2", {"w1": 5}))["id"]
    assert effective(rev, second)["errors"] == 1


def test_a_reviewed_leak_does_not_cover_its_copy_in_another_script(tmp_path: Path) -> None:
    """exp2/train.py, copied from exp1/train.py, holds the same statement on the same line: accepting exp1's leak
    ("an exploratory plot") says nothing about exp2's."""
    folder = tmp_path / "proj"
    for exp in ("exp1", "exp2"):
        _code_report(folder / exp, "X = StandardScaler().fit_transform(df.drop(columns='y'))")
    (folder / "audit.yaml").write_text("version: 1\ncode:\n  paths: [exp1/train.py, exp2/train.py]\n")
    both = run_audit(folder / "audit.yaml", only=["code_leakage"])
    first, second = [f for f in both.findings if f.code == "CDL001"]
    assert (first.key, second.key) == ("exp1/train.py:4", "exp2/train.py:4")
    assert first.scope == second.scope and first.fingerprint != second.fingerprint
    record = store.ReviewRecord(
        id=1, run_id=1, at=store.now(), actor="rev", role="reviewer", action="accept", comment="exploratory plot",
        fingerprint=first.fingerprint, expires_at=None, override_reason=None, scope=first.scope,
    )  # fmt: skip
    assert [f.key for f in unaccepted_failing(both, {first.fingerprint: record}) if f.code == "CDL001"] == [
        "exp2/train.py:4"
    ]


RUN_ONLY = """\
import functools
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
df = pd.read_csv("d.csv")
X = df.iloc[:, 0:4]
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
@functools.lru_cache(maxsize=int(10 * LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te)))
def cached(n):
    return n
open(__file__, "a").write("def broken(:\\n")
"""


def _run_report(folder: Path, source: str) -> Report:
    """`audit code --run` of a script whose label is taken by position (a leak only the run finds, on a
    decorator's line, which no statement holds) and which breaks its own file as it runs."""
    import numpy as np
    import pandas as pd

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["y"] = (frame.a > 0).astype(int)
    frame.to_csv(folder / "d.csv", index=False)
    (folder / "run.py").write_text(source)
    (folder / "audit.yaml").write_text("version: 1\ncode:\n  paths: [run.py]\n  run: true\n  timeout_s: 120\n")
    return run_audit(folder / "audit.yaml", only=["code_leakage"])


def test_a_leak_only_the_run_found_is_uploaded_with_its_statement_and_one_naming_none_refused(  # type: ignore[no-untyped-def]
    clients, tmp_path
) -> None:
    sub = clients["submitter"]
    report = _run_report(tmp_path / "a", RUN_ONLY)
    (leak,) = [f for f in report.findings if f.code == "CDL004"]
    decorator = RUN_ONLY.splitlines()[7]
    assert leak.key == "run.py:8" and leak.evidence["found_by"] == "run"
    assert leak.evidence["statement"] == decorator and leak.scope.values == (decorator,)
    written = json.loads(render_json(report))
    assert submit(sub, written)["id"]  # as the audit wrote it, the server takes it
    stripped = json.loads(json.dumps(written))
    (cdl,) = [f for s in stripped["stages"] for f in s["findings"] if f["code"] == "CDL004"]
    del cdl["evidence"]["statement"]
    cdl["scope"] = {"values": [], "n_values": 0, "digest": None, "counts": None}
    detail = _refusal(sub, stripped)
    assert "CDL004" in detail and "its evidence names no statement" in detail
    # A reviewer's acceptance covers that line as it was; the line changed, the leak counts again.
    record = store.ReviewRecord(
        id=1, run_id=1, at=store.now(), actor="rev", role="reviewer", action="accept", comment="a cache size",
        fingerprint=leak.fingerprint, expires_at=None, override_reason=None, scope=leak.scope,
    )  # fmt: skip
    assert [f for f in unaccepted_failing(report, {leak.fingerprint: record}) if f.code == "CDL004"] == []
    later = _run_report(tmp_path / "b", RUN_ONLY.replace("10 * ", "100 * "))
    (grown,) = [f for f in later.findings if f.code == "CDL004"]
    assert grown.fingerprint != leak.fingerprint  # its statement is part of what identifies it
    assert [f.key for f in unaccepted_failing(later, {leak.fingerprint: record}) if f.code == "CDL004"] == ["run.py:8"]


def test_an_uploaded_near_copy_counting_more_rows_than_it_shows_is_refused(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """NDP001 shows one pair of rows; a scope of 1,000 would let an acceptance absorb later near copies."""
    from tests.stages.data.test_near_duplicates import audit_texts, join, replace_words, text

    originals = [text(i) for i in range(4)]
    copy = join(replace_words(originals[1], 0.05, seed=1))
    made = audit_texts(tmp_path, [*map(join, originals), copy, join(text(99))], ["train"] * 4 + ["test"] * 2)
    report = json.loads(made.model_dump_json())
    assert submit(clients["submitter"], report)["id"]  # as the audit wrote it, taken
    (near,) = [f for s in report["stages"] for f in s["findings"] if f["code"] == "NDP001"]
    near["scope"]["counts"]["train|test.rows"] = 1000
    detail = _refusal(clients["submitter"], report)
    assert "NDP001" in detail and "counts train|test.rows 1000 where its evidence shows 1" in detail


# --- an approval holds only while the acceptances it relied on do -----------------------------------------


def _gate(c: TestClient, run: int) -> dict[str, Any]:
    return dict(c.get(f"/api/projects/demo/runs/{run}/gate").json())


def _after(moment: dt.datetime) -> None:
    """Wait until ``moment`` has passed (an acceptance's expiry), by at most a few seconds."""
    time.sleep(max(0.0, (moment - store.now()).total_seconds()) + 0.2)


def test_an_approval_that_relied_on_an_acceptance_does_not_pass_the_gate_once_it_expires(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    run = submit(sub, camera_report(tmp_path / "1", ["cam-B"]))["id"]
    (fp,) = fingerprints(rev, run, "TMP002")
    until = store.now() + dt.timedelta(seconds=3)
    made = review(rev, run, action="accept", fingerprint=fp, comment="until re-shoot", expires_at=until.isoformat())
    assert made.status_code == 201, made.text
    # The error is accepted, so the override is only for the partial audit (temporal_order alone).
    approved = review(rev, run, action="approve", comment="ok", override_reason="only temporal_order audited")
    assert approved.status_code == 201, approved.text
    assert _gate(rev, run)["approved"] is True
    assert rev.get(f"/api/projects/demo/runs/{run}").json()["review"]["state"] == "approved"

    _after(until)
    lapsed = _gate(rev, run)
    assert lapsed["approved"] is False, lapsed
    assert "TMP002" in lapsed["reason"] and fp in lapsed["reason"] and "expired" in lapsed["reason"], lapsed
    # The run and the project's list say so too: a client reading the review state is not told "approved".
    shown = rev.get(f"/api/projects/demo/runs/{run}").json()["review"]
    assert shown["state"] == "approval_lapsed" and shown["lapsed"] == lapsed["reason"], shown
    (listed,) = [r for r in rev.get("/api/projects/demo/runs").json() if r["id"] == run]
    assert listed["review"]["state"] == "approval_lapsed"
    refused = review(rev, run, action="approve", comment="still ok")
    assert refused.status_code == 422 and "TMP002" in refused.json()["detail"]

    # Accepted again, the approval holds again; so does a new approval that overrides the error.
    again = review(rev, run, action="accept", fingerprint=fp, comment="re-shoot moved to next quarter")
    assert again.status_code == 201, again.text
    assert _gate(rev, run)["approved"] is True


def test_an_approval_overriding_an_error_holds_whatever_becomes_of_its_later_acceptances(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rev, sub = clients["reviewer"], clients["submitter"]
    run = submit(sub, camera_report(tmp_path / "1", ["cam-B"]))["id"]
    (fp,) = fingerprints(rev, run, "TMP002")
    # Approved over the unaccepted error: the approval never relied on an acceptance of it.
    approved = review(rev, run, action="approve", comment="ok", override_reason="cam-B is fixed in the next drop")
    assert approved.status_code == 201, approved.text
    until = store.now() + dt.timedelta(seconds=3)
    made = review(rev, run, action="accept", fingerprint=fp, comment="until re-shoot", expires_at=until.isoformat())
    assert made.status_code == 201, made.text
    _after(until)
    held = _gate(rev, run)
    assert held["approved"] is True and "overriding: cam-B is fixed" in held["reason"], held


def test_an_approval_does_not_pass_the_gate_once_a_narrower_acceptance_replaces_the_one_it_relied_on(  # type: ignore[no-untyped-def]
    clients, tmp_path
) -> None:
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, camera_report(tmp_path / "1", ["cam-A", "cam-B"]))["id"]
    (fp,) = fingerprints(rev, first, "TMP002")
    assert review(rev, first, action="accept", fingerprint=fp, comment="both clocks").status_code == 201
    assert review(rev, first, action="approve", comment="ok", override_reason="partial").status_code == 201
    assert _gate(rev, first)["approved"] is True

    second = submit(sub, camera_report(tmp_path / "2", ["cam-B"]))["id"]
    assert review(rev, second, action="accept", fingerprint=fp, comment="cam-A was fixed").status_code == 201
    # The first run still holds cam-A, which the project no longer accepts: its page and its gate agree.
    assert effective(rev, first)["errors"] == 1
    lapsed = _gate(rev, first)
    assert lapsed["approved"] is False and "TMP002" in lapsed["reason"] and "cam-A" in lapsed["reason"], lapsed


def _accept_all(c: TestClient, run: int, severity: str) -> None:
    report = c.get(f"/api/projects/demo/runs/{run}/report").json()
    for f in (f for s in report["stages"] for f in s["findings"] if f["severity"] == severity):
        ok = review(c, run, action="accept", fingerprint=f["fingerprint"], comment="known, tracked")
        assert ok.status_code == 201, ok.text


def test_approving_a_run_whose_warnings_fail_it_needs_an_override_reason(clients) -> None:  # type: ignore[no-untyped-def]
    rev = clients["reviewer"]
    strict = {**sample_report(), "fail_on": "warning"}  # audited with --fail-on warning: a warning fails the run
    run = submit(clients["submitter"], strict)["id"]
    _accept_all(rev, run, "error")
    assert effective(rev, run)["exit_code"] == 1  # its warnings still fail it
    refused = review(rev, run, action="approve", comment="looks fine")
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert "fail_on 'warning'" in detail and "LAB001" in detail and "override_reason" in detail, detail
    assert "TMP002" not in detail  # accepted
    assert rev.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is False
    _accept_all(rev, run, "warning")
    assert effective(rev, run)["exit_code"] == 0
    assert review(rev, run, action="approve", comment="all accepted").status_code == 201
    assert rev.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is True


def test_a_run_whose_warnings_do_not_fail_it_is_approved_without_override_once_its_errors_are_accepted(  # type: ignore[no-untyped-def]
    clients,
) -> None:
    rev = clients["reviewer"]
    run = submit(clients["submitter"], sample_report())["id"]  # fail_on: error
    _accept_all(rev, run, "error")
    assert effective(rev, run)["exit_code"] == 0 and effective(rev, run)["warnings"] > 0
    made = review(rev, run, action="approve", comment="warnings do not fail this audit")
    assert made.status_code == 201, made.text


def test_grp001_accepted_for_section_1_1_escalates_when_section_1_10_leaks_instead(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`1.1` and `1.10` are two groups to the checks, though one number by value: accepting one is not accepting
    the other, even where every count is the same."""
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, dotted_report(tmp_path / "1", ["1.1"]))["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert review(rev, first, action="accept", fingerprint=fp, comment="1.1 is a shared preface").status_code == 201
    assert effective(rev, first)["errors"] == 0
    second = submit(sub, dotted_report(tmp_path / "2", ["1.10"]))["id"]
    assert fingerprints(rev, second, "GRP001") == [fp]
    shown = finding(rev.get(f"/api/projects/demo/runs/{second}/report").json(), "GRP001")
    assert shown["accepted"] is False and shown["escalated"]["new_values"] == ["1.10"], shown
    assert effective(rev, second)["errors"] == 1 and effective(rev, second)["exit_code"] == 1


def test_grp001_accepted_for_a_section_stays_accepted_for_it_spelt_otherwise(clients, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Not a false alarm: `01.1` is `1.1` to the checks (a leading zero), so the acceptance of `1.1` covers it."""
    rev, sub = clients["reviewer"], clients["submitter"]
    first = submit(sub, dotted_report(tmp_path / "1", ["1.1"]))["id"]
    (fp,) = fingerprints(rev, first, "GRP001")
    assert review(rev, first, action="accept", fingerprint=fp, comment="1.1 is a shared preface").status_code == 201
    again = submit(sub, dotted_report(tmp_path / "2", ["01.1"], first="01.1"))["id"]
    shown = finding(rev.get(f"/api/projects/demo/runs/{again}/report").json(), "GRP001")
    assert shown["scope"]["values"] == ["01.1"] and shown["accepted"] is True, shown
