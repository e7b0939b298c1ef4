"""A simplex-gradient learner's value model as an AIVAT value function.

AIVAT (:mod:`nashzoo.eval.aivat`) needs player 0's value of any history, fixed before a
match, and it stays unbiased whatever that value is; the better the value predicts the
game, the narrower the intervals. On games too large to compile there is no exact value
to offer, but a trained simplex-gradient learner carries one: ``f``, each player's
expected return (rescaled to [0, 1]) from their own information state. A history is
valued from both players' views, ``span * (f(view 0) - f(view 1)) / 2`` in the game's
payoff units (player 0's return estimated by player 0, and minus player 1's estimated
by player 1, averaged), so the card luck of both hands moves it. Terminal histories are
valued at their payoff. In a simultaneous round, a history where a later mover has yet
to answer (player 0's card chosen, player 1's not) is valued as the mean over that
mover's legal answers: ``f`` was trained on views at the start of a round and after it,
never in its middle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import State

if TYPE_CHECKING:
    from nashzoo.agents.simplex_gradient.selfplay import SimplexGradient

__all__ = ["SimplexGradientValues"]


class SimplexGradientValues:
    """Player 0's values of histories from a learner's ``f`` (an AIVAT
    :class:`~nashzoo.eval.aivat.ValueFunction`).

    The learner's networks are read at each call: fix them (stop training) before a match
    measured with these values, or the estimate is no longer unbiased.

    Args:
        learner: a :class:`~nashzoo.agents.simplex_gradient.SimplexGradient`.

    Raises:
        InvalidParameterError: ``learner`` is not one.
    """

    def __init__(self, learner: SimplexGradient) -> None:
        from nashzoo.agents.simplex_gradient.selfplay import SimplexGradient

        if not isinstance(learner, SimplexGradient):
            raise InvalidParameterError(
                f"Expected a SimplexGradient learner, received {type(learner).__name__}."
            )
        self.learner = learner
        game = learner.game
        self._half_span = (game.max_utility - game.min_utility) / 2
        self._size = game.information_state_tensor_size

    def _leaves(self, state: State) -> list[State]:
        """``state``, or where a later mover of a simultaneous round is to answer, the
        states after each of its answers."""
        if not self.learner.game.simultaneous or state.current_player() <= 0:
            return [state]
        return [state.child(a) for a in state.legal_actions()]

    def child_values(self, state: State, actions: Sequence[int]) -> np.ndarray:
        """Player 0's value after each of ``actions`` (chance outcomes at a chance node)."""
        groups = [self._leaves(state.child(int(a))) for a in actions]
        leaves = [leaf for group in groups for leaf in group]
        live = [k for k, leaf in enumerate(leaves) if not leaf.is_terminal()]
        values = np.array(
            [leaf.returns()[0] if leaf.is_terminal() else 0.0 for leaf in leaves], np.float64
        )
        if live:
            rows = np.zeros((2 * len(live), self._size), np.float32)
            for r, k in enumerate(live):
                rows[2 * r, leaves[k].information_state_indices(0)] = 1.0
                rows[2 * r + 1, leaves[k].information_state_indices(1)] = 1.0
            players = np.tile(np.array([0, 1], np.int64), len(live))
            f = self.learner.value_of(rows, players).reshape(-1, 2)
            values[live] = self._half_span * (f[:, 0] - f[:, 1])
        out = np.empty(len(groups))
        start = 0
        for i, group in enumerate(groups):
            out[i] = values[start : start + len(group)].mean()
            start += len(group)
        return out

    def __repr__(self) -> str:
        return f"SimplexGradientValues({self.learner.game})"
