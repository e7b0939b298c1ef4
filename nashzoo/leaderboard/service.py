"""The leaderboard's work, without the web: uploads, jobs, matches, ratings.

The web app (:mod:`nashzoo.leaderboard.app`) and the match workers
(:mod:`nashzoo.leaderboard.worker`) both drive a :class:`Leaderboard`. Everything it
knows is in the database (:mod:`nashzoo.leaderboard.models` and the tournament result
store), so any number of web and worker processes may share it.

The work is split by job: :mod:`~nashzoo.leaderboard.board` (settings, database,
entrants), :mod:`~nashzoo.leaderboard.submissions`, :mod:`~nashzoo.leaderboard.matches`,
:mod:`~nashzoo.leaderboard.scoring`, and here the job queue that runs them.
"""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import timedelta

from nashzoo.errors import (
    NashzooError,
)
from nashzoo.leaderboard.board import GAUNTLET, KINDS, Settings, entrant_of
from nashzoo.leaderboard.models import (
    Job,
    utcnow,
)
from nashzoo.leaderboard.submissions import Submissions

__all__ = ["Settings", "Leaderboard", "GAUNTLET", "entrant_of", "KINDS"]

logger = logging.getLogger(__name__)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Leaderboard(Submissions):
    """One leaderboard database and its upload folder: the jobs of
    :class:`~nashzoo.leaderboard.submissions.Submissions`,
    :class:`~nashzoo.leaderboard.matches.Matches` and
    :class:`~nashzoo.leaderboard.scoring.Scoring`, and the queue that runs them.

    Raises:
        LeaderboardError: bad settings, or the database cannot be opened.
    """

    def __init__(self, settings: Settings, *, schedule: bool = True) -> None:
        """Open the board; with ``schedule`` (a server or its workers), also retire what
        names agents no longer in a game's gauntlet (:meth:`retire_removed_gauntlet`) and
        queue the current gauntlet's own pairings. The operator's commands (``nashzoo
        leaderboard add-user``, ``queue`` ...) open it with ``schedule=False``: they are
        not told the server's gauntlet and must change nothing of it."""
        super().__init__(settings)
        if schedule:
            for game in settings.games:
                self.retire_removed_gauntlet(game)
                self._schedule_gauntlet(game)

    def retire_removed_gauntlet(self, game: str) -> dict[str, int]:
        """Take agents that left a game's gauntlet (a server restarted with another
        ``gauntlet``) off its board: the jobs still waiting that seat one of them are
        closed as failed, with a message naming it, their rows leave the board, and the
        board is refitted on the current entrants. Their stored blocks are kept (a later
        restart with them back shows them again). Returns the counts
        (``{"jobs": ..., "ratings": ...}``)."""
        from sqlalchemy import delete, select, update

        from nashzoo.leaderboard.models import BoardVersion, Rating

        current = {f"gauntlet:{name}" for name in self.gauntlet_of(game)}

        def removed(names: list[str]) -> list[str]:
            return [n for n in names if n.startswith("gauntlet:") and n not in current]

        jobs = 0
        with self.session() as session:
            waiting = session.scalars(
                select(Job).where(
                    Job.game == game, Job.kind == "match", Job.status.in_(("queued", "running"))
                )
            ).all()
            for job in waiting:
                seated = json.loads(job.seats) if job.seats else [job.entrant, job.opponent or ""]
                gone = removed(seated)
                if gone:
                    job.status, job.lease_until, job.finished_at = "failed", None, utcnow()
                    job.error = (
                        f"retired: {', '.join(gone)} is no longer in {game}'s gauntlet "
                        f"({sorted(self.gauntlet_of(game))})"
                    )
                    jobs += 1
            rows = session.scalars(select(Rating.entrant).where(Rating.game == game)).all()
            stale = removed(list(rows))
            if stale:
                session.execute(
                    delete(Rating).where(Rating.game == game, Rating.entrant.in_(stale))
                )
                # the board was fitted on blocks that included them: let the next fit,
                # on fewer blocks, replace it
                session.execute(
                    update(BoardVersion).where(BoardVersion.game == game).values(blocks=0)
                )
            session.commit()
        if jobs or stale:
            logger.info(
                "%s: retired %d waiting jobs and %d board rows of agents no longer in the "
                "gauntlet", game, jobs, len(stale),
            )  # fmt: skip
        if stale:
            self.refit(game)
        return {"jobs": jobs, "ratings": len(stale)}

    def release_orphans(self) -> int:
        """Queue again, at once, the running jobs of this host's workers whose server
        process is gone (a server stopped mid-job: its workers are named
        ``host-pid-k``); without this they wait for their lease to run out. Returns how
        many were released."""
        from sqlalchemy import select

        node = os.uname().nodename
        released = 0
        with self.session() as session:
            for job in session.scalars(select(Job).where(Job.status == "running")).all():
                host, _, rest = (job.worker or "").rpartition("-")
                host, _, pid = host.rpartition("-")
                if host != node or not pid.isdigit() or _alive(int(pid)):
                    continue
                logger.info("job %s taken up again: its worker %s is gone", job.id, job.worker)
                job.status, job.worker, job.lease_until = "queued", None, None
                released += 1
            session.commit()
        return released

    def recover(self) -> dict[str, int]:
        """What a server does when it starts: queue again at once the jobs of its dead
        predecessor (:meth:`release_orphans`), and remove what the predecessor's sandboxes
        and workers left on disk if they were killed mid-job: sandbox folders and lock
        files of user ids no live sandbox holds, and extracted bundles of processes that
        are gone (a sandbox or bundle of a live server on this host is left alone).
        Returns the counts."""
        from nashzoo.leaderboard.sandbox import sweep_stale_bundles, sweep_stale_sandboxes

        return {
            "jobs": self.release_orphans(),
            "sandboxes": sweep_stale_sandboxes(min_age=0.0),
            "bundles": sweep_stale_bundles(),
        }

    def claim(self, worker: str) -> Job | None:
        """Claim the next job for ``worker`` (least-played pairings first), or ``None``.

        PostgreSQL: ``SELECT ... FOR UPDATE SKIP LOCKED``. Other databases: a
        compare-and-set update that only one worker can win.
        """
        from sqlalchemy import or_, select, update

        now = utcnow()
        claimable = or_(Job.status == "queued", (Job.status == "running") & (Job.lease_until < now))
        lease = now + timedelta(seconds=self.settings.lease_seconds)
        with self.session() as session:
            for _ in range(20):
                query = select(Job).where(claimable).order_by(Job.priority, Job.id).limit(1)
                if self.engine.dialect.name == "postgresql":
                    query = query.with_for_update(skip_locked=True)
                job = session.scalars(query).first()
                if job is None:
                    session.rollback()
                    return None
                won = session.execute(
                    update(Job)
                    .where(Job.id == job.id, claimable)
                    .values(
                        status="running",
                        worker=worker,
                        lease_until=lease,
                        attempts=Job.attempts + 1,
                    )
                    .execution_options(synchronize_session=False)
                ).rowcount
                session.commit()
                if won == 1:
                    return session.get(Job, job.id, populate_existing=True)
        return None

    def _finish(self, job_id: int, status: str = "done", error: str | None = None) -> None:
        from sqlalchemy import update

        with self.session() as session:
            session.execute(
                update(Job)
                .where(Job.id == job_id)
                .values(status=status, error=error, finished_at=utcnow(), lease_until=None)
            )
            session.commit()

    def run_job(self, job: Job) -> None:
        """Do one claimed job (validation or a match block) and record its outcome (the
        job log: started and finished, with ids, on the ``nashzoo.leaderboard`` logger)."""
        if job.kind == "validate":
            what = f"validate {job.entrant}"
        elif job.seats:
            what = f"table {', '.join(json.loads(job.seats))} block {job.block}"
        else:
            what = f"match {job.entrant} vs {job.opponent} block {job.block}"
        logger.info("job %s started: %s (%s)", job.id, what, job.game)
        start = time.perf_counter()
        try:
            if job.kind == "validate":
                self._validate(job)
            else:
                self._match(job)
                self.refit(job.game)
        except NashzooError as exc:  # a fault of the server's own agents or settings
            logger.exception("job %s failed", job.id)
            self._finish(job.id, "failed", str(exc))
            return
        except Exception as exc:  # a defect: the job fails with it, the worker lives on
            logger.exception("job %s failed unexpectedly", job.id)
            self._finish(job.id, "failed", f"{type(exc).__name__}: {exc}"[:2000])
            return
        self._finish(job.id)
        logger.info("job %s finished in %.1f s: %s", job.id, time.perf_counter() - start, what)

    def work(self, worker: str, *, stop_when_idle: bool = True, poll: float = 0.5) -> int:
        """Claim and run jobs until none is left (or forever); returns jobs done."""
        done = 0
        while True:
            job = self.claim(worker)
            if job is None:
                if stop_when_idle:
                    return done
                time.sleep(poll)
                continue
            self.run_job(job)
            done += 1

    # -- building entrants ------------------------------------------------------------
