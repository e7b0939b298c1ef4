"""Board versions: a refit replaces a board only with one fitted on as many blocks or more.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 11:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lb_boards",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("blocks", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game"),
    )


def downgrade() -> None:
    op.drop_table("lb_boards")
