"""Duplicate deals played in lockstep, for agents that answer many decisions per call.

:func:`~nashzoo.eval.engine.play_duplicate_deals` plays one game after another and asks an
agent for one action at a time. An agent in another process (the leaderboard's sandbox)
pays a round trip through a pipe for every call, which would dominate a game of Leduc.
Here all ``2 * deals`` games of a block (each deal in both seatings) advance together: at
each round every game waiting on agent A becomes one request in a single
``act_many(requests)`` call to A, and likewise for B. The rules, the chance draws, the
legality checks and the forfeit rules are the engine's; only the order of the calls
differs, so an agent that keeps state between its own decisions of one game (rather than
reading the information state it is given) must not be played this way.

An agent without ``act_many`` is called once per request with its ``act``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nashzoo.envs.protocol import ActsMany, Agent, AgentInfo, Request, StatesMany
from nashzoo.envs.sampling import sample_index
from nashzoo.eval import guard
from nashzoo.eval.engine import DealScores
from nashzoo.eval.guard import Forfeit
from nashzoo.games.base import CHANCE, TERMINAL, Game, State, check_action_value
from nashzoo.games.observation import ObservationCache

__all__ = [
    "ask_agent", "ask_probabilities", "checked_action", "play_duplicate_lockstep",
    "stated_row",
    "request_for",
]  # fmt: skip


def _on_behalf_of(who: int, ask: Callable[[], Any]) -> Any:
    """``ask()``, with any fault made agent ``who``'s forfeit."""
    before = guard.interrupt_count()
    try:
        return ask()
    except Forfeit as exc:  # raised by the agent's proxy (the sandbox) with its own code
        raise Forfeit(who, exc.reason, exc.kind) from None
    except BaseException as exc:
        raise guard.forfeit_for(who, exc, before) from None


def ask_agent(agent: Any, who: int, requests: Sequence[Request]) -> Sequence[int]:
    """Ask ``agent`` for every request; any fault becomes agent ``who``'s forfeit."""
    if isinstance(agent, ActsMany):
        answers = _on_behalf_of(who, lambda: agent.act_many(requests))
    else:
        answers = _on_behalf_of(who, lambda: [agent.act(obs, info) for obs, info in requests])
    if isinstance(answers, np.ndarray) and answers.ndim == 1:
        answers = answers.tolist()  # one action per request, as a list would hold them
    if not isinstance(answers, Sequence) or len(answers) != len(requests):
        raise Forfeit(
            who,
            f"answered {len(answers) if isinstance(answers, Sequence) else type(answers).__name__}"
            f" actions for {len(requests)} decisions",
            "bad_output",
        )
    return answers


def stated_row(who: int, probs: Any, mask: np.ndarray, key: str) -> np.ndarray:
    """Agent ``who``'s stated probabilities at ``key``, checked: a distribution over the
    legal actions (renormalised to sum to 1 exactly).

    Raises:
        Forfeit: not numbers, the wrong shape, negative or non-finite entries, weight off
            the legal actions, or a total off 1 by more than 1e-4.
    """
    try:
        row = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise Forfeit(who, f"stated probabilities that are not numbers at {key!r}: {exc}") from None
    if row.shape != mask.shape or not np.isfinite(row).all() or (row < 0).any():
        raise Forfeit(
            who,
            f"stated invalid probabilities at {key!r}: expected {mask.size} finite non-negative "
            f"numbers, received {row!r}",
            "bad_output",
        )
    legal = mask > 0
    total = float(row[legal].sum())
    if float(row[~legal].sum()) > 1e-6 or abs(total - 1.0) > 1e-4:
        raise Forfeit(
            who,
            f"stated probabilities at {key!r} that are not a distribution over the legal "
            f"actions {np.flatnonzero(legal).tolist()}: {row.tolist()}",
            "bad_output",
        )
    return np.where(legal, row, 0.0) / total


