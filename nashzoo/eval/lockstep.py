"""Duplicate deals played in lockstep, for agents that answer many decisions per call.

:func:`~nashzoo.eval.engine.play_duplicate_deals` plays one game after another and asks an
agent for one action at a time. An agent in another process (the leaderboard's sandbox)
pays a round trip through a pipe for every call, which would dominate a game of Leduc.
Here all ``2 * deals`` games of a block (each deal in both seatings) advance together: at
each round every game waiting on agent A becomes one request in a single
``act_many(requests)`` call to A, and likewise for B. The rules, the chance draws, the
legality checks and the forfeit rules are the referee's (:mod:`nashzoo.eval.referee`),
as in every match; only the order of the calls
differs, so an agent that keeps state between its own decisions of one game (rather than
reading the information state it is given) must not be played this way.

An agent without ``act_many`` is called once per request with its ``act``.

With a value function (``values=``), the block is scored with AIVAT as
:func:`~nashzoo.eval.aivat.play_aivat_deals` scores it: every chance event and every
decision the referee draws from stated probabilities adds its correction (the expected
child value under the known distribution minus the drawn child's), so the corrected
scores are unbiased and have the variance of the cards and mixed strategies removed
where the value function predicts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.envs.protocol import ActsMany, Agent, Request
from nashzoo.eval.aivat import ValueFunction, correction
from nashzoo.eval.engine import DealScores
from nashzoo.eval.referee import (
    Deal,
    ask_agent,
    ask_probabilities,
    drawn_action,
    request_for,
    stated_row,
)
from nashzoo.games.base import TERMINAL, Game
from nashzoo.games.observation import ObservationCache

__all__ = ["play_duplicate_lockstep"]


def play_duplicate_lockstep(
    game: Game,
    agent_a: Agent | ActsMany,
    agent_b: Agent | ActsMany,
    uniforms: np.ndarray,
    *,
    cache: ObservationCache | None = None,
    record: list[list[int]] | None = None,
    record_games: int = 0,
    draw_from: tuple[bool, bool] = (False, False),
    draw_seed: int | Sequence[int] = 0,
    values: ValueFunction | tuple[ValueFunction, ValueFunction] | None = None,
) -> DealScores:
    """Play every row of ``uniforms`` as a duplicate deal, all games advancing together.

    Agents are not reset between games (several games are in flight at once); seed them
    before calling.

    Args:
        game: the rules.
        agent_a, agent_b: the agents (match indices 0 and 1); each either has
            ``act_many(requests) -> actions`` or is called with ``act`` per request.
        uniforms: ``(deals, max_chance_nodes)`` chance draws
            (:func:`~nashzoo.eval.engine.deal_uniforms`); deal ``d`` is game ``2d`` (A
            in seat 0) and game ``2d + 1`` (B in seat 0).
        cache: observations to share between blocks of the same game.
        record: a list that receives the full history (chance outcomes and actions) of
            each of the first ``record_games`` games (game ``g`` = deal ``g // 2``, A in
            seat 0 when ``g`` is even), for replays.
        record_games: how many games to record.
        draw_from: for each agent, whether the referee plays it by drawing its move from
            the probabilities it states (``probabilities_many`` in one call, else
            ``action_probabilities`` per decision) instead of asking ``act``: then what
            it states is what it plays, and an exploitability computed from its
            statements is the exploitability of its play.
        draw_seed: seed of the referee's draws (the same seed, the same moves).
        values: player 0's value function for AIVAT (see the module), or one per seating
            (A in seat 0, then B in seat 0); ``None``: plain scores only.

    Returns:
        :class:`~nashzoo.eval.engine.DealScores`: A's mean payoff per deal, and with
        ``values`` its AIVAT estimate (``corrected``).

    Raises:
        Forfeit: an agent raised, answered the wrong number of actions, or played an
            invalid or illegal action.
    """
    cache = cache or ObservationCache(game)
    deals = len(uniforms)
    agents = (agent_a, agent_b)
    num_actions = game.num_distinct_actions
    games = [Deal(game, uniforms[g // 2]) for g in range(2 * deals)]
    # seat_of[g][p]: match index of the agent in seat p of game g.
    seat_of = [(0, 1) if g % 2 == 0 else (1, 0) for g in range(2 * deals)]
    returns = np.zeros((2 * deals, 2))
    live = list(range(2 * deals))
    referee = np.random.default_rng(draw_seed)
    corrections = np.zeros(2 * deals)  # player 0's AIVAT corrections, per game

    per_seating = values if isinstance(values, tuple) else (values, values)

    def corrector(g: int) -> Any:
        vf = per_seating[g % 2]

        def correct(state: Any, distribution: Sequence[tuple[int, float]], drawn: int) -> None:
            assert vf is not None
            corrections[g] += correction(vf, state, distribution, drawn)

        return correct

    hooks = [corrector(g) for g in range(2 * deals)] if values is not None else None
    while live:
        waiting: tuple[list[int], list[int]] = ([], [])
        requests: tuple[list[Request], list[Request]] = ([], [])
        still = []
        for g in live:
            p = games[g].to_move(on_chance=None if hooks is None else hooks[g])
            if p == TERMINAL:
                returns[g] = games[g].state.returns()[:2]
                continue
            still.append(g)
            who = seat_of[g][p]
            waiting[who].append(g)
            requests[who].append(request_for(cache, games[g].state, p))
        live = still
        for who in (0, 1):
            if not requests[who]:
                continue
            answers: Sequence[Any]
            if draw_from[who]:
                rows = [
                    stated_row(who, row, obs["action_mask"], info["info_state"])
                    for row, (obs, info) in zip(
                        ask_probabilities(agents[who], who, requests[who]), requests[who]
                    )
                ]
                answers = [drawn_action(row, referee.random()) for row in rows]
                if hooks is not None:
                    for g, row, action in zip(waiting[who], rows, answers):
                        legal = games[g].state.legal_actions()
                        hooks[g](games[g].state, [(a, row[a]) for a in legal], action)
            else:
                answers = ask_agent(agents[who], who, requests[who])
            for g, action, (_, info) in zip(waiting[who], answers, requests[who]):
                games[g].apply(who, action, info["info_state"], num_actions)
    if record is not None:
        record.extend(games[g].state.history() for g in range(min(record_games, 2 * deals)))
    scores = 0.5 * (returns[0::2, 0] + returns[1::2, 1])
    if values is None:
        return DealScores(scores)
    # A is player 0 in even games (its correction as is) and player 1 in odd ones
    corrected = 0.5 * (
        (returns[0::2, 0] + corrections[0::2]) + (returns[1::2, 1] - corrections[1::2])
    )
    return DealScores(scores, corrected)
