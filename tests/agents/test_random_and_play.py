import numpy as np
import pytest

import nashzoo
from nashzoo import Agent, PolicyAgent, RandomAgent, play_episode
from nashzoo.errors import ActionTypeError, InvalidParameterError


def test_random_agent_is_a_policy_agent_and_stays_legal():
    agent = RandomAgent(seed=0)
    assert isinstance(agent, Agent) and isinstance(agent, PolicyAgent)
    obs = {"observation": np.zeros(3, np.float32), "action_mask": np.array([0, 1, 1], np.int8)}
    picks = {agent.act(obs, {}) for _ in range(200)}
    assert picks == {1, 2}
    np.testing.assert_allclose(agent.action_probabilities(obs, {}), [0, 0.5, 0.5])
    with pytest.raises(ActionTypeError, match="action_mask"):
        agent.act(np.zeros(3), {})


def test_bare_class_satisfies_protocol():
    class AlwaysCall:
        name = "always-call"

        def act(self, observation, info):
            return 1

        def reset(self, *, seed=None):
            pass

    assert isinstance(AlwaysCall(), Agent)
    assert not isinstance(AlwaysCall(), PolicyAgent)

    class Nameless:  # the protocol declares `name`: without it a class is not an Agent
        def act(self, observation, info):
            return 1

        def reset(self, *, seed=None):
            pass

    assert not isinstance(Nameless(), Agent)
    env = nashzoo.make("nashzoo/leduc_holdem-v0")
    returns = play_episode(env, [AlwaysCall(), AlwaysCall()], seed=5)
    assert returns["player_0"] == -returns["player_1"]
    assert abs(returns["player_0"]) in (0.0, 1.0)  # check-check twice: ante at stake


def test_play_episode_is_reproducible():
    env = nashzoo.make("nashzoo/leduc_holdem-v0")
    agents = [RandomAgent(), RandomAgent()]
    runs = [[play_episode(env, agents, seed=s) for s in range(30)] for _ in range(2)]
    assert runs[0] == runs[1]
    assert len({r["player_0"] for r in runs[0]}) > 1


def test_play_episode_random_vs_random_is_fair_on_rps():
    env = nashzoo.make("nashzoo/rps-v0")
    agents = {"player_0": RandomAgent(), "player_1": RandomAgent()}
    total = sum(play_episode(env, agents, seed=s)["player_0"] for s in range(2000))
    # mean 0, sd per game sqrt(2/3): 2000 games -> |mean| < 4 sd / sqrt(2000) ~ 0.073
    assert abs(total / 2000) < 0.073


def test_play_episode_checks_seats():
    env = nashzoo.make("nashzoo/kuhn_poker-v0")
    with pytest.raises(InvalidParameterError, match="one agent per seat"):
        play_episode(env, [RandomAgent()])
    with pytest.raises(InvalidParameterError, match="no agent for"):
        play_episode(env, {"player_0": RandomAgent()})
