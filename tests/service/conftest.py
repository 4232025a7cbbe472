"""Service fixtures: a database per backend (SQLite file, throwaway PostgreSQL cluster) and a live server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import REPO, LiveServer, PgCluster

SAMPLES = REPO / "sample_data"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One cluster per test process; skipped, with the reason, where PostgreSQL is not installed."""
    try:
        cluster = PgCluster.start()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """The database URL of one backend: None means the default SQLite file in the server's data dir."""
    if request.param == "sqlite":
        return None
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_database()


@pytest.fixture
def server(tmp_path: Path, database: str | None) -> Iterator[LiveServer]:
    """A live `audit serve` on a free loopback port, with sample_data as the data root `samples`."""
    live = LiveServer(tmp_path / "service", database=database, roots={"samples": SAMPLES}).start()
    try:
        yield live
    finally:
        live.stop()
