"""The leaderboard's tables (SQLAlchemy 2 declarative models).

Alembic migrations in ``migrations/`` create and change them; :func:`nashzoo.leaderboard.db.
open_database` runs them. Match results are not here: they go through the tournament
result store (:class:`nashzoo.eval.store.ResultStore`, tournament ``leaderboard/<game>``),
which keys every block so that none is counted twice.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "User",
    "Submission",
    "Job",
    "Rating",
    "Hand",
    "PlaySession",
    "BoardVersion",
    "RatingPoint",
    "utcnow",
]


def utcnow() -> datetime:
    """Now, in UTC, without time zone (stored the same way on SQLite and PostgreSQL)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    """An account. The API token is stored only as its scrypt hash."""

    __tablename__ = "lb_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    token_hash: Mapped[str] = mapped_column(String(256))
    max_submissions: Mapped[int] = mapped_column(Integer)
    max_upload_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Submission(Base):
    """One uploaded agent for one game.

    ``status``: ``queued`` (waiting for validation), ``validating``, ``ranked`` (plays
    matches, appears on the board) or ``failed`` (``error_code`` and ``error_message``
    say why). ``kind``: ``policy`` (a tabular policy file: data), ``nfsp``,
    ``simplex-gradient`` or ``ismcts`` (a checkpoint of that learner, which loads with
    ``weights_only=True``: data), ``code`` (a zip bundle) or ``sb3`` (a
    stable-baselines3 model zip, which unpickles: code). Code runs only in the sandbox.
    """

    __tablename__ = "lb_submissions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lb_users.id"))
    game: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(16))
    filename: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    error_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    validation_log: Mapped[str] = mapped_column(Text, default="")
    exploitability: Mapped[float | None] = mapped_column(Float, nullable=True)
    details: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    __table_args__ = (Index("ix_lb_submissions_game_status", "game", "status"),)


class Job(Base):
    """Work for the match workers: ``validate`` one submission, or play one ``match``
    block between two entrants (``entrant`` plays as A: a submission ``sub:ID`` or, for
    the gauntlet's own pairings, ``gauntlet:NAME``; ``opponent`` likewise). On a board
    of three or more seats a match block is a table: ``seats`` holds its entrants (a
    JSON list), ``entrant`` the one it was scheduled for and ``opponent`` the table's
    key (``table:`` and a digest of the names).

    A worker claims a job by setting ``status='running'`` and a lease; a job whose lease
    ran out (its worker died) is claimed again. Blocks are deterministic in
    ``(board seed, pairing, block)`` and stored idempotently, so a retried job never
    counts twice.
    """

    __tablename__ = "lb_jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    game: Mapped[str] = mapped_column(String(64))
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("lb_submissions.id"), nullable=True
    )
    entrant: Mapped[str] = mapped_column(String(64), default="")
    opponent: Mapped[str] = mapped_column(String(64), default="")
    block: Mapped[int] = mapped_column(Integer, default=0)
    seats: Mapped[str | None] = mapped_column(Text, nullable=True)
    deals: Mapped[int] = mapped_column(Integer, default=0)
    priority: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    __table_args__ = (
        UniqueConstraint("kind", "game", "entrant", "opponent", "block", name="uq_lb_jobs_work"),
        Index("ix_lb_jobs_claim", "status", "priority", "id"),
    )


class Rating(Base):
    """The board of one game, refitted after every batch of results."""

    __tablename__ = "lb_ratings"
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    entrant: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
    nash: Mapped[float | None] = mapped_column(Float, nullable=True)
    nash_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    nash_high: Mapped[float | None] = mapped_column(Float, nullable=True)
    alpharank: Mapped[float | None] = mapped_column(Float, nullable=True)
    alpharank_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    alpharank_high: Mapped[float | None] = mapped_column(Float, nullable=True)
    mean_mbb: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RatingPoint(Base):
    """One entrant's rating after one refit of its board: the history its page draws."""

    __tablename__ = "lb_rating_history"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(64), index=True)
    entrant: Mapped[str] = mapped_column(String(64), index=True)
    blocks: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class Hand(Base):
    """A stored hand for the replay viewer: one game of one block, as JSON (the
    action sequence with the chance outcomes, each decision's player and, where the agent
    states them, its action probabilities)."""

    __tablename__ = "lb_hands"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    a: Mapped[str] = mapped_column(String(64))
    b: Mapped[str] = mapped_column(String(64))
    block: Mapped[int] = mapped_column(Integer)
    deal: Mapped[int] = mapped_column(Integer)
    seat0: Mapped[str] = mapped_column(String(64))
    record: Mapped[str] = mapped_column(Text)
    __table_args__ = (UniqueConstraint("game", "a", "b", "block", "deal", "seat0"),)


class PlaySession(Base):
    """A person playing duplicate hands against a ranked submission in the browser.

    Its finished hands are :class:`Hand` rows with ``a = "user:<user id>"``, ``b`` the
    submission's entrant and ``block`` this session's id; the cards of deal ``d`` come
    from ``seed`` (:class:`nashzoo.eval.session.DuplicateSession`), so a session resumes
    after a restart at its next hand with the same score.
    """

    __tablename__ = "lb_play_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("lb_users.id"))
    submission_id: Mapped[int] = mapped_column(ForeignKey("lb_submissions.id"))
    game: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    __table_args__ = (Index("ix_lb_play_sessions_user", "user_id", "submission_id"),)


class BoardVersion(Base):
    """How many stored blocks the board of a game was fitted on.

    Workers refit a board after each of their blocks, concurrently; a refit replaces the
    board only if it saw at least as many blocks as the one in place (a conditional
    update of this row, which also serialises the replacements), so a slow refit never
    overwrites a newer board with an older one.
    """

    __tablename__ = "lb_boards"
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    blocks: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
