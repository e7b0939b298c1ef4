"""People playing duplicate hands against ranked submissions, from the browser.

A :class:`PlayRoom` keeps one live :class:`~nashzoo.eval.session.DuplicateSession` per
(person, submission) in the web server's process: the submission's agent (in process for
data, in its sandbox for code, exactly as in matches) stays up between the person's
moves, and is closed when the person has been idle for ``idle_seconds`` or when too many
people are playing at once (the idlest goes). Every finished hand is written at once as a
:class:`~nashzoo.leaderboard.models.Hand` of the session's
:class:`~nashzoo.leaderboard.models.PlaySession`, so a session outlives the server: after a
restart it resumes at its next hand with the same score.

Agents are started on the room's own thread, which lives as long as the room: a sandbox
is killed when the thread that started it ends (see :meth:`PlayRoom.open`).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from nashzoo.errors import LeaderboardError
from nashzoo.eval.session import DuplicateSession, HandRecord
from nashzoo.leaderboard.models import Hand, PlaySession, Submission, User
from nashzoo.leaderboard.service import Leaderboard, entrant_of

__all__ = ["PlayRoom", "Table", "person_of"]


def person_of(user_id: int) -> str:
    """The name a person plays under in stored hands."""
    return f"user:{user_id}"


@dataclass
class Table:
    """One person's live game against one submission.

    Attributes:
        play_id: the :class:`PlaySession` row.
        game: the game id.
        submission: the opponent's submission id.
        name: the opponent's display name.
        session: the duplicate session.
        hand_ids: stored hand row id per finished hand number.
    """

    play_id: int
    game: str
    submission: int
    name: str
    session: DuplicateSession
    stack: contextlib.ExitStack
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    hand_ids: dict[int, int] = field(default_factory=dict)


class PlayRoom:
    """The live tables of a leaderboard's web server.

    Args:
        board: the leaderboard.
        idle_seconds: a table unused this long is closed (its agent stopped).
        max_tables: most live tables; opening one more closes the idlest.
    """

    def __init__(self, board: Leaderboard, *, idle_seconds: float = 900.0, max_tables: int = 8):
        self.board = board
        self.idle_seconds = idle_seconds
        self.max_tables = max_tables
        self._tables: dict[tuple[int, int], Table] = {}
        self._closed: dict[tuple[int, int], str] = {}  # why a person's table was closed
        self._lock = threading.Lock()
        self._starter = ThreadPoolExecutor(1, thread_name_prefix="nashzoo-play")

    # -- tables -----------------------------------------------------------------------
    def closed_reason(self, user: User, submission_id: int) -> str | None:
        """Why the person's table against a submission was closed by the server (idle,
        or to make room), if it was and has not been opened again."""
        with self._lock:
            return self._closed.get((user.id, submission_id))

    def table(self, user: User, submission_id: int) -> Table | None:
        """The person's live table against a submission, if open."""
        self.reap()
        with self._lock:
            table = self._tables.get((user.id, submission_id))
        if table is not None:
            table.last_used = time.monotonic()
        return table

    def open(self, user: User, submission_id: int) -> Table:
        """The person's table against a ranked submission: the live one, the latest stored
        session resumed at its next hand, or a new one.

        Raises:
            LeaderboardError: no such submission, it is not ranked, or its game is not
                heads-up.
            SandboxError: its code agent cannot start.
        """
        live = self.table(user, submission_id)
        if live is not None:
            return live
        from sqlalchemy import select

        with self.board.session() as db:
            sub = db.get(Submission, submission_id)
            if sub is None or sub.status != "ranked":
                raise LeaderboardError(
                    f"Submission {submission_id} is not a ranked agent"
                    + ("" if sub is None else f" (it is {sub.status})")
                    + "; only ranked agents can be played."
                )
            if self.board.seats(sub.game) != 2:
                raise LeaderboardError(
                    f"Submission {submission_id} plays {sub.game}, a game of "
                    f"{self.board.seats(sub.game)} seats; playing an agent in the browser is "
                    "heads-up only (its tables are on the board)."
                )
            row = db.scalar(
                select(PlaySession)
                .where(PlaySession.user_id == user.id, PlaySession.submission_id == sub.id)
                .order_by(PlaySession.id.desc())
                .limit(1)
            )
            if row is None:
                row = PlaySession(
                    user_id=user.id, submission_id=sub.id, game=sub.game,
                    seed=secrets.randbits(62),
                )  # fmt: skip
                db.add(row)
                db.commit()
            stored = db.scalars(
                select(Hand).where(Hand.a == person_of(user.id), Hand.block == row.id)
            ).all()
            name, game, play_id, seed = sub.name, sub.game, row.id, row.seed
        records = [(_record_of(json.loads(h.record)), h.id) for h in stored]
        self._make_room()

        def start() -> tuple[contextlib.ExitStack, DuplicateSession]:
            stack = contextlib.ExitStack()
            try:
                agent = stack.enter_context(
                    self.board.open_agent(game, entrant_of(submission_id), fresh=True)
                )
                session = DuplicateSession(
                    self.board.game(game), agent, seed=seed, finished=[r for r, _ in records]
                )
            except BaseException:
                stack.close()
                raise
            return stack, session

        # A sandbox dies with the thread that started it (bubblewrap's --die-with-parent
        # is the kernel's parent-death signal, which follows the creating thread), and the
        # web server's request threads come and go: start agents on the room's own thread.
        stack, session = self._starter.submit(start).result()
        table = Table(play_id, game, submission_id, name, session, stack)
        table.hand_ids = {record.hand: hand_id for record, hand_id in records}
        self._store_finished(user, table)
        with self._lock:
            old = self._tables.pop((user.id, submission_id), None)
            self._tables[(user.id, submission_id)] = table
            self._closed.pop((user.id, submission_id), None)
        if old is not None:
            old.stack.close()
        return table

    def act(self, user: User, table: Table, action: int) -> None:
        """The person plays ``action`` (see :meth:`DuplicateSession.apply`); a hand that
        ends is stored at once."""
        with table.lock:
            table.last_used = time.monotonic()
            table.session.apply(action)
            self._store_finished(user, table)

    def next_hand(self, user: User, table: Table) -> None:
        """Deal the table's next hand."""
        with table.lock:
            table.last_used = time.monotonic()
            table.session.start_hand()
            self._store_finished(user, table)  # the agent may forfeit before the person acts

    def close(self, user_id: int, submission_id: int) -> None:
        """Close a table (its agent is stopped; its stored hands stay)."""
        with self._lock:
            table = self._tables.pop((user_id, submission_id), None)
        if table is not None:
            table.stack.close()

    def close_all(self) -> None:
        """Close every table (the server is stopping)."""
        with self._lock:
            tables, self._tables = list(self._tables.values()), {}
        for table in tables:
            table.stack.close()
        self._starter.shutdown(wait=False)

    def reap(self) -> None:
        """Close the tables idle for longer than ``idle_seconds``."""
        now = time.monotonic()
        with self._lock:
            stale = [k for k, t in self._tables.items() if now - t.last_used > self.idle_seconds]
            tables = [self._tables.pop(k) for k in stale]
            for k in stale:
                self._closed[k] = f"it was idle for more than {self.idle_seconds:g} s"
        for table in tables:
            table.stack.close()

    def _make_room(self) -> None:
        with self._lock:
            if len(self._tables) < self.max_tables:
                return
            key = min(self._tables, key=lambda k: self._tables[k].last_used)
            table = self._tables.pop(key)
            self._closed[key] = (
                f"the server holds at most {self.max_tables} live tables, and yours was "
                "the idlest when someone opened another"
            )
        table.stack.close()

    def _store_finished(self, user: User, table: Table) -> None:
        """Write the table's finished hands that are not stored yet."""
        waiting = [r for r in table.session.finished if r.hand not in table.hand_ids]
        if not waiting:
            return
        me, them = person_of(user.id), entrant_of(table.submission)
        with self.board.session() as db:
            rows = [
                Hand(
                    game=table.game,
                    a=me, b=them, block=table.play_id, deal=r.hand // 2,
                    seat0=me if r.seat == 0 else them, record=json.dumps(r.to_json()),
                )
                for r in waiting
            ]  # fmt: skip
            db.add_all(rows)
            db.commit()
            for r, row in zip(waiting, rows):
                table.hand_ids[r.hand] = row.id


def _record_of(data: dict[str, Any]) -> HandRecord:
    """A stored hand back as a record, for the score and the hand list of a resumed
    session (its steps are not needed there and stay empty; the replay page reads them
    from the stored history)."""
    return HandRecord(
        hand=int(data["hand"]),
        seat=int(data["seat"]),
        history=[int(a) for a in data["history"]],
        steps=[],
        returns=[float(r) for r in data["returns"]],
        forfeit=data.get("forfeit"),
    )
