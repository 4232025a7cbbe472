"""What a request may carry, on both databases: ids beyond 64 bits and NUL characters are refused as invalid
(404 or 422) by the pages as by the API, never sent to the database to become a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from auditor.service import store
from auditor.service.app import create_app
from auditor.service.auth import Role
from auditor.service.context import ServiceContext
from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.sessions import open_session
from auditor.service.ui import SESSION_COOKIE, csrf_token
from tests.service.test_authz import sample_report
from tests.service.test_exposure_service import small

HUGE = "99999999999999999999"  # past 2**64: OverflowError on SQLite, "bigint out of range" on PostgreSQL


@pytest.fixture
def client(tmp_path: Path, database: str | None) -> Iterator[TestClient]:
    """An admin's client, signed in to the pages too (the session cookie), with project `p` and one run."""
    url = database or sqlite_url(tmp_path)
    upgrade(url)
    engine = make_engine(url)
    token = store.create_token(engine, name="admin", role=Role.ADMIN, project=None, created_by="test")
    # Server errors come back as 500 answers here, as a live server gives them, instead of raising in the test.
    with TestClient(create_app(ServiceContext(engine=engine)), raise_server_exceptions=False) as c:
        c.headers["Authorization"] = f"Bearer {token}"
        who = store.authenticate(engine, token)
        assert who is not None
        session = open_session(engine, who.token_id)
        c.cookies.set(SESSION_COOKIE, session)
        c.headers["x-csrf"] = csrf_token(session)
        assert c.post("/api/projects", json={"name": "p"}).status_code == 201
        assert c.post("/api/projects/p/runs", json={"report": sample_report()}).status_code == 201
        yield c
    engine.dispose()


@pytest.mark.parametrize("run_id", [HUGE, "9223372036854775808", "0", "-1", "1e3", "١"])
def test_pages_refuse_a_run_id_no_run_can_have_with_404(client: TestClient, run_id: str) -> None:
    for answer in (
        client.get(f"/projects/p/runs/{run_id}"),
        client.get(f"/projects/p/runs/{run_id}/report.html"),
        client.post(
            f"/projects/p/runs/{run_id}/review",
            data={"csrf": client.headers["x-csrf"], "action": "comment", "comment": "c"},
        ),
    ):
        assert answer.status_code == 404, (answer.request.url, answer.status_code, answer.text[:300])
        assert "no such run" in answer.text


def test_pages_still_show_a_run_whose_id_is_the_largest_number_accepted(client: TestClient) -> None:
    """The bound is the database's: the largest 64-bit id is a valid (missing) run, and run 1 is shown."""
    assert client.get("/projects/p/runs/9223372036854775807").status_code == 404
    assert client.get("/projects/p/runs/1").status_code == 200
    assert client.get("/projects/p/runs/1/report.html").status_code == 200


def test_the_api_refuses_an_id_past_64_bits_with_422(client: TestClient) -> None:
    assert client.get(f"/api/projects/p/runs/{HUGE}").status_code == 422


NUL = "a\u0000b"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/projects", {"name": "q", "description": NUL}),
        ("/api/projects/p/runs/1/reviews", {"action": "comment", "comment": NUL}),
        ("/api/projects/p/runs/1/reviews", {"action": "approve", "override_reason": NUL}),
        ("/api/tokens", {"name": NUL, "role": "reviewer"}),
        ("/api/projects/p/runs", {"config": NUL, "data_root": "samples"}),
        ("/api/projects/p/runs", {"report": sample_report(), "config": NUL}),
    ],
)
def test_a_nul_character_in_a_body_is_422(client: TestClient, path: str, body: dict[str, object]) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == 422, answer.text
    assert "NUL" in answer.text


