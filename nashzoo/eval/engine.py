"""The match engine: duplicate deals played on the rules, as agents see them in the env.

The engine drives the referee (:mod:`nashzoo.eval.referee`) and owns the state. Agents
receive the env's observation
(``{"observation", "action_mask"}``) and the full agent info (:mod:`nashzoo.envs.protocol`)
as locked arrays from the shared :class:`~nashzoo.games.observation.ObservationCache`:
they cannot unlock them, so nothing an agent does reaches the referee or the other agent;
legality is judged from the rules state alone. Chance is driven by pre-drawn uniforms, one
per chance event, so both seatings of a duplicate deal see the same cards. An agent that
raises (``SystemExit`` included), answers an invalid or illegal action, fails in
``reset()`` or runs over the per-move time limit forfeits (:class:`~nashzoo.eval.guard.Forfeit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nashzoo.envs.protocol import Agent
from nashzoo.eval import guard
from nashzoo.eval.guard import Calls, DirectCalls, Forfeit
from nashzoo.eval.referee import checked_action
from nashzoo.games.base import CHANCE, TERMINAL, Game
from nashzoo.games.observation import ObservationCache

__all__ = ["Forfeit", "DealScores", "play_duplicate_deals", "deal_uniforms", "deal_agent_seeds"]


@dataclass(frozen=True)
class DealScores:
    """Per-deal scores of agent A (mean of its two seats), in chips.

    Attributes:
        scores: the payoffs as played.
        corrected: with AIVAT (:mod:`nashzoo.eval.aivat`), the corrected scores of the
            same games; ``None`` otherwise.
    """

    scores: np.ndarray
    corrected: np.ndarray | None = None

    @property
    def wins(self) -> int:
        return int(np.count_nonzero(self.scores > 0))

    @property
    def losses(self) -> int:
        return int(np.count_nonzero(self.scores < 0))

    @property
    def ties(self) -> int:
        return int(np.count_nonzero(self.scores == 0))


def deal_uniforms(game: Game, deals: int, rng: np.random.Generator) -> np.ndarray:
    """``(deals, max_chance_nodes)`` uniforms: deal ``d`` uses row ``d`` in both seatings."""
    return rng.random((deals, max(game.max_chance_nodes, 1)))


def deal_agent_seeds(deals: int, rng: np.random.Generator) -> np.ndarray:
    """``(deals, 2)`` agent seeds: deal ``d`` reseeds agent ``i`` with ``[d, i]`` before
    both of its games (common random numbers)."""
    return rng.integers(0, 2**63 - 1, size=(deals, 2), dtype=np.int64)


def _play(
    game: Game,
    seats: Sequence[Agent],
    who: Sequence[int],
    uniforms: np.ndarray,
    cache: ObservationCache,
    calls: Calls,
) -> list[float]:
    """One game; ``who[p]`` is the match index (0 = A, 1 = B) of the agent in seat ``p``."""
    state = game.new_initial_state()
    draw = iter(uniforms.tolist()).__next__
    num_actions = game.num_distinct_actions
    key_of = state.information_state_string_unchecked
    current = state.current_player
    cached, build = cache.cached, cache.get
    call = calls.call
    direct = type(calls) is DirectCalls and calls.time_limit is None
    while True:
        p = current()
        if p == CHANCE:
            state.advance_chance(draw)
            p = current()
        if p == TERMINAL:
            return state.returns()
        key = key_of(p)
        view = cached(key) or build(state, p, key)
        observation = {"observation": view.tensor, "action_mask": view.mask}
        info = view.info(p, key)
        if direct:  # DirectCalls without a clock, inlined: the hot path of tournaments
            before = guard.interrupt_count()
            try:
                action = seats[p].act(observation, info)
            except BaseException as exc:
                raise guard.forfeit_for(who[p], exc, before) from None
        else:
            action = call(who[p], seats[p].act, observation, info)
        # the referee's check, with its common case (a legal int) inlined
        if type(action) is not int or action not in state.legal_actions():
            action = checked_action(state, action, who[p], key, num_actions)
        state.apply_unchecked(action)


def play_duplicate_deals(
    game: Game,
    agent_a: Agent,
    agent_b: Agent,
    uniforms: np.ndarray,
    *,
    cache: ObservationCache | None = None,
    calls: Calls | None = None,
    agent_seeds: np.ndarray | None = None,
) -> DealScores:
    """Play every row of ``uniforms`` as a duplicate deal (A first, then B first).

    Agents are ``reset()`` before every game: without ``agent_seeds`` their streams
    continue (seed them before calling); with them, agent ``i`` is
    ``reset(seed=agent_seeds[d, i])`` before both games of deal ``d``, so both seatings
    replay its random choices (common random numbers).

    Args:
        game: the rules.
        agent_a, agent_b: the two agents (match indices 0 and 1).
        uniforms: ``(deals, max_chance_nodes)`` chance draws (:func:`deal_uniforms`).
        cache: observations to share between matches of the same game.
        calls: how agents are called (:mod:`nashzoo.eval.guard`; default direct calls
            with no time limit).
        agent_seeds: ``(deals, 2)`` integer seeds (see above).

    Raises:
        Forfeit: an agent raised, played an invalid or illegal action, failed in
            ``reset()`` or ran over the time limit.
    """
    cache = cache or ObservationCache(game)
    calls = calls or DirectCalls()
    scores = np.empty(len(uniforms))
    first, second = (agent_a, agent_b), (agent_b, agent_a)
    call = calls.call
    seeds: list[dict[str, int]] = [{}, {}]
    for d, us in enumerate(uniforms):
        if agent_seeds is not None:
            seeds = [{"seed": int(agent_seeds[d, 0])}, {"seed": int(agent_seeds[d, 1])}]
        call(0, agent_a.reset, **seeds[0])
        call(1, agent_b.reset, **seeds[1])
        r1 = _play(game, first, (0, 1), us, cache, calls)[0]
        call(0, agent_a.reset, **seeds[0])
        call(1, agent_b.reset, **seeds[1])
        r2 = _play(game, second, (1, 0), us, cache, calls)[1]
        scores[d] = 0.5 * (r1 + r2)
    return DealScores(scores)
