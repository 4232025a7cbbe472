"""The service's tables: projects, runs, append-only review records, hashed API tokens and browser sessions, the
exposure ledger and the answers kept for idempotent retries."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

# Stable constraint names, so Alembic migrations read the same on SQLite and PostgreSQL.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# A big integer on PostgreSQL, SQLite's rowid alias there (only INTEGER PRIMARY KEY autoincrements).
Id = BigInteger().with_variant(Integer(), "sqlite")

projects = Table(
    "projects",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", String(100), nullable=False, unique=True),
    # The name case-folded: `Demo` and `demo` differ only by spelling, so they are one project.
    Column("name_key", String(100), nullable=False, unique=True),
    Column("description", Text, nullable=False, default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200), nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Id, primary_key=True),
    # sha256 of the token: the token itself is shown once and never stored.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("role", String(20), nullable=False),
    # The project name the token is limited to; NULL: every project.
    Column("project", String(100), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

# Signed-in browsers of the reviewers' pages: the cookie holds a random secret (never the API token); a session
# stands for its token until sign-out, its expiry or the token's revocation.
sessions = Table(
    "sessions",
    metadata,
    Column("id", Id, primary_key=True),
    Column("secret_hash", String(64), nullable=False, unique=True),  # sha256 of the cookie's secret
    Column("token_id", Id, ForeignKey("tokens.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("ix_sessions_expires_at", "expires_at"),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Id, primary_key=True),
    Column("project_id", Id, ForeignKey("projects.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("submitted_by", String(200), nullable=False),
    # The token that submitted: names may repeat, the token id tells two submitters apart.
    Column("token_id", Id, nullable=True),
    # "uploaded": run on the submitter's machine; "server": the data stages ran here.
    Column("source", String(20), nullable=False),
    # queued -> running -> completed | failed; an uploaded report arrives completed.
    Column("state", String(20), nullable=False),
    Column("progress", Text, nullable=False, default=""),
    Column("error", Text, nullable=True),
    Column("data_root", String(100), nullable=True),
    Column("base", Text, nullable=True),
    Column("config_text", Text, nullable=True),
    Column("config_sha256", String(64), nullable=True),
    Column("manifest_sha256", String(64), nullable=True),
    Column("report_json", Text, nullable=True),
    Column("exit_code", Integer, nullable=True),
    Column("errors", Integer, nullable=True),
    Column("warnings", Integer, nullable=True),
    Column("infos", Integer, nullable=True),
    Column("worker", String(100), nullable=True),
    Column("heartbeat_at", DateTime(timezone=True), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Index("ix_runs_project_id_id", "project_id", "id"),
    Index("ix_runs_state", "state"),
)

# Append-only: rows are inserted, never updated or deleted; the latest decision on a run is its review state.
reviews = Table(
    "reviews",
    metadata,
    Column("id", Id, primary_key=True),
    Column("project_id", Id, ForeignKey("projects.id"), nullable=False),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("token_id", Id, nullable=True),  # who exactly: the token the record was made with
    Column("role", String(20), nullable=False),
    # approve | request_changes | accept | comment
    Column("action", String(20), nullable=False),
    Column("comment", Text, nullable=False, default=""),
    Column("fingerprint", String(64), nullable=True),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    Column("override_reason", Text, nullable=True),
    # accept: the scope it covers (JSON of core.scope.Scope: the finding's values and counts when accepted)
    Column("scope", Text, nullable=True),
    Index("ix_reviews_run_id", "run_id"),
    Index("ix_reviews_project_id_fingerprint", "project_id", "fingerprint"),
)

# The test-exposure ledger of each project: holdout sets by content fingerprint, and the evaluations on them.
exposure_sets = Table(
    "exposure_sets",
    metadata,
    Column("id", Id, primary_key=True),
    Column("project_id", Id, ForeignKey("projects.id"), nullable=False),
    Column("digest", String(64), nullable=False),  # sha256 of the set's sorted row hashes
    Column("basis", String(20), nullable=False),  # content | ids
    Column("n_rows", BigInteger, nullable=False),
    Column("sketch", LargeBinary, nullable=False),  # bottom-K row hashes, little-endian uint64
    Column("first_seen", DateTime(timezone=True), nullable=False),
    UniqueConstraint("project_id", "digest", "basis", name="uq_exposure_sets_project_id_digest_basis"),
)

# A set recorded by content: its rows by sample ids too (one row per ids sketch it was recorded with), so an
# audit whose config names only ids still recognises it.
exposure_set_ids = Table(
    "exposure_set_ids",
    metadata,
    Column("id", Id, primary_key=True),
    Column("project_id", Id, ForeignKey("projects.id"), nullable=False),
    Column("set_id", Id, ForeignKey("exposure_sets.id"), nullable=False),
    Column("digest", String(64), nullable=False),  # sha256 of the sorted hashes of the set's sample ids
    Column("n_rows", BigInteger, nullable=False),
    Column("sketch", LargeBinary, nullable=False),  # bottom-K id hashes, little-endian uint64
    UniqueConstraint("set_id", "digest", name="uq_exposure_set_ids_set_id_digest"),
    Index("ix_exposure_set_ids_project_id", "project_id"),
)

# Append-only, like reviews: an evaluation once recorded is never changed or removed.
exposure_evaluations = Table(
    "exposure_evaluations",
    metadata,
    Column("id", Id, primary_key=True),
    Column("project_id", Id, ForeignKey("projects.id"), nullable=False),
    Column("set_id", Id, ForeignKey("exposure_sets.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("split", String(200), nullable=False),
    Column("source", Text, nullable=False),
    Column("metrics", Text, nullable=False),  # JSON object of name -> finite number
    Column("note", Text, nullable=False),
    Column("who", String(200), nullable=False),
    Column("token_id", Id, nullable=True),
    Index("ix_exposure_evaluations_project_id_set_id", "project_id", "set_id"),
)

# The first answer to a POST sent with an Idempotency-Key, per token and resource: a retry gets it again instead
# of doing the write twice. A write's answer is inserted in the write's own transaction (idempotency.py).
idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("id", Id, primary_key=True),
    Column("token_id", Id, nullable=False),
    # The resource: method and path with the values as stored, e.g. "POST /api/projects/demo/runs/1/reviews"
    Column("route", String(1100), nullable=False),
    Column("key", String(200), nullable=False),
    Column("request_sha256", String(64), nullable=False),  # the body: one key never answers another request
    Column("status", Integer, nullable=False),
    Column("content_type", String(200), nullable=True),
    Column("body", LargeBinary, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("token_id", "route", "key", name="uq_idempotency_keys_token_id_route_key"),
    Index("ix_idempotency_keys_created_at", "created_at"),
)
