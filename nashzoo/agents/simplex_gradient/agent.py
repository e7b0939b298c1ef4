"""A simplex-gradient learner's policy, average or last, as a PolicyAgent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation

if TYPE_CHECKING:
    from nashzoo.agents.simplex_gradient.selfplay import SimplexGradient

__all__ = ["SimplexGradientAgent"]


class SimplexGradientAgent(SampledPolicyAgent):
    """A simplex-gradient policy (average by default) as a PolicyAgent; the seat comes
    from ``info["player"]``."""

    def __init__(
        self,
        learner: SimplexGradient,
        *,
        average: bool = True,
        seed: int | None = None,
        name: str = "simplex-gradient",
    ) -> None:
        super().__init__(seed=seed)
        self.learner = learner
        self.average = average
        self.name = name

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        obs = np.array(observation["observation"], np.float32)[None]
        mask = np.asarray(observation["action_mask"]).astype(bool)[None]
        player = None if info.get("player") is None else np.array([int(info["player"])])
        return self.learner.probabilities(obs, mask, average=self.average, players=player)[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """``(n, actions)`` at ``n`` decisions at once (one forward pass): what LBR asks
        about every hand of a range."""
        obs = np.asarray(observation, np.float32)
        mask = np.asarray(action_mask).astype(bool)
        players = None if player is None else np.asarray(player, dtype=np.int64)
        return self.learner.probabilities(obs, mask, average=self.average, players=players)

    def __repr__(self) -> str:
        return f"SimplexGradientAgent({self.name}, {'average' if self.average else 'last'})"
