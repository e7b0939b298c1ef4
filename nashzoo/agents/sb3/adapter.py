"""Wrap a trained stable-baselines3 model (MaskablePPO, PPO, A2C, DQN) as a PolicyAgent.

The model must have been trained on the information-state tensor (as
:class:`~nashzoo.wrappers.SingleAgentEnv` provides), so its exploitability is computed
exactly and it enters tournaments like any other agent.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from nashzoo.agents.protocol import Observation, action_mask_of, sample_index
from nashzoo.errors import InvalidParameterError, MissingDependencyError

__all__ = ["SB3Agent"]


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "SB3Agent needs torch and stable-baselines3: pip install 'nashzoo[sb3]'.") from exc
    return torch


class SB3Agent:
    """A stable-baselines3 model playing through the Agent protocol.

    Policy-gradient models (PPO, A2C, MaskablePPO) give their action distribution, with
    illegal actions masked out and the rest renormalised (MaskablePPO receives the mask
    itself). Value-based models (DQN) give the greedy legal action with probability 1.

    Args:
        model: a trained SB3 model.
        deterministic: play the most likely legal action instead of sampling.
        seed: seed of the agent's generator (sampling).
        name: display name.

    Raises:
        InvalidParameterError: the model is not an SB3 model with a discrete action space.
    """

    def __init__(self, model: Any, *, deterministic: bool = False, seed: int | None = None,
                 name: str | None = None) -> None:
        policy = getattr(model, "policy", None)
        space = getattr(model, "action_space", None)
        if policy is None or space is None or not hasattr(space, "n"):
            raise InvalidParameterError(
                f"SB3Agent expects a stable-baselines3 model with a Discrete action space, "
                f"received {type(model).__name__}.")
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name or type(model).__name__
        self._rng = np.random.default_rng(seed)
        self._value_based = hasattr(policy, "q_net")
        self._maskable = (not self._value_based and "action_masks"
                          in inspect.signature(policy.get_distribution).parameters)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The model's distribution over all actions, zero on illegal ones."""
        torch = _torch()
        mask = action_mask_of(observation).astype(bool)
        if not mask.any():
            raise InvalidParameterError("The action mask has no legal action.")
        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(np.asarray(observation["observation"], np.float32))
        with torch.no_grad():
            if self._value_based:
                q = policy.q_net(obs_tensor)[0].cpu().numpy()
                probs = np.zeros(mask.size)
                probs[int(np.argmax(np.where(mask, q, -np.inf)))] = 1.0
                return probs
            if self._maskable:
                dist = policy.get_distribution(obs_tensor, action_masks=mask[None])
            else:
                dist = policy.get_distribution(obs_tensor)
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        return probs / total if total > 0 else mask / mask.sum()

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        probs = self.action_probabilities(observation, info)
        if self.deterministic:
            return int(np.argmax(probs))
        return sample_index(np.cumsum(probs), self._rng.random())

    def __repr__(self) -> str:
        return f"SB3Agent({self.name})"
