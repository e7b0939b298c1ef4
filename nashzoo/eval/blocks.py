"""One block of a tournament and the checks on each agent: pure functions of the
configuration, run in this process, in supervised worker processes or on Ray.

A block's chance draws and agent seeds derive from ``(seed, pairing, block)`` only, so a
block gives the same result wherever and whenever it runs. Faults are forfeits
(:mod:`nashzoo.eval.guard`); a forfeited block counts all its deals as lost by the game's
largest payoff (see :mod:`nashzoo.eval.ratings`).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.envs.protocol import (
    ChecksGame,
    HasPolicyModel,
    MixedStrategy,
    StatesBatch,
    StatesProbabilities,
)
from nashzoo.errors import NashzooError
from nashzoo.eval.aivat import ValueFunction, default_value_function
from nashzoo.eval.engine import deal_agent_seeds, deal_uniforms
from nashzoo.eval.guard import Calls, Forfeit, SupervisedCalls, make_calls
from nashzoo.eval.matches import agent_name, play_deals, seed_agents
from nashzoo.eval.pool import Outcome
from nashzoo.eval.referee import request_for
from nashzoo.eval.store import BlockResult
from nashzoo.eval.tournament_config import TournamentConfig, TournamentInfo
from nashzoo.games.base import CHANCE, Game
from nashzoo.games.observation import ObservationCache

__all__ = [
    "run_block",
    "forfeit_block",
    "AgentReport",
    "check_agent",
    "block_task",
    "agent_task",
    "ray_block",
    "block_outcome",
]

logger = logging.getLogger(__name__)


# -- one block ----------------------------------------------------------------------------
def forfeit_block(
    info: TournamentInfo,
    i: int,
    j: int,
    *,
    block: int,
    deals: int,
    loser: int,
    reason: str,
    seconds: float,
) -> BlockResult:
    """The stored result of a forfeited block between agents ``i`` and ``j`` of the
    tournament ``info``: every deal lost by ``loser`` (``i`` or ``j``) by the game's
    largest payoff."""
    return BlockResult.forfeited(
        info.agents[i][0],
        info.agents[j][0],
        block=block,
        deals=deals,
        loser=info.agents[loser][0],
        reason=reason,
        seconds=seconds,
        penalty=info.make_game().max_payoff_magnitude,
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
    calls = calls or make_calls(config.info.move_time_limit, config.info.setup_time_limit)
    game = config.make_game()
    start = time.perf_counter()
    try:
        agent_a = calls.setup(0, config.build, i)
        agent_b = calls.setup(1, config.build, j)
        warm_up(game, (agent_a, agent_b), calls)
        seed_agents(config.seed, (agent_a, agent_b), i, j, block, calls=calls)
        rng = np.random.default_rng([config.seed, i, j, block])
        reduction = config.info.variance_reduction
        scores = play_deals(
            game,
            agent_a,
            agent_b,
            deal_uniforms(game, deals, rng),
            deal_agent_seeds(deals, np.random.default_rng([config.seed, i, j, block, 1])),
            reduction=reduction,
            values=_values(game) if reduction == "aivat" else None,
            calls=calls,
        )
    except Forfeit as exc:
        loser = (i, j)[exc.who]
        return forfeit_block(
            config.info,
            i,
            j,
            block=block,
            deals=deals,
            loser=loser,
            reason=exc.reason,
            seconds=time.perf_counter() - start,
        )
    finally:
        if own_calls:
            calls.close()
    return BlockResult.played(
        config.agents[i][0],
        config.agents[j][0],
        block,
        scores.scores,
        time.perf_counter() - start,
        scores.corrected,
    )


@functools.lru_cache(maxsize=4)
def _values(game: Game) -> ValueFunction:
    """A tournament's AIVAT value function (built once per process and game)."""
    return default_value_function(game)


