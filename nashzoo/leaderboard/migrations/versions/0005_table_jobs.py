"""Boards of three or more seats: a match job names the entrants of its table.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27 09:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("lb_jobs") as batch:
        batch.add_column(sa.Column("seats", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("lb_jobs") as batch:
        batch.drop_column("seats")
