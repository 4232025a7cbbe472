"""token ids on runs and review records; case-insensitive project names

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(length=100), nullable=True))
    # Existing names keep their spelling; their key is the case-folded name (lower() is close enough for the
    # names allowed: ASCII letters, digits, '.', '_' and '-').
    op.execute("UPDATE projects SET name_key = lower(name)")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(length=100), nullable=False)
        batch_op.create_unique_constraint(batch_op.f("uq_projects_name_key"), ["name_key"])
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("token_id", Id, nullable=True))
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.add_column(sa.Column("token_id", Id, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.drop_column("token_id")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_column("token_id")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_projects_name_key"), type_="unique")
        batch_op.drop_column("name_key")
