"""Alembic environment: migrates the connection the service hands over (never a URL from a file)."""

from __future__ import annotations

from alembic import context

from auditor.service.tables import metadata

connection = context.config.attributes["connection"]
# SQLite cannot ALTER most things in place: batch mode rebuilds a table instead.
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
