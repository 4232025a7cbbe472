"""the test-exposure ledger keeps the sample ids of a set recorded by content, beside its content sketch

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # Sets recorded before have no row here: they are compared by the basis they were recorded on, as before.
    op.create_table(
        "exposure_set_ids",
        sa.Column("id", Id, nullable=False),
        sa.Column("project_id", Id, nullable=False),
        sa.Column("set_id", Id, nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("n_rows", sa.BigInteger(), nullable=False),
        sa.Column("sketch", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name=op.f("fk_exposure_set_ids_project_id_projects")),
        sa.ForeignKeyConstraint(
            ["set_id"], ["exposure_sets.id"], name=op.f("fk_exposure_set_ids_set_id_exposure_sets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exposure_set_ids")),
        sa.UniqueConstraint("set_id", "digest", name="uq_exposure_set_ids_set_id_digest"),
    )
    op.create_index("ix_exposure_set_ids_project_id", "exposure_set_ids", ["project_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_exposure_set_ids_project_id", table_name="exposure_set_ids")
    op.drop_table("exposure_set_ids")
