"""The Alembic migrations build exactly the schema of tables.py, on SQLite and PostgreSQL, and can be undone."""

from __future__ import annotations

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


def test_upgrade_builds_the_schema_of_the_tables_module(url: str) -> None:
    assert upgrade(url) == "0001"
    assert differences(url) == []
    assert upgrade(url) == "0001"  # a second upgrade changes nothing
    assert differences(url) == []


def test_downgrade_to_base_and_upgrade_again(url: str) -> None:
    upgrade(url)
    downgrade(url, "base")
    assert tables(url) == set()
    assert upgrade(url) == "0001"
    assert differences(url) == []
    assert tables(url) == set(metadata.tables)
