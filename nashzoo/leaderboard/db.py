"""Opening the leaderboard's database: a SQLite file by default, any SQLAlchemy URL.

:func:`open_database` creates the tournament result store's tables (the match results
live there) and runs the Alembic migrations of the leaderboard's own tables up to the
newest, so a database made by an older nashzoo is upgraded in place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nashzoo.errors import LeaderboardError
from nashzoo.eval.store import ResultStore

__all__ = ["database_url", "open_database", "migrate", "MIGRATIONS"]

MIGRATIONS = Path(__file__).with_name("migrations")
"""The Alembic script folder (inside the installed package)."""


def database_url(target: str | Path) -> str:
    """A SQLAlchemy URL for ``target`` (a URL, or a path to a SQLite file)."""
    text = str(target)
    return text if "://" in text else f"sqlite:///{Path(text).resolve()}"


def migrate(engine: Any, revision: str = "head") -> None:
    """Run the leaderboard's Alembic migrations on ``engine`` up to ``revision``."""
    import logging

    # Alembic's INFO lines (plugins set up, context impl, each revision) are not the
    # operator's business at normal verbosity; an operator who sets the "alembic"
    # logger's level keeps it. Set before the import: importing alembic.command sets up
    # its plugins, each with a line.
    quiet = logging.getLogger("alembic")
    if quiet.level == logging.NOTSET:
        quiet.setLevel(logging.WARNING)
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def open_database(target: str | Path) -> tuple[Any, ResultStore]:
    """The engine of the leaderboard database at ``target`` and its result store.

    A SQLite file is created with mode 0600 inside its folder, so that sandboxed agents
    (which run as other users) cannot read it.

    Raises:
        LeaderboardError: the database cannot be opened or migrated.
        StoreError: the result store refuses it (another application's database, ...).
    """
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import SQLAlchemyError

    url = database_url(target)
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///") :])
        if not path.parent.is_dir():
            raise LeaderboardError(f"The folder of the database {path} does not exist.")
        if not path.exists():
            path.touch(mode=0o600)
        os.chmod(path, 0o600)
    store = ResultStore(url)
    try:
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
        engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):

            @event.listens_for(engine, "connect")
            def _sqlite_pragmas(dbapi_connection: Any, record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA busy_timeout=30000")
                cursor.close()

        migrate(engine)
    except SQLAlchemyError as exc:
        raise LeaderboardError(f"Cannot open the leaderboard database {url}: {exc}") from exc
    return engine, store