def ask_probabilities(agent: Any, who: int, requests: Sequence[Request]) -> list[Any]:
    """Ask ``agent`` for its stated probabilities at every request (one call where it
    states many at once); any fault becomes agent ``who``'s forfeit."""
    rows: list[Any]
    if isinstance(agent, StatesMany):
        rows = _on_behalf_of(who, lambda: list(agent.probabilities_many(requests)))
    else:
        rows = _on_behalf_of(
            who, lambda: [agent.action_probabilities(obs, info) for obs, info in requests]
        )
    if len(rows) != len(requests):
        raise Forfeit(
            who,
            f"stated {len(rows)} rows of probabilities for {len(requests)} decisions",
            "bad_output",
        )
    return rows


def request_for(cache: ObservationCache, state: State, player: int) -> Request:
    """The observation and info that ``player``, to act at ``state``, is asked with."""
    key = state.information_state_string_unchecked(player)
    view = cache.cached(key) or cache.get(state, player, key)
    info: AgentInfo = {
        "player": player,
        "public_history": view.public_history,
        "history_length": view.history_length,
        "illegal_action": False,
        "info_state": key,
    }
    return {"observation": view.tensor, "action_mask": view.mask}, info


def checked_action(state: State, action: Any, who: int, key: str, num_actions: int) -> int:
    """``action`` as a legal action of ``state``, or agent ``who``'s forfeit.

    Raises:
        Forfeit: ``action`` is not an action number, or not legal at ``state``.
    """
    if type(action) is not int or not 0 <= action < num_actions:
        try:
            action = check_action_value(action, num_actions)
        except (TypeError, ValueError) as exc:
            raise Forfeit(who, f"answered an invalid action at {key!r}: {exc}", "illegal") from None
    legal = state.legal_actions()
    if action not in legal:
        raise Forfeit(
            who, f"played illegal action {action} at {key!r} (legal: {list(legal)})", "illegal"
        )
    return int(action)


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

    Raises:
        Forfeit: an agent raised, answered the wrong number of actions, or played an
            invalid or illegal action.
    """
    cache = cache or ObservationCache(game)
    deals = len(uniforms)
    agents = (agent_a, agent_b)
    num_actions = game.num_distinct_actions
    states = [game.new_initial_state() for _ in range(2 * deals)]
    draws = [iter(uniforms[g // 2].tolist()).__next__ for g in range(2 * deals)]
    # seat_of[g][p]: match index of the agent in seat p of game g.
    seat_of = [(0, 1) if g % 2 == 0 else (1, 0) for g in range(2 * deals)]
    returns = np.zeros((2 * deals, 2))
    live = list(range(2 * deals))
    referee = np.random.default_rng(draw_seed)
    while live:
        waiting: tuple[list[int], list[int]] = ([], [])
        requests: tuple[list[Request], list[Request]] = ([], [])
        still = []
        for g in live:
            state = states[g]
            p = state.current_player()
            while p == CHANCE:
                state.advance_chance(draws[g])
                p = state.current_player()
            if p == TERMINAL:
                returns[g] = state.returns()[:2]
                continue
            still.append(g)
            who = seat_of[g][p]
            waiting[who].append(g)
            requests[who].append(request_for(cache, state, p))
        live = still
        for who in (0, 1):
            if not requests[who]:
                continue
            answers: Sequence[Any]
            if draw_from[who]:
                rows = ask_probabilities(agents[who], who, requests[who])
                answers = [
                    sample_index(
                        np.cumsum(stated_row(who, row, obs["action_mask"], info["info_state"])),
                        referee.random(),
                    )
                    for row, (obs, info) in zip(rows, requests[who])
                ]
            else:
                answers = ask_agent(agents[who], who, requests[who])
            for g, action, (_, info) in zip(waiting[who], answers, requests[who]):
                states[g].apply_unchecked(
                    checked_action(states[g], action, who, info["info_state"], num_actions)
                )
    if record is not None:
        record.extend(states[g].history() for g in range(min(record_games, 2 * deals)))
    scores = 0.5 * (returns[0::2, 0] + returns[1::2, 1])
    return DealScores(scores)
