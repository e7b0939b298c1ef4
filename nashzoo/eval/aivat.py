"""AIVAT: duplicate matches with an unbiased control variate (Burch et al., AAAI 2018).

A game's payoff mixes skill with luck: the cards dealt and the random choices of mixed
strategies. Duplicate play cancels the part of the card luck that both seatings share;
AIVAT removes what is left wherever the distribution of an event is known. With a value
function ``v`` (player 0's value of any history, fixed before any result is seen), each
event ``e`` drawn from a known distribution ``p`` at history ``h`` adds the correction

    sum_x p(x) v(h x) - v(h e)

to the payoff. Each correction has expectation zero given ``h``, whatever ``v`` is, so
the corrected payoff is an unbiased estimate of the expected payoff; the better ``v``
predicts the game, the smaller its variance. Known distributions are chance events and
the decisions of agents that state their action probabilities: there the referee draws
the agent's action from the probabilities it stated (with the agent's own per-deal
stream, the same in both seatings), so an agent that misstates them only changes the
distribution it plays, never the estimator's expectation. Decisions of agents with only
``act`` are played as usual and left uncorrected.

Value functions shipped here:

* :class:`TreeValues`: the exact value of every history of a compiled game when both
  players follow a fixed policy profile (uniform play by default);
* :class:`~nashzoo.eval.checkdown.CheckdownValues`: heads-up poker on the 52-card deck:
  the pot times player 0's showdown result if the hand were called and checked down
  from here, averaged over the undealt cards.

:func:`play_aivat_deals` plays duplicate deals with the corrections;
:func:`nashzoo.eval.head_to_head` and tournaments take ``variance_reduction="aivat"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from nashzoo.envs.protocol import Agent, StatesProbabilities
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.engine import DealScores
from nashzoo.eval.guard import Calls, DirectCalls
from nashzoo.eval.referee import Deal, drawn_action, request_for, stated_row
from nashzoo.games.base import TERMINAL, Game, State
from nashzoo.games.observation import ObservationCache

__all__ = [
    "ValueFunction",
    "TreeValues",
    "default_value_function",
    "check_variance_reduction",
    "play_aivat_deals",
    "correction",
    "VARIANCE_REDUCTIONS",
]

VARIANCE_REDUCTIONS = (None, "crn", "aivat")
"""What ``variance_reduction=`` accepts: ``None`` (cards shared by both seatings),
``"crn"`` (and each agent reseeded per deal, the same in both seatings) and ``"aivat"``
(and the AIVAT corrections)."""


@runtime_checkable
class ValueFunction(Protocol):
    """Player 0's value of histories of a two-player zero-sum game, fixed in advance."""

    def child_values(self, state: State, actions: Sequence[int]) -> np.ndarray:
        """Player 0's value after each of ``actions`` at ``state`` (chance outcomes at a
        chance node); a terminal history's value should be its payoff."""
        ...


