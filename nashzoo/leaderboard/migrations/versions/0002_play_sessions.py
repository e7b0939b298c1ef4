"""Play sessions: people playing duplicate hands against ranked submissions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lb_play_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["lb_submissions.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["lb_users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lb_play_sessions_user", "lb_play_sessions", ["user_id", "submission_id"])


def downgrade() -> None:
    op.drop_index("ix_lb_play_sessions_user", table_name="lb_play_sessions")
    op.drop_table("lb_play_sessions")
