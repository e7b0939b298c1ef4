"""The leaderboard's core: its settings, its database and upload folder, and the entrants
(the gauntlet's agents and the submissions) opened as agents. The jobs are built on it:
:mod:`~nashzoo.leaderboard.scoring` (exploitability and ratings),
:mod:`~nashzoo.leaderboard.matches` (scheduling and playing the blocks),
:mod:`~nashzoo.leaderboard.submissions` (uploads and their validation) and
:mod:`~nashzoo.leaderboard.service` (the job queue, and the :class:`Leaderboard` itself).

Entrants are named ``gauntlet:NAME`` (the fixed agents every submission meets: random and
CFR+ by default, see :class:`Settings`) and ``sub:ID`` (submissions).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nashzoo.envs.protocol import StatesProbabilities
from nashzoo.errors import (
    InvalidParameterError,
    LeaderboardError,
    NashzooError,
)
from nashzoo.leaderboard.bundles import Limits, extract_archive
from nashzoo.leaderboard.models import (
    BoardVersion,
    Submission,
    utcnow,
)
from nashzoo.leaderboard.sandbox import (
    BUNDLE_PREFIX,
    SandboxedAgent,
    SandboxLimits,
    sandbox_problem,
)

__all__ = ["Settings", "Board", "GAUNTLET", "KINDS", "entrant_of", "states_probabilities"]

logger = logging.getLogger(__name__)

GAUNTLET: dict[str, str] = {"random": "random", "cfr+": "cfr+:500"}
"""The fixed opponents of every game (name → agent spec), unless settings say otherwise."""

KINDS = {
    "policy": "data",
    "nfsp": "data",
    "deep-cfr": "data",
    "escher": "data",
    "nash-memory": "data",
    "simplex-gradient": "data",
    "ismcts": "data",
    "code": "code",
    "sb3": "code",
}
"""Submission kinds and whether they are data (run in the server) or code (sandboxed)."""


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
        games: the games with a board: env ids, with game parameters in OpenSpiel's
            form where they have them (``"kuhn_poker(players=3)"``). A game of three or
            more players gets a board of tables (see :mod:`~nashzoo.leaderboard.matches`);
            its gauntlet needs one member less than a table has seats.
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
        aivat: score match blocks with AIVAT where the game has a default value function
            (uniform-play values where it compiles, check-down values in limit Hold'em):
            the crosstable, Nash averaging and the intervals use the corrected scores;
            Bradley-Terry keeps the deals' wins as played.
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
    aivat: bool = True


class Board:
    """One leaderboard database and its upload folder, and its entrants as agents (the
    base of :class:`~nashzoo.leaderboard.service.Leaderboard`).

    Raises:
        LeaderboardError: bad settings, or the database cannot be opened.
    """

    def __init__(self, settings: Settings) -> None:
        from sqlalchemy.orm import sessionmaker

        from nashzoo.envs.registration import load_game
        from nashzoo.leaderboard.db import open_database

        self.settings = settings
        for game in settings.game_gauntlet:
            if game not in settings.games:
                raise LeaderboardError(
                    f"A gauntlet is given for {game!r}, which has no board here; the boards "
                    f"are {list(settings.games)}."
                )
        self._games: dict[str, Any] = {}
        for game in settings.games:
            try:
                self._games[game] = load_game(game)
            except NashzooError as exc:
                raise LeaderboardError(f"Cannot host {game!r}: {exc}") from exc
            seats = self._games[game].num_players
            fixed = len(self.gauntlet_of(game))
            if seats > 2 and fixed < seats - 1:
                raise LeaderboardError(
                    f"Cannot host {game!r}: its tables have {seats} seats, so a submission "
                    f"needs at least {seats - 1} gauntlet agents to fill a table, and the "
                    f"gauntlet has {fixed} ({sorted(self.gauntlet_of(game))}); add some "
                    "with game_gauntlet."
                )
        self.data_dir = Path(settings.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        self.engine, self.store = open_database(settings.database)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._agents: dict[tuple[str, str], Any] = {}
        self._exploitability: dict[tuple[str, str], dict[str, Any]] = {}
        self._tabulated: dict[tuple[str, str], Any] = {}  # TabularPolicy or None
        self._exact_pairs: dict[tuple[str, str, str], float] = {}
        self._values: dict[str, Any] = {}  # AIVAT value function per game (None: none)
        self._sandbox_problem: str | None = sandbox_problem()
        for game in settings.games:
            self.store.register(self.tournament(game), {"game": game, "leaderboard": True})
            self._add_board_version(game)

    def value_function(self, game: str) -> Any | None:
        """The AIVAT value function of a game's match blocks (built once), or ``None``
        when :attr:`Settings.aivat` is off or the game has no default one."""
        if not self.settings.aivat:
            return None
        if game not in self._values:
            from nashzoo.eval.aivat import default_value_function

            try:
                self._values[game] = default_value_function(self.game(game))
            except InvalidParameterError:
                self._values[game] = None
        return self._values[game]

    def sandbox_warning(self) -> str | None:
        """Why code bundles cannot be validated on this machine now (``None`` when they
        can), checked afresh on every call: a warning given at start-up does not outlive
        its cause (bubblewrap installed while the server runs). A change is logged."""
        problem = sandbox_problem()
        if problem != self._sandbox_problem:
            if problem is None:
                logger.info("the sandbox is available now: code bundles can be validated")
            else:
                logger.warning("code bundles will fail validation here: %s", problem)
            self._sandbox_problem = problem
        return problem

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
        """The rules of a hosted game (a board's id is an env id, with parameters where
        it has them: ``"kuhn_poker(players=3)"``, see
        :func:`~nashzoo.envs.registration.load_game`)."""
        if game_id not in self.settings.games:
            raise InvalidParameterError(
                f"No board for {game_id!r}; this leaderboard hosts {list(self.settings.games)}."
            )
        return self._games[game_id]

    def seats(self, game_id: str) -> int:
        """The seats at a table of a hosted game (2: a board of pairwise matches)."""
        return int(self.game(game_id).num_players)

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
        with tempfile.TemporaryDirectory(prefix=f"{BUNDLE_PREFIX}{os.getpid()}-") as tmp:
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
        if "status" in fields:  # a verdict or a change of state: the server's log too
            logger.info("submission %s: %s", sub_id, line.splitlines()[0][:200])
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
