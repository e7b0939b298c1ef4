"""α-Rank on the board: each entrant's stationary mass and its interval.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05 19:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

COLUMNS = ("alpharank", "alpharank_low", "alpharank_high")


def upgrade() -> None:
    with op.batch_alter_table("lb_ratings") as batch:
        for name in COLUMNS:
            batch.add_column(sa.Column(name, sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("lb_ratings") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
