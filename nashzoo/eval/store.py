"""Durable tournament results (SQLAlchemy: a SQLite file by default, any database URL).

Every finished block of deals is committed in its own transaction, keyed by
``(tournament, agent_a, agent_b, block)``: a tournament killed at any moment and started
again skips exactly the blocks already stored, and none can be counted twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nashzoo.errors import StoreError

__all__ = ["BlockResult", "ResultStore"]


@dataclass(frozen=True)
class BlockResult:
    """One block of duplicate deals between agents ``a`` and ``b`` (names), A's view.

    ``forfeit`` names the agent that forfeited the block (then the score fields are 0).
    """

    a: str
    b: str
    block: int
    deals: int
    total: float
    total_sq: float
    wins: int
    losses: int
    ties: int
    seconds: float
    forfeit: str | None = None
    reason: str | None = None


def _url(target: str | Path) -> str:
    text = str(target)
    return text if "://" in text else f"sqlite:///{Path(text).resolve()}"


class ResultStore:
    """Tournament results in a database.

    Args:
        target: a SQLAlchemy URL (``postgresql+psycopg://...``) or a path to a SQLite file.
    """

    def __init__(self, target: str | Path) -> None:
        import sqlalchemy as sa

        self.url = _url(target)
        try:
            self.engine = sa.create_engine(self.url, future=True)
            meta = sa.MetaData()
            self.tournaments = sa.Table(
                "tournaments", meta,
                sa.Column("id", sa.String(40), primary_key=True),
                sa.Column("config", sa.Text, nullable=False),
                sa.Column("created", sa.String(40), nullable=False),
            )
            self.blocks = sa.Table(
                "blocks", meta,
                sa.Column("tournament", sa.String(40), primary_key=True),
                sa.Column("a", sa.String(200), primary_key=True),
                sa.Column("b", sa.String(200), primary_key=True),
                sa.Column("block", sa.Integer, primary_key=True),
                sa.Column("deals", sa.Integer, nullable=False),
                sa.Column("total", sa.Float, nullable=False),
                sa.Column("total_sq", sa.Float, nullable=False),
                sa.Column("wins", sa.Integer, nullable=False),
                sa.Column("losses", sa.Integer, nullable=False),
                sa.Column("ties", sa.Integer, nullable=False),
                sa.Column("seconds", sa.Float, nullable=False),
                sa.Column("forfeit", sa.String(200)),
                sa.Column("reason", sa.Text),
            )
            self.exploitability = sa.Table(
                "exploitability", meta,
                sa.Column("tournament", sa.String(40), primary_key=True),
                sa.Column("agent", sa.String(200), primary_key=True),
                sa.Column("exploitability", sa.Float),
                sa.Column("reason", sa.Text),
            )
            meta.create_all(self.engine)
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"Cannot open the result store {self.url}: {exc}") from exc
        self._sa = sa

    def register(self, tournament_id: str, config: dict[str, Any]) -> bool:
        """Record a tournament; returns False if it was already there (a resume).

        Raises:
            StoreError: the id exists with another configuration.
        """
        sa = self._sa
        text = json.dumps(config, sort_keys=True)
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(self.tournaments.c.config)
                               .where(self.tournaments.c.id == tournament_id)).first()
            if row is not None:
                if row[0] != text:
                    raise StoreError(f"Tournament {tournament_id} exists with another configuration.")
                return False
            conn.execute(self.tournaments.insert().values(
                id=tournament_id, config=text,
                created=datetime.now(timezone.utc).isoformat(timespec="seconds")))
        return True

    def config(self, tournament_id: str) -> dict[str, Any]:
        sa = self._sa
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(self.tournaments.c.config)
                               .where(self.tournaments.c.id == tournament_id)).first()
        if row is None:
            raise StoreError(f"No tournament {tournament_id} in {self.url}.")
        return json.loads(row[0])

    def tournament_ids(self) -> list[str]:
        sa = self._sa
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(sa.select(self.tournaments.c.id))]

    def add_block(self, tournament_id: str, result: BlockResult) -> bool:
        """Commit one block; returns False (and changes nothing) if it was stored already."""
        sa = self._sa
        values = dict(tournament=tournament_id, **result.__dict__)
        try:
            with self.engine.begin() as conn:
                conn.execute(self.blocks.insert().values(**values))
        except sa.exc.IntegrityError:
            return False
        return True

    def done(self, tournament_id: str) -> set[tuple[str, str, int]]:
        """``(a, b, block)`` of the stored blocks."""
        sa = self._sa
        b = self.blocks
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(b.c.a, b.c.b, b.c.block)
                                .where(b.c.tournament == tournament_id))
            return {(r[0], r[1], r[2]) for r in rows}

    def results(self, tournament_id: str) -> list[BlockResult]:
        """Every stored block, in a stable order."""
        sa = self._sa
        b = self.blocks
        cols = [c for c in b.c if c.name != "tournament"]
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(*cols).where(b.c.tournament == tournament_id)
                                .order_by(b.c.a, b.c.b, b.c.block))
            return [BlockResult(**row._mapping) for row in rows]

    def set_exploitability(self, tournament_id: str, agent: str, value: float | None,
                           reason: str | None = None) -> None:
        """Record (or replace) one agent's exploitability, ``None`` with a reason if unknown."""
        t = self.exploitability
        with self.engine.begin() as conn:
            conn.execute(t.delete().where((t.c.tournament == tournament_id) & (t.c.agent == agent)))
            conn.execute(t.insert().values(tournament=tournament_id, agent=agent,
                                           exploitability=value, reason=reason))

    def exploitabilities(self, tournament_id: str) -> dict[str, tuple[float | None, str | None]]:
        sa = self._sa
        t = self.exploitability
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(t.c.agent, t.c.exploitability, t.c.reason)
                                .where(t.c.tournament == tournament_id))
            return {r[0]: (r[1], r[2]) for r in rows}

    def close(self) -> None:
        self.engine.dispose()