# -- agent checks and exploitability ------------------------------------------------------
@dataclass(frozen=True)
class AgentReport:
    """What building and measuring one agent gave.

    Attributes:
        name: the agent.
        error: why the agent cannot enter (``None`` if it can).
        exploitability: chips, when measured.
        note: why exploitability is unknown (not a PolicyAgent, game too large, ...), or
            how a lower bound was measured.
        method: ``"exact"``, or ``"lbr"`` when ``exploitability`` is a local-best-response
            lower bound (games too large to compile, with ``lbr_hands`` set).
        ci95: the bound's 95% CI.
    """

    name: str
    error: str | None = None
    exploitability: float | None = None
    note: str | None = None
    method: str | None = None
    ci95: tuple[float, float] | None = None


class _GuardedPolicy:
    """An agent whose every ``action_probabilities`` call goes through ``calls``."""

    def __init__(self, agent: Any, calls: Calls) -> None:
        self.agent, self.calls = agent, calls
        self.name = agent_name(agent)
        if isinstance(agent, StatesBatch):
            self.batch_probabilities = self._batch

    def _batch(self, observation: Any, action_mask: Any, player: Any) -> Any:
        return self.calls.call(0, self.agent.batch_probabilities, observation, action_mask, player)

    def action_probabilities(self, observation: Any, info: Any) -> Any:
        return self.calls.call(0, self.agent.action_probabilities, observation, info)

    def act(self, observation: Any, info: Any) -> Any:
        return self.calls.call(0, self.agent.act, observation, info)

    def reset(self, *, seed: int | None = None) -> None:
        if callable(getattr(self.agent, "reset", None)):
            self.agent.reset(seed=seed)

    def __repr__(self) -> str:
        return repr(self.agent)


class _GuardedMixture:
    """A mixed strategy (:class:`~nashzoo.envs.protocol.MixedStrategy`) whose members'
    every call goes through ``calls``: measured like the mixture it is (its behavioural
    equivalent exactly, or LBR's range over members and cards)."""

    def __init__(self, agent: Any, calls: Calls) -> None:
        self.agent = agent
        self.members = [_GuardedPolicy(member, calls) for member in agent.members]
        self.weights = agent.weights

    def __repr__(self) -> str:
        return repr(self.agent)


def _measurable(agent: Any) -> bool:
    """Whether exploitability can be measured: a PolicyAgent, or a mixed strategy whose
    members are."""
    if isinstance(agent, MixedStrategy):
        return all(isinstance(m, StatesProbabilities) for m in agent.members)
    return isinstance(agent, StatesProbabilities)


def check_agent(
    config: TournamentConfig, k: int, measure: bool, calls: Calls | None = None
) -> AgentReport:
    """Build agent ``k``, check it can play the game, and (if ``measure``) compute its
    exploitability where it is a PolicyAgent or a mixture of them
    (:class:`~nashzoo.envs.protocol.MixedStrategy`): exact where the game compiles, an
    LBR lower bound elsewhere when ``lbr_hands`` is set."""
    name = config.agents[k][0]
    calls = calls or make_calls(config.info.move_time_limit, config.info.setup_time_limit)
    game = config.make_game()
    try:
        agent = calls.setup(0, config.build, k)
    except Forfeit as exc:
        return AgentReport(name, error=f"could not be built: {exc.reason}")
    for method in ("act", "reset"):
        if not callable(getattr(agent, method, None)):
            return AgentReport(name, error=f"is a {type(agent).__name__} without {method}()")
    if isinstance(agent, ChecksGame):
        try:
            calls.call(0, agent.check_game, game)
        except Forfeit as exc:
            return AgentReport(name, error=f"cannot play {game}: {exc.reason}")
    if not measure:
        return AgentReport(name)
    if not _measurable(agent):
        return AgentReport(name, note="not a PolicyAgent")
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.tree import compiled_or_none

    mixed = isinstance(agent, MixedStrategy)
    guarded = _GuardedMixture(agent, calls) if mixed else _GuardedPolicy(agent, calls)
    try:  # its cold start is paid for here, not by the first measured information set
        for member in agent.members if mixed else (agent,):
            warm_up(game, (member,), calls, act=False)
    except Forfeit as exc:
        return AgentReport(name, note=f"action_probabilities failed: {exc.reason}")
    tree = compiled_or_none(game, max_nodes=2_000_000)
    if tree is None:
        if config.info.lbr_hands:
            model = agent.policy_model() if isinstance(agent, HasPolicyModel) else None
            return _lbr_report(config, name, guarded, game, model)
        return AgentReport(name, note=f"game too large to compile ({game})")
    try:
        value = exploitability(guarded, tree).exploitability
    except Forfeit as exc:
        return AgentReport(name, note=f"action_probabilities failed: {exc.reason}")
    except NashzooError as exc:  # e.g. probabilities that are not distributions
        return AgentReport(name, note=f"{type(exc).__name__}: {exc}")
    return AgentReport(name, exploitability=value, method="exact")


