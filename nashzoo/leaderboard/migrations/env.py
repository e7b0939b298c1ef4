"""Alembic environment of the leaderboard: run by :func:`nashzoo.leaderboard.db.migrate`
with the open connection in ``config.attributes["connection"]``."""

from __future__ import annotations

from alembic import context

from nashzoo.leaderboard.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    version_table="lb_alembic_version",
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
