"""The uniform-random agent."""

from __future__ import annotations

from typing import Any

import numpy as np

from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.errors import IllegalActionError
from nashzoo.validation import check_seed

__all__ = ["RandomAgent"]


class RandomAgent:
    """Plays uniformly among the legal actions. A :class:`~nashzoo.agents.PolicyAgent`.

    Args:
        seed: seed of the agent's own ``np.random.Generator``.
        name: display name.
    """

    def __init__(self, *, seed: int | None = None, name: str = "random") -> None:
        self._rng = np.random.default_rng(check_seed(seed))
        self.name = name

    def reset(self, *, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given; otherwise keep the stream going."""
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """Uniform over the legal actions."""
        mask = action_mask_of(observation).astype(np.float64)
        total = mask.sum()
        if total <= 0:
            raise IllegalActionError("The action mask has no legal action to choose from.")
        return mask / total

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """Uniform over the legal actions of each row of ``action_mask`` (``(n, actions)``)."""
        mask = np.asarray(action_mask, dtype=np.float64)
        total = mask.sum(axis=1, keepdims=True)
        if (total <= 0).any():
            raise IllegalActionError("An action mask has no legal action to choose from.")
        return mask / total

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(action_mask_of(observation))
        if legal.size == 0:
            raise IllegalActionError("The action mask has no legal action to choose from.")
        return int(legal[self._rng.integers(legal.size)])

    def __repr__(self) -> str:
        return "RandomAgent()"
