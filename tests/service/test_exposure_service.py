"""The exposure ledger in the service, on SQLite and PostgreSQL: `audit evaluated --submit`, what `audit run
--submit` counts, renamed copies, and bodies the API refuses."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from auditor.exposure.fingerprint import K, row_hashes, sketch
from auditor.service.exposure import encode_sketch
from auditor.stages.data.test_exposure import TestExposure
from tests.service.conftest import SAMPLES
from tests.service.harness import LiveServer, run_cli

PROJECT_TOKENS = ("demo", "renamed", "own", "api", "other", "ids")

EXPOSURE_CODES = tuple(TestExposure.codes)  # EXP000 (a fresh set) and EXP001 carry the same evidence


def audit(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """`audit ARGS` with SPLIT_AUDITOR_TOKEN set only when ``token`` is given."""
    return run_cli(*args, token=token)


class Live:
    """One server per backend for the module, with a submitter token per project."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.tokens: dict[str, str] = {}
        with server.client(server.admin_token) as admin:
            for project in PROJECT_TOKENS:
                assert admin.post("/api/projects", json={"name": project}).status_code == 201
                made = admin.post(
                    "/api/tokens", json={"name": f"ci-{project}", "role": "submitter", "project": project}
                )
                assert made.status_code == 201, made.text
                self.tokens[project] = made.json()["token"]

    def client(self, project: str) -> httpx.Client:
        return self.server.client(self.tokens[project])


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    database = request.getfixturevalue("pg_cluster").new_database() if request.param == "postgresql" else None
    server = LiveServer(tmp_path_factory.mktemp("exposure") / "service", database=database).start()
    try:
        yield Live(server)
    finally:
        server.stop()


def copy_sample(folder: Path) -> Path:
    shutil.copytree(SAMPLES / "video_frames", folder)
    return folder / "audit.yaml"


def submit_args(live: Live, project: str) -> list[str]:
    return ["--submit", live.server.url, "--project", project, "--token", live.tokens[project]]


