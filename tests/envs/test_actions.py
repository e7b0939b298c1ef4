"""Bad input to env.step gets a clear error; illegal actions follow PettingZoo's convention."""

import numpy as np
import pytest

import nashzoo
from nashzoo.envs import IllegalActionWarning
from nashzoo.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
)


def leduc(**kwargs):
    env = nashzoo.make("nashzoo/leduc_holdem-v0", **kwargs)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize(
    "action, error, match",
    [
        (1.0, ActionTypeError, r"integer action in \[0, 3\), received 1.0 of type float"),
        (None, ActionTypeError, "None is only accepted for agents that are already done"),
        (np.array([1, 2]), ActionTypeError, r"array of shape \(2,\)"),
        (np.array(1.0), ActionTypeError, "dtype float64"),
        ("1", ActionTypeError, "of type str"),
        (True, ActionTypeError, "of type bool"),
        (3, InvalidActionError, r"Action 3 is out of range: expected an integer in \[0, 3\)"),
        (-1, InvalidActionError, "out of range"),
    ],
)
def test_bad_action_types_and_ranges(action, error, match):
    env = leduc()
    before = env.unwrapped.state_of_game().history()
    with pytest.raises(error, match=match):
        env.step(action)
    assert env.unwrapped.state_of_game().history() == before  # nothing was applied


@pytest.mark.parametrize("action", [np.int64(1), np.int32(1), np.array(1), 1])
def test_integer_like_actions_are_accepted(action):
    env = leduc()
    env.step(action)
    assert env.unwrapped.state_of_game().history()[-1] == 1


def test_illegal_action_ends_episode_with_penalty_and_warning():
    env = leduc(illegal_reward=-5)
    assert env.agent_selection == "player_0"
    with pytest.warns(IllegalActionWarning, match=r"player_0 played illegal action 0 \(Fold\)"):
        env.step(0)  # fold is illegal when not facing a bet
    assert all(env.terminations.values())
    assert env.infos["player_0"]["illegal_action"] is True
    rewards = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        rewards[agent] = reward
        env.step(None)
    assert rewards == {"player_0": -5.0, "player_1": 0.0}


def test_strict_env_raises_on_illegal_action():
    env = leduc(strict=True)
    with pytest.raises(IllegalActionError, match=r"legal actions are \[1, 2\]"):
        env.step(0)
    assert not any(env.terminations.values())


def test_dead_agents_follow_pettingzoos_convention(caplog):
    # PettingZoo: at the end every agent is terminated, agent_selection moves to the first
    # done agent, each steps None to leave, and a step after that warns (no error).
    env = nashzoo.make("nashzoo/rps-v0")
    env.reset(seed=0)
    env.step(0)
    env.step(1)
    assert env.agent_selection == "player_0"  # not the last mover (player_1)
    with pytest.raises(GameOverError, match="only valid action is None"):
        env.step(0)  # player_0 is done
    env.step(None)
    assert env.agent_selection == "player_1"
    env.step(None)
    assert env.agents == []
    env.step(None)  # PettingZoo's EnvLogger warning, through logging
    assert "step() called after all agents are terminated" in caplog.text
    kuhn = nashzoo.make("nashzoo/kuhn_poker-v0")
    kuhn.reset(seed=0)
    kuhn.step(1)  # player_0 bets
    kuhn.step(1)  # player_1 calls: the game ends after player_1's move
    assert kuhn.agent_selection == "player_0" and all(kuhn.terminations.values())


def test_access_before_reset():
    env = nashzoo.make("nashzoo/kuhn_poker-v0")
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection
    for call in (
        env.last,
        lambda: env.step(0),
        lambda: env.observe("player_0"),
        env.render,
        env.agent_iter,
    ):
        with pytest.raises(ResetNeededError, match=r"Call reset\(\) before"):
            call()
    assert issubclass(ResetNeededError, AssertionError)  # PettingZoo's convention
    with pytest.raises(ResetNeededError):
        nashzoo.envs.GameEnv(nashzoo.make_game("kuhn_poker")).observe("player_0")


def test_observations_are_fresh_copies():
    env = leduc()
    obs, *_ = env.last()
    obs["observation"][:] = 7
    obs["action_mask"][:] = 0
    again, *_ = env.last()
    assert again["observation"].max() == 1.0 and again["action_mask"].sum() == 2


def test_same_seed_same_deal_and_rewards_are_chips():
    a, b = leduc(), leduc()
    assert [a.unwrapped.information_state_string(x) for x in ("player_0", "player_1")] == [
        b.unwrapped.information_state_string(x) for x in ("player_0", "player_1")
    ]
    env = nashzoo.make("nashzoo/kuhn_poker-v0")
    env.reset(seed=11)
    env.step(1)  # bet
    env.step(1)  # call
    cards = env.unwrapped.state_of_game().cards()
    sign = 1 if cards[0] > cards[1] else -1
    assert env.rewards == {"player_0": 2 * sign, "player_1": -2 * sign}


def test_infos_hold_numbers_and_arrays_with_the_same_keys_every_step():
    env = leduc()
    keys = set()
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        keys.add(tuple(sorted(info)))
        assert all(isinstance(v, (bool, int, np.ndarray)) for v in info.values())
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert keys == {("history_length", "illegal_action", "player", "public_history")}
    strings = nashzoo.make("kuhn_poker", info_strings=True)
    strings.reset(seed=0)
    assert strings.infos["player_1"]["info_state"] == "player=1 card=J history="
    assert strings.unwrapped.information_state_string("player_1") == "player=1 card=J history="


def test_public_history_hides_private_cards():
    env = nashzoo.make("kuhn_poker")
    env.reset(seed=11)
    env.step(1)
    info = env.infos["player_1"]
    assert info["public_history"].tolist() == [-1, -1, 1, -1, -1]
    assert info["history_length"] == 3 and info["player"] == 1


def test_max_cycles_truncates_like_pettingzoo_families():
    env = nashzoo.make("leduc_holdem", max_cycles=1)  # one decision per agent
    env.reset(seed=0)
    env.step(1)  # player_0 checks
    env.step(1)  # player_1 checks: round 1 over, two decisions = one cycle
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    for _agent in env.agent_iter():
        assert env.last()[3]  # truncated
        env.step(None)
    with pytest.raises(nashzoo.errors.InvalidParameterError, match="max_cycles"):
        nashzoo.make("leduc_holdem", max_cycles=0)


@pytest.mark.parametrize("env_id", sorted(__import__("nashzoo").registry))
def test_info_masks_put_every_agents_int8_mask_in_its_info_with_constant_keys(env_id):
    # Issue 32: AgileRL (and Shimmy's convention) read the mask from infos.
    import numpy as np

    env = nashzoo.make(env_id, info_masks=True)
    env.reset(seed=0)
    keys = None
    for step, _agent in enumerate(env.agent_iter(max_iter=200)):
        obs, _, terminated, truncated, info = env.last()
        assert keys is None or set(info) == keys
        keys = set(info)
        assert info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        for other_info in env.unwrapped.infos.values():
            assert other_info["action_mask"].shape == obs["action_mask"].shape
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset(seed=step)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "action_mask" in keys
    plain = nashzoo.make(env_id)  # off by default: TorchRL fails on a mask in both places
    plain.reset(seed=0)
    assert "action_mask" not in plain.unwrapped.infos["player_0"]
