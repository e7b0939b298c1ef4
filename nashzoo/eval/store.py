"""Durable tournament results (SQLAlchemy: a SQLite file by default, any database URL).

Every finished block of deals is committed in its own transaction, keyed by
``(tournament, agent_a, agent_b, block)``: a tournament killed at any moment and started
again skips exactly the blocks already stored, and none can be counted twice. Several
processes may start the same tournament at once: registration is idempotent.

Needs the ``store`` extra (SQLAlchemy): ``pip install 'nashzoo[store]'``. Every database
error becomes a :class:`~nashzoo.errors.StoreError` naming the database and the cause.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import numpy as np

from nashzoo.errors import StoreError
from nashzoo.eval.guard import interrupts_held
from nashzoo.extras import require

__all__ = ["BlockResult", "ResultStore", "StoredExploitability", "SCHEMA_VERSION"]

SCHEMA_VERSION = "3"
"""Version of the store's tables (recorded in ``nashzoo_meta``). Version 3 added the
blocks' ``plain_total`` and ``plain_total_sq`` (AIVAT) and the exploitability ``method``
(``"exact"`` or ``"lbr"``, a lower bound) with the bound's ``ci_low``, ``ci_high``; a
version-2 store is upgraded in place when
opened (nullable columns: nothing stored changes)."""

_TABLES = {"tournaments", "blocks", "exploitability", "nashzoo_meta"}

T = TypeVar("T")


@dataclass(frozen=True)
class BlockResult:
    """One block of duplicate deals between agents ``a`` and ``b`` (names), A's view.

    ``forfeit`` names the agent that forfeited the block and ``reason`` says why; a
    forfeited block counts every one of its deals as lost by the forfeiter by the game's
    largest payoff (see :mod:`nashzoo.eval.ratings`), so its score fields hold that
    penalty. In a tournament with AIVAT, ``total`` and ``total_sq`` sum the corrected
    scores and ``plain_total``, ``plain_total_sq`` the scores as played (``None``
    otherwise); wins, losses and ties are always counted as played.
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
    plain_total: float | None = None
    plain_total_sq: float | None = None

    @classmethod
    def played(
        cls,
        a: str,
        b: str,
        block: int,
        scores: np.ndarray,
        seconds: float,
        corrected: np.ndarray | None = None,
    ) -> BlockResult:
        """A played block from A's per-deal scores (and their AIVAT-corrected values)."""
        kept = scores if corrected is None else corrected
        return cls(
            a,
            b,
            block,
            int(scores.size),
            float(kept.sum()),
            float((kept * kept).sum()),
            int(np.count_nonzero(scores > 0)),
            int(np.count_nonzero(scores < 0)),
            int(np.count_nonzero(scores == 0)),
            seconds,
            plain_total=None if corrected is None else float(scores.sum()),
            plain_total_sq=None if corrected is None else float((scores * scores).sum()),
        )

    @classmethod
    def forfeited(
        cls,
        a: str,
        b: str,
        *,
        block: int,
        deals: int,
        loser: str,
        reason: str,
        seconds: float,
        penalty: float,
    ) -> BlockResult:
        """A forfeited block: every deal lost by ``loser`` (``a`` or ``b``) by
        ``penalty``, the game's largest payoff."""
        a_lost = loser == a
        return cls(
            a,
            b,
            block,
            deals,
            (-penalty if a_lost else penalty) * deals,
            penalty * penalty * deals,
            0 if a_lost else deals,
            deals if a_lost else 0,
            0,
            seconds,
            loser,
            reason,
        )


class StoredExploitability(NamedTuple):
    """One agent's stored exploitability (chips).

    Attributes:
        value: the figure, ``None`` when unknown.
        reason: why it is unknown, or how a bound was measured.
        method: ``"exact"``, ``"lbr"`` (a local-best-response lower bound) or ``None``
            (unknown); stores before schema 3 held exact figures only.
        ci95: the bound's 95% CI (``None`` for exact figures).
    """

    value: float | None
    reason: str | None
    method: str | None
    ci95: tuple[float, float] | None


def _url(target: str | Path) -> str:
    text = str(target)
    return text if "://" in text else f"sqlite:///{Path(text).resolve()}"


def _wrapped(method: Callable[..., T]) -> Callable[..., T]:
    """Turn database errors of a store method into :class:`StoreError`, and hold the
    user's Ctrl-C until the call is over (:func:`~nashzoo.eval.guard.interrupts_held`):
    the database library's locks stay whole and the interrupt arrives just after."""

    @functools.wraps(method)
    def run(self: ResultStore, *args: Any, **kwargs: Any) -> T:
        try:
            with interrupts_held():
                return method(self, *args, **kwargs)
        except StoreError:
            raise
        except self._sa.exc.SQLAlchemyError as exc:
            raise StoreError(
                f"The result store {self.url} failed in {method.__name__}(): "
                f"{type(exc.orig if getattr(exc, 'orig', None) else exc).__name__}: "
                f"{getattr(exc, 'orig', None) or exc}"
            ) from exc

    return run