class TreeValues:
    """Exact values under a fixed policy profile on a compiled game.

    Args:
        game: a Game (compiled here) or its :class:`~nashzoo.tree.GameTree`.
        probs: ``(num_infosets, num_actions)`` behaviour policy of both players, or a
            :class:`~nashzoo.tree.TabularPolicy`; ``None``: uniform play.

    Raises:
        GameTooLargeError: the game does not compile.
        InvalidParameterError: ``probs`` of the wrong shape.
    """

    def __init__(self, game: Any, probs: Any = None) -> None:
        from nashzoo.tree import tree_of
        from nashzoo.tree.reach import node_values

        tree = tree_of(game)
        table = tree.uniform_probs() if probs is None else getattr(probs, "probs", probs)
        table = np.asarray(table, dtype=np.float64)
        if table.shape != tree.legal_mask.shape:
            raise InvalidParameterError(
                f"TreeValues expects probabilities of shape {tree.legal_mask.shape}, "
                f"received {table.shape}."
            )
        self.tree = tree
        self.values: np.ndarray = node_values(tree, table)[:, 0]
        self._node: dict[tuple[int, ...], int] = {(): 0}
        self._kids: dict[int, dict[int, int]] = {}

    def _children(self, node: int) -> dict[int, int]:
        kids = self._kids.get(node)
        if kids is None:
            first = int(self.tree.first_child[node])
            actions = self.tree.action[first : first + int(self.tree.num_children[node])]
            kids = self._kids[node] = {int(a): first + k for k, a in enumerate(actions)}
        return kids

    def node_of(self, history: Sequence[int]) -> int:
        """The tree node of a history."""
        key = tuple(history)
        node = self._node.get(key)
        if node is None:
            node = self._node[key] = self._children(self.node_of(key[:-1]))[key[-1]]
        return node

    def child_values(self, state: State, actions: Sequence[int]) -> np.ndarray:
        kids = self._children(self.node_of(state.history()))
        return self.values[[kids[a] for a in actions]]

    @classmethod
    def of_match(cls, game: Any, agent_a: Any, agent_b: Any) -> tuple[TreeValues, TreeValues]:
        """The values of both seatings (A first, then B first) when the two agents play
        the policies they state: with these, every corrected deal of two PolicyAgents
        scores exactly the expectation (what ``head_to_head(..., exact=True)`` computes);
        the check of the estimator, and the limit a value function can approach.

        Raises:
            GameTooLargeError: the game does not compile.
            InvalidParameterError: an agent without ``action_probabilities``.
        """
        from nashzoo.tree import TabularPolicy, seat_profiles, tree_of

        tree = tree_of(game)
        pa, pb = (TabularPolicy.from_agent(x, tree).probs for x in (agent_a, agent_b))
        a_first, b_first = seat_profiles(tree, pa, pb)
        return cls(tree, a_first), cls(tree, b_first)


@functools.lru_cache(maxsize=16)
def default_value_function(game: Game) -> ValueFunction:
    """:class:`CheckdownValues` for heads-up poker on the 52-card deck (limit and
    no-limit), else :class:`TreeValues` under uniform play where the game compiles.

    Built once per game (cached).

    Raises:
        InvalidParameterError: neither applies (pass a value function of your own).
    """
    poker = game.game_type == "acpc_poker" and game.num_players == 2
    if poker and getattr(game, "standard_hands", False):
        from nashzoo.eval.checkdown import CheckdownValues

        return CheckdownValues(game)
    from nashzoo.tree import compiled_or_none

    tree = compiled_or_none(game)
    if tree is None:
        raise InvalidParameterError(
            f"No default AIVAT value function for {game} (it does not compile); pass "
            "value_function=, an object with child_values(state, actions)."
        )
    return TreeValues(tree)


def check_variance_reduction(value: Any) -> str | None:
    """``value`` if it is one of :data:`~nashzoo.eval.aivat.VARIANCE_REDUCTIONS`.

    Raises:
        InvalidParameterError: anything else.
    """
    if not (value is None or (isinstance(value, str) and value in VARIANCE_REDUCTIONS)):
        raise InvalidParameterError(
            f"variance_reduction must be one of {list(VARIANCE_REDUCTIONS)}, received {value!r}."
        )
    return value


def check_aivat_game(game: Game) -> None:
    """Raise unless AIVAT's player-0 values describe the game (two players, zero-sum).

    Simultaneous moves qualify: the referee plays them one after the other, the later
    mover not seeing the earlier one's choice, so each is an event with a known
    distribution like any other decision (the value function sees the whole history,
    the hidden choice included).

    Raises:
        InvalidParameterError: naming what the game is.
    """
    if game.num_players != 2 or not game.zero_sum:
        raise InvalidParameterError(
            "AIVAT needs a two-player zero-sum game; received "
            f"{game} ({game.num_players} players, zero_sum={game.zero_sum})."
        )


