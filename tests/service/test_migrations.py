"""The Alembic migrations build exactly the schema of tables.py, on SQLite and PostgreSQL, and can be undone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from auditor.service.db import make_engine, sqlite_url, upgrade
from auditor.service.tables import metadata

MIGRATIONS = Path(__file__).resolve().parents[2] / "auditor" / "service" / "migrations"


@pytest.fixture
def url(database: str | None, tmp_path: Path) -> str:
    """An empty database of each backend."""
    return database or sqlite_url(tmp_path)


def differences(url: str) -> list[object]:
    """What autogenerate would change to make the database match tables.py (types and defaults included)."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def downgrade(url: str, target: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, target)
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def head() -> str:
    from alembic.script import ScriptDirectory

    from auditor.service import db

    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    return str(ScriptDirectory.from_config(config).get_current_head())


def test_upgrade_builds_the_schema_of_the_tables_module(url: str) -> None:
    assert upgrade(url) == head() != "0001"
    assert differences(url) == []
    assert upgrade(url) == head()  # a second upgrade changes nothing
    assert differences(url) == []


def test_downgrade_to_base_and_upgrade_again(url: str) -> None:
    upgrade(url)
    downgrade(url, "base")
    assert tables(url) == set()
    assert upgrade(url) == head()
    assert differences(url) == []
    assert tables(url) == set(metadata.tables)


def test_projects_made_before_case_insensitive_names_get_their_key(url: str) -> None:
    """A database of revision 0001 with a project `Demo`: after the upgrade `demo` finds it and cannot be made."""
    from sqlalchemy import text

    from auditor.service import store

    config = Config()
    config.set_main_option("script_location", str(Path(store.__file__).parent / "migrations"))
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0001")
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO projects (name, description, created_at, created_by) "
                    "VALUES ('Demo', '', CURRENT_TIMESTAMP, 'test')"
                )
            )
    finally:
        engine.dispose()
    upgrade(url)
    engine = make_engine(url)
    try:
        assert store.get_project(engine, "demo").name == "Demo"
        with pytest.raises(store.Conflict, match="exists already as 'Demo'"):
            store.create_project(engine, "DEMO", description="", created_by="test")
    finally:
        engine.dispose()


def test_an_acceptance_recorded_before_scopes_covers_what_its_run_showed(url: str, tmp_path: Path) -> None:
    from auditor.service import store
    from auditor.service.auth import Principal, Role
    from tests.service.leaks import camera_report, finding

    upgrade(url)
    report = camera_report(tmp_path / "1", ["cam-B"])
    fp = finding(report, "TMP002")["fingerprint"]
    engine = make_engine(url)
    try:
        project = store.create_project(engine, "demo", description="", created_by="t")
        run = store.add_report(
            engine,
            project,
            report_json=json.dumps(report),
            summary=(1, 1, 0),
            exit_code=1,
            config_text=None,
            config_sha256=None,
            manifest_sha256=None,
            submitted_by="t",
        )
        who = Principal(token_id=1, name="rev", role=Role.REVIEWER, project=None)
        store.add_review(engine, run, project, who, action="accept", comment="clock fault", fingerprint=fp)
    finally:
        engine.dispose()
    downgrade(url, "0003")  # the record as it was before scopes: no scope column at all
    upgrade(url)
    engine = make_engine(url)
    try:
        (record,) = store.acceptances(engine, store.get_project(engine, "demo"), store.now()).values()
    finally:
        engine.dispose()
    assert record.scope is not None and record.scope.values == ("cam-B",)


def test_kept_answers_after_the_upgrade_are_keyed_by_resource_and_hold_no_token(url: str) -> None:
    """A database of revision 0005: a pending claim (dropped: it did nothing), an answer holding a new token (now
    the refusal naming it), and answers under two spellings of one resource (one kept, under its canonical path)."""
    from sqlalchemy import text

    from auditor.service import store
    from auditor.service.auth import Role

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0005")
        secret = store.create_token(engine, name="ci", role=Role.SUBMITTER, project=None, created_by="test")
        (made,) = store.list_tokens(engine)
        rows = [
            ("POST /api/projects", "pending", None, b""),
            ("POST /api/tokens", "tok", 201, json.dumps({"token": secret, "name": "ci"}).encode()),
            ("POST /api/projects/IDK/runs", "k", 201, b'{"id": 1}'),
            ("POST /api/projects/idk/runs", "k", 201, b'{"id": 2}'),
            ("POST /api/projects/idk/runs/007/reviews", "r", 201, b'{"id": 3}'),
        ]
        with engine.begin() as conn:
            for route, key, status, body in rows:
                conn.execute(
                    text(
                        "INSERT INTO idempotency_keys (token_id, route, key, request_sha256, status, content_type, "
                        "body, created_at) VALUES (1, :route, :key, :sha, :status, 'application/json', :body, "
                        "CURRENT_TIMESTAMP)"
                    ),
                    {"route": route, "key": key, "sha": "0" * 64, "status": status, "body": body},
                )
    finally:
        engine.dispose()
    upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT route, key, status, body FROM idempotency_keys ORDER BY route, key")
            ).all()
    finally:
        engine.dispose()
    kept = {(r.route, r.key): (r.status, bytes(r.body)) for r in found}
    assert set(kept) == {
        ("POST /api/tokens", "tok"),
        ("POST /api/projects/idk/runs", "k"),
        ("POST /api/projects/idk/runs/7/reviews", "r"),
    }
    assert kept["POST /api/projects/idk/runs", "k"] == (201, b'{"id": 1}')  # the first answer, as first given
    status, body = kept["POST /api/tokens", "tok"]
    assert status == 409 and secret.encode() not in body
    assert f"token {made.id} ('ci')" in json.loads(body)["detail"]
    assert differences(url) == []
