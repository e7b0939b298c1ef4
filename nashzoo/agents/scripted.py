"""Scripted (rule-based) agents: baselines that know the rules but do not learn.

:class:`FightingHeuristicAgent` plays the fighting card game greedily: it reads its hand and
the opponent's face-up discards from the information-state tensor, assumes the opponent's
next card is drawn uniformly from the cards of its deck not yet seen, and plays the card
with the best expected damage difference of this one exchange. It knows the beats-relation
and the ranks, ignores hit points and the future, and is deterministic (ties: lowest kind):
the kind of opponent a learning agent should beat.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nashzoo.agents.protocol import Observation, action_mask_of
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.fighting import FightingCardGame, card_damage

__all__ = ["FightingHeuristicAgent"]


class FightingHeuristicAgent:
    """Greedy one-exchange expected-damage play in :class:`~nashzoo.games.FightingCardGame`.

    A :class:`~nashzoo.agents.PolicyAgent` (its probabilities are one-hot).

    Args:
        game: the game the agent plays (its deck and tensor layout).
        name: display name.
    """

    def __init__(self, game: FightingCardGame, *, name: str = "heuristic") -> None:
        if not isinstance(game, FightingCardGame):
            raise InvalidParameterError(
                f"FightingHeuristicAgent plays FightingCardGame, received {type(game).__name__}."
            )
        self.game = game
        self.name = name
        k = game.num_kinds
        kinds = [game.kind(c) for c in range(k)]
        # net[a, b]: damage card a deals minus damage it takes from card b
        self._net = np.array(
            [
                [
                    card_damage(*kinds[a], *kinds[b]) - card_damage(*kinds[b], *kinds[a])
                    for b in range(k)
                ]
                for a in range(k)
            ],
            dtype=np.float64,
        )

    def reset(self, *, seed: int | None = None) -> None:
        """Nothing to reset (deterministic)."""

    def _scores(self, observation: Observation) -> np.ndarray:
        g = self.game
        tensor = np.asarray(observation["observation"], dtype=np.float64)
        k, c = g.num_kinds, g.copies
        seen = tensor[g._off_opp : g._off_opp + k * c].reshape(k, c).sum(axis=1)
        left = np.clip(c - seen, 0.0, None)
        if left.sum() <= 0:
            left = np.ones(k)
        return self._net @ (left / left.sum())

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """One-hot on :meth:`act`'s choice."""
        probs = np.zeros(self.game.num_distinct_actions)
        probs[self.act(observation, info)] = 1.0
        return probs

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """The legal card with the best expected one-exchange damage difference."""
        mask = action_mask_of(observation).astype(bool)
        if not mask.any():
            raise IllegalActionError("The action mask has no legal action to choose from.")
        scores = np.where(mask, self._scores(observation), -np.inf)
        return int(np.argmax(scores))

    def __repr__(self) -> str:
        return f"FightingHeuristicAgent({self.game!r})"