def run_submit(live: Live, config: Path, project: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`audit run --submit`, and the report the server stored for it."""
    out = config.parent / "out"
    done = audit(
        "run",
        str(config),
        "--only",
        "test_exposure",
        "--format",
        "json",
        "--out",
        str(out),
        "-q",
        *submit_args(live, project),
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run_id = done.stdout.strip().splitlines()[-1].rsplit("/", 1)[1]
    with live.client(project) as c:
        uploaded = c.get(f"/api/projects/{project}/runs/{run_id}/report", params={"format": "json"})
    assert uploaded.status_code == 200, uploaded.text
    local = json.loads((out / "report.json").read_text())
    # The server shows paths relative to the config's folder; everything else is as the submitter's report says.
    shown = {split: {**ev, "ledger": local_ledger(ev, config)} for split, ev in exp001(local).items()}
    assert shown == exp001(uploaded.json())
    return done, uploaded.json()


def local_ledger(evidence: dict[str, Any], config: Path) -> Any:
    ledger = evidence.get("ledger")
    if isinstance(ledger, str) and Path(ledger).is_absolute() and Path(ledger).is_relative_to(config.parent):
        return Path(ledger).relative_to(config.parent).as_posix()
    return ledger


def exp001(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The exposure finding's evidence per split (EXP000 or EXP001)."""
    found = [f for s in report["stages"] for f in s["findings"] if f["code"] in EXPOSURE_CODES]
    return {f["evidence"]["split"]: f["evidence"] for f in found}


def test_evaluations_submitted_twice_are_counted_by_a_submitted_run(live: Live, tmp_path: Path) -> None:
    config = copy_sample(tmp_path / "vf")
    for i, acc in enumerate(("0.91", "0.93"), start=1):
        done = audit("evaluated", str(config), "--split", "test", "--metric", f"acc={acc}", *submit_args(live, "demo"))
        assert done.returncode == 0, done.stderr
        assert f"in project 'demo' on {live.server.url}; this set now has {i} evaluation(s)" in done.stdout
    assert not (config.parent / ".split-auditor").exists()  # recorded on the server only
    done, report = run_submit(live, config, "demo")
    evidence = exp001(report)
    assert evidence["test"]["evaluations"] == 2
    assert evidence["val"]["evaluations"] == 0
    # The report names the team's ledger, not the temporary copy the audit read.
    assert evidence["test"]["ledger"] == f"the exposure ledger of project 'demo' on {live.server.url}"
    with live.client("demo") as c:
        ledger = c.get("/api/projects/demo/exposure").json()
    assert len(ledger) == 1
    assert [e["metrics"] for e in ledger[0]["evaluations"]] == [{"acc": 0.91}, {"acc": 0.93}]
    assert {e["who"] for e in ledger[0]["evaluations"]} == {"ci-demo"}
    assert ledger[0]["sketch"]["digest"] == evidence["test"]["fingerprint"]


def test_a_renamed_split_with_moved_files_is_recognised_with_its_history(live: Live, tmp_path: Path) -> None:
    first = copy_sample(tmp_path / "first")
    done = audit("evaluated", str(first), "--split", "test", "--note", "baseline", *submit_args(live, "renamed"))
    assert done.returncode == 0, done.stderr
    # A copy elsewhere: the test split renamed and its frames moved to another folder.
    config = copy_sample(tmp_path / "second")
    folder = config.parent
    (folder / "frames_v2").mkdir()
    lines = (folder / "manifest.csv").read_text().splitlines()
    header, rows = lines[0].split(","), [line.split(",") for line in lines[1:]]
    file_at, split_at = header.index("file"), header.index("split")
    for row in rows:
        if row[split_at] == "test":
            row[split_at] = "fresh_test"
            moved = "frames_v2/" + Path(row[file_at]).name
            shutil.move(folder / row[file_at], folder / moved)
            row[file_at] = moved
    (folder / "manifest.csv").write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")
    config.write_text(config.read_text().replace("[val, test]", "[val, fresh_test]"))
    _, report = run_submit(live, config, "renamed")
    evidence = exp001(report)["fresh_test"]
    assert evidence["evaluations"] == 1
    assert evidence["sets"][0]["recorded_as"] == ["test"]
    assert evidence["sets"][0]["relation"] == "this set"


def test_a_set_recorded_by_content_is_found_by_ids_once_the_config_drops_the_content(
    live: Live, tmp_path: Path
) -> None:
    config = copy_sample(tmp_path / "vf")  # by content (keys.content_path), with frame ids
    done = audit("evaluated", str(config), "--split", "test", *submit_args(live, "ids"))
    assert done.returncode == 0, done.stderr
    with live.client("ids") as c:
        (entry,) = c.get("/api/projects/ids/exposure").json()
    assert entry["sketch"]["basis"] == "content" and [i["n_rows"] for i in entry["sketch"]["ids"]] == [10]
    config.write_text(config.read_text().replace("  content_path: file ", "  # content_path: file "))
    _, report = run_submit(live, config, "ids")
    evidence = exp001(report)["test"]
    assert (evidence["basis"], evidence["evaluations"]) == ("ids", 1)
    assert [(s["basis"], s["compared_by"], s["relation"]) for s in evidence["sets"]] == [("content", "ids", "this set")]
    # val, read by ids too, shares no frame with the recorded test set: fresh.
    assert exp001(report)["val"]["evaluations"] == 0


def test_a_configured_ledger_is_kept_with_a_warning(live: Live, tmp_path: Path) -> None:
    config = copy_sample(tmp_path / "vf")
    assert audit("evaluated", str(config), "--split", "test", *submit_args(live, "own")).returncode == 0
    config.write_text(config.read_text().replace("stages:\n", "stages:\n  test_exposure: {ledger: mine.sqlite}\n", 1))
    done, report = run_submit(live, config, "own")
    assert "stages.test_exposure.ledger is set" in done.stderr and live.server.url in done.stderr
    evidence = exp001(report)["test"]
    assert evidence["evaluations"] == 0 and evidence["ledger"] == "mine.sqlite"  # shown relative to the config


def test_a_token_of_another_project_cannot_read_or_record(live: Live, tmp_path: Path) -> None:
    body = {"sketch": small(), "evaluation": {"split": "test"}}
    with live.client("api") as c:
        assert c.post("/api/projects/api/evaluations", json=body).status_code == 201
    with live.client("other") as c:
        assert c.get("/api/projects/api/exposure").status_code == 404
        assert c.post("/api/projects/api/evaluations", json=body).status_code == 404
    # Through the CLI: no audit runs against a ledger it could not read.
    config = copy_sample(tmp_path / "vf")
    args = ["--submit", live.server.url, "--project", "api", "--token", live.tokens["other"]]
    for argv in (["evaluated", str(config), "--split", "test"], ["run", str(config), "--out", str(tmp_path / "o")]):
        done = audit(*argv, *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "report.json").exists()


def small(ids: tuple[str, ...] = ("a", "b", "c")) -> dict[str, Any]:
    return encode_sketch(sketch(row_hashes(np.array(ids, dtype=object), "ids"), "ids"))


def hashes_b64(values: list[int]) -> str:
    return base64.b64encode(np.array(values, dtype="<u8").tobytes()).decode()


def large(seed: int) -> dict[str, Any]:
    """The sketch of a set larger than K rows (its digest cannot be checked from the hashes sent)."""
    rows = np.arange(seed, seed + 3 * K).astype(str).astype(object)
    return encode_sketch(sketch(row_hashes(rows, "ids"), "ids"))


def _by_content() -> dict[str, Any]:
    digests = np.array([hashlib.sha256(x.encode()).hexdigest() for x in "abc"], dtype=object)
    return encode_sketch(sketch(row_hashes(digests, "content"), "content"))


def _ids_of(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in ("digest", "n_rows", "hashes")}


def _bad_bodies() -> dict[str, Any]:
    ok = small()
    exact = {"digest": hashlib.sha256(b"").hexdigest(), "basis": "ids", "n_rows": 0, "hashes": ""}
    return {
        "digest not hex": {**ok, "digest": "Z" * 64},
        "digest short": {**ok, "digest": ok["digest"][:63]},
        "digest of other rows": {**ok, "digest": small(("x", "y", "z"))["digest"]},
        "basis": {**ok, "basis": "names"},
        "not base64": {**ok, "hashes": "!!!!"},
        "half a value": {**ok, "hashes": base64.b64encode(b"1234").decode()},
        "fewer hashes than rows": {**ok, "n_rows": 4},
        "unsorted": {**ok, "hashes": hashes_b64([3, 2, 1])},
        "repeated": {**ok, "hashes": hashes_b64([1, 1, 2])},
        "too many": {**ok, "n_rows": K + 1, "hashes": hashes_b64(list(range(K + 1)))},
        "negative rows": {**exact, "n_rows": -1},
        "ids beside a set by ids": {**ok, "ids": [_ids_of(ok)]},
        "ids of other rows": {**_by_content(), "ids": [{**_ids_of(ok), "digest": small(("x", "y", "z"))["digest"]}]},
        "ids with a basis": {**_by_content(), "ids": [{**_ids_of(ok), "basis": "ids"}]},
        "extra field": {**ok, "name": "test"},
    }


@pytest.mark.parametrize("case", sorted(_bad_bodies()))
def test_a_bad_sketch_is_422(live: Live, case: str) -> None:
    body = {"sketch": _bad_bodies()[case], "evaluation": {"split": "test"}}
    with live.client("api") as c:
        answer = c.post("/api/projects/api/evaluations", json=body)
    assert answer.status_code == 422, (case, answer.text)


@pytest.mark.parametrize(
    "evaluation",
    [
        '{"split": "test", "metrics": {"acc": NaN}}',
        '{"split": "test", "metrics": {"acc": Infinity}}',
        '{"split": "test", "metrics": {"acc": 1e999}}',
        '{"split": "test", "metrics": {"acc": "high"}}',
        '{"split": "test", "metrics": {"": 0.5}}',
        '{"split": ""}',
        '{"split": "test", "at": "2999-01-01T00:00:00Z"}',
        '{"split": "test", "note": "' + "x" * 10_001 + '"}',
        '{"metrics": {}}',
        '{"split": "te\\u0000st"}',
        '{"split": "test", "metrics": {"a\\u0000": 1}}',
    ],
)
def test_a_bad_evaluation_is_422(live: Live, evaluation: str) -> None:
    body = '{"sketch": ' + json.dumps(small()) + ', "evaluation": ' + evaluation + "}"
    with live.client("api") as c:
        answer = c.post(
            "/api/projects/api/evaluations", content=body.encode(), headers={"Content-Type": "application/json"}
        )
    assert answer.status_code == 422, answer.text


def test_records_keep_time_in_utc_and_a_rewritten_sketch_is_refused(live: Live) -> None:
    body = {"sketch": large(7), "evaluation": {"split": "big", "at": "2024-05-01T12:00:00+02:00"}}
    with live.client("api") as c:
        made = c.post("/api/projects/api/evaluations", json=body)
        assert made.status_code == 201, made.text
        assert made.json()["evaluations"] == 1 and made.json()["n_rows"] == 3 * K
        entry = next(s for s in c.get("/api/projects/api/exposure").json() if s["sketch"]["n_rows"] == 3 * K)
        assert entry["evaluations"][0]["at"].startswith("2024-05-01T10:00:00")
        assert entry["sketch"]["hashes"] == body["sketch"]["hashes"]
        # The same fingerprint with other hashes: the first sketch stays, the second is refused.
        forged = {**large(100_000), "digest": body["sketch"]["digest"]}
        answer = c.post("/api/projects/api/evaluations", json={**body, "sketch": forged})
        assert answer.status_code == 409, answer.text
        assert c.post("/api/projects/api/evaluations", json=body).json()["evaluations"] == 2


def test_a_set_by_content_keeps_each_ids_sketch_sent_with_it(live: Live) -> None:
    content = _by_content()
    first, renamed = _ids_of(small(("i1", "i2", "i3"))), _ids_of(small(("r1", "r2", "r3")))
    with live.client("api") as c:
        for ids in ([first], [first], [renamed], []):  # the same ids twice are kept once; none adds none
            body = {"sketch": {**content, "ids": ids}, "evaluation": {"split": "test"}}
            assert c.post("/api/projects/api/evaluations", json=body).status_code == 201
        (entry,) = [s for s in c.get("/api/projects/api/exposure").json() if s["sketch"]["digest"] == content["digest"]]
        assert len(entry["evaluations"]) == 4
        assert sorted(i["digest"] for i in entry["sketch"]["ids"]) == sorted([first["digest"], renamed["digest"]])
        assert {i["hashes"] for i in entry["sketch"]["ids"]} == {first["hashes"], renamed["hashes"]}