@pytest.mark.parametrize(
    "path", ["/api/projects/%00", "/api/projects/a%00b/runs", "/api/projects/%00/runs/1", "/projects/%00"]
)
def test_a_nul_character_in_a_project_path_is_422(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 422, answer.text


def test_text_that_merely_looks_odd_is_stored_as_given(client: TestClient) -> None:
    """Not a false alarm: escapes written out, other control characters and non-ASCII text are valid text."""
    text = "a\\u0000b \\x00 \u0001 \t tab, ünïcode, 中文"
    made = client.post("/api/projects", json={"name": "odd", "description": text})
    assert made.status_code == 201, made.text
    assert client.get("/api/projects/odd").json()["description"] == text
    comment = client.post("/api/projects/p/runs/1/reviews", json={"action": "comment", "comment": text})
    assert comment.status_code == 201 and comment.json()["comment"] == text


@pytest.mark.parametrize(
    ("tamper", "said"),
    [
        (lambda s: {**s, "n_values": s["n_values"] + 1}, "values listed for a count of"),
        (lambda s: {**s, "digest": "0" * 64}, "a digest that is not the digest of its values"),
        (lambda s: {**s, "values": list(reversed(s["values"]))}, "not one per spelling-normalised value"),
    ],
)
def test_a_report_whose_scope_its_values_contradict_is_refused(client: TestClient, tamper: Any, said: str) -> None:
    """A reviewer accepts the values shown; a scope claiming other values would extend the acceptance to them."""
    report = sample_report()
    finding = next(
        f for st in report["stages"] for f in st["findings"] if f.get("scope") and len(f["scope"].get("values", [])) > 1
    )
    finding["scope"] = tamper(finding["scope"])
    answer = client.post("/api/projects/p/runs", json={"report": report})
    assert answer.status_code == 422, answer.text
    assert said in answer.text and finding["code"] in answer.text


def _fingerprint(client: TestClient, code: str) -> str:
    report = client.get("/api/projects/p/runs/1/report").json()
    return str(next(f["fingerprint"] for s in report["stages"] for f in s["findings"] if f["code"] == code))


# Valid ISO 8601 times whose UTC instant lies outside the years 1-9999 that times can hold.
BEYOND_UTC = ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00"]


@pytest.mark.parametrize("when", BEYOND_UTC)
def test_a_time_beyond_what_utc_can_hold_is_422_naming_the_field(client: TestClient, when: str) -> None:
    accept = {"action": "accept", "fingerprint": _fingerprint(client, "TMP002"), "comment": "ok", "expires_at": when}
    evaluation = {"sketch": small(), "evaluation": {"split": "test", "at": when}}
    for path, body, field in (
        ("/api/projects/p/runs/1/reviews", accept, "expires_at"),
        ("/api/projects/p/evaluations", evaluation, "at"),
    ):
        answer = client.post(path, json=body)
        assert answer.status_code == 422, (path, answer.status_code, answer.text[:300])
        (problem,) = answer.json()["detail"]
        assert problem["loc"][-1] == field and "UTC" in problem["msg"], problem
    # Nothing was written by the refusals.
    assert [r["action"] for r in client.get("/api/projects/p/runs/1/reviews").json()] == []
    assert client.get("/api/projects/p/exposure").json() == []


def test_the_latest_and_earliest_times_utc_can_hold_are_taken(client: TestClient) -> None:
    """Not a false alarm: the last second of 9999 in UTC (offset or none) and the first of year 1 are valid."""
    fp = _fingerprint(client, "TMP002")
    for when in ("9999-12-31T23:59:59+00:00", "9999-12-31T23:59:59", "9999-12-31T18:59:59-05:00"):
        body = {"action": "accept", "fingerprint": fp, "comment": "ok", "expires_at": when}
        made = client.post("/api/projects/p/runs/1/reviews", json=body)
        assert made.status_code == 201, made.text
        assert made.json()["expires_at"].startswith("9999-12-31T23:59:59"), made.json()
    for when in ("0001-01-01T05:00:00+05:00", "0001-01-01T00:00:00Z"):
        evaluation = {"sketch": small(), "evaluation": {"split": "test", "at": when}}
        made = client.post("/api/projects/p/evaluations", json=evaluation)
        assert made.status_code == 201, made.text
        assert made.json()["evaluation"]["at"].startswith("0001-01-01T00:00:00"), made.json()


def test_a_report_holding_a_lone_surrogate_is_422_naming_where(client: TestClient) -> None:
    """JSON's \\u escapes can carry half a UTF-16 pair, which is no text: refused where it is, nothing stored."""
    report = sample_report()
    (stage,) = [s for s in report["stages"] if s["findings"]][:1]
    stage["findings"][0]["message"] = "cam-B \ud800 frames"
    before = client.get("/api/projects/p/runs").json()
    body = json.dumps({"report": report}).encode()  # json escapes it; a client's encoder would refuse to send it
    answer = client.post("/api/projects/p/runs", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    index = report["stages"].index(stage)
    assert answer.json()["detail"] == (
        f"report: stages.{index}.findings.0.message: holds a lone surrogate (\\ud800-\\udfff), which is not text"
    )
    assert client.get("/api/projects/p/runs").json() == before
    # A character outside the basic plane, written as its surrogate pair, is text.
    stage["findings"][0]["message"] = "cam-B \U0001f4f7 frames"
    body = json.dumps({"report": report}).encode()
    ok = client.post("/api/projects/p/runs", content=body, headers={"content-type": "application/json"})
    assert ok.status_code == 201, ok.text