class ResultStore:
    """Tournament results in a database.

    Args:
        target: a SQLAlchemy URL (``postgresql+psycopg://...``) or a path to a SQLite file
            (created if missing).

    Raises:
        MissingDependencyError: SQLAlchemy is not installed (the ``store`` extra).
        StoreError: the file is read-only, corrupt, or a database of another application
            (refused before any table is created).
    """

    def __init__(self, target: str | Path) -> None:
        self._sa = sa = require("sqlalchemy", "store", "The tournament result store")
        self.url = _url(target)
        if self.url.startswith("sqlite:///"):
            path = Path(self.url[len("sqlite:///") :])
            if path.exists() and not os.access(path, os.W_OK):
                raise StoreError(
                    f"The result store {path} is read-only; tournaments write "
                    "every block as it finishes. Use a writable file."
                )
            if not path.parent.is_dir():
                raise StoreError(f"The folder of the result store {path} does not exist.")
        try:
            self.engine = sa.create_engine(self.url)
            meta = sa.MetaData()
            self.tournaments = sa.Table(
                "tournaments",
                meta,
                sa.Column("id", sa.String(40), primary_key=True),
                sa.Column("config", sa.Text, nullable=False),
                sa.Column("created", sa.String(40), nullable=False),
            )
            self.blocks = sa.Table(
                "blocks",
                meta,
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
                sa.Column("plain_total", sa.Float),
                sa.Column("plain_total_sq", sa.Float),
            )
            self.exploitability = sa.Table(
                "exploitability",
                meta,
                sa.Column("tournament", sa.String(40), primary_key=True),
                sa.Column("agent", sa.String(200), primary_key=True),
                sa.Column("exploitability", sa.Float),
                sa.Column("reason", sa.Text),
                sa.Column("method", sa.String(40)),
                sa.Column("ci_low", sa.Float),
                sa.Column("ci_high", sa.Float),
            )
            self.meta = sa.Table(
                "nashzoo_meta",
                meta,
                sa.Column("key", sa.String(40), primary_key=True),
                sa.Column("value", sa.Text, nullable=False),
            )
            existing = set(sa.inspect(self.engine).get_table_names())
            if existing and not existing & _TABLES:
                raise StoreError(
                    f"{self.url} is a database of another application (tables "
                    f"{sorted(existing)[:5]}); nashzoo does not write into it. Give the "
                    "tournament its own file or database."
                )
            meta.create_all(self.engine)
            with self.engine.begin() as conn:
                row = conn.execute(
                    sa.select(self.meta.c.value).where(self.meta.c.key == "schema")
                ).first()
                if row is None:
                    self._insert_or_ignore(conn, self.meta, key="schema", value=SCHEMA_VERSION)
                elif row[0] == "2":  # add the new columns; every stored row stays valid
                    for table, column, kind in (
                        ("blocks", "plain_total", "FLOAT"),
                        ("blocks", "plain_total_sq", "FLOAT"),
                        ("exploitability", "method", "VARCHAR(40)"),
                        ("exploitability", "ci_low", "FLOAT"),
                        ("exploitability", "ci_high", "FLOAT"),
                    ):
                        have = {c["name"] for c in sa.inspect(conn).get_columns(table)}
                        if column not in have:
                            conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
                    conn.execute(
                        self.meta.update()
                        .where(self.meta.c.key == "schema")
                        .values(value=SCHEMA_VERSION)
                    )
                elif row[0] != SCHEMA_VERSION:
                    raise StoreError(
                        f"{self.url} has nashzoo store schema {row[0]!r}; this "
                        f"nashzoo reads schema {SCHEMA_VERSION!r}."
                    )
        except StoreError:
            raise
        except sa.exc.SQLAlchemyError as exc:
            cause = getattr(exc, "orig", None) or exc
            raise StoreError(
                f"Cannot open the result store {self.url}: {type(cause).__name__}: {cause}"
            ) from exc

    def _insert_or_ignore(self, conn: Any, table: Any, **values: Any) -> bool:
        """Insert a row unless its primary key exists (SQLite and PostgreSQL); returns
        whether a row was inserted."""
        dialect = self.engine.dialect.name
        if dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert
        elif dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert  # type: ignore[assignment]
        else:  # other databases: a savepoint keeps the outer transaction usable
            try:
                with conn.begin_nested():
                    conn.execute(table.insert().values(**values))
                return True
            except self._sa.exc.IntegrityError:
                return False
        statement = insert(table).values(**values).on_conflict_do_nothing()
        if dialect == "sqlite":  # rowcount is exact there (and RETURNING needs SQLite 3.35)
            return bool(conn.execute(statement).rowcount)
        # psycopg reports rowcount -1 here: RETURNING says whether the row went in.
        key = next(iter(table.primary_key.columns))
        return conn.execute(statement.returning(key)).first() is not None

    @_wrapped
    def register(self, tournament_id: str, config: dict[str, Any]) -> bool:
        """Record a tournament; returns False if it was already there (a resume).

        Safe when several processes start the same tournament at once.

        Raises:
            StoreError: the id exists with another configuration.
        """
        sa = self._sa
        text = json.dumps(config, sort_keys=True)
        with self.engine.begin() as conn:
            inserted = self._insert_or_ignore(
                conn,
                self.tournaments,
                id=tournament_id,
                config=text,
                created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            )
            if inserted:
                return True
            row = conn.execute(
                sa.select(self.tournaments.c.config).where(self.tournaments.c.id == tournament_id)
            ).first()
        if row is None or row[0] != text:
            raise StoreError(
                f"Tournament {tournament_id} exists in {self.url} with another configuration."
            )
        return False

    @_wrapped
    def config(self, tournament_id: str) -> dict[str, Any]:
        """The configuration a tournament was registered with.

        Raises:
            StoreError: no such tournament, or an unreadable configuration.
        """
        sa = self._sa
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(self.tournaments.c.config).where(self.tournaments.c.id == tournament_id)
            ).first()
        if row is None:
            raise StoreError(f"No tournament {tournament_id} in {self.url}.")
        try:
            config = json.loads(row[0])
        except json.JSONDecodeError as exc:
            raise StoreError(
                f"Tournament {tournament_id} in {self.url} has an unreadable configuration: {exc}"
            ) from exc
        if not isinstance(config, dict):
            raise StoreError(
                f"Tournament {tournament_id} in {self.url} has a configuration "
                f"that is not an object: {config!r}."
            )
        return config

    @_wrapped
    def tournament_ids(self) -> list[str]:
        sa = self._sa
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(sa.select(self.tournaments.c.id))]

    @_wrapped
    def add_block(self, tournament_id: str, result: BlockResult) -> bool:
        """Commit one block; returns False (and changes nothing) if it was stored already."""
        with self.engine.begin() as conn:
            return self._insert_or_ignore(
                conn, self.blocks, tournament=tournament_id, **asdict(result)
            )

    @_wrapped
    def done(self, tournament_id: str) -> set[tuple[str, str, int]]:
        """``(a, b, block)`` of the stored blocks."""
        sa = self._sa
        b = self.blocks
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(b.c.a, b.c.b, b.c.block).where(b.c.tournament == tournament_id)
            )
            return {(r[0], r[1], r[2]) for r in rows}

    @_wrapped
    def results(self, tournament_id: str) -> list[BlockResult]:
        """Every stored block, in a stable order."""
        sa = self._sa
        b = self.blocks
        cols = [c for c in b.c if c.name != "tournament"]
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(*cols)
                .where(b.c.tournament == tournament_id)
                .order_by(b.c.a, b.c.b, b.c.block)
            )
            return [BlockResult(**row._mapping) for row in rows]

    @_wrapped
    def set_exploitability(
        self,
        tournament_id: str,
        agent: str,
        value: float | None,
        reason: str | None = None,
        method: str | None = None,
        ci95: tuple[float, float] | None = None,
    ) -> None:
        """Record (or replace) one agent's exploitability, ``None`` with a reason if
        unknown; ``method`` says how it was measured (``"exact"``, or ``"lbr"`` for a
        local-best-response lower bound with its 95% CI ``ci95``)."""
        t = self.exploitability
        with self.engine.begin() as conn:
            conn.execute(t.delete().where((t.c.tournament == tournament_id) & (t.c.agent == agent)))
            conn.execute(
                t.insert().values(
                    tournament=tournament_id,
                    agent=agent,
                    exploitability=value,
                    reason=reason,
                    method=method,
                    ci_low=None if ci95 is None else float(ci95[0]),
                    ci_high=None if ci95 is None else float(ci95[1]),
                )
            )

    @_wrapped
    def exploitabilities(self, tournament_id: str) -> dict[str, StoredExploitability]:
        """Every agent's stored exploitability."""
        sa = self._sa
        t = self.exploitability
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(
                    t.c.agent, t.c.exploitability, t.c.reason, t.c.method, t.c.ci_low, t.c.ci_high
                ).where(t.c.tournament == tournament_id)
            )
            return {
                r[0]: StoredExploitability(
                    r[1],
                    r[2],
                    (r[3] or "exact") if r[1] is not None else None,
                    None if r[4] is None or r[5] is None else (r[4], r[5]),
                )
                for r in rows
            }

    def close(self) -> None:
        self.engine.dispose()
