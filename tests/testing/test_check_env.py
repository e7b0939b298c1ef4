"""check_env rejects broken envs, each with its reason (issue 10: a checker is tested on
what it must reject)."""

import numpy as np
import pytest

import nashzoo
from nashzoo.envs import GameEnv, OrderEnforcingWrapper
from nashzoo.errors import EnvCheckError
from nashzoo.games import KuhnPokerGame
from nashzoo.games.kuhn import KuhnPokerState
from nashzoo.testing import check_env


class WrongMask(GameEnv):
    """Offers an illegal action in its mask (Kuhn: both actions are always legal, so it
    plays Leduc, where fold is illegal before a raise)."""

    def observe(self, agent):
        obs = super().observe(agent)
        if obs["action_mask"].any():
            obs["action_mask"][0] = 1
        return obs


class NotZeroSum(GameEnv):
    def _accumulate_rewards(self):
        if self.rewards and any(self.rewards.values()):
            self.rewards["player_0"] += 0.5
        super()._accumulate_rewards()


class Unseeded(GameEnv):
    def reset(self, seed=None, options=None):
        super().reset(seed=None if seed is None else int(np.random.SeedSequence().entropy % 2**32))


class OutOfSpace(GameEnv):
    def observe(self, agent):
        obs = super().observe(agent)
        obs["observation"][0] = 2.0
        return obs


class ChangingInfos(GameEnv):
    def step(self, action):
        super().step(action)
        for agent in self.agents:
            if self.infos.get(agent) is not None and len(self.agents) == 2:
                self.infos[agent]["extra"] = 1


class StringInfos(GameEnv):
    def _advance(self):
        super()._advance()
        for agent in self.infos:
            self.infos[agent]["note"] = "text"


@pytest.mark.parametrize(
    "cls, game, reason",
    [
        (
            WrongMask,
            "leduc_holdem",
            r"Action mask \[1, 1, 1\] of player_0 .* does not match the "
            r"legal actions \[1, 2\]",
        ),
        (NotZeroSum, "kuhn_poker", r"Rewards \[.*\] of a zero-sum game do not sum to zero"),
        (Unseeded, "leduc_holdem", r"randomness does not follow reset\(seed=\.\.\.\)"),
        (OutOfSpace, "kuhn_poker", r"observation of player_0 lies outside its observation space"),
        (ChangingInfos, "kuhn_poker", r"info keys of player_\d changed between steps"),
        (
            StringInfos,
            "kuhn_poker",
            r"infos\['player_0'\]\['note'\] is a str; env infos hold "
            r"numbers and arrays only",
        ),
    ],
    ids=lambda x: getattr(x, "__name__", None),
)
def test_check_env_rejects_broken_envs_with_their_reason(cls, game, reason):
    def factory():
        return OrderEnforcingWrapper(cls(nashzoo.make_game(game)))

    with pytest.raises(EnvCheckError, match=reason):
        check_env(factory, episodes=30)


class PayingState(KuhnPokerState):
    """Kuhn rules that call themselves zero-sum but pay both players a chip."""

    __slots__ = ()

    def returns(self):
        return [r + 1.0 for r in super().returns()]

    def clone(self):
        new = super().clone()
        new.__class__ = PayingState
        return new


class NonZeroSumRules(KuhnPokerGame):
    def new_initial_state(self):
        return PayingState(self)


def test_check_env_rejects_rules_that_are_not_zero_sum():
    def factory():
        return OrderEnforcingWrapper(GameEnv(NonZeroSumRules()))

    with pytest.raises(EnvCheckError, match="declared zero-sum but its returns"):
        check_env(factory, episodes=5)


def test_every_registered_env_still_passes():
    for env_id in nashzoo.registry:
        assert check_env(env_id, episodes=20).decisions > 20


# -- the game's declarations (issue 30: one frozen GameInfo, validated by check_env) -----
class Declares(KuhnPokerGame):
    """Kuhn rules with one declaration changed."""

    def __init__(self, **changed):
        super().__init__()
        for name, value in changed.items():
            setattr(self, name, value)


@pytest.mark.parametrize(
    "changed, reason",
    [
        (
            {"max_game_length": 2, "max_chance_nodes": 3},
            r"3 player actions; the game declares max_game_length=2",
        ),
        ({"max_game_length": 1}, r"raised ValueError in the episode of seed \d+: .*declares"),
        ({"max_chance_nodes": 1}, r"2 chance events; the game declares max_chance_nodes=1"),
        ({"max_chance_outcomes": 2}, r"3 outcomes; the game declares max_chance_outcomes=2"),
        ({"min_utility": -1.0}, r"outside the declared \[-1.0, 2.0\]"),
        ({"information_state_tensor_size": 10}, r"raised IndexError .*tensor_size=10"),
    ],
)
def test_check_env_holds_play_to_the_games_declarations(changed, reason):
    def factory():
        return OrderEnforcingWrapper(GameEnv(Declares(**changed)))

    with pytest.raises(EnvCheckError, match=reason):
        check_env(factory, episodes=40, api_cycles=5)


@pytest.mark.parametrize(
    "changed, reason",
    [
        ({"num_distinct_actions": 0}, r"declares `num_distinct_actions` = 0; expected an integer"),
        ({"max_utility": -3.0}, r"min_utility -2.0 above max_utility -3.0"),
    ],
)
def test_an_env_refuses_a_game_whose_declarations_are_invalid(changed, reason):
    from nashzoo.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=reason):
        GameEnv(Declares(**changed))


def test_game_info_is_one_frozen_checked_record():
    import dataclasses

    from nashzoo.errors import InvalidParameterError
    from nashzoo.games import GameInfo

    info = KuhnPokerGame().info
    assert isinstance(info, GameInfo) and info.num_distinct_actions == 2
    assert (info.min_utility, info.max_utility, info.max_chance_outcomes) == (-2.0, 2.0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.num_players = 3
    with pytest.raises(InvalidParameterError, match="zero-sum, so its payoff range must hold 0"):
        dataclasses.replace(info, min_utility=1.0, max_utility=2.0)
    with pytest.raises(InvalidParameterError, match="`simultaneous` = 1; expected True or False"):
        dataclasses.replace(info, simultaneous=1)
    report = check_env("nashzoo/kuhn_poker-v0", episodes=5, api_cycles=5)
    assert report.game_info == info
