"""The Agent protocol every nashzoo agent speaks (structural: no subclassing needed).

An agent sees what a PettingZoo player sees: the observation dict (``"observation"``
tensor and ``"action_mask"``) and the info dict (``"info_state"``, the perfect-recall
information-state string). Any object with these methods enters matches and tournaments.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from nashzoo.errors import ActionTypeError

__all__ = ["Agent", "PolicyAgent", "action_mask_of", "sample_index"]

Observation = dict[str, np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action from an observation."""

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Return a legal action (``observation["action_mask"][a] == 1``)."""
        ...

    def reset(self, *, seed: int | None = None) -> None:
        """Called before every episode; ``seed`` re-seeds the agent's generator."""
        ...


@runtime_checkable
class PolicyAgent(Agent, Protocol):
    """An agent that can also state its full action distribution.

    Exploitability of a PolicyAgent is computed exactly by querying it at every
    information set of a compiled game.
    """

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """Probabilities over all ``num_distinct_actions``, zero on illegal actions."""
        ...


def action_mask_of(observation: Any) -> np.ndarray:
    """The ``action_mask`` of a PettingZoo observation dict, validated.

    Raises:
        ActionTypeError: ``observation`` is not a dict with an ``"action_mask"`` array.
    """
    if not isinstance(observation, dict) or "action_mask" not in observation:
        raise ActionTypeError(
            "Expected a PettingZoo observation dict with an 'action_mask' entry, received "
            f"{type(observation).__name__}"
            + (f" with keys {sorted(observation)}" if isinstance(observation, dict) else "")
            + "."
        )
    return np.asarray(observation["action_mask"])


def sample_index(cumulative: np.ndarray, u: float) -> int:
    """The index a uniform ``u`` in [0, 1) picks from cumulative probabilities (their
    total need not be exactly 1; the last index absorbs rounding)."""
    index = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
    return min(index, cumulative.size - 1)
