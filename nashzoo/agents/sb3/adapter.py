"""Wrap a trained stable-baselines3 model (MaskablePPO, PPO, A2C, DQN) as a PolicyAgent.

The model must have been trained on the information-state tensor (as
:class:`~nashzoo.wrappers.SingleAgentEnv` provides), so its exploitability is computed
exactly and it enters tournaments like any other agent.

Saved SB3 models (``.zip``) contain pickles: loading one runs code. Load only models you
trust; a service that accepts agents from others must load them inside a sandbox.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation, action_mask_of
from nashzoo.errors import InvalidParameterError
from nashzoo.extras import require
from nashzoo.games.base import Game

__all__ = ["SB3Agent", "load_sb3_agent"]


def _torch() -> Any:
    return require("torch", "sb3", "SB3Agent")


class SB3Agent(SampledPolicyAgent):
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

    def __init__(
        self,
        model: Any,
        *,
        deterministic: bool = False,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        policy = getattr(model, "policy", None)
        space = getattr(model, "action_space", None)
        if policy is None or space is None or not hasattr(space, "n"):
            raise InvalidParameterError(
                f"SB3Agent expects a stable-baselines3 model with a Discrete action space, "
                f"received {type(model).__name__}."
            )
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name or type(model).__name__
        super().__init__(seed=seed)
        self._value_based = hasattr(policy, "q_net")
        self._maskable = (
            not self._value_based
            and "action_masks" in inspect.signature(policy.get_distribution).parameters
        )

    def check_game(self, game: Game) -> None:
        """Raise unless the model's spaces fit ``game`` (observation size, action count).

        Raises:
            InvalidParameterError: e.g. a Kuhn model entered for Leduc.
        """
        shape = getattr(self.model.observation_space, "shape", None)
        want = (game.information_state_tensor_size,)
        if shape != want or self.model.action_space.n != game.num_distinct_actions:
            raise InvalidParameterError(
                f"The SB3 model {self.name!r} was trained on observations of shape {shape} "
                f"with {self.model.action_space.n} actions; {game} has observations of "
                f"shape {want} and {game.num_distinct_actions} actions."
            )

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """The model's distribution over all actions, zero on illegal ones."""
        mask = action_mask_of(observation)
        obs = np.asarray(observation["observation"], np.float32)
        return self.batch_probabilities(obs[None], mask[None], np.zeros(1, np.int64))[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """The model's distributions for ``n`` observations at once (one forward pass):
        ``(n, actions)``, zero on illegal actions. ``player`` is not read (the model plays
        whichever seat it was trained for)."""
        torch = _torch()
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any(axis=1).all():
            raise InvalidParameterError("An action mask has no legal action.")
        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(np.array(observation, np.float32))
        with torch.no_grad():
            if self._value_based:
                q = policy.q_net(obs_tensor).cpu().numpy()
                probs = np.zeros(mask.shape)
                probs[np.arange(len(mask)), np.where(mask, q, -np.inf).argmax(axis=1)] = 1.0
                return probs
            if self._maskable:
                dist = policy.get_distribution(obs_tensor, action_masks=mask)
            else:
                dist = policy.get_distribution(obs_tensor)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum(axis=1, keepdims=True)
        uniform = mask / mask.sum(axis=1, keepdims=True)
        return np.where(total > 0, probs / np.where(total > 0, total, 1.0), uniform)

    def act(self, observation: Observation, info: AgentInfo) -> int:
        """The most likely action if ``deterministic``, else one drawn."""
        if self.deterministic:
            return int(np.argmax(self.action_probabilities(observation, info)))
        return super().act(observation, info)

    def __repr__(self) -> str:
        return f"SB3Agent({self.name})"


def load_sb3_agent(path: str, game: Game, *, name: str | None = None) -> SB3Agent:
    """Load a saved SB3 model (MaskablePPO, PPO, A2C or DQN, tried in turn) for ``game``.

    The file is a pickle: loading it runs code. Never load one you do not trust.

    Raises:
        MissingDependencyError: stable-baselines3 is not installed.
        InvalidParameterError: not a loadable model, or a model for another game.
    """
    sb3 = require("stable_baselines3", "sb3", f"Agent file {path!r}")
    classes: list[Any] = []
    try:
        from sb3_contrib import MaskablePPO

        classes.append(MaskablePPO)
    except ImportError:
        pass
    classes += [sb3.PPO, sb3.A2C, sb3.DQN]
    errors = []
    from pathlib import Path

    for cls in classes:
        try:
            model = cls.load(path, device="cpu")
        except Exception as exc:  # try the next algorithm
            errors.append(f"{cls.__name__}: {type(exc).__name__}")
            continue
        agent = SB3Agent(model, name=name or Path(path).stem)
        agent.check_game(game)
        return agent
    raise InvalidParameterError(
        f"{path!r} is not a loadable stable-baselines3 model ({'; '.join(errors)})."
    )
