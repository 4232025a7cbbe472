"""The service's commands against a live server: submit, gate, tokens, migrations and refused starts."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from auditor.service.db import make_engine, reading, sqlite_url
from auditor.service.tables import idempotency_keys
from tests import forked
from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer, free_port, run_cli

SAMPLE = str(SAMPLES / "video_frames" / "audit.yaml")
RUN_LINE = re.compile(r"^run: (http://127\.0\.0\.1:\d+/projects/demo/runs/(\d+))$", re.M)


def audit(*args: str, token: str | None = None, python: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`audit ARGS`; SPLIT_AUDITOR_TOKEN set only when ``token`` is given. In this process (the command's
    own code, without a second interpreter's start-up), unless ``python`` asks for a separate one."""
    if python is None:
        return run_cli(*args, token=token)
    env = {k: v for k, v in os.environ.items() if k != "SPLIT_AUDITOR_TOKEN"}
    if token is not None:
        env["SPLIT_AUDITOR_TOKEN"] = token
    argv = [sys.executable, *python, *args]
    return forked.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The command failed with exit 2 and a single `error:` line, never a traceback."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def at(live: LiveServer) -> list[str]:
    """The options that point a token command at the live server's database."""
    return ["--data-dir", str(live.data_dir)]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One SQLite server for the module; no queue worker, so a server-side run stays queued."""
    server = LiveServer(tmp_path_factory.mktemp("svc") / "data", roots={"samples": SAMPLES}, extra=["--workers", "0"])
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_submit_creates_the_project_and_prints_the_run_page(live: LiveServer, tmp_path: Path) -> None:
    made = audit("token", "create", "--role", "submitter", "--name", "Sam", "--project", "demo", *at(live))
    assert made.returncode == 0, made.stderr
    submitter = made.stdout.strip()
    assert re.fullmatch(r"sa_\S+", submitter)
    done = audit("run", SAMPLE, "--submit", live.url, "--project", "demo", "--out", str(tmp_path), token=submitter)
    assert done.returncode == 1, done.stderr  # the sample's audit finds leaks: the exit code stays the audit's
    page = RUN_LINE.search(done.stdout)
    assert page is not None, done.stdout
    assert page.group(1).startswith(live.url)
    with live.client(submitter) as c:
        run = c.get(f"/api/projects/demo/runs/{page.group(2)}").json()
    assert run["url"] == page.group(1) and run["state"] == "completed" and run["exit_code"] == 1
    assert (tmp_path / "report.json").is_file()
    # The upload carried an Idempotency-Key: its first answer is kept for a retry, which would not store it again.
    engine = make_engine(sqlite_url(live.data_dir))
    try:
        with reading(engine) as conn:
            kept = conn.execute(select(idempotency_keys.c.route, idempotency_keys.c.status)).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in kept] == [("POST /api/projects/demo/runs", 201)]


def test_submit_sends_the_config_byte_for_byte_as_audited(live: LiveServer, tmp_path: Path) -> None:
    """A config with Windows line ends: the text uploaded is the one its report's config_sha256 names."""
    folder = tmp_path / "crlf"
    shutil.copytree(SAMPLES / "video_frames", folder)
    config = folder / "audit.yaml"
    config.write_bytes(config.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    made = audit("token", "create", "--role", "submitter", "--name", "Win", "--project", "crlf", *at(live))
    submitter = made.stdout.strip()
    done = audit(
        "run", str(config), "--submit", live.url, "--project", "crlf", "--out", str(tmp_path / "out"), token=submitter
    )
    assert done.returncode == 1, done.stderr
    page = re.search(r"^run: \S+/projects/crlf/runs/(\d+)$", done.stdout, re.M)
    assert page is not None, done.stdout
    with live.client(submitter) as c:
        run = c.get(f"/api/projects/crlf/runs/{page.group(1)}").json()
    assert run["config_sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()


def test_submit_refuses_a_bad_project_name_before_the_audit(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nobody listens: the name is refused before the server is asked
    done = audit(
        "run", SAMPLE, "--submit", url, "--project", "with space", "--out", str(tmp_path / "out"), token="sa_x"
    )
    line = one_line_error(done)
    assert "--project 'with space'" in line and "nothing was audited" in line
    assert "letters, digits, '.', '_' and '-', at most 100, starting with a letter or digit" in line
    assert url not in line and not (tmp_path / "out").exists()


def test_submit_with_a_token_of_another_project_stops_before_the_audit(live: LiveServer, tmp_path: Path) -> None:
    made = audit("token", "create", "--role", "submitter", "--name", "Oli", "--project", "other", *at(live))
    done = audit(
        "run", SAMPLE, "--submit", live.url, "--project", "demo", "--out", str(tmp_path), token=made.stdout.strip()
    )
    line = one_line_error(done)
    # The project's exposure ledger is read before the audit: without it every holdout would be called fresh.
    assert "exposure ledger could not be read" in line and "project 'demo'" in line and "nothing was audited" in line
    assert not (tmp_path / "report.json").exists()


def test_submit_without_a_token_stops_before_the_audit(live: LiveServer, tmp_path: Path) -> None:
    done = audit("run", SAMPLE, "--submit", live.url, "--project", "demo", "--out", str(tmp_path / "out"))
    line = one_line_error(done)
    assert "--token" in line and "SPLIT_AUDITOR_TOKEN" in line
    assert not (tmp_path / "out").exists()


def test_submit_with_an_invalid_token_stops_before_the_audit(live: LiveServer, tmp_path: Path) -> None:
    done = audit("run", SAMPLE, "--submit", live.url, "--project", "demo", "--out", str(tmp_path), token="sa_wrong")
    assert "401" in one_line_error(done)
    assert not (tmp_path / "report.json").exists()
    pasted = audit("run", SAMPLE, "--submit", live.url, "--project", "demo", "--token", "sa_a\nsa_b")
    assert "--token" in one_line_error(pasted)


def test_submit_to_an_unreachable_server_stops_before_the_audit(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = audit("run", SAMPLE, "--submit", url, "--project", "demo", "--out", str(tmp_path / "out"), token="sa_x")
    line = one_line_error(done)
    assert url in line and "nothing was audited" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", [["--project", "demo"], ["--token", "sa_x"]])
def test_project_and_token_need_submit(option: list[str], tmp_path: Path) -> None:
    done = audit("run", SAMPLE, *option, "--out", str(tmp_path / "out"))
    assert "--submit" in one_line_error(done)
    assert not (tmp_path / "out").exists()


def _gate(live: LiveServer, run: int | str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    return audit("gate", live.url, "--project", "gated", "--run", str(run), token=token or live.admin_token)


def test_gate_exits_0_only_for_an_approved_run(live: LiveServer) -> None:
    assert live.admin_token is not None
    out = live.data_dir.parent / "gate-out"
    assert audit("run", SAMPLE, "--out", str(out), "--format", "json", "-q").returncode == 1
    body = {"report": json.loads((out / "report.json").read_text())}
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    with live.client(live.admin_token) as c:
        c.post("/api/projects", json={"name": "gated"})
        approved, changes, unreviewed = (c.post("/api/projects/gated/runs", json=body).json()["id"] for _ in range(3))
        queued = c.post(
            "/api/projects/gated/runs", json={"config": config, "data_root": "samples", "base": "video_frames"}
        ).json()["id"]
        reviews = {
            approved: {"action": "approve", "comment": "looked", "override_reason": "known pilot leaks"},
            changes: {"action": "request_changes", "comment": "split by patient first"},
        }
        for run, review in reviews.items():
            assert c.post(f"/api/projects/gated/runs/{run}/reviews", json=review).status_code == 201
    passed = _gate(live, approved)
    assert passed.returncode == 0 and passed.stdout.startswith("approved: "), passed.stderr
    for run, why in ((changes, "requested changes"), (unreviewed, "not been reviewed"), (queued, "is queued")):
        done = _gate(live, run)
        assert done.returncode == 1 and why in done.stdout, (run, done.stdout, done.stderr)
    assert "no such run" in one_line_error(_gate(live, 999))
    assert "401" in one_line_error(_gate(live, approved, token="sa_wrong"))


def test_gate_says_not_approved_for_a_failed_run(live: LiveServer) -> None:
    from auditor.service import store
    from auditor.service.db import make_engine, sqlite_url

    assert live.admin_token is not None
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    with live.client(live.admin_token) as c:
        c.post("/api/projects", json={"name": "gated"})
        made = c.post(
            "/api/projects/gated/runs", json={"config": config, "data_root": "samples", "base": "video_frames"}
        )
    engine = make_engine(sqlite_url(live.data_dir))
    try:
        assert store.fail_run(engine, made.json()["id"], "the audit process was killed")
    finally:
        engine.dispose()
    done = _gate(live, made.json()["id"])
    assert done.returncode == 1 and "is failed" in done.stdout, (done.stdout, done.stderr)


def test_gate_names_a_server_that_does_not_answer() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert url in one_line_error(audit("gate", url, "--project", "p", "--run", "1", token="sa_x"))
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        done = audit("gate", url, "--project", "p", "--run", "1", "--timeout", "0.5", token="sa_x")
    line = one_line_error(done)
    assert url in line and "no answer within 0.5 s" in line


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--role", "boss", "expected one of submitter, reviewer, admin"),
        ("--project", "a b", "--project 'a b': expected letters, digits"),
        ("--project", "demo\n", "--project 'demo\\n'"),
        ("--name", " ", "--name ' ': expected the holder's name"),
        ("--name", "x" * 201, "1 to 200 printable characters"),
    ],
)
def test_token_create_refuses_a_bad_role_or_project(option: str, value: str, expected: str, tmp_path: Path) -> None:
    args = {"--role": "reviewer", "--name": "Rae", "--project": "demo", option: value}
    done = audit("token", "create", *[x for kv in args.items() for x in kv], "--data-dir", str(tmp_path))
    assert expected in one_line_error(done)
    assert not (tmp_path / "service.sqlite").exists()  # refused before the database is touched


def test_token_create_needs_the_holders_name(tmp_path: Path) -> None:
    done = audit("token", "create", "--role", "reviewer", "--data-dir", str(tmp_path))
    assert done.returncode == 2 and "Missing option '--name'" in done.stderr, done.stderr
    assert not (tmp_path / "service.sqlite").exists()


def test_token_list_and_revoke_against_a_live_server(live: LiveServer) -> None:
    made = audit("token", "create", "--role", "reviewer", "--name", "Ada Lovelace", "--project", "demo", *at(live))
    secret = made.stdout.strip()
    listing = audit("token", "list", *at(live))
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.split()[:6] == ["id", "name", "role", "project", "created", "created_by"]
    assert secret not in listing.stdout and str(live.admin_token) not in listing.stdout
    row = next(line for line in listing.stdout.splitlines() if "Ada Lovelace" in line)
    assert re.fullmatch(r"(\d+)\s+Ada Lovelace\s+reviewer\s+demo\s+\S+Z\s+audit token\s*", row), row
    token_id = row.split()[0]
    with live.client(secret) as c:
        assert c.get("/api/me").status_code == 200
        done = audit("token", "revoke", token_id, *at(live))
        assert done.returncode == 0 and done.stdout == f"token {token_id} revoked\n", done.stderr
        assert c.get("/api/me").status_code == 401  # at once, no restart
    assert "Ada Lovelace" not in audit("token", "list", *at(live)).stdout
    assert "no such active token" in one_line_error(audit("token", "revoke", token_id, *at(live)))


def test_token_revoke_keeps_the_last_admin_token(tmp_path: Path) -> None:
    where = ["--data-dir", str(tmp_path)]
    for name in ("First Admin", "Scoped Admin"):
        scope = ["--project", "demo"] if name.startswith("Scoped") else []
        assert audit("token", "create", "--role", "admin", "--name", name, *scope, *where).returncode == 0
    line = one_line_error(audit("token", "revoke", "1", *where))
    assert "last active admin token" in line and "create another admin token first" in line
    assert audit("token", "create", "--role", "admin", "--name", "Second Admin", *where).returncode == 0
    assert audit("token", "revoke", "1", *where).returncode == 0


def _head_revision() -> str:
    from alembic.script import ScriptDirectory

    from auditor.service import db

    return str(ScriptDirectory(str(Path(db.__file__).parent / "migrations")).get_current_head())


def test_db_upgrade_says_whether_it_migrated(database: str | None, tmp_path: Path) -> None:
    where = ["--database", database] if database else ["--data-dir", str(tmp_path / "data")]
    head = _head_revision()
    first, again = audit("db", "upgrade", *where), audit("db", "upgrade", *where)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert first.stdout == f"database created at revision {head}\n"
    assert again.stdout == f"database already at revision {head}\n"


def test_db_upgrade_names_both_revisions_when_it_migrates(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    from auditor.service import db

    head = _head_revision()
    if head == "0001":
        pytest.skip("one revision only: nothing to migrate from")
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    engine = db.make_engine(db.sqlite_url(tmp_path))
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0001")
    finally:
        engine.dispose()
    done = audit("db", "upgrade", "--data-dir", str(tmp_path))
    assert done.stdout == f"database upgraded from 0001 to {head}\n", done.stderr


def test_service_options_show_what_they_take() -> None:
    shown = audit("serve", "--help").stdout + audit("token", "create", "--help").stdout
    for metavar in ("NAME=PATH", "ADDRESS", "PORT", "DIR", "URL", "SECONDS", "MB", "WHO", "ROLE"):
        assert metavar in shown, metavar
    assert "list[str]" not in shown and "<str>" not in shown and "<path>" not in shown


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--data-root", "samples"], "expected NAME=PATH"),
        (["--data-root", "samples=/no/such/folder"], "is not a directory"),
        (["--data-root", f"s={SAMPLES}", "--data-root", f"s={SAMPLES}"], "given twice"),
        (["--database", "mysql://x/y"], "expected sqlite:/// or postgresql+psycopg://"),
        (["--database", "not a url"], "not a database URL"),
        (["--database", "postgresql+psycopg://nobody@127.0.0.1:{free}/x"], "Connection refused"),
        (["--data-dir", "{file}"], "a file is in the way"),
        (["--port", "{busy}"], "another process listens there"),
    ],
)
def test_serve_refuses_a_bad_start_in_one_line(args: list[str], expected: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        values = {"free": str(free_port()), "file": str(tmp_path / "file"), "busy": str(busy.getsockname()[1])}
        argv = [a.format(**values) for a in args]
        if "--port" not in argv:
            argv += ["--port", str(free_port())]
        if "--data-dir" not in argv:
            argv += ["--data-dir", str(tmp_path / "data")]
        done = audit("serve", *argv)
    line = one_line_error(done)
    assert expected in line
    assert "admin token" not in done.stdout  # nothing handed out by a server that did not start


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_serve_refuses_an_unwritable_data_dir(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    done = audit("serve", "--port", str(free_port()), "--data-dir", str(locked))
    assert "not writable" in one_line_error(done)


def test_serve_refuses_a_read_only_database_file_in_one_line(tmp_path: Path) -> None:
    """Mode 0444 in a writable folder: exit 2 naming the file, even for root (who could write it anyway); the
    file is left as it was."""
    data = tmp_path / "data"
    first = audit("db", "upgrade", "--data-dir", str(data))
    assert first.returncode == 0, first.stdout + first.stderr
    database_file = data / "service.sqlite"
    database_file.chmod(0o444)
    before = database_file.read_bytes()
    # In its own process: a server that started anyway is then a time-out, not a test that never ends.
    done = audit("serve", "--port", str(free_port()), "--data-dir", str(data), python=["-m", "auditor.cli"])
    line = one_line_error(done)
    assert f"database {database_file.resolve()}: the file is read-only (mode 0444)" in line
    assert "admin token" not in done.stdout
    assert database_file.read_bytes() == before and database_file.stat().st_mode & 0o777 == 0o444


BLOCK_EXTRA = (
    "import sys; [sys.modules.__setitem__(m, None) for m in ('fastapi', 'uvicorn', 'sqlalchemy', 'alembic')];"
    "from auditor.cli import main; sys.argv[0] = 'audit'; main()"
)


@pytest.mark.parametrize(
    "command",
    [["serve"], ["db", "upgrade"], ["token", "create", "--role", "admin", "--name", "A"], ["token", "list"]],
    ids=" ".join,
)
def test_service_commands_name_the_extra_when_it_is_missing(command: list[str], tmp_path: Path) -> None:
    done = audit(*command, "--data-dir", str(tmp_path), python=["-c", BLOCK_EXTRA])
    line = one_line_error(done)
    assert "split-auditor[service]" in line
    assert list(tmp_path.iterdir()) == []


def test_gate_with_config_refuses_an_approval_of_other_data(live: LiveServer, tmp_path: Path) -> None:
    """An approval is of the data it audited: a manifest or config edited afterwards does not pass the gate."""
    assert live.admin_token is not None
    project = tmp_path / "project"
    shutil.copytree(SAMPLES / "video_frames", project)
    config = str(project / "audit.yaml")
    submitted = audit("run", config, "--submit", live.url, "--project", "fresh", "-q", token=live.admin_token)
    match = re.search(r"^run: \S+/runs/(\d+)$", submitted.stdout, re.M)
    assert match, (submitted.stdout, submitted.stderr)
    run = match.group(1)
    with live.client(live.admin_token) as c:
        approve = {"action": "approve", "comment": "ok", "override_reason": "pilot"}
        assert c.post(f"/api/projects/fresh/runs/{run}/reviews", json=approve).status_code == 201

    def gate() -> subprocess.CompletedProcess[str]:
        args = ("gate", live.url, "--project", "fresh", "--run", run, "--config", config)
        return audit(*args, token=live.admin_token)

    assert gate().returncode == 0, gate().stdout
    manifest = project / "manifest.csv"
    original = manifest.read_bytes()
    manifest.write_bytes(original + b"f9999,frames/v01_p1_000.png,v01,p1,cam-A,2024-03-02T09:00:00,walking,train\n")
    edited = gate()
    assert edited.returncode == 1 and "the manifest changed since that audit" in edited.stdout, edited.stdout
    manifest.write_bytes(original)
    (project / "audit.yaml").write_text((project / "audit.yaml").read_text() + "\n# edited\n")
    assert "the config changed" in gate().stdout


@pytest.mark.parametrize("value", ["inf", "nan", "1e300"])
def test_an_unbounded_job_timeout_is_refused_before_the_server_starts(tmp_path: Path, value: str) -> None:
    # An infinite limit let every server-side audit run unwatched; the server must not even start with it.
    audit = str(Path(sys.executable).parent / "audit")
    command = [audit, "serve", "--data-dir", str(tmp_path / "data"), "--port", str(free_port()), "--job-timeout", value]
    done = forked.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Invalid value for '--job-timeout'" in done.stderr
    assert not (tmp_path / "data").exists()
