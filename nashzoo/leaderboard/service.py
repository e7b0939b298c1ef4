"""The leaderboard's work, without the web: uploads, jobs, matches, ratings.

The web app (:mod:`nashzoo.leaderboard.app`) and the match workers
(:mod:`nashzoo.leaderboard.worker`) both drive a :class:`Leaderboard`. Everything it
knows is in the database (:mod:`nashzoo.leaderboard.models` and the tournament result
store), so any number of web and worker processes may share it.

Entrants are named ``gauntlet:NAME`` (the fixed agents every submission meets: random and
CFR+ by default, see :class:`Settings`) and ``sub:ID`` (submissions). A pairing's block
``k`` draws its cards and seeds from ``(seed, game, entrants, k)`` only, so a retried job
plays exactly the same block, and the result store keeps the first copy.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.envs.protocol import StatesProbabilities
from nashzoo.errors import (
    AuthError,
    GameTooLargeError,
    InvalidParameterError,
    LeaderboardError,
    NashzooError,
    SubmissionError,
)
from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.lockstep import play_duplicate_lockstep
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.stats import score_unit
from nashzoo.eval.store import BlockResult
from nashzoo.leaderboard.bundles import Limits, classify, extract_archive
from nashzoo.leaderboard.models import (
    BoardVersion,
    Hand,
    Job,
    Rating,
    Submission,
    User,
    utcnow,
)
from nashzoo.leaderboard.sandbox import SandboxedAgent, SandboxLimits, outcome_code

__all__ = ["Settings", "Leaderboard", "GAUNTLET", "entrant_of", "KINDS"]

logger = logging.getLogger(__name__)

GAUNTLET: dict[str, str] = {"random": "random", "cfr+": "cfr+:500"}
"""The fixed opponents of every game (name → agent spec), unless settings say otherwise."""

KINDS = {
    "policy": "data",
    "nfsp": "data",
    "simplex-gradient": "data",
    "ismcts": "data",
    "code": "code",
    "sb3": "code",
}
"""Submission kinds and whether they are data (run in the server) or code (sandboxed)."""

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def states_probabilities(agent: Any) -> bool:
    """Whether the referee plays ``agent`` by drawing from the probabilities it states
    (every agent that states them: a sandboxed one whose runner said so, an in-process
    PolicyAgent). Then its exploitability, computed from its statements, is that of its
    play: an agent cannot state an equilibrium and play something else."""
    if isinstance(agent, SandboxedAgent):
        return agent.states_probabilities
    return isinstance(agent, StatesProbabilities)


def entrant_of(submission_id: int) -> str:
    """The entrant name of a submission."""
    return f"sub:{submission_id}"


@dataclass
class Settings:
    """How a leaderboard runs.

    Attributes:
        database: a SQLAlchemy URL or the path of a SQLite file.
        data_dir: where uploads are kept (created with mode 0700: sandboxed agents, which
            run as other users, cannot read it).
        games: the game ids with a board.
        gauntlet: the fixed opponents (name → agent spec) every submission plays.
        game_gauntlet: more fixed opponents of one game (game id → name → spec), for
            agents that exist for that game only, such as its best NFSP checkpoint
            (``nashzoo train nfsp GAME --keep-best --out best.pt``).
        seed: the root of every block's chance draws and agent seeds.
        deals_per_block: duplicate deals in one match job.
        blocks_per_pairing: match jobs per pairing.
        validation_deals: deals of the validation match against random.
        hands_per_block: games per block kept for the replay viewer.
        limits: upload caps.
        sandbox: limits of sandboxed agents.
        lease_seconds: a claimed job whose worker has not finished it after this long is
            claimed again (its worker is presumed dead).
        max_submissions: default per-user cap on submissions.
        max_upload_bytes: default per-user cap on one upload.
        play_idle_seconds: a person's game against an agent in the browser is closed
            (the agent stopped) after this long without a move; its hands stay stored.
        play_tables: most such games at once (opening another closes the idlest).
        lbr_hands: where a game is too large for exact exploitability, hands of local
            best response (20 rollouts per action) for a lower bound on the exploitability
            of every agent that states its probabilities (0: none).
    """

    database: str = "leaderboard.db"
    data_dir: Path = Path("leaderboard_data")
    games: tuple[str, ...] = ("kuhn_poker", "leduc_holdem")
    gauntlet: dict[str, str] = field(default_factory=lambda: dict(GAUNTLET))
    game_gauntlet: dict[str, dict[str, str]] = field(default_factory=dict)
    seed: int = 0
    deals_per_block: int = 500
    blocks_per_pairing: int = 2
    validation_deals: int = 50
    hands_per_block: int = 4
    limits: Limits = field(default_factory=Limits)
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    lease_seconds: float = 300.0
    max_submissions: int = 20
    max_upload_bytes: int = 20_000_000
    play_idle_seconds: float = 900.0
    play_tables: int = 8
    lbr_hands: int = 200


class _SandboxedPolicy:
    """A sandboxed agent's stated probabilities, asked in batches of 256 requests, each
    on a fresh time bank: every information set of a game that compiles, or the states
    a local best response asks about."""

    def __init__(self, agent: SandboxedAgent) -> None:
        self.agent = agent
        self.name = "submission"

    def action_probabilities(self, observation: Any, info: Any) -> Any:
        return self.probabilities_many([(observation, info)])[0]

    def probabilities_many(self, requests: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for start in range(0, len(requests), 256):
            self.agent.new_match()
            out.extend(self.agent.probabilities_many(requests[start : start + 256]))
        return out


class Leaderboard:
    """One leaderboard database and its upload folder.

    Raises:
        LeaderboardError: bad settings, or the database cannot be opened.
    """

    def __init__(self, settings: Settings) -> None:
        from sqlalchemy.orm import sessionmaker

        from nashzoo.envs.registration import make_game
        from nashzoo.leaderboard.db import open_database

        self.settings = settings
        for game in settings.games:
            try:
                make_game(game)
            except NashzooError as exc:
                raise LeaderboardError(f"Cannot host {game!r}: {exc}") from exc
        for game in settings.game_gauntlet:
            if game not in settings.games:
                raise LeaderboardError(
                    f"A gauntlet is given for {game!r}, which has no board here; the boards "
                    f"are {list(settings.games)}."
                )
        self.data_dir = Path(settings.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        self.engine, self.store = open_database(settings.database)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._games: dict[str, Any] = {}
        self._agents: dict[tuple[str, str], Any] = {}
        self._exploitability: dict[tuple[str, str], dict[str, Any]] = {}
        for game in settings.games:
            self.store.register(self.tournament(game), {"game": game, "leaderboard": True})
            self._add_board_version(game)
            self._schedule_gauntlet(game)

    def _add_board_version(self, game: str) -> None:
        from sqlalchemy.exc import IntegrityError

        with self.session() as session:
            if session.get(BoardVersion, game) is not None:
                return
            session.add(BoardVersion(game=game, blocks=0))
            try:
                session.commit()
            except IntegrityError:  # another process added it first
                session.rollback()

    # -- basics -----------------------------------------------------------------------
    @contextmanager
    def session(self) -> Iterator[Any]:
        """A database session (committed by the caller)."""
        with self.sessions() as session:
            yield session

    @staticmethod
    def tournament(game: str) -> str:
        """The result store's tournament id of a game's board."""
        return f"leaderboard/{game}"

    def game(self, game_id: str) -> Any:
        """The rules of a hosted game."""
        if game_id not in self.settings.games:
            raise InvalidParameterError(
                f"No board for {game_id!r}; this leaderboard hosts {list(self.settings.games)}."
            )
        if game_id not in self._games:
            from nashzoo.envs.registration import make_game

            self._games[game_id] = make_game(game_id)
        return self._games[game_id]

    def gauntlet_of(self, game: str) -> dict[str, str]:
        """The fixed opponents of a game's board: the common gauntlet and the game's own
        (name → agent spec)."""
        return {**self.settings.gauntlet, **self.settings.game_gauntlet.get(game, {})}

    def entrant_names(self, session: Any, game: str) -> dict[str, str]:
        """Display names of a game's entrants (gauntlet first, then ranked submissions)."""
        from sqlalchemy import select

        names = {f"gauntlet:{g}": f"{g} (gauntlet)" for g in self.gauntlet_of(game)}
        rows = session.scalars(
            select(Submission).where(Submission.game == game, Submission.status == "ranked")
        )
        for sub in rows:
            names[entrant_of(sub.id)] = sub.name
        return names

    # -- uploads ----------------------------------------------------------------------
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
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise InvalidParameterError(f"A submission name is 1-64 characters; got {name!r}.")
        if not isinstance(description, str) or len(description) > 2000:
            raise InvalidParameterError("A description is at most 2000 characters.")
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
            sub = Submission(
                user_id=user.id,
                game=game,
                name=name.strip(),
                description=description,
                kind=kind,
                filename=safe,
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
                status="queued",
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
            return sub

    @staticmethod
    def _check_submission_cap(session: Any, user: User) -> None:
        """Raise :class:`AuthError` once ``user`` holds as many submissions as allowed."""
        from sqlalchemy import func, select

        count = session.scalar(
            select(func.count()).select_from(Submission).where(Submission.user_id == user.id)
        )
        if count is not None and count >= user.max_submissions:
            raise AuthError(
                f"User {user.name!r} has {count} submissions; the limit is {user.max_submissions}."
            )

    # -- jobs -------------------------------------------------------------------------
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
        """Do one claimed job (validation or a match block) and record its outcome."""
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
    def _submission_path(self, sub: Submission) -> Path:
        return self.data_dir / "submissions" / str(sub.id) / sub.filename

    def _in_process(
        self, game: str, entrant: str, sub: Submission | None, *, fresh: bool = False
    ) -> Any:
        """A gauntlet agent or a data submission, built once per worker (``fresh``: a new
        one, for a caller that seeds it on its own schedule)."""
        from nashzoo.agents.specs import build_agent

        key = (game, entrant)
        if fresh or key not in self._agents:
            if sub is None:
                gauntlet = self.gauntlet_of(game)
                member = entrant.split(":", 1)[1]
                if member not in gauntlet:
                    raise LeaderboardError(
                        f"{entrant} is no longer in {game}'s gauntlet ({sorted(gauntlet)}): "
                        "the server was restarted with another gauntlet; this job is void."
                    )
                spec = gauntlet[member]
            else:
                spec = str(self._submission_path(sub).resolve())
            agent = build_agent(spec, self.game(game), name=entrant)
            if fresh:
                return agent
            self._agents[key] = agent
        return self._agents[key]

    def stated_policy(self, game: str, entrant: str) -> Any | None:
        """The agent behind ``entrant`` when it runs in process and states its action
        probabilities (gauntlet policies, policy files, NFSP checkpoints); ``None`` for
        code, which runs only in the sandbox, and for people."""
        if entrant.startswith("gauntlet:"):
            agent = self._in_process(game, entrant, None)
        elif entrant.startswith("sub:") and entrant[4:].isdigit():
            with self.session() as session:
                sub = session.get(Submission, int(entrant[4:]))
            if sub is None or KINDS.get(sub.kind) != "data" or sub.status != "ranked":
                return None
            agent = self._in_process(game, entrant, sub)
        else:
            return None
        return agent if isinstance(agent, StatesProbabilities) else None

    @contextmanager
    def open_agent(self, game: str, entrant: str, *, fresh: bool = False) -> Iterator[Any]:
        """The agent behind an entrant name; code runs in a sandbox, closed afterwards.

        Args:
            fresh: build in-process agents anew rather than share the worker's (a play
                session re-seeds its agent at every hand).
        """
        if entrant.startswith("gauntlet:"):
            yield self._in_process(game, entrant, None, fresh=fresh)
            return
        with self.session() as session:
            sub = session.get(Submission, int(entrant.split(":", 1)[1]))
        if sub is None:
            raise LeaderboardError(f"No submission {entrant}.")
        if KINDS[sub.kind] == "data":
            yield self._in_process(game, entrant, sub, fresh=fresh)
            return
        with tempfile.TemporaryDirectory(prefix="nashzoo-bundle-") as tmp:
            source = Path(tmp)
            os.chmod(source, 0o755)
            if sub.kind == "code":
                extract_archive(
                    self._submission_path(sub).read_bytes(), source, self.settings.limits
                )
                for root, dirs, files in os.walk(source):
                    for d in dirs:
                        os.chmod(Path(root) / d, 0o755)
                    for f in files:
                        os.chmod(Path(root) / f, 0o644)
            else:
                shutil.copy(self._submission_path(sub), source / "model.zip")
                os.chmod(source / "model.zip", 0o644)
                source = source / "model.zip"
            agent = SandboxedAgent(source, sub.kind, game, self.settings.sandbox, name=entrant)
            try:
                yield agent
            finally:
                agent.close()
                agent.remove_log()

    # -- validation -------------------------------------------------------------------
    def _log(self, sub_id: int, line: str, **fields: Any) -> None:
        with self.session() as session:
            sub = session.get(Submission, sub_id)
            if sub is None:
                return
            sub.validation_log = (
                sub.validation_log or ""
            ) + f"{utcnow():%Y-%m-%d %H:%M:%S} {line}\n"
            for key, value in fields.items():
                setattr(sub, key, value)
            sub.updated_at = utcnow()
            session.commit()

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
        details: dict[str, Any] = {}
        start = time.perf_counter()
        deals = self.settings.validation_deals
        rules = self.game(game)
        try:
            with self.open_agent(game, entrant) as agent:
                self._log(sub_id, f"agent built ({kind}) in {time.perf_counter() - start:.2f} s")
                with self.open_agent(game, "gauntlet:random") as random_agent:
                    agent.reset(seed=deal_seed(self.settings.seed, sub_id, 0))
                    random_agent.reset(seed=deal_seed(self.settings.seed, sub_id, 1))
                    rng = np.random.default_rng([self.settings.seed, sub_id, 7])
                    scores = play_duplicate_lockstep(
                        rules,
                        agent,
                        random_agent,
                        deal_uniforms(rules, deals, rng),
                        draw_from=(states_probabilities(agent), False),
                        draw_seed=[self.settings.seed, sub_id, 8],
                    )
                scale, unit = score_unit(rules.big_blind)
                details["validation"] = {
                    "deals": deals,
                    "mean": float(scores.scores.mean() * scale),
                    "unit": unit,
                }
                self._log(
                    sub_id,
                    f"validation match against random: {deals} duplicate deals, "
                    f"{scores.scores.mean() * scale:+.1f} {unit}",
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
            + (f" (exploitability {value:.5f} chips/game)" if value is not None else ""),
            status="ranked",
            exploitability=value,
            details=json.dumps(details),
        )
        self._schedule(game, sub_id)

    def _exact_figures(self, game: str, agent: Any) -> dict[str, Any]:
        """Exact exploitability and exact expected scores against the gauntlet's policy
        agents, where the game compiles."""
        from nashzoo.eval.exploitability import exploitability
        from nashzoo.eval.matches import exact_duplicate_value
        from nashzoo.tree.policy import TabularPolicy

        out: dict[str, Any] = {}
        if agent is None:
            out["exploitability_note"] = f"{game} is too large to compute exactly"
            return out
        try:
            result = exploitability(agent, self.game(game))
        except GameTooLargeError:
            return self._lbr_figures(game, agent)
        except (NashzooError, TypeError) as exc:
            out["exploitability_note"] = str(exc)[:300]
            return out
        out["exploitability"] = float(result.exploitability)
        try:
            mine = (
                agent if isinstance(agent, TabularPolicy)
                else TabularPolicy.from_agent(agent, self.game(game))
            )  # fmt: skip
            exact = {}
            for name in self.gauntlet_of(game):
                other = self._in_process(game, f"gauntlet:{name}", None)
                if hasattr(other, "action_probabilities"):
                    theirs = TabularPolicy.from_agent(other, self.game(game))
                    exact[name] = exact_duplicate_value(mine, theirs)
            out["exact_scores"] = exact
        except (NashzooError, TypeError) as exc:
            out["exact_scores_note"] = str(exc)[:300]
        return out

    def _lbr_figures(self, game: str, agent: Any) -> dict[str, Any]:
        """A local-best-response lower bound on exploitability (:mod:`nashzoo.eval.lbr`),
        for games too large for the exact figure.

        Raises:
            Forfeit: a sandboxed agent failed or ran out of time while answering.
        """
        from nashzoo.eval.lbr import local_best_response

        hands = self.settings.lbr_hands
        too_large = f"{game} is too large to compute exactly"
        if not hands:
            return {"exploitability_note": too_large}
        try:
            bound = local_best_response(
                self.game(game), agent, hands=hands, rollouts=20, seed=self.settings.seed
            )
        except NashzooError as exc:
            return {"exploitability_note": f"{too_large}; LBR failed: {exc}"[:300]}
        return {
            "exploitability_bound": float(bound.value),
            "exploitability_method": "lbr",
            "exploitability_ci95": [float(x) for x in bound.ci95],
            "exploitability_note": f"{too_large}: local best response lower bound, {bound}",
        }

    def _sandbox_policy(self, game: str, agent: SandboxedAgent) -> Any:
        """A sandboxed agent's policy, asked at every information set in batches (its
        clock runs as for decisions); where the game does not compile, an object that
        asks it for the states a local best response needs.

        Raises:
            Forfeit: the agent failed or ran out of time while answering.
        """
        from nashzoo.errors import GameTooLargeError
        from nashzoo.tree.compile import compile_game
        from nashzoo.tree.policy import TabularPolicy

        try:
            tree = compile_game(self.game(game))
        except GameTooLargeError:
            return _SandboxedPolicy(agent)  # asked state by state (local best response)
        inputs: list[Any] = [tree.agent_inputs(i) for i in range(len(tree.infoset_keys))]
        rows = _SandboxedPolicy(agent).probabilities_many(inputs)
        try:
            probs = np.asarray(rows, dtype=np.float64)
            return TabularPolicy(tree, probs, metadata={"source": "sandbox"})
        except (ValueError, TypeError, NashzooError) as exc:
            raise Forfeit(-1, f"stated probabilities that are not a policy: {exc}"[:500],
                          "bad_output") from None  # fmt: skip

    def exploitability_of(self, game: str, entrant: str) -> tuple[float | None, str | None]:
        """Exact exploitability of a gauntlet agent (computed once), with a note when
        unknown."""
        figures = self.figures_of(game, entrant)
        return figures.get("exploitability"), figures.get("exploitability_note")

    def figures_of(self, game: str, entrant: str) -> dict[str, Any]:
        """A gauntlet agent's exploitability figures (computed once): ``exploitability``
        where exact, else ``exploitability_bound`` with ``exploitability_method``
        (``"lbr"``) and its CI where :attr:`Settings.lbr_hands` is set, and a note."""
        key = (game, entrant)
        if key not in self._exploitability:
            agent = self._in_process(game, entrant, None)
            if hasattr(agent, "action_probabilities"):
                self._exploitability[key] = self._exact_figures(game, agent)
            else:
                note = "the agent states no action probabilities"
                self._exploitability[key] = {"exploitability_note": note}
        return self._exploitability[key]

    # -- matches ----------------------------------------------------------------------
    def _schedule_gauntlet(self, game: str) -> None:
        """Queue the gauntlet's own pairings once (so that the crosstable is complete and
        Nash averaging has every cell)."""
        from sqlalchemy import select

        names = [f"gauntlet:{g}" for g in self.gauntlet_of(game)]
        with self.session() as session:
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    for block in range(self.settings.blocks_per_pairing):
                        exists = session.scalar(
                            select(Job.id).where(
                                Job.kind == "match", Job.game == game, Job.entrant == a,
                                Job.opponent == b, Job.block == block,
                            )
                        )  # fmt: skip
                        if exists is None:
                            session.add(
                                Job(kind="match", game=game, entrant=a, opponent=b, block=block,
                                    deals=self.settings.deals_per_block, priority=block * 1000)
                            )  # fmt: skip
            session.commit()

    def _schedule(self, game: str, sub_id: int) -> None:
        """Queue the new submission's blocks against the gauntlet and every other ranked
        submission; pairings whose entrants have played least come first."""
        from sqlalchemy import func, select

        me = entrant_of(sub_id)
        with self.session() as session:
            opponents = [f"gauntlet:{g}" for g in self.gauntlet_of(game)]
            others = session.scalars(
                select(Submission.id).where(
                    Submission.game == game, Submission.status == "ranked", Submission.id != sub_id
                )
            )
            opponents += [entrant_of(i) for i in others]
            played: dict[str, int] = {}
            for a, b, n in session.execute(
                select(Job.entrant, Job.opponent, func.count())
                .where(Job.game == game, Job.kind == "match")
                .group_by(Job.entrant, Job.opponent)
            ).all():
                played[a] = played.get(a, 0) + n
                played[b] = played.get(b, 0) + n
            for opponent in opponents:
                for block in range(self.settings.blocks_per_pairing):
                    session.add(
                        Job(
                            kind="match",
                            game=game,
                            submission_id=sub_id,
                            entrant=me,
                            opponent=opponent,
                            block=block,
                            deals=self.settings.deals_per_block,
                            priority=block * 1000 + int(played.get(opponent, 0)),
                        )
                    )
            session.commit()
        self._log(
            sub_id,
            f"scheduled {len(opponents) * self.settings.blocks_per_pairing} "
            f"match blocks against {len(opponents)} opponents",
        )

    def _match(self, job: Job) -> None:
        game, block, deals = job.game, job.block, job.deals
        a, b = job.entrant, job.opponent
        tid = self.tournament(game)
        if (a, b, block) in self.store.done(tid):
            return  # a retried job whose result was stored before its worker died
        rules = self.game(game)
        pair = [zlib.crc32(a.encode()), zlib.crc32(b.encode())]
        start = time.perf_counter()
        hands: list[list[int]] = []
        try:
            with self.open_agent(game, a) as agent_a, self.open_agent(game, b) as agent_b:
                agent_a.reset(seed=deal_seed(self.settings.seed, *pair, block, 0))
                agent_b.reset(seed=deal_seed(self.settings.seed, *pair, block, 1))
                rng = np.random.default_rng([self.settings.seed, *pair, block])
                scores = play_duplicate_lockstep(
                    rules,
                    agent_a,
                    agent_b,
                    deal_uniforms(rules, deals, rng),
                    record=hands,
                    record_games=self.settings.hands_per_block,
                    draw_from=(states_probabilities(agent_a), states_probabilities(agent_b)),
                    draw_seed=[self.settings.seed, *pair, block, 1],
                ).scores
            result = BlockResult.played(a, b, block, scores, time.perf_counter() - start)
        except Forfeit as exc:
            result = BlockResult.forfeited(
                a,
                b,
                block=block,
                deals=deals,
                loser=(a, b)[exc.who],
                reason=f"{outcome_code(exc.kind)}: {exc.reason}"[:2000],
                seconds=time.perf_counter() - start,
                penalty=rules.max_payoff_magnitude,
            )
        self._store_hands(game, a, b, block, hands)
        self.store.add_block(tid, result)

    def _store_hands(self, game: str, a: str, b: str, block: int, hands: list[list[int]]) -> None:
        from sqlalchemy import select

        with self.session() as session:
            for g, history in enumerate(hands):
                seat0 = a if g % 2 == 0 else b
                exists = session.scalar(
                    select(Hand.id).where(
                        Hand.game == game, Hand.a == a, Hand.b == b, Hand.block == block,
                        Hand.deal == g // 2, Hand.seat0 == seat0,
                    )
                )  # fmt: skip
                if exists is None:
                    session.add(
                        Hand(game=game, a=a, b=b, block=block, deal=g // 2, seat0=seat0,
                             record=json.dumps({"history": [int(x) for x in history]}))
                    )  # fmt: skip
            session.commit()

    # -- the board --------------------------------------------------------------------
    def refit(self, game: str) -> None:
        """Refit Bradley-Terry and Nash-averaging ratings of a game from every stored
        block of its ranked entrants, and replace the board in one transaction, unless a
        board fitted on more blocks is in place already (:class:`BoardVersion`)."""
        from sqlalchemy import delete, update

        from nashzoo.eval.ratings import crosstable, rate

        with self.session() as session:
            names = list(self.entrant_names(session, game))
        results = [
            r for r in self.store.results(self.tournament(game)) if r.a in names and r.b in names
        ]
        playing = [n for n in names if any(n in (r.a, r.b) for r in results)]
        if len(playing) < 2:
            return
        table = crosstable(results, playing)
        ratings = rate(results, playing, table=table, seed=self.settings.seed)
        scale, _ = score_unit(self.game(game).big_blind)
        with self.session() as session:
            # Claim the board for a fit on len(results) blocks; a concurrent refit that saw
            # more blocks has claimed it already (or waits on this row until we commit).
            claimed = session.execute(
                update(BoardVersion)
                .where(BoardVersion.game == game, BoardVersion.blocks <= len(results))
                .values(blocks=len(results), updated_at=utcnow())
            ).rowcount
            if not claimed:
                session.rollback()
                return
            session.execute(delete(Rating).where(Rating.game == game))
            for k, name in enumerate(playing):
                row = table.mean[k]
                deals = table.deals[k]
                played = deals.sum()
                mean = float(np.nansum(row * deals) / played) if played else 0.0
                nash = float(ratings.nash_score[k] * scale)
                session.add(
                    Rating(
                        game=game,
                        entrant=name,
                        rating=float(ratings.elo[k]),
                        low=float(ratings.elo_low[k]),
                        high=float(ratings.elo_high[k]),
                        nash=nash if np.isfinite(nash) else None,
                        mean_mbb=mean * scale,
                        games=int(2 * played),
                    )
                )
            session.commit()
