"""Gymnasium views of nashzoo games.

:class:`SingleAgentEnv` plays one seat against a fixed opponent agent (stable-baselines3,
sb3-contrib's MaskablePPO). The Gymnasium ids are registered when nashzoo is imported;
Gymnasium's module prefix imports it for you (no plugin hook registers third-party ids
since Gymnasium 1.0)::

    gymnasium.make("nashzoo:nashzoo/LeducHoldem-v0", opponent="random")
    # or: import nashzoo; gymnasium.register_envs(nashzoo); gymnasium.make("nashzoo/...")

The PettingZoo AEC envs enforce call order, action types and illegal-action handling
themselves (:class:`nashzoo.envs.GameEnv`), so no PettingZoo wrapper stack is needed.
:class:`RLlibMasking` presents an AEC env's observations under the keys RLlib's
action-masking module reads.
"""

import gymnasium

from nashzoo.wrappers.rllib_masking import RLlibMasking
from nashzoo.wrappers.single_agent import GYMNASIUM_IDS, SingleAgentEnv

__all__ = ["SingleAgentEnv", "GYMNASIUM_IDS", "RLlibMasking"]

for _gym_id, _nashzoo_id in GYMNASIUM_IDS.items():
    if _gym_id not in gymnasium.registry:
        gymnasium.register(
            _gym_id,
            entry_point="nashzoo.wrappers.single_agent:SingleAgentEnv",
            kwargs={"game": _nashzoo_id},
        )