def correction(
    values: ValueFunction, state: State, distribution: Sequence[tuple[int, float]], drawn: int
) -> float:
    """One event's AIVAT correction (player 0's view): the expected child value under the
    known ``distribution`` minus the value of the ``drawn`` child."""
    xs = [x for x, _ in distribution]
    v = values.child_values(state, xs)
    return float(np.dot([q for _, q in distribution], v)) - float(v[xs.index(drawn)])


def _play(
    game: Game,
    seats: Sequence[Any],
    who: Sequence[int],
    uniforms: np.ndarray,
    draws: Sequence[Callable[[], float]],
    stated: Sequence[bool],
    values: ValueFunction,
    cache: ObservationCache,
    calls: Calls,
) -> tuple[list[float], float]:
    """One game on the referee, with the two AIVAT hooks; returns the payoffs and the sum
    of player 0's corrections."""
    deal = Deal(game, uniforms)
    num_actions = game.num_distinct_actions
    total = 0.0

    def correct(state: State, distribution: Sequence[tuple[int, float]], drawn: int) -> None:
        nonlocal total
        total += correction(values, state, distribution, drawn)

    while (p := deal.to_move(on_chance=correct)) != TERMINAL:
        state = deal.state
        observation, info = request_for(cache, state, p)
        key = info["info_state"]
        m = who[p]
        if stated[m]:
            probs = calls.call(m, seats[p].action_probabilities, observation, info)
            row = stated_row(m, probs, observation["action_mask"], key)
            action = drawn_action(row, draws[m]())
            legal = list(state.legal_actions())
            correct(state, [(a, row[a]) for a in legal], action)
            state.apply_unchecked(action)
        else:
            deal.apply(m, calls.call(m, seats[p].act, observation, info), key, num_actions)
    return deal.state.returns(), total


def play_aivat_deals(
    game: Game,
    agent_a: Agent,
    agent_b: Agent,
    uniforms: np.ndarray,
    agent_seeds: np.ndarray,
    values: ValueFunction | tuple[ValueFunction, ValueFunction],
    *,
    cache: ObservationCache | None = None,
    calls: Calls | None = None,
) -> DealScores:
    """Play every row of ``uniforms`` as a duplicate deal with the AIVAT corrections.

    Before each game both agents are ``reset(seed=agent_seeds[d, i])`` (the same seeds
    in both seatings of deal ``d``). An agent with ``action_probabilities`` is asked for
    them at each decision and the referee draws its action from them with a generator
    seeded by ``(agent_seeds[d, i], 1)``; other agents ``act``. ``values`` is one value
    function, or one per seating (A in seat 0, then B in seat 0).

    Returns:
        :class:`DealScores` with ``scores`` (A's plain mean payoff per deal) and
        ``corrected`` (the same plus the corrections: the AIVAT estimate).

    Raises:
        Forfeit: an agent raised, played an invalid or illegal action, stated
            probabilities that are not a distribution over the legal actions, failed in
            ``reset()`` or ran over the time limit.
    """
    check_aivat_game(game)
    cache = cache or ObservationCache(game)
    calls = calls or DirectCalls()
    agents = (agent_a, agent_b)
    stated = [isinstance(a, StatesProbabilities) for a in agents]
    per_seating = values if isinstance(values, tuple) else (values, values)
    plain = np.empty(len(uniforms))
    corrected = np.empty(len(uniforms))
    for d, us in enumerate(uniforms):
        results = []
        for seats, who, vf in (
            ((agent_a, agent_b), (0, 1), per_seating[0]),
            ((agent_b, agent_a), (1, 0), per_seating[1]),
        ):
            for i, agent in enumerate(agents):
                calls.call(i, agent.reset, seed=int(agent_seeds[d, i]))
            draws = [np.random.default_rng([int(agent_seeds[d, i]), 1]).random for i in range(2)]
            results.append(_play(game, seats, who, us, draws, stated, vf, cache, calls))
        (r1, c1), (r2, c2) = results
        plain[d] = 0.5 * (r1[0] + r2[1])
        corrected[d] = 0.5 * ((r1[0] + c1) + (r2[1] - c2))
    return DealScores(plain, corrected)
