"""The leaderboard's read queries that the API and the pages share: the board's rows, the
queue's length, and display names (people included)."""

from __future__ import annotations

import json
import math
from typing import Any

from nashzoo.leaderboard.models import Job, Rating, Submission, User
from nashzoo.leaderboard.service import Leaderboard, entrant_of

__all__ = ["SORTS", "board_rows", "queued", "queue_state", "display_names"]


SORTS = {
    "rating": "Bradley–Terry rating",
    "nash": "Nash averaging",
    "alpharank": "α-Rank",
    "mean": "mean score",
    "exploitability": "exploitability",
}
"""The orders a board can be shown in (key → label)."""


def board_rows(board: Leaderboard, game: str, sort: str = "rating") -> list[dict[str, Any]]:
    """A game's board, best first by ``sort`` (a key of :data:`SORTS`; exploitability:
    lowest first, exact figures before bounds, unknown last): one dict per rated entrant
    (its rating and interval, Nash averaging, mean score, exploitability or its bound,
    status, and ``copies``: the other entrants uploaded as the same file).

    Raises:
        InvalidParameterError: an unknown ``sort``.
    """
    from nashzoo.errors import InvalidParameterError

    if sort not in SORTS:
        raise InvalidParameterError(f"sort is one of {sorted(SORTS)}, received {sort!r}.")
    from sqlalchemy import select

    from nashzoo.eval.stats import score_unit

    rules = board.game(game)
    _, unit = score_unit(rules)
    with board.session() as session:
        names = board.entrant_names(session, game)
        ratings = list(
            session.scalars(
                select(Rating).where(Rating.game == game).order_by(Rating.rating.desc())
            )
        )
        subs = {
            entrant_of(s.id): s
            for s in session.scalars(select(Submission).where(Submission.game == game))
        }
        owners = dict(session.execute(select(User.id, User.name)).all())
    rows = []
    for k, r in enumerate(ratings):
        if r.entrant not in names:
            continue
        sub = subs.get(r.entrant)
        if sub is not None:
            expl, status = sub.exploitability, sub.status
            figures = json.loads(sub.details or "{}")
        else:
            figures = board.figures_of(game, r.entrant)
            expl, status = figures.get("exploitability"), "gauntlet"
        rows.append(
            {
                "rank": k + 1,
                "entrant": r.entrant,
                "name": names[r.entrant],
                "submission": sub.id if sub is not None else None,
                "owner": owners.get(sub.user_id) if sub is not None else "the board",
                "submitted": f"{sub.created_at:%Y-%m-%d}" if sub is not None else "",
                "rating": r.rating,
                "low": r.low,
                "high": r.high,
                "nash": _finite(r.nash),
                "nash_low": _finite(r.nash_low),
                "nash_high": _finite(r.nash_high),
                "alpharank": _finite(r.alpharank),
                "alpharank_low": _finite(r.alpharank_low),
                "alpharank_high": _finite(r.alpharank_high),
                "mean": r.mean_mbb,
                "unit": unit,
                "exploitability": expl,
                "bound": figures.get("exploitability_bound"),
                "method": "exact" if expl is not None else figures.get("exploitability_method"),
                "games": r.games,
                "status": status,
                "sha256": sub.sha256 if sub is not None else None,
            }
        )
    for row in rows:
        row["copies"] = [
            other["name"]
            for other in rows
            if other is not row and row["sha256"] and other["sha256"] == row["sha256"]
        ]
    inf = math.inf
    keys = {
        "rating": lambda r: -r["rating"],
        "nash": lambda r: -(r["nash"] if r["nash"] is not None else -inf),
        "alpharank": lambda r: -(r["alpharank"] if r["alpharank"] is not None else -inf),
        "mean": lambda r: -r["mean"],
        "exploitability": lambda r: (
            r["exploitability"] if r["exploitability"] is not None else inf,
            r["bound"] if r["bound"] is not None else inf,
        ),
    }
    rows.sort(key=keys[sort])  # stable: ties keep the rating's order
    for k, row in enumerate(rows):
        row["rank"] = k + 1
    return rows


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def queued(board: Leaderboard, game: str | None = None) -> int:
    """Jobs queued or running (of one game, or all)."""
    from sqlalchemy import func, select

    with board.session() as session:
        q = select(func.count()).select_from(Job).where(Job.status.in_(("queued", "running")))
        if game is not None:
            q = q.where(Job.game == game)
        return int(session.scalar(q) or 0)


def queue_state(board: Leaderboard, game: str) -> dict[str, Any]:
    """A game's jobs as the board page tells them: ``queued``; ``running``, with
    ``lease_until`` the latest lease of a running job (a job whose worker stopped waits
    until then unless the server that ran it restarts, which queues it again at once);
    and ``expired``, running jobs whose lease has run out and which the next free worker
    takes up."""
    from sqlalchemy import func, select

    from nashzoo.leaderboard.models import utcnow

    now = utcnow()
    with board.session() as session:
        rows = session.execute(
            select(Job.status, func.count(), func.max(Job.lease_until))
            .where(Job.game == game, Job.status.in_(("queued", "running")))
            .group_by(Job.status)
        ).all()
        expired = session.scalar(
            select(func.count())
            .select_from(Job)
            .where(Job.game == game, Job.status == "running", Job.lease_until < now)
        )
    counts = {status: (int(count), lease) for status, count, lease in rows}
    running, lease = counts.get("running", (0, None))
    return {
        "queued": counts.get("queued", (0, None))[0],
        "running": running,
        "lease_until": lease,
        "expired": int(expired or 0),
        "lease_seconds": board.settings.lease_seconds,
    }


def display_names(
    board: Leaderboard, session: Any, game: str, entrants: list[str]
) -> dict[str, str]:
    """Entrant → display name, people (``user:ID``) included."""
    names = board.entrant_names(session, game)
    for e in entrants:
        if e.startswith("user:") and e[5:].isdigit() and e not in names:
            user = session.get(User, int(e[5:]))
            names[e] = f"{user.name} (person)" if user else e
    return names
