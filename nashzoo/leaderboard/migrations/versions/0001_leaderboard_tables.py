"""The leaderboard tables: users, submissions, jobs, ratings, stored hands.

Revision ID: 0001
Revises:
Create Date: 2026-11-24 06:00:31.053863
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lb_hands",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("a", sa.String(length=64), nullable=False),
        sa.Column("b", sa.String(length=64), nullable=False),
        sa.Column("block", sa.Integer(), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("seat0", sa.String(length=64), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game", "a", "b", "block", "deal", "seat0"),
    )
    op.create_table(
        "lb_ratings",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("entrant", sa.String(length=64), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("nash", sa.Float(), nullable=True),
        sa.Column("mean_mbb", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game", "entrant"),
    )
    op.create_table(
        "lb_users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=256), nullable=False),
        sa.Column("max_submissions", sa.Integer(), nullable=False),
        sa.Column("max_upload_bytes", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "lb_submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error_code", sa.String(length=32), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("validation_log", sa.Text(), nullable=False),
        sa.Column("exploitability", sa.Float(), nullable=True),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["lb_users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lb_submissions", schema=None) as batch_op:
        batch_op.create_index("ix_lb_submissions_game_status", ["game", "status"], unique=False)

    op.create_table(
        "lb_jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("entrant", sa.String(length=64), nullable=False),
        sa.Column("opponent", sa.String(length=64), nullable=False),
        sa.Column("block", sa.Integer(), nullable=False),
        sa.Column("deals", sa.Integer(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["lb_submissions.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "game", "entrant", "opponent", "block", name="uq_lb_jobs_work"),
    )
    with op.batch_alter_table("lb_jobs", schema=None) as batch_op:
        batch_op.create_index("ix_lb_jobs_claim", ["status", "priority", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("lb_jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_lb_jobs_claim")

    op.drop_table("lb_jobs")
    with op.batch_alter_table("lb_submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_lb_submissions_game_status")

    op.drop_table("lb_submissions")
    op.drop_table("lb_users")
    op.drop_table("lb_ratings")
    op.drop_table("lb_hands")
