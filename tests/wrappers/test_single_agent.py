import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import nashzoo
from nashzoo.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
)
from nashzoo.wrappers import GYMNASIUM_IDS, SingleAgentEnv


@pytest.mark.parametrize("gym_id", sorted(GYMNASIUM_IDS))
def test_registered_and_passes_gymnasium_check_env(gym_id):
    env = gymnasium.make(gym_id)
    gym_check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()  # issue 32


def test_passes_sb3_check_env():
    sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_env_checker.check_env(SingleAgentEnv("nashzoo/leduc_holdem-v0"), warn=True)


def test_seats_alternate_and_rewards_are_the_seats_returns():
    env = SingleAgentEnv("nashzoo/kuhn_poker-v0", opponent="random")
    seats = []
    total = {0: 0.0, 1: 0.0}
    env.reset(seed=1)
    for _ in range(400):
        obs, info = env.reset()
        seats.append(info["seat"])
        done = False
        while not done:
            mask = env.action_masks()
            obs, reward, done, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        total[info["seat"]] += reward
    assert seats[:4] == [0, 1, 0, 1]  # reset(seed=1) put the alternation at seat 1
    # Always betting/calling against uniform random wins on average in both seats.
    assert total[0] > 0 and total[1] > 0


def test_same_seed_same_episode():
    def run(seed):
        env = SingleAgentEnv("nashzoo/leduc_holdem-v0", opponent="random", seat=1)
        obs, info = env.reset(seed=seed)
        trace = [env.information_state_string()]
        done = False
        while not done:
            obs, r, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(env.information_state_string())
        return trace, r

    assert run(3) == run(3)


def test_illegal_and_bad_actions():
    env = SingleAgentEnv("nashzoo/leduc_holdem-v0", seat=0, illegal_reward=-3)
    env.reset(seed=0)
    with pytest.raises(ActionTypeError, match="integer action"):
        env.step(1.5)
    obs, reward, terminated, truncated, info = env.step(0)  # fold not legal: no bet faced
    assert (reward, terminated, info["illegal_action"]) == (-3.0, True, True)
    with pytest.raises(GameOverError, match="call reset"):
        env.step(1)
    strict = SingleAgentEnv("nashzoo/leduc_holdem-v0", seat=0, strict=True)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions are"):
        strict.step(0)


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="seat"):
        SingleAgentEnv("nashzoo/kuhn_poker-v0", seat=2)
    with pytest.raises(InvalidParameterError, match="Unknown agent spec"):
        SingleAgentEnv("nashzoo/kuhn_poker-v0", opponent="nobody")
    with pytest.raises(InvalidParameterError, match="deck_size"):
        SingleAgentEnv("nashzoo/kuhn_poker-v0", deck_size=1)
    env = gymnasium.make("nashzoo/KuhnPoker-v0", opponent=nashzoo.RandomAgent(seed=1), deck_size=8)
    assert env.observation_space.shape == (2 + 8 + 6,)


def test_human_render_prints_the_state_not_none(capsys):
    env = SingleAgentEnv("nashzoo/kuhn_poker-v0", seat=0, render_mode="human")
    env.reset(seed=3)
    env.step(1)
    out = capsys.readouterr().out
    assert "seat 0 | cards:" in out and "None" not in out


def test_alternate_seats_with_a_seed_every_episode():
    # Issue 11: reset(seed=i) each episode reset the counter, so the seat was always 0.
    env = SingleAgentEnv("nashzoo/kuhn_poker-v0")
    seats = [env.reset(seed=i)[1]["seat"] for i in range(6)]
    assert seats == [0, 1, 0, 1, 0, 1]
    assert env.reset(seed=3)[1]["seat"] == env.reset(seed=3)[1]["seat"] == 1  # reproducible
    random_seats = SingleAgentEnv("nashzoo/kuhn_poker-v0", seat="random")
    drawn = [random_seats.reset(seed=i)[1]["seat"] for i in range(40)]
    assert 5 < sum(drawn) < 35


def test_deals_without_a_learner_decision_are_dealt_again():
    # Limit Hold'em: as the big blind (seat 0) the learner acts after the small blind,
    # whose fold ends the deal at once; reset() deals again rather than start an
    # episode that has no decision
    class FoldsFirst:
        name = "folds-first"

        def __init__(self, folds):
            self.folds = folds

        def reset(self, *, seed=None):
            pass

        def act(self, observation, info):
            mask = observation["action_mask"]
            if self.folds and mask[0]:
                self.folds -= 1
                return 0
            return 1  # call

    env = SingleAgentEnv("nashzoo/limit_holdem-v0", opponent=FoldsFirst(3), seat=0)
    obs, info = env.reset(seed=0)
    assert env.skipped_deals == 3
    assert info["action_mask"].tolist() == [False, True, True]  # the big blind's option
    env = SingleAgentEnv("nashzoo/limit_holdem-v0", opponent=FoldsFirst(10**6), seat=0)
    env.max_redeals = 50
    with pytest.raises(GameOverError, match="50 deals in a row"):
        env.reset(seed=0)


@pytest.mark.parametrize("gym_id", sorted(__import__("nashzoo").wrappers.GYMNASIUM_IDS))
def test_every_gymnasium_id_hands_out_int8_masks_that_gymnasium_samples_with(gym_id):
    # Issue 32: a bool mask made Gymnasium's own sample(mask=...) raise and AgileRL's
    # `1 - action_mask` crash; every mask that leaves the package is int8.
    env = gymnasium.make(gym_id, opponent="random")
    obs, info = env.reset(seed=0)
    steps = 0
    for _ in range(40):
        steps += 1
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
        assert np.array_equal(env.unwrapped.action_masks(), mask)
        action = env.action_space.sample(mask=mask)
        assert mask[action] == 1
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
    assert steps == 40