def warm_up(game: Game, agents: Sequence[Any], calls: Calls, *, act: bool = True) -> None:
    """Where moves have a time limit, ask each agent for one decision (the game's first,
    after fixed chance draws) under the setup allowance, and discard the answer: its cold
    start (loading, numba's compilation) is then paid for outside every move clock.
    Without a time limit nothing is asked, so runs are as they were. ``act=False`` asks
    only for the stated probabilities (before measuring them).

    Raises:
        Forfeit: an agent failed (raised, or ran over the setup allowance).
    """
    if calls.time_limit is None:
        return
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.advance_chance(lambda: 0.5)
    player = state.current_player()
    if player < 0:  # a game that ends before anyone moves
        return
    observation, info = request_for(ObservationCache(game), state, player)
    for who, agent in enumerate(agents):
        if act:
            calls.setup(who, agent.act, observation, info)
        if isinstance(agent, StatesProbabilities):
            calls.setup(who, agent.action_probabilities, observation, info)


def _lbr_report(
    config: TournamentConfig, name: str, agent: Any, game: Game, model: Any = None
) -> AgentReport:
    """A local-best-response lower bound (:mod:`nashzoo.eval.lbr`) for a game too large
    for the exact figure; with ``model`` (a search agent's prior,
    :class:`~nashzoo.envs.protocol.HasPolicyModel`) LBR keeps the agent's range with the
    model and plays against the agent's own moves."""
    from nashzoo.eval.lbr import DEFAULT_ROLLOUTS, local_best_response

    try:
        bound = local_best_response(
            game,
            agent,
            hands=config.info.lbr_hands,
            rollouts=DEFAULT_ROLLOUTS,
            seed=config.seed,
            model=model,
        )
    except Forfeit as exc:
        return AgentReport(name, note=f"action_probabilities failed: {exc.reason}")
    except NashzooError as exc:
        return AgentReport(name, note=f"LBR failed: {type(exc).__name__}: {exc}")
    return AgentReport(
        name,
        exploitability=bound.value,
        note=f"lower bound, {bound}",
        method="lbr",
        ci95=bound.ci95,
    )


# -- worker-process tasks (module level: picklable) ----------------------------------------
def block_task(
    config: TournamentConfig, i: int, j: int, block: int, deals: int, *, slot: Any
) -> BlockResult:
    calls = SupervisedCalls(slot, (i, j), config.info.move_time_limit, config.info.setup_time_limit)
    return run_block(config, i, j, block, deals, calls)


def agent_task(config: TournamentConfig, k: int, measure: bool, *, slot: Any) -> AgentReport:
    calls = SupervisedCalls(slot, (k, k), config.info.move_time_limit, config.info.setup_time_limit)
    return check_agent(config, k, measure, calls)


def ray_block(config: TournamentConfig, i: int, j: int, block: int, deals: int) -> BlockResult:
    return run_block(config, i, j, block, deals)


def block_outcome(config: TournamentConfig, outcome: Outcome) -> BlockResult:
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
    return forfeit_block(
        config.info,
        i,
        j,
        block=block,
        deals=deals,
        loser=outcome.agent,
        reason=f"{kind}: {outcome.detail}",
        seconds=0.0,
    )
