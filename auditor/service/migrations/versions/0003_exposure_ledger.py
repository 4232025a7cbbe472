"""the test-exposure ledger: holdout sets by fingerprint and the evaluations recorded on them

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "exposure_sets",
        sa.Column("id", Id, nullable=False),
        sa.Column("project_id", Id, nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("basis", sa.String(length=20), nullable=False),
        sa.Column("n_rows", sa.BigInteger(), nullable=False),
        sa.Column("sketch", sa.LargeBinary(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_exposure_sets_project_id_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exposure_sets")),
        sa.UniqueConstraint("project_id", "digest", "basis", name="uq_exposure_sets_project_id_digest_basis"),
    )
    op.create_table(
        "exposure_evaluations",
        sa.Column("id", Id, nullable=False),
        sa.Column("project_id", Id, nullable=False),
        sa.Column("set_id", Id, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("split", sa.String(length=200), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("metrics", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("who", sa.String(length=200), nullable=False),
        sa.Column("token_id", Id, nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name=op.f("fk_exposure_evaluations_project_id_projects")
        ),
        sa.ForeignKeyConstraint(
            ["set_id"], ["exposure_sets.id"], name=op.f("fk_exposure_evaluations_set_id_exposure_sets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exposure_evaluations")),
    )
    op.create_index(
        "ix_exposure_evaluations_project_id_set_id", "exposure_evaluations", ["project_id", "set_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_exposure_evaluations_project_id_set_id", table_name="exposure_evaluations")
    op.drop_table("exposure_evaluations")
    op.drop_table("exposure_sets")
