"""Round-robin tournaments of duplicate matches: durable, resumable, parallel, and proof
against agents that misbehave.

Every pairing is split into blocks of deals. A block's chance draws and agent seeds
derive from ``(seed, pairing, block)`` only, so a block gives the same result wherever and
whenever it runs: in this process (``workers=0``), in supervised worker processes, or on
a Ray cluster. Each finished block is committed to the
:class:`~nashzoo.eval.store.ResultStore` in a transaction; running the same tournament
again (same configuration) runs only the missing blocks.

Agents are given as agent objects or agent factories (``factory(game) -> agent``, such
as :class:`nashzoo.agents.AgentSpec`); turning spec strings into factories is the CLI's
and :mod:`nashzoo.agents`' job. Before any block runs, every agent is built once and
checked, so an agent that cannot play this game is refused at the start.

Faults are forfeits: an agent that raises (``SystemExit`` and ``KeyboardInterrupt``
included), fails in ``reset()``, answers an invalid or illegal action, or overruns the
per-move time limit forfeits the block; with worker processes, an agent that kills its
process (``os._exit``, a crash) is detected, the block retried, and after
``max_attempts`` runs recorded as a CRASH forfeit of the agent that was moving. A
forfeited block counts all its deals as lost by the game's largest payoff (see
:mod:`nashzoo.eval.ratings`). The user's Ctrl-C stops the run; what is stored stays, and
the same command resumes.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import itertools
import json
import logging
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.envs.protocol import Agent
from nashzoo.errors import GameTooLargeError, InvalidParameterError, NashzooError
from nashzoo.eval.engine import deal_uniforms, play_duplicate_deals
from nashzoo.eval.guard import Calls, Forfeit, SupervisedCalls, make_calls, user_interrupts
from nashzoo.eval.matches import seed_agents
from nashzoo.eval.pool import Outcome, SupervisedPool, Task
from nashzoo.eval.ratings import Crosstable, Ratings, crosstable, rate
from nashzoo.eval.stats import score_unit
from nashzoo.eval.store import BlockResult, ResultStore
from nashzoo.games.base import Game
from nashzoo.validation import check_int, check_seed, check_time_limit

__all__ = [
    "TournamentConfig",
    "TournamentInfo",
    "TournamentResult",
    "AgentReport",
    "run_tournament",
    "summarize",
    "run_block",
]

logger = logging.getLogger(__name__)

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


def _as_factory(name: str, source: Any) -> Any:
    if isinstance(source, str):
        raise InvalidParameterError(
            f"Agent {name!r}: the tournament takes agents or agent factories, received the "
            f"spec string {source!r}; build a factory with nashzoo.agents.AgentSpec({source!r})."
        )
    if callable(getattr(source, "act", None)):
        return _FixedAgent(source)
    if callable(source):
        return source
    raise InvalidParameterError(
        f"Agent {name!r}: expected an agent (with act) or a factory factory(game) -> agent, "
        f"received {type(source).__name__}."
    )


def _identity(factory: Any) -> str:
    spec = getattr(factory, "spec", None)
    if isinstance(spec, str):
        return spec
    return (
        f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', repr(factory))}"
    )


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

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"] = [list(a) for a in self.agents]
        d["fingerprints"] = [list(f) for f in self.fingerprints]
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
    info: TournamentInfo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.game, str) or not self.game:
            raise InvalidParameterError(
                f"TournamentConfig.game is an env id such as 'nashzoo/leduc_holdem-v0', "
                f"received {self.game!r}."
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
        limit = check_time_limit(self.move_time_limit)
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
        factories = tuple((n, _as_factory(n, src)) for n, src in self.agents)
        object.__setattr__(self, "agents", factories)
        _game(self.game, json.dumps(self.params, sort_keys=True))  # fail early on bad games
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


# -- one block ----------------------------------------------------------------------------
def _forfeit_block(
    config: TournamentInfo,
    i: int,
    j: int,
    block: int,
    deals: int,
    loser: int,
    reason: str,
    seconds: float,
) -> BlockResult:
    """The stored result of a forfeited block: every deal lost by the largest payoff."""
    penalty = config.make_game().max_payoff_magnitude
    a_lost = loser == i
    total = (-penalty if a_lost else penalty) * deals
    return BlockResult(
        config.agents[i][0],
        config.agents[j][0],
        block,
        deals,
        total,
        penalty * penalty * deals,
        0 if a_lost else deals,
        deals if a_lost else 0,
        0,
        seconds,
        config.agents[loser][0],
        reason,
    )


def run_block(
    config: TournamentConfig, i: int, j: int, block: int, deals: int, calls: Calls | None = None
) -> BlockResult:
    """Play one block (a pure function of its arguments; runs in any process).

    Args:
        config: the tournament.
        i, j: the agents' indices (A = ``i``).
        block: block number (with ``i, j`` it fixes the chance draws and agent seeds).
        deals: duplicate deals in the block.
        calls: how agents are called (default: in this thread, with the config's time
            limit enforced by a helper thread).
    """
    own_calls = calls is None
    calls = calls or make_calls(config.info.move_time_limit)
    game = config.make_game()
    start = time.perf_counter()
    try:
        agent_a = calls.call(0, config.build, i)
        agent_b = calls.call(1, config.build, j)
        seed_agents(config.seed, (agent_a, agent_b), i, j, block, calls=calls)
        rng = np.random.default_rng([config.seed, i, j, block])
        scores = play_duplicate_deals(
            game, agent_a, agent_b, deal_uniforms(game, deals, rng), calls=calls
        ).scores
    except Forfeit as exc:
        loser = (i, j)[exc.who]
        return _forfeit_block(
            config.info, i, j, block, deals, loser, exc.reason, time.perf_counter() - start
        )
    finally:
        if own_calls:
            calls.close()
    return BlockResult(
        config.agents[i][0],
        config.agents[j][0],
        block,
        int(scores.size),
        float(scores.sum()),
        float((scores * scores).sum()),
        int(np.count_nonzero(scores > 0)),
        int(np.count_nonzero(scores < 0)),
        int(np.count_nonzero(scores == 0)),
        time.perf_counter() - start,
    )


# -- agent checks and exploitability ------------------------------------------------------
@dataclass(frozen=True)
class AgentReport:
    """What building and measuring one agent gave.

    Attributes:
        name: the agent.
        error: why the agent cannot enter (``None`` if it can).
        exploitability: chips, when measured.
        note: why exploitability is unknown (not a PolicyAgent, game too large, ...).
    """

    name: str
    error: str | None = None
    exploitability: float | None = None
    note: str | None = None


class _GuardedPolicy:
    """An agent whose every ``action_probabilities`` call goes through ``calls``."""

    def __init__(self, agent: Any, calls: Calls) -> None:
        self.agent, self.calls = agent, calls

    def action_probabilities(self, observation: Any, info: Any) -> Any:
        return self.calls.call(0, self.agent.action_probabilities, observation, info)

    def __repr__(self) -> str:
        return repr(self.agent)


def check_agent(
    config: TournamentConfig, k: int, measure: bool, calls: Calls | None = None
) -> AgentReport:
    """Build agent ``k``, check it can play the game, and (if ``measure``) compute its
    exact exploitability where it is a PolicyAgent and the game compiles."""
    name = config.agents[k][0]
    calls = calls or make_calls(config.info.move_time_limit)
    game = config.make_game()
    try:
        agent = calls.call(0, config.build, k)
    except Forfeit as exc:
        return AgentReport(name, error=f"could not be built: {exc.reason}")
    for method in ("act", "reset"):
        if not callable(getattr(agent, method, None)):
            return AgentReport(name, error=f"is a {type(agent).__name__} without {method}()")
    check_game = getattr(agent, "check_game", None)
    if callable(check_game):
        try:
            calls.call(0, check_game, game)
        except Forfeit as exc:
            return AgentReport(name, error=f"cannot play {game!r}: {exc.reason}")
    if not measure:
        return AgentReport(name)
    if not callable(getattr(agent, "action_probabilities", None)):
        return AgentReport(name, note="not a PolicyAgent")
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.tree import compile_game

    try:
        tree = compile_game(game, max_nodes=2_000_000)
    except GameTooLargeError as exc:
        return AgentReport(name, note=f"game too large to compile: {exc}")
    try:
        value = exploitability(_GuardedPolicy(agent, calls), tree).exploitability
    except Forfeit as exc:
        return AgentReport(name, note=f"action_probabilities failed: {exc.reason}")
    except NashzooError as exc:  # e.g. probabilities that are not distributions
        return AgentReport(name, note=f"{type(exc).__name__}: {exc}")
    return AgentReport(name, exploitability=value)


# -- worker-process tasks (module level: picklable) ----------------------------------------
def _block_task(
    config: TournamentConfig, i: int, j: int, block: int, deals: int, *, slot: Any
) -> BlockResult:
    calls = SupervisedCalls(slot, (i, j), config.info.move_time_limit)
    return run_block(config, i, j, block, deals, calls)


def _agent_task(config: TournamentConfig, k: int, measure: bool, *, slot: Any) -> AgentReport:
    calls = SupervisedCalls(slot, (k, k), config.info.move_time_limit)
    return check_agent(config, k, measure, calls)


def _ray_block(config: TournamentConfig, i: int, j: int, block: int, deals: int) -> BlockResult:
    return run_block(config, i, j, block, deals)


def _block_outcome(config: TournamentConfig, outcome: Outcome) -> BlockResult:
    """A stored result for a supervised block task, whatever became of it."""
    _, i, j, block, deals = outcome.task.args
    if outcome.status == "ok":
        result: BlockResult = outcome.value
        return result
    if outcome.status == "error":
        raise RuntimeError(f"block {i}-{j}/{block} failed inside nashzoo: {outcome.detail}")
    kind = "CRASH" if outcome.status == "crash" else "TIMEOUT"
    if outcome.agent not in (i, j):  # died while no agent was moving: nobody to blame
        logger.warning(
            "block %s vs %s #%d: worker died outside any agent call (%s); the "
            "block is recorded void",
            config.names[i],
            config.names[j],
            block,
            outcome.detail,
        )
        return BlockResult(
            config.names[i],
            config.names[j],
            block,
            0,
            0.0,
            0.0,
            0,
            0,
            0,
            0.0,
            None,
            f"void: {outcome.detail}",
        )
    return _forfeit_block(
        config.info, i, j, block, deals, outcome.agent, f"{kind}: {outcome.detail}", 0.0
    )


def _check_picklable(config: TournamentConfig) -> None:
    for name, factory in config.agents:
        try:
            pickle.dumps(factory)
        except Exception as exc:
            raise InvalidParameterError(
                f"Agent {name!r} cannot be sent to worker processes ({type(exc).__name__}: "
                f"{exc}); use a module-level factory, an AgentSpec or a picklable agent, or "
                "workers=0 to play in this process."
            ) from exc


# -- the tournament -----------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentResult:
    """Everything a tournament measured.

    Attributes:
        tournament_id: the configuration's hash.
        config: the stored configuration.
        crosstable: pairwise results.
        ratings: Bradley-Terry and Nash-averaging ratings.
        exploitability: per agent, chips (``None`` where not computable, e.g. no
            ``action_probabilities`` or a game too large to compile).
        blocks_done, blocks_total: progress.
    """

    tournament_id: str
    config: TournamentInfo
    crosstable: Crosstable
    ratings: Ratings
    exploitability: dict[str, float | None]
    blocks_done: int
    blocks_total: int

    @property
    def complete(self) -> bool:
        return self.blocks_done == self.blocks_total

    def format(self) -> str:
        """The crosstable and ratings as text tables (mbb/game for poker)."""
        names = self.crosstable.names
        scale, unit = score_unit(self.config.make_game().big_blind)
        width = max(10, max(len(n) for n in names) + 1)
        lines = [
            f"Crosstable: row agent's duplicate score vs column agent, {unit} "
            f"(mean ± 95% CI half-width)",
            " " * width + "".join(f"{n:>{width + 8}}" for n in names),
        ]
        ct = self.crosstable
        for i, a in enumerate(names):
            cells = []
            for j in range(len(names)):
                cell = ct.cell(i, j, scale)
                cells.append(
                    f"{'-':>{width + 8}}"
                    if cell is None
                    else f"{cell[0]:>+{width}.1f} ±{cell[1]:<6.1f}"
                )
            lines.append(f"{a:<{width}}" + "".join(cells))
        r = self.ratings
        lines += [
            "",
            f"{'agent':<{width}} {'Elo (BT)':>9} {'95% CI':>17} {'Nash mix':>9} "
            f"{'Nash score':>11} {'exploitability':>15}",
        ]
        for k in np.argsort(-r.elo):
            e = self.exploitability.get(names[k])
            e_txt = "-" if e is None else f"{e:.4g}"
            lines.append(
                f"{names[k]:<{width}} {r.elo[k]:>+9.1f} [{r.elo_low[k]:>+7.1f},"
                f"{r.elo_high[k]:>+7.1f}] {r.nash_mixture[k]:>9.3f} "
                f"{r.nash_score[k] * scale:>+11.1f} {e_txt:>15}"
            )
        if ct.forfeits:
            lines += [
                "",
                "Forfeits (every deal of a forfeited block counts as lost by the "
                "game's largest payoff):",
            ]
            lines += [f"  {a} vs {b} block {k}: {who} — {why}" for a, b, k, who, why in ct.forfeits]
        return "\n".join(lines)


def _progress(total: int, initial: int, tid: str) -> Any:
    from nashzoo.extras import progress_bar

    return progress_bar(total=total, initial=initial, unit="block", desc=f"tournament {tid[:8]}")


def run_tournament(
    config: TournamentConfig,
    store: ResultStore | str | Path,
    *,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool = False,
    bootstrap: int = 200,
    max_attempts: int = 2,
) -> TournamentResult:
    """Run (or resume) a tournament and return its summary.

    Args:
        config: the tournament.
        store: a :class:`ResultStore` or a SQLite path / database URL.
        workers: supervised worker processes for the local back end; ``0`` plays in this
            process (fastest to start, but an agent that kills the process ends the run).
        backend: ``"local"`` or ``"ray"`` (``ray.init(address=ray_address)``; ``None``
            starts a local Ray). Under Ray a block whose worker dies is re-run under local
            supervision to name the agent at fault.
        progress: show a progress bar (drawn only on a terminal).
        bootstrap: bootstrap samples for the rating intervals.
        max_attempts: runs of a block whose worker process dies before it is recorded as
            a CRASH forfeit.

    Raises:
        InvalidParameterError: bad arguments, or an agent that cannot play the game
            (checked before any block runs).
        StoreError: the store is unusable or holds this id with another configuration.
        KeyboardInterrupt: the user's Ctrl-C (stored blocks stay; run again to resume).
    """
    workers = check_int("workers", workers, 0)
    max_attempts = check_int("max_attempts", max_attempts, 1)
    bootstrap = check_int("bootstrap", bootstrap, 0)
    if backend not in ("local", "ray"):
        raise InvalidParameterError(f"`backend` must be 'local' or 'ray', received {backend!r}.")
    if not isinstance(config, TournamentConfig):
        raise InvalidParameterError(
            f"run_tournament expects a TournamentConfig, received {type(config).__name__}."
        )
    if workers > 0 or backend == "ray":
        _check_picklable(config)
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    tid = config.id
    if not store.register(tid, config.to_dict()):
        logger.info("resuming tournament %s", tid)
    info = config.info
    pool = (
        SupervisedPool(
            max(workers, 1),
            time_limit=info.move_time_limit,
            memory_limit_mb=info.memory_limit_mb,
            max_attempts=max_attempts,
        )
        if workers > 0 or backend == "ray"
        else None
    )
    try:
        with user_interrupts():
            _check_agents(config, store, tid, pool)
            blocks = config.blocks()
            done = store.done(tid)
            pending = [b for b in blocks if (info.names[b[0]], info.names[b[1]], b[2]) not in done]
            bar = _progress(len(blocks), len(blocks) - len(pending), tid) if progress else None
            if backend == "ray":
                results = _ray_backend(config, pending, ray_address, pool)
            elif pool is not None:
                results = (
                    _block_outcome(config, o)
                    for o in pool.run(
                        Task(("block", *b), _block_task, (config, *b)) for b in pending
                    )
                )
            else:
                results = (run_block(config, *b) for b in pending)
            for result in results:
                store.add_block(tid, result)
                if result.forfeit:
                    logger.warning(
                        "%s forfeited %s vs %s block %d: %s",
                        result.forfeit,
                        result.a,
                        result.b,
                        result.block,
                        result.reason,
                    )
                if bar is not None:
                    bar.update(1)
            if bar is not None:
                bar.close()
    finally:
        if pool is not None:
            pool.close()
    return summarize(store, tid, bootstrap=bootstrap)


def _check_agents(
    config: TournamentConfig, store: ResultStore, tid: str, pool: SupervisedPool | None
) -> None:
    """Build every agent once (refusing the tournament if one cannot play) and store the
    exploitability of those not measured yet."""
    measured = store.exploitabilities(tid)
    todo = [(k, name not in measured) for k, name in enumerate(config.names)]
    reports: list[AgentReport] = []
    if pool is None:
        reports = [check_agent(config, k, measure) for k, measure in todo]
    else:
        for outcome in pool.run(Task(("agent", k), _agent_task, (config, k, m)) for k, m in todo):
            k = outcome.task.args[1]
            name = config.names[k]
            if outcome.status == "ok":
                reports.append(outcome.value)
            elif outcome.status == "error":
                raise RuntimeError(
                    f"checking agent {name!r} failed inside nashzoo: {outcome.detail}"
                )
            else:
                reports.append(
                    AgentReport(
                        name,
                        error=f"{outcome.status}: {outcome.detail} while being built or measured",
                    )
                )
    errors = [f"{r.name!r} {r.error}" for r in reports if r.error]
    if errors:
        raise InvalidParameterError(
            "Agents refused at the start of the tournament: " + "; ".join(errors)
        )
    for r in reports:
        if r.name not in measured:
            store.set_exploitability(tid, r.name, r.exploitability, r.note)


def _ray_backend(
    config: TournamentConfig,
    pending: Sequence[tuple[int, int, int, int]],
    address: str | None,
    pool: SupervisedPool | None,
) -> Iterator[BlockResult]:
    from nashzoo.extras import require

    ray = require("ray", "ray", "--backend ray")
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(max_retries=0)(_ray_block)
    refs = {remote.remote(config, *b): b for b in pending}
    failed = []
    waiting = list(refs)
    while waiting:
        ready, waiting = ray.wait(waiting, num_returns=1)
        try:
            yield ray.get(ready[0])
        except ray.exceptions.RayError as exc:  # its worker died: find out who did it
            logger.warning(
                "Ray block %s failed (%s); re-running it under local supervision",
                refs[ready[0]],
                type(exc).__name__,
            )
            failed.append(refs[ready[0]])
    if failed:
        assert pool is not None
        for outcome in pool.run(Task(("block", *b), _block_task, (config, *b)) for b in failed):
            yield _block_outcome(config, outcome)


def summarize(
    store: ResultStore | str | Path, tournament_id: str, *, bootstrap: int = 200, seed: int = 0
) -> TournamentResult:
    """Crosstable, ratings and exploitability of a stored tournament (finished or not).

    Raises:
        StoreError: no such tournament, or stored results that do not match its agents.
    """
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    info = TournamentInfo.from_dict(store.config(tournament_id))
    results = store.results(tournament_id)
    names = info.names
    expl = {n: v for n, (v, _) in store.exploitabilities(tournament_id).items()}
    table = crosstable(results, names)
    return TournamentResult(
        tournament_id,
        info,
        table,
        rate(results, names, bootstrap=bootstrap, seed=seed, table=table),
        {n: expl.get(n) for n in names},
        len(results),
        len(info.blocks()),
    )
