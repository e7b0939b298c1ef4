"""The observation layout RLlib's action-masking module reads.

RLlib masks logits with ``ActionMaskingTorchRLModule`` (in ``ray.rllib.examples``), which
expects a Dict observation with the keys ``"observations"`` (plural) and
``"action_mask"``. nashzoo's AEC envs follow PettingZoo's convention, ``"observation"``
and ``"action_mask"``. :class:`RLlibMasking` renames the one key and changes nothing else,
so a PettingZoo env wrapped in it and then in RLlib's ``PettingZooEnv`` trains with
masks::

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(RLlibMasking(nashzoo.make("nashzoo/leduc_holdem-v0")))

The wrapper imports nothing from RLlib (which pins its own Gymnasium release); see
``docs/howto/rllib.md`` for the training recipe.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers.base import BaseWrapper

from nashzoo.errors import InvalidParameterError

__all__ = ["RLlibMasking", "OBSERVATIONS_KEY"]

OBSERVATIONS_KEY = "observations"
"""The key RLlib's action-masking module reads the observation vector from."""


class RLlibMasking(BaseWrapper):
    """A nashzoo AEC env whose observations are ``{"observations", "action_mask"}``.

    Args:
        env: a PettingZoo AEC env whose observation spaces are Dicts with the keys
            ``"observation"`` and ``"action_mask"`` (every env ``nashzoo.make`` returns).

    Raises:
        InvalidParameterError: ``env`` is not an AEC env, or its observation space lacks
            those keys.
    """

    def __init__(self, env: AECEnv) -> None:
        if not isinstance(env, AECEnv):
            raise InvalidParameterError(
                f"RLlibMasking wraps a PettingZoo AEC env (nashzoo.make(...)); "
                f"got {type(env).__name__}"
            )
        super().__init__(env)
        self._spaces: dict[Any, spaces.Dict] = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            keys = set(space.spaces) if isinstance(space, spaces.Dict) else set()
            if keys != {"observation", "action_mask"}:
                raise InvalidParameterError(
                    "RLlibMasking needs a Dict observation space with the keys "
                    f"'observation' and 'action_mask'; {agent!r} has {space}"
                )
            self._spaces[agent] = spaces.Dict(
                {
                    OBSERVATIONS_KEY: space["observation"],
                    "action_mask": space["action_mask"],
                }
            )

    def observation_space(self, agent: Any) -> spaces.Dict:
        """The wrapped env's space, its ``"observation"`` key renamed."""
        return self._spaces[agent]

    def observe(self, agent: Any) -> dict[str, np.ndarray] | None:
        """The wrapped env's observation, its ``"observation"`` key renamed."""
        observation = self.env.observe(agent)
        if observation is None:
            return None
        return {
            OBSERVATIONS_KEY: observation["observation"],
            "action_mask": observation["action_mask"],
        }
