"""Nash-averaging intervals on the board, and every entrant's rating history.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27 03:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("lb_ratings") as batch:
        batch.add_column(sa.Column("nash_low", sa.Float(), nullable=True))
        batch.add_column(sa.Column("nash_high", sa.Float(), nullable=True))
    op.create_table(
        "lb_rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("entrant", sa.String(length=64), nullable=False),
        sa.Column("blocks", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lb_rating_history_game", "lb_rating_history", ["game"])
    op.create_index("ix_lb_rating_history_entrant", "lb_rating_history", ["entrant"])


def downgrade() -> None:
    op.drop_index("ix_lb_rating_history_entrant", table_name="lb_rating_history")
    op.drop_index("ix_lb_rating_history_game", table_name="lb_rating_history")
    op.drop_table("lb_rating_history")
    with op.batch_alter_table("lb_ratings") as batch:
        batch.drop_column("nash_high")
        batch.drop_column("nash_low")
