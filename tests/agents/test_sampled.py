"""The base of agents that draw their action from the distribution they state."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.errors import InvalidParameterError


class Skewed(SampledPolicyAgent):
    name = "skewed"

    def action_probabilities(self, observation, info):
        return np.array([0.2, 0.0, 0.5, 0.3])


OBS = {"observation": np.zeros(1, np.float32), "action_mask": np.array([1, 0, 1, 1], np.int8)}


def draws(agent, n=400):
    return [agent.act(OBS, {}) for _ in range(n)]


def test_a_seed_fixes_the_draws_and_a_reset_without_one_keeps_the_stream():
    agent = Skewed(seed=3)
    first = draws(agent)
    agent.reset(seed=3)
    assert draws(agent) == first  # the same seed, the same draws
    agent.reset()  # an episode boundary: the stream goes on where it was
    second = draws(agent)
    assert second != first
    assert first + second == draws(Skewed(seed=3), 800)


def test_the_draws_follow_the_stated_distribution():
    counts = np.bincount(draws(Skewed(seed=0), 20_000), minlength=4) / 20_000
    # 4 standard errors of a proportion near 0.5 over 20,000 draws: 0.014
    assert np.allclose(counts, [0.2, 0.0, 0.5, 0.3], atol=0.014), counts
    assert counts[1] == 0.0  # an action of probability 0 is never drawn


def test_a_bad_seed_is_refused():
    with pytest.raises(InvalidParameterError, match="seed"):
        Skewed(seed=-1)
    with pytest.raises(InvalidParameterError, match="seed"):
        Skewed(seed=0).reset(seed="x")
