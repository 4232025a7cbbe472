"""idempotency answers kept with their writes: each row is an answer (no pending rows), keyed by the resource,
and no answer holds a token

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import json
import re

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# The routes as the rows name them: a project by its name as sent, an id with any leading zeros.
_PROJECT = re.compile(r"^(POST /api/projects/)([^/]+)(/.*)?$")
_NUMBER = re.compile(r"(?<=/)(runs|tokens)/0*(\d+)(?=/|$)")


def canonical(route: str) -> str:
    """``route`` as the service names a resource now: the project case-folded, an id as a number."""
    found = _PROJECT.match(route)
    if found:
        route = found.group(1) + found.group(2).casefold() + (found.group(3) or "")
    return _NUMBER.sub(lambda m: f"{m.group(1)}/{int(m.group(2))}", route)


def upgrade() -> None:
    from auditor.service.auth import shown_once, token_hash

    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT id, token_id, route, key, status, body FROM idempotency_keys ORDER BY id")
    ).all()
    gone: list[int] = []
    changed: dict[int, dict[str, object]] = {}
    seen: set[tuple[int, str, str]] = set()
    for row_id, token_id, route, key, status, body in rows:
        scope = (token_id, canonical(route), key)
        # A pending row was a first request that never finished: it did nothing a retry must not do.
        if status is None or scope in seen:
            gone.append(row_id)
            continue
        seen.add(scope)
        values: dict[str, object] = {}
        if scope[1] != route:
            values["route"] = scope[1]
        if route == "POST /api/tokens" and 200 <= status < 300:
            # The answer held the new token in plain text: a retry now learns which token was made, not the token.
            try:
                secret = json.loads(bytes(body or b"")).get("token", "")
            except (ValueError, AttributeError):
                secret = ""
            made = conn.execute(
                sa.text("SELECT id, name FROM tokens WHERE token_hash = :h"), {"h": token_hash(str(secret))}
            ).first()
            if made is None:
                gone.append(row_id)
                continue
            detail = shown_once(int(made.id), str(made.name))
            values.update(status=409, content_type="application/json", body=json.dumps({"detail": detail}).encode())
        if values:
            changed[row_id] = values
    table = sa.table(
        "idempotency_keys",
        sa.column("id"),
        sa.column("route"),
        sa.column("status"),
        sa.column("content_type"),
        sa.column("body", sa.LargeBinary()),
    )
    if gone:
        conn.execute(table.delete().where(table.c.id.in_(gone)))
    for row_id, values in changed.items():
        conn.execute(table.update().where(table.c.id == row_id).values(**values))
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.alter_column("status", existing_type=sa.Integer(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.alter_column("status", existing_type=sa.Integer(), nullable=True)
