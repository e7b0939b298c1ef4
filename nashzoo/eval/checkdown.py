"""Check-down equity of heads-up poker, an AIVAT value function
(:mod:`nashzoo.eval.aivat`) computed with the batched hand ranking of
:mod:`nashzoo.vector.hands`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game, State

__all__ = ["CheckdownValues"]


class CheckdownValues:
    """Check-down equity for heads-up poker on the 52-card deck (5 to 7 card hands):
    limit and no-limit games of the poker engine with two players.

    A history's value is ``stake * E[sign]``: the chips each player would have in if the
    player behind called (``max(contributions)``, at most the shorter stack: what a call
    can match), times player 0's expected showdown result (+1, 0, -1) over the cards not
    yet dealt (exact when at most 2 are missing, else the mean over ``samples``
    completions drawn from a generator seeded with ``seed``; the same cards always give
    the same value). A finished hand's value is its payoff.

    Raises:
        InvalidParameterError: not such a poker game, or ``samples`` below 1.
    """

    def __init__(self, game: Game, *, samples: int = 256, seed: int = 0) -> None:
        from nashzoo.vector.hands import check_heads_up_hands, checkdown_signs

        poker = check_heads_up_hands(game, "CheckdownValues")
        if type(samples) is not int or samples < 1:
            raise InvalidParameterError(f"samples must be an int >= 1, received {samples!r}.")

        d = poker.definition
        self.cap: int = min(d.stacks)  # what a call can match
        self._signs = checkdown_signs
        self.hole = d.num_hole_cards
        self.board = sum(d.num_board_cards)
        self.samples, self.seed = samples, seed
        self._memo: dict[tuple[Any, ...], np.ndarray] = {}

    def _sign_of(self, dealt: list[int], cards: Sequence[int] | None) -> np.ndarray:
        """Signs after each of ``cards`` is dealt next (``None``: of ``dealt`` itself),
        remembered: both seatings of a deal, and every decision of a round, ask again."""
        key = (tuple(dealt), None if cards is None else tuple(cards))
        signs = self._memo.get(key)
        if signs is None:
            rows = [dealt] if cards is None else [[*dealt, c] for c in cards]
            signs = self._signs(rows, self.hole, self.board, samples=self.samples, seed=self.seed)
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[key] = signs
        return signs

    def _stake(self, state: Any) -> int:
        top: int = max(state.pot_contributions())
        return min(top, self.cap)

    def child_values(self, state: State, actions: Sequence[int]) -> np.ndarray:
        poker: Any = state
        dealt = [*poker.hole_cards(0), *poker.hole_cards(1), *poker.board_cards()]
        if state.is_chance_node():
            return self._stake(poker) * self._sign_of(dealt, actions)
        sign = float(self._sign_of(dealt, None)[0])
        out = np.empty(len(actions))
        for k, a in enumerate(actions):
            child: Any = state.child(a)
            if child.is_terminal():
                out[k] = child.returns()[0]
            else:
                out[k] = self._stake(child) * sign
        return out
