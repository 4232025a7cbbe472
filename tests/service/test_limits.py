"""Request bodies over the limit get 413; uploads that are not a report get a 4xx naming what is wrong; the
stored report is the server's own, with fingerprints and verdict recomputed from the evidence."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.service.harness import LiveServer
from tests.service.test_authz import sample_report

LIMIT = int(0.1 * 1024 * 1024)
RUNS = "/api/projects/p/runs"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """One SQLite server with a 0.1 MB body limit: limits and parsing do not depend on the backend."""
    live = LiveServer(tmp_path_factory.mktemp("limits") / "service", extra=["--max-body-mb", "0.1"]).start()
    try:
        with live.client(live.admin_token) as c:
            assert c.post("/api/projects", json={"name": "p"}).status_code == 201
            yield c
    finally:
        live.stop()


def _big_body() -> bytes:
    return json.dumps({"report": {"padding": "x" * (LIMIT + 10)}}).encode()


def test_a_declared_body_over_the_limit_is_413(client: httpx.Client) -> None:
    answer = client.post(RUNS, content=_big_body(), headers={"content-type": "application/json"})
    assert answer.status_code == 413, answer.text
    assert f"larger than {LIMIT} bytes" in answer.json()["detail"]


def test_a_chunked_body_over_the_limit_is_413(client: httpx.Client) -> None:
    body = _big_body()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    request = client.build_request("POST", RUNS, content=chunks(), headers={"content-type": "application/json"})
    assert request.headers["transfer-encoding"] == "chunked" and "content-length" not in request.headers
    answer = client.send(request)
    assert answer.status_code == 413, answer.text


def test_a_body_under_the_limit_is_read(client: httpx.Client) -> None:
    """The limit is the limit: a body just under it reaches the API (which finds it is no report)."""
    body = json.dumps({"report": {"padding": "x" * (LIMIT - 100)}}).encode()
    answer = client.post(RUNS, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text


def _first_with_findings() -> int:
    return next(i for i, s in enumerate(sample_report()["stages"]) if s["findings"])


def _forged(change: str) -> dict[str, Any]:
    report = sample_report()
    if change == "running_marker":
        return {"schema_version": report["schema_version"], "status": "running", "started_at": "2024-01-01"}
    if change == "interrupted_marker":
        return {"schema_version": report["schema_version"], "status": "interrupted", "reason": "SIGINT"}
    if change == "schema_version":
        report["schema_version"] = "0.1"
    elif change == "bad_severity":
        report["stages"][_first_with_findings()]["findings"][0]["severity"] = "catastrophic"
    elif change == "missing_field":
        del report["tool_version"]
    elif change == "extra_field":
        report["verdict"] = "pass"
    elif change == "stages_not_a_list":
        report["stages"] = "all passed"
    return report


NOT_A_REPORT = {
    "running_marker": "status must be 'completed'",
    "interrupted_marker": "status must be 'completed'",
    "schema_version": "schema version '0.1'",
    "bad_severity": "at stages.{first}.findings.0.severity",  # the first stage with findings
    "missing_field": "at tool_version",
    "extra_field": "at verdict",
    "stages_not_a_list": "at stages",
}


@pytest.mark.parametrize("change", sorted(NOT_A_REPORT))
def test_an_upload_that_is_not_a_report_is_refused_naming_why(client: httpx.Client, change: str) -> None:
    answer = client.post(RUNS, json={"report": _forged(change)})
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert detail.startswith("report: ") and NOT_A_REPORT[change].format(first=_first_with_findings()) in detail, detail


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b"this is not json", "json_invalid"),
        (b'{"report": [1, 2, 3]}', "report"),
        (b'{"report": "report.json"}', "report"),
        (b"[]", "body"),
        (b"null", "body"),
        (b'{"report": {"status": "completed"', "json_invalid"),
        (b'{"report": {"a": "\xff\xfe"}}', ""),
        (b"[" * 60_000 + b"]" * 60_000, ""),
        (b'{"report": {"status": "completed", "schema_version": NaN}}', "schema version"),
    ],
)
def test_a_body_that_is_no_report_is_4xx_never_5xx(client: httpx.Client, body: bytes, named: str) -> None:
    answer = client.post(RUNS, content=body, headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text)
    assert named in answer.text


def test_the_stored_report_is_recomputed_not_taken_from_the_upload(client: httpx.Client) -> None:
    honest = sample_report()
    forged = copy.deepcopy(honest)
    for stage in forged["stages"]:
        stage["status"] = "passed" if stage["status"] == "failed" else stage["status"]
        for finding in stage["findings"]:
            finding["fingerprint"] = "0123456789abcdef"
    forged["summary"].update(errors=0, warnings=0, infos=0)
    forged["exit_code"] = 0
    made = client.post(RUNS, json={"report": forged})
    assert made.status_code == 201, made.text
    run = made.json()
    assert run["exit_code"] == honest["exit_code"] != 0
    assert run["effective"]["errors"] == honest["summary"]["errors"] > 0
    stored = client.get(f"{RUNS}/{run['id']}/report").json()
    prints = [f["fingerprint"] for s in stored["stages"] for f in s["findings"]]
    assert prints == [f["fingerprint"] for s in honest["stages"] for f in s["findings"]]
    assert "0123456789abcdef" not in prints
    assert [s["status"] for s in stored["stages"]] == [s["status"] for s in honest["stages"]]
    assert stored["summary"] == honest["summary"] and stored["exit_code"] == honest["exit_code"]
