"""The AEC env stepped by the compiled rules (:class:`CompiledEnv`) against the generic
:class:`GameEnv` stepping the engines' states: seeded alike and given the same actions,
every agent sees the same thing at every step (agent to act, observations, masks,
rewards, terminations, infos, information-state strings, the engine's history), over
heads-up Limit Hold'em (with and without stacks) and seven more ACPC definitions
(heads-up no-limit, short stacks, side pots, six and ten seats, limit tables with and
without stacks)."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import nashzoo
from nashzoo.envs import GameEnv, OrderEnforcingWrapper
from nashzoo.envs.aec import IllegalActionWarning
from nashzoo.envs.compiled import CompiledEnv
from nashzoo.errors import IllegalActionError, InvalidParameterError, ResetNeededError
from nashzoo.games import Game
from nashzoo.games.poker import (
    LIMIT_HOLDEM_GAMEDEF,
    PokerDefinition,
    PokerGame,
    parse_gamedef,
)
from tests.vector.test_poker_env import GAMES as ACPC_GAMES

GAMES = {
    **ACPC_GAMES,
    "hulh": lambda: PokerGame(parse_gamedef(LIMIT_HOLDEM_GAMEDEF)),
    "hulh-stacks": lambda: PokerGame(
        parse_gamedef(LIMIT_HOLDEM_GAMEDEF.replace("END GAMEDEF", "stack = 60 60\nEND GAMEDEF"))
    ),
}


def _pair(game: Game, **options) -> tuple[CompiledEnv, GameEnv]:
    return CompiledEnv(game, **options), GameEnv(game, **options)


def _same_info(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _play_in_lockstep(fast, slow, episodes: int, seed: int) -> tuple[int, int]:
    """Random legal play (raises as often as calls), dead steps included; returns the
    decisions and the showdowns with more than one winner seen."""
    rng = np.random.default_rng(seed)
    decisions = splits = 0
    for episode in range(episodes):
        # seeded every fifth episode; the others go on with each env's own stream
        s = seed + episode if episode % 5 == 0 else None
        fast.reset(seed=s)
        slow.reset(seed=s)
        while fast.agents:
            assert fast.agents == slow.agents
            agent = fast.agent_selection
            assert agent == slow.agent_selection
            a_obs, a_rew, a_term, a_trunc, a_info = fast.last()
            b_obs, b_rew, b_term, b_trunc, b_info = slow.last()
            np.testing.assert_array_equal(a_obs["observation"], b_obs["observation"])
            np.testing.assert_array_equal(a_obs["action_mask"], b_obs["action_mask"])
            assert (a_rew, a_term, a_trunc) == (b_rew, b_term, b_trunc)
            _same_info(a_info, b_info)
            for other in fast.possible_agents:  # every agent's view, not only the mover's
                np.testing.assert_array_equal(
                    fast.observe(other)["observation"], slow.observe(other)["observation"]
                )
            assert fast.information_state_string(agent) == slow.information_state_string(agent)
            if a_term or a_trunc:
                fast.step(None)
                slow.step(None)
                continue
            mask = a_obs["action_mask"]
            action = int(np.argmax(mask * rng.random(mask.shape)))
            fast.step(action)
            slow.step(action)
            decisions += 1
            assert fast.rewards == slow.rewards
        assert fast.state_of_game().history() == slow.state_of_game().history()
        splits += sum(r > 0 for r in slow.state_of_game().returns()) > 1
    return decisions, splits


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_compiled_env_plays_the_engines_episodes(name):
    fast, slow = _pair(GAMES[name]())
    decisions, splits = _play_in_lockstep(fast, slow, episodes=80, seed=3)
    assert decisions > 2 * 80
    if name == "3p-side-pots":
        assert splits > 0  # the side-pot path was exercised


def test_options_agree_info_strings_masks_cycles_and_rendering():
    game = GAMES["6p-limit"]()
    fast, slow = _pair(game, info_strings=True, info_masks=True, render_mode="ansi")
    _play_in_lockstep(fast, slow, episodes=10, seed=11)
    fast.reset(seed=4)
    slow.reset(seed=4)
    assert fast.render() == slow.render()
    fast, slow = _pair(game, max_cycles=1)  # truncated after one decision per agent
    _play_in_lockstep(fast, slow, episodes=10, seed=12)
    fast.reset(seed=0)
    for _ in range(6):  # everyone calls (or checks): one cycle, then the truncation
        assert not fast.truncations[fast.agent_selection]
        fast.step(1)
    assert all(fast.truncations.values()) and not any(fast.terminations.values())


def test_an_illegal_action_ends_the_episode_or_raises_as_in_game_env():
    game = GAMES["hunl"]()
    fast, slow = _pair(game)
    for env in (fast, slow):
        env.reset(seed=1)
        env.step(1)  # the small blind calls: the big blind owes nothing, so Fold is illegal
        with pytest.warns(IllegalActionWarning, match="played illegal action 0"):
            env.step(0)
    assert fast.rewards == slow.rewards
    assert fast.terminations == slow.terminations
    _same_info(fast.infos["player_0"], slow.infos["player_0"])
    strict = CompiledEnv(game, strict=True)
    strict.reset(seed=1)
    strict.step(1)
    with pytest.raises(IllegalActionError, match="legal actions are"):
        strict.step(0)


def test_make_picks_the_compiled_env_and_it_passes_pettingzoos_tests():
    for env_id, params in (
        ("nashzoo/limit_holdem-v0", {}),
        ("nashzoo/no_limit_holdem-v0", {}),
        ("nashzoo/limit_holdem-v0", {"players": 3}),
    ):
        env = nashzoo.make(env_id, **params)
        assert isinstance(env, OrderEnforcingWrapper)
        assert isinstance(env.unwrapped, CompiledEnv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PettingZoo's notes on the observation's range
            api_test(env, num_cycles=100)
            seed_test(lambda env_id=env_id, params=params: nashzoo.make(env_id, **params), 50)


def test_games_it_cannot_play_and_use_before_reset_are_refused():
    small = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="52-card deck"):
        CompiledEnv(PokerGame(small))
    assert type(nashzoo.envs.env_class(PokerGame(small))(PokerGame(small))) is GameEnv
    env = CompiledEnv(GAMES["hunl"]())
    for call in (lambda: env.step(1), lambda: env.observe("player_0"), env.state_of_game):
        with pytest.raises(ResetNeededError):
            call()


@pytest.mark.parametrize("name", ["hulh", "6p-limit"])
def test_a_copied_or_unpickled_env_plays_on_as_the_original(name):
    # a lane's arrays are views of its buffers; a copy must keep them views of its own
    original = CompiledEnv(GAMES[name]())
    original.reset(seed=5)
    original.step(1)
    for twin in (copy.deepcopy(original), pickle.loads(pickle.dumps(original))):
        twin_rng, rng = np.random.default_rng(0), np.random.default_rng(0)
        twin.reset(seed=9)
        env = CompiledEnv(GAMES[name]())  # a fresh one: the reference
        env.reset(seed=9)
        while env.agents:
            assert twin.agent_selection == env.agent_selection
            a, b = twin.last(), env.last()
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            np.testing.assert_array_equal(a[4]["public_history"], b[4]["public_history"])
            if a[2] or a[3]:
                twin.step(None)
                env.step(None)
                continue
            mask = a[0]["action_mask"]
            twin.step(int(np.argmax(mask * twin_rng.random(mask.shape))))
            env.step(int(np.argmax(mask * rng.random(mask.shape))))
        assert twin.state_of_game().history() == env.state_of_game().history()
