"""the scope each acceptance covers (the finding's subject values and counts when it was accepted)

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scope", sa.Text(), nullable=True))
    _record_scopes()


def _record_scopes() -> None:
    """An acceptance made before scopes were recorded covers what its run showed: the scope is read from there."""
    from pydantic import ValidationError

    from auditor.core.findings import Report
    from auditor.core.scope import union

    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT reviews.id, reviews.fingerprint, runs.id, runs.report_json FROM reviews "
            "JOIN runs ON runs.id = reviews.run_id WHERE reviews.action = 'accept' AND runs.report_json IS NOT NULL"
        )
    ).all()
    reports: dict[int, Report | None] = {}
    for review_id, fingerprint, run_id, report_json in rows:
        if run_id not in reports:
            try:
                reports[run_id] = Report.model_validate_json(report_json)
            except ValidationError:
                reports[run_id] = None  # a report this version cannot read: the acceptance covers no values
        report = reports[run_id]
        scopes = [f.scope for f in report.findings if f.fingerprint == fingerprint] if report else []
        if scopes:
            conn.execute(
                sa.text("UPDATE reviews SET scope = :scope WHERE id = :id"),
                {"scope": union(scopes).model_dump_json(), "id": review_id},
            )


def downgrade() -> None:
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.drop_column("scope")
