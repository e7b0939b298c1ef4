"""What defines a tournament: its game, its agents (objects or factories), its deals and
limits, and the identity under which its results are stored.

Agents are given as agent objects or agent factories (``factory(game) -> agent``, such
as :class:`nashzoo.agents.AgentSpec`); turning spec strings into factories is the CLI's
and :mod:`nashzoo.agents`' job. Every file an agent is built from is fingerprinted into
the tournament's id, so a changed policy, checkpoint, model or module makes a new
tournament instead of mixing two agents' results.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import itertools
import json
import pickle
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from nashzoo.envs.protocol import Agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.aivat import check_aivat_game, check_variance_reduction
from nashzoo.eval.guard import SETUP_TIME_LIMIT
from nashzoo.eval.lbr import check_lbr_hands
from nashzoo.games.base import Game
from nashzoo.validation import check_int, check_number, check_seed, check_time_limit

__all__ = [
    "AgentFactory",
    "TournamentConfig",
    "TournamentInfo",
    "as_factory",
    "check_picklable",
    "spec_text",
]

AgentFactory = Callable[[Game], Agent]
"""``factory(game) -> Agent``; may carry ``spec`` (its identity text) and ``files`` (the
files it builds from), as :class:`nashzoo.agents.AgentSpec` does."""


# -- agents as factories ------------------------------------------------------------------
class _FixedAgent:
    """A factory handing out deep copies of one agent object (each block starts from the
    same agent, in this process or in a worker)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.spec = f"object {type(agent).__module__}.{type(agent).__qualname__}"
        self.files: tuple[str, ...] = ()

    def __call__(self, game: Game) -> Any:
        return copy.deepcopy(self.agent)

    def fingerprint(self) -> str | None:
        try:
            return hashlib.sha256(pickle.dumps(self.agent)).hexdigest()[:16]
        except Exception:  # unpicklable: identified by its class only
            return None


def as_factory(name: str, source: Any) -> Any:
    """``source`` as a factory ``factory(game) -> Agent``: a factory as it is, an agent
    object as a factory of its deep copies.

    Raises:
        InvalidParameterError: a spec string, or neither an agent nor a callable.
    """
    if isinstance(source, str):
        raise InvalidParameterError(
            f"Agent {name!r}: tournaments and tables take agents or agent factories, received "
            f"the spec string {source!r}; build a factory with "
            f"nashzoo.agents.AgentSpec({source!r})."
        )
    if callable(getattr(source, "act", None)):
        return _FixedAgent(source)
    if callable(source):
        return source
    raise InvalidParameterError(
        f"Agent {name!r}: expected an agent (with act) or a factory factory(game) -> agent, "
        f"received {type(source).__name__}."
    )


def spec_text(factory: Any) -> str:
    """A factory's identity text: its ``spec``, else its module and name."""
    spec = getattr(factory, "spec", None)
    if isinstance(spec, str):
        return spec
    return (
        f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', repr(factory))}"
    )


def _identity(factory: Any) -> str:
    """How an agent is named in the stored configuration, and so in the id: its spec, but
    a file spec by the file's name alone. The file's content is fingerprinted, so where
    the folder lies does not matter: the same files in another checkout, or named by
    another relative or absolute path, are the same tournament."""
    spec = spec_text(factory)
    if _files(factory) == (spec,) and Path(spec).is_file():
        return Path(spec).name
    return spec


def _files(factory: Any) -> tuple[str, ...]:
    files = getattr(factory, "files", None)
    if files is not None:
        return tuple(str(f) for f in files)
    try:
        source = inspect.getsourcefile(factory)
    except TypeError:
        source = None
    return (source,) if source else ()


def _fingerprint(factory: Any) -> str | None:
    if isinstance(factory, _FixedAgent):
        return factory.fingerprint()
    files = [f for f in _files(factory) if Path(f).is_file()]
    if not files:
        return None
    digest = hashlib.sha256()
    for f in files:
        digest.update(Path(f).read_bytes())
    return digest.hexdigest()[:16]


