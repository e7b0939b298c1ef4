"""RLlibMasking: the key RLlib's masking module reads, and nothing else changed.

RLlib itself runs in CI's wheel check (docs/howto/rllib.md, in a venv with ray[rllib]);
here the wrapper is checked without it: PettingZoo's API test, the same observations as
the wrapped env under the renamed key, and clear errors on what it cannot wrap.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.spaces import Space
from pettingzoo.test import api_test
from pettingzoo.utils.wrappers.base import BaseWrapper

import nashzoo
from nashzoo.errors import InvalidParameterError
from nashzoo.wrappers import RLlibMasking

IDS = ["nashzoo/kuhn_poker-v0", "nashzoo/leduc_holdem-v0", "nashzoo/limit_holdem-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_rllib_masking_passes_pettingzoo_api_test(env_id: str) -> None:
    api_test(RLlibMasking(nashzoo.make(env_id)), num_cycles=30)


@pytest.mark.parametrize("env_id", IDS)
def test_rllib_masking_renames_the_observation_key_and_keeps_the_values(env_id: str) -> None:
    plain, wrapped = nashzoo.make(env_id), RLlibMasking(nashzoo.make(env_id))
    space = wrapped.observation_space("player_0")
    assert sorted(space.spaces) == ["action_mask", "observations"]
    assert space["observations"] == plain.observation_space("player_0")["observation"]
    assert space["action_mask"] == plain.observation_space("player_0")["action_mask"]
    rng = np.random.default_rng(0)
    for seed in range(5):
        plain.reset(seed=seed)
        wrapped.reset(seed=seed)
        for agent in wrapped.agent_iter():
            assert agent == plain.agent_selection
            observation, *rest = wrapped.last()
            expected, *expected_rest = plain.last()
            assert rest[:3] == expected_rest[:3]
            np.testing.assert_array_equal(observation["observations"], expected["observation"])
            np.testing.assert_array_equal(observation["action_mask"], expected["action_mask"])
            assert observation["action_mask"].dtype == np.int8
            assert space.contains(observation)
            if rest[1] or rest[2]:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            wrapped.step(action)
            plain.step(action)
        assert not plain.agents


def test_rllib_masking_refuses_what_it_cannot_wrap() -> None:
    with pytest.raises(InvalidParameterError, match="AEC env.*got SingleAgentEnv"):
        RLlibMasking(nashzoo.wrappers.SingleAgentEnv("leduc_holdem"))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'observation' and 'action_mask'"):
        RLlibMasking(_FlatObservations(nashzoo.make("nashzoo/kuhn_poker-v0")))


class _FlatObservations(BaseWrapper):
    """An AEC env whose observation is a bare Box (no mask): what RLlibMasking refuses."""

    def observation_space(self, agent: str) -> Space:
        return self.env.observation_space(agent)["observation"]
