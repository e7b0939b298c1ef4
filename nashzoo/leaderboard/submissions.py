"""Submissions: an upload checked and stored under the user's cap, then validated (the
file loads, it plays legal moves against random, its exploitability where the game
compiles) before its matches are scheduled.
"""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.errors import (
    AuthError,
    InvalidParameterError,
    LeaderboardError,
    NashzooError,
    SubmissionError,
)
from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.lockstep import play_duplicate_lockstep
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.seats import play_table
from nashzoo.eval.stats import score_digits, score_unit
from nashzoo.leaderboard.board import KINDS, entrant_of, states_probabilities
from nashzoo.leaderboard.bundles import classify
from nashzoo.leaderboard.matches import Matches
from nashzoo.leaderboard.models import (
    BoardVersion,
    Job,
    Submission,
    User,
    utcnow,
)
from nashzoo.leaderboard.sandbox import outcome_code
from nashzoo.leaderboard.scoring import Scoring

__all__ = ["Submissions"]

logger = logging.getLogger("nashzoo.leaderboard.service")

NAME_MAX = 64
"""Longest submission name (characters); the API's schema states the same."""
DESCRIPTION_MAX = 2000
"""Longest submission description (characters)."""

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


class Submissions(Scoring, Matches):
    """The leaderboard's submission job."""

    def submit(
        self,
        user: User,
        game: str,
        name: str,
        filename: str,
        data: bytes,
        description: str = "",
    ) -> Submission:
        """Check and store an upload, and queue its validation.

        Raises:
            InvalidParameterError: unknown game, bad name or description.
            AuthError: a per-user limit is reached.
            SubmissionError: the file is refused (its ``code`` says why).
        """
        from sqlalchemy import update

        game_rules = self.game(game)
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
            raise InvalidParameterError(
                f"A submission name is 1-{NAME_MAX} characters; got {name[:80]!r}."
            )
        if not isinstance(description, str) or len(description) > DESCRIPTION_MAX:
            raise InvalidParameterError(f"A description is at most {DESCRIPTION_MAX} characters.")
        with self.session() as session:
            self._check_submission_cap(session, user)  # early, before the file is checked
        if len(data) > user.max_upload_bytes:
            raise SubmissionError(
                "TOO_LARGE",
                f"the upload is {len(data)} bytes; user {user.name!r} may upload at most "
                f"{user.max_upload_bytes}",
            )
        limits = self.settings.limits
        kind = classify(filename, data, game_rules, game, limits)
        import hashlib

        safe = _SAFE_NAME.sub("_", Path(filename).name)[-100:] or "upload"
        with self.session() as session:
            # Count and insert in one transaction that holds the user's row for writing (a
            # no-op update takes the lock: a row lock on PostgreSQL, the write lock on
            # SQLite), so two uploads at once cannot both pass the count.
            session.execute(
                update(User).where(User.id == user.id).values(max_submissions=User.max_submissions)
            )
            self._check_submission_cap(session, user)
            digest = hashlib.sha256(data).hexdigest()
            identical = self._check_name_and_file(session, user, game, name.strip(), digest)
            sub = Submission(
                user_id=user.id,
                game=game,
                name=name.strip(),
                description=description,
                kind=kind,
                filename=safe,
                sha256=digest,
                size=len(data),
                status="queued",
                details=json.dumps({"identical_to": identical} if identical else {}),
                validation_log=f"{utcnow():%Y-%m-%d %H:%M:%S} uploaded: {kind} "
                f"({len(data)} bytes)\n",
            )
            session.add(sub)
            session.flush()
            folder = self.data_dir / "submissions" / str(sub.id)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / safe).write_bytes(data)
            session.add(
                Job(
                    kind="validate",
                    game=game,
                    submission_id=sub.id,
                    entrant=entrant_of(sub.id),
                    priority=-1,
                )
            )
            session.commit()
            logger.info(
                "upload: submission %s by %s to %s (%s, %d bytes): queued",
                sub.id, user.name, game, kind, len(data),
            )  # fmt: skip
            return sub

    def withdraw(self, user: User | None, submission_id: int) -> Submission:
        """Take ``user``'s submission off its board: its queued jobs are dropped and the
        board is refitted without it; its stored matches and hands stay in the record,
        and its name and file are free again. Withdrawing twice changes nothing.
        ``user=None`` is the operator, who may remove any submission.

        Raises:
            LeaderboardError: no such submission.
            AuthError: the submission is another user's.
        """
        from sqlalchemy import delete, or_, update

        with self.session() as session:
            sub = session.get(Submission, submission_id)
            if sub is None:
                raise LeaderboardError(f"There is no submission {submission_id}.")
            if user is not None and sub.user_id != user.id:
                raise AuthError(f"Submission {submission_id} is not {user.name!r}'s to withdraw.")
            if sub.status == "withdrawn":
                return sub
            me = entrant_of(sub.id)
            session.execute(
                delete(Job).where(
                    Job.status == "queued",
                    or_(
                        Job.submission_id == sub.id,
                        Job.entrant == me,
                        Job.opponent == me,
                        Job.seats.contains(json.dumps(me)),  # a table it sits at
                    ),
                )
            )
            # a refit on fewer blocks must be allowed to replace the board
            session.execute(
                update(BoardVersion).where(BoardVersion.game == sub.game).values(blocks=0)
            )
            by = "the operator" if user is None else user.name
            stamp = f"{utcnow():%Y-%m-%d %H:%M:%S}"
            sub.validation_log = (sub.validation_log or "") + f"{stamp} withdrawn by {by}\n"
            sub.status = "withdrawn"
            sub.updated_at = utcnow()
            session.commit()
            game = sub.game
        self.refit(game)
        with self.session() as session:
            found = session.get(Submission, submission_id)
            assert found is not None
            return found

    def _check_name_and_file(
        self, session: Any, user: User, game: str, name: str, digest: str
    ) -> list[int]:
        """Refuse a name the game's board has (a gauntlet name, or another live
        submission's, case-insensitively) and a file the same user already submitted to
        this game; return the ids of other users' live submissions of the same file.

        Raises:
            SubmissionError: ``NAME_TAKEN`` or ``DUPLICATE``, naming the existing entry.
        """
        from sqlalchemy import func, select

        reserved = {g.lower() for g in self.gauntlet_of(game)}
        if name.lower() in reserved or "(gauntlet)" in name.lower():
            raise SubmissionError(
                "NAME_TAKEN", f"{name!r} is reserved for the {game} board's gauntlet"
            )
        live = (Submission.game == game, Submission.status.not_in(("failed", "withdrawn")))
        taken = session.scalar(
            select(Submission.id).where(*live, func.lower(Submission.name) == name.lower())
        )
        if taken is not None:
            raise SubmissionError(
                "NAME_TAKEN", f"{name!r} is taken on the {game} board by submission {taken}"
            )
        same = session.execute(
            select(Submission.id, Submission.user_id).where(*live, Submission.sha256 == digest)
        ).all()
        mine = [sid for sid, uid in same if uid == user.id]
        if mine:
            raise SubmissionError(
                "DUPLICATE",
                f"you submitted this file to {game} already: submission {mine[0]} (same sha256)",
            )
        return sorted(sid for sid, _ in same)

    @staticmethod
    def _check_submission_cap(session: Any, user: User) -> None:
        """Raise :class:`AuthError` once ``user`` holds as many submissions as allowed
        (failed uploads do not count)."""
        from sqlalchemy import func, select

        count = session.scalar(
            select(func.count())
            .select_from(Submission)
            .where(Submission.user_id == user.id, Submission.status != "failed")
        )
        if count is not None and count >= user.max_submissions:
            raise AuthError(
                f"User {user.name!r} has {count} submissions; the limit is {user.max_submissions}."
            )

    # -- jobs -------------------------------------------------------------------------

    def _validation_match(self, game: str, agent: Any, sub_id: int) -> float:
        """The validation match's mean score (the game's unit per game) of ``agent`` against
        random: duplicate deals heads-up, or a duplicate table with random agents in
        every other seat.

        Raises:
            Forfeit: the agent broke the rules or failed.
        """
        from nashzoo.agents.specs import build_agent

        rules = self.game(game)
        deals = self.settings.validation_deals
        others = rules.num_players - 1
        # uniform random agents of their own, not the gauntlet's "random": a gauntlet
        # without one (``serve --gauntlet cfr+=cfr+:500``) must not fail every upload
        randoms = [build_agent("random", rules, name="random") for _ in range(others)]
        if others > 1:
            table = play_table(
                rules, [agent, *randoms], deals=deals, bootstrap=0,
                seed=deal_seed(self.settings.seed, sub_id, 7),
                draw_from=[states_probabilities(agent), *[False] * others],
            )  # fmt: skip
            return float(table.mean[0])
        agent.reset(seed=deal_seed(self.settings.seed, sub_id, 0))
        randoms[0].reset(seed=deal_seed(self.settings.seed, sub_id, 1))
        rng = np.random.default_rng([self.settings.seed, sub_id, 7])
        scores = play_duplicate_lockstep(
            rules,
            agent,
            randoms[0],
            deal_uniforms(rules, deals, rng),
            draw_from=(states_probabilities(agent), False),
            draw_seed=[self.settings.seed, sub_id, 8],
        )
        return float(scores.scores.mean())

    def _validate(self, job: Job) -> None:
        sub_id = job.submission_id
        if sub_id is None:
            raise LeaderboardError(f"Validation job {job.id} names no submission.")
        entrant = entrant_of(sub_id)
        self._log(sub_id, "validation started", status="validating")
        with self.session() as session:
            sub = session.get(Submission, sub_id)
            assert sub is not None
            kind, game = sub.kind, sub.game
            # what the upload recorded (identical files of other users) stays
            upload_details = json.loads(sub.details or "{}")
        details: dict[str, Any] = {
            k: upload_details[k] for k in ("identical_to",) if k in upload_details
        }
        if KINDS[kind] == "code":
            self.sandbox_warning()  # re-checked, and a change logged, at each validation
        start = time.perf_counter()
        deals = self.settings.validation_deals
        rules = self.game(game)
        try:
            with self.open_agent(game, entrant) as agent:
                self._log(sub_id, f"agent built ({kind}) in {time.perf_counter() - start:.2f} s")
                mean = self._validation_match(game, agent, sub_id)
                scale, unit = score_unit(rules)
                details["validation"] = {"deals": deals, "mean": mean * scale, "unit": unit}
                against = "random" if rules.num_players == 2 else "random agents in every seat"
                self._log(
                    sub_id,
                    f"validation match against {against}: {deals} duplicate deals, "
                    f"{mean * scale:+.{score_digits(scale)}f} {unit}",
                )
                if KINDS[kind] == "data":
                    details.update(self._exact_figures(game, agent))
                elif getattr(agent, "states_probabilities", False):
                    details.update(self._exact_figures(game, self._sandbox_policy(game, agent)))
                else:
                    details["exploitability_note"] = (
                        "the agent states no action probabilities (exact exploitability "
                        "needs action_probabilities)"
                    )
        except Forfeit as exc:
            code = outcome_code(exc.kind)
            self._log(
                sub_id,
                f"validation failed: {code}: {exc.reason}",
                status="failed",
                error_code=code,
                error_message=exc.reason[:2000],
            )
            return
        except NashzooError as exc:
            self._log(
                sub_id,
                f"validation failed: BUILD: {exc}",
                status="failed",
                error_code="BUILD",
                error_message=str(exc)[:2000],
            )
            return
        value = details.get("exploitability")
        self._log(
            sub_id,
            "validated; ranked"
            + (
                f" (exploitability {value:.5f} {rules.payoff_unit}/game)"
                if value is not None
                else ""
            ),
            status="ranked",
            exploitability=value,
            details=json.dumps(details),
        )
        self._schedule(game, sub_id)