# -- configuration ------------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentInfo:
    """A tournament's identity as stored (no agent code): what summaries and reports read.

    Attributes:
        game: env id.
        params: game parameters.
        deals: duplicate deals per pairing.
        block_size: deals per stored block.
        seed: root seed.
        move_time_limit: seconds per move (``None``: no limit).
        memory_limit_mb: address-space limit of the worker processes (``None``: none).
        agents: ``(name, identity)`` pairs: a spec string, or a factory's or object's
            qualified name.
        fingerprints: ``(name, sha256 prefix)`` of the files (or pickled object) each agent
            is built from, so that a changed file makes a new tournament.
        variance_reduction: ``None``, ``"crn"`` or ``"aivat"`` (see
            :func:`nashzoo.eval.head_to_head`); stored only when set, so tournaments
            without it keep their ids.
        lbr_hands: hands of local best response for agents whose exact exploitability
            is out of reach (0: none); stored only when set.
        setup_time_limit: seconds to build an agent and for its warm-up decision, where
            moves have a limit; stored only when not the default.
    """

    game: str
    params: dict[str, Any]
    deals: int
    block_size: int
    seed: int
    move_time_limit: float | None
    memory_limit_mb: int | None
    agents: tuple[tuple[str, str], ...]
    fingerprints: tuple[tuple[str, str], ...]
    variance_reduction: str | None = None
    lbr_hands: int = 0
    setup_time_limit: float = SETUP_TIME_LIMIT

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"] = [list(a) for a in self.agents]
        d["fingerprints"] = [list(f) for f in self.fingerprints]
        for key in ("variance_reduction", "lbr_hands"):  # newer fields: only when set
            if not d[key]:
                del d[key]
        if d["setup_time_limit"] == SETUP_TIME_LIMIT:
            del d["setup_time_limit"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentInfo:
        """Parse a stored configuration (older stores lack the newer fields)."""
        return cls(
            game=d["game"],
            params=dict(d.get("params") or {}),
            deals=int(d["deals"]),
            block_size=int(d.get("block_size", 100)),
            seed=int(d.get("seed", 0)),
            move_time_limit=d.get("move_time_limit"),
            memory_limit_mb=d.get("memory_limit_mb"),
            agents=tuple((str(n), str(s)) for n, s in d["agents"]),
            fingerprints=tuple((str(n), str(h)) for n, h in d.get("fingerprints", ())),
            variance_reduction=d.get("variance_reduction"),
            lbr_hands=int(d.get("lbr_hands", 0)),
            setup_time_limit=float(d.get("setup_time_limit", SETUP_TIME_LIMIT)),
        )

    @property
    def id(self) -> str:
        """Hash of the configuration."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.agents)

    def make_game(self) -> Game:
        """The game (cached per process)."""
        return _game(self.game, json.dumps(self.params, sort_keys=True))

    def blocks(self) -> list[tuple[int, int, int, int]]:
        """``(i, j, block, deals)`` of every block of every pairing ``i < j``."""
        out = []
        n_blocks = -(-self.deals // self.block_size)
        for i, j in itertools.combinations(range(len(self.agents)), 2):
            for k in range(n_blocks):
                out.append((i, j, k, min(self.block_size, self.deals - k * self.block_size)))
        return out


@functools.lru_cache(maxsize=8)
def _game(game_id: str, params_json: str) -> Game:
    from nashzoo.envs.registration import make_game

    return make_game(game_id, **json.loads(params_json))


@dataclass(frozen=True)
class TournamentConfig:
    """What defines a tournament (and its id: same configuration, same tournament).

    Attributes:
        game: env id, e.g. ``"nashzoo/leduc_holdem-v0"``.
        agents: ``(name, agent or factory)`` pairs; a factory is called as
            ``factory(game)`` in every process that plays (e.g.
            ``nashzoo.agents.AgentSpec("cfr+:1000")``). With worker processes they are
            pickled: use module-level functions, AgentSpecs or picklable agents.
        deals: duplicate deals per pairing.
        params: game parameters.
        block_size: deals per stored block.
        seed: root seed.
        move_time_limit: seconds per move before an agent forfeits (``None`` or
            ``math.inf``: no limit).
        memory_limit_mb: address-space limit of each worker process, so an agent that
            hogs memory gets ``MemoryError`` (a forfeit); ``None``: no limit.
        variance_reduction: ``None``, ``"crn"`` or ``"aivat"`` (see
            :func:`nashzoo.eval.head_to_head`); with ``"aivat"`` every block uses the
            game's :func:`~nashzoo.eval.aivat.default_value_function` and the report shows
            the uncorrected CIs beside the corrected ones.
        lbr_hands: where the game is too large for exact exploitability, measure each
            PolicyAgent's local-best-response lower bound with this many hands (20
            rollouts per action; :mod:`nashzoo.eval.lbr`); 0: none.
        setup_time_limit: where moves have a time limit, the separate allowance in
            seconds for building each agent and for its first, warming-up decision
            (loading files, solving, numba's compilation), so that no cold start is
            charged to a move clock (default 300).

    Raises:
        InvalidParameterError: any field of the wrong type or out of range, duplicate or
            empty names, fewer than 2 agents, or an unknown game.
    """

    game: str
    agents: tuple[tuple[str, Any], ...]
    deals: int
    params: dict[str, Any] = field(default_factory=dict)
    block_size: int = 100
    seed: int = 0
    move_time_limit: float | None = None
    memory_limit_mb: int | None = None
    variance_reduction: str | None = None
    lbr_hands: int = 0
    setup_time_limit: float = SETUP_TIME_LIMIT
    info: TournamentInfo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.game, str) or not self.game:
            raise InvalidParameterError(
                f"TournamentConfig.game is an env id such as 'nashzoo/leduc_holdem-v0', "
                f"received {self.game}."
            )
        if not isinstance(self.params, dict) or not all(isinstance(k, str) for k in self.params):
            raise InvalidParameterError(
                f"TournamentConfig.params is a dict of game parameters, received {self.params!r}."
            )
        try:
            json.dumps(self.params)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(
                f"TournamentConfig.params must be JSON values (they are stored): {exc}."
            ) from exc
        check_int("deals", self.deals, 1)
        check_int("block_size", self.block_size, 1)
        check_seed(self.seed)
        reduction = check_variance_reduction(self.variance_reduction)
        check_lbr_hands("lbr_hands", self.lbr_hands, 0)
        limit = check_time_limit(self.move_time_limit)
        setup = check_number(
            "setup_time_limit", self.setup_time_limit, low=0.0, low_inclusive=False
        )
        memory = (
            None
            if self.memory_limit_mb is None
            else check_int("memory_limit_mb", self.memory_limit_mb, 64)
        )
        if not isinstance(self.agents, (tuple, list)) or not all(
            isinstance(a, (tuple, list)) and len(a) == 2 for a in self.agents
        ):
            raise InvalidParameterError(
                "TournamentConfig.agents is a sequence of (name, agent or factory) pairs, "
                f"received {self.agents!r}."
            )
        names = [n for n, _ in self.agents]
        if len(names) < 2:
            raise InvalidParameterError(f"A tournament needs at least 2 agents, received {names}.")
        bad = [n for n in names if not isinstance(n, str) or not n.strip()]
        if bad:
            raise InvalidParameterError(f"Agent names are non-empty strings, received {bad}.")
        if len(set(names)) != len(names):
            raise InvalidParameterError(f"Agent names must be unique, received {names}.")
        factories = tuple((n, as_factory(n, src)) for n, src in self.agents)
        object.__setattr__(self, "agents", factories)
        game = _game(self.game, json.dumps(self.params, sort_keys=True))  # fail early
        if game.num_players != 2:
            raise InvalidParameterError(
                f"A tournament plays pairwise duplicate matches of two-player games; "
                f"{self.game} with {self.params or 'its defaults'} has {game.num_players} "
                f"players. Seat {game.num_players} agents at a duplicate table instead: "
                "`nashzoo table` or nashzoo.eval.play_table."
            )
        if reduction == "aivat":
            check_aivat_game(game)
        prints = tuple((n, h) for n, f in factories if (h := _fingerprint(f)) is not None)
        object.__setattr__(
            self,
            "info",
            TournamentInfo(
                game=self.game,
                params=dict(self.params),
                deals=int(self.deals),
                block_size=int(self.block_size),
                seed=int(self.seed),
                move_time_limit=limit,
                memory_limit_mb=memory,
                agents=tuple((n, _identity(f)) for n, f in factories),
                fingerprints=prints,
                variance_reduction=reduction,
                lbr_hands=int(self.lbr_hands),
                setup_time_limit=setup,
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored identity (see :class:`TournamentInfo`)."""
        return self.info.to_dict()

    @property
    def id(self) -> str:
        """Hash of the configuration."""
        return self.info.id

    @property
    def legacy_info(self) -> TournamentInfo | None:
        """The configuration as versions up to 0.2 stored it, where it differs: a file
        spec as typed (its path). A store made then holds this tournament under its id,
        which :func:`~nashzoo.eval.tournament.run_tournament` resumes."""
        typed = tuple((n, spec_text(f)) for n, f in self.agents)
        return None if typed == self.info.agents else replace(self.info, agents=typed)

    @property
    def legacy_id(self) -> str | None:
        """The id earlier versions gave this configuration, where it differs (agents built
        from files, which were then identified by their paths); ``None`` otherwise."""
        return None if self.legacy_info is None else self.legacy_info.id

    @property
    def names(self) -> tuple[str, ...]:
        return self.info.names

    def make_game(self) -> Game:
        """The game (cached per process)."""
        return self.info.make_game()

    def blocks(self) -> list[tuple[int, int, int, int]]:
        """``(i, j, block, deals)`` of every block of every pairing ``i < j``."""
        return self.info.blocks()

    def build(self, k: int) -> Agent:
        """A fresh agent ``k`` (its factory called on the game)."""
        agent: Agent = self.agents[k][1](self.make_game())
        return agent


def check_picklable(config: TournamentConfig) -> None:
    """Raise unless every agent factory can be sent to a worker process.

    Raises:
        InvalidParameterError: naming the agent and the way out (workers=0).
    """
    for name, factory in config.agents:
        try:
            pickle.dumps(factory)
        except Exception as exc:
            raise InvalidParameterError(
                f"Agent {name!r} cannot be sent to worker processes ({type(exc).__name__}: "
                f"{exc}); use a module-level factory, an AgentSpec or a picklable agent, or "
                "workers=0 to play in this process."
            ) from exc
