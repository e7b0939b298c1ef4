import pettingzoo
import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError, UnknownEnvError
from nashzoo.testing import check_env

ENV_IDS = sorted(nashzoo.registry)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_registered_env_passes_check_env(env_id):
    report = check_env(env_id, episodes=300)
    assert report.decisions > 300
    assert report.information_states >= 2


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_in_pettingzoo(env_id):
    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry (added in 1.27)")
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    if nashzoo.spec(env_id).parallel:
        par = pettingzoo.make("parallel", env_id)
        observations, infos = par.reset(seed=0)
        # Both players of a simultaneous move see their legal actions at once.
        assert all(obs["action_mask"].any() for obs in observations.values())


def test_expected_ids_are_registered():
    assert {
        "nashzoo/kuhn_poker-v0",
        "nashzoo/leduc_holdem-v0",
        "nashzoo/rps-v0",
        "nashzoo/weighted_rps-v0",
        "nashzoo/matching_pennies-v0",
    } <= set(ENV_IDS)


def test_make_accepts_short_ids_and_parameters():
    env = nashzoo.make("kuhn_poker", deck_size=8)
    env.reset(seed=1)
    assert env.unwrapped.game.deck_size == 8
    assert env.observation_space("player_0")["observation"].shape == (2 + 8 + 6,)
    assert check_env(env, episodes=50).env_name == "kuhn_poker_v0"


def test_unknown_env_suggests_close_ids():
    with pytest.raises(UnknownEnvError, match="Did you mean 'nashzoo/leduc_holdem-v0'"):
        nashzoo.make("nashzoo/leduc_holdem-v1x")
    with pytest.raises(UnknownEnvError, match="Did you mean 'nashzoo/kuhn_poker-v0'"):
        nashzoo.make("kuhn_pokr")


def test_bad_parameters_name_the_parameter():
    with pytest.raises(
        InvalidParameterError, match=r"`deck_size` must be in \[3, 100\], received 2"
    ):
        nashzoo.make("nashzoo/kuhn_poker-v0", deck_size=2)
    with pytest.raises(InvalidParameterError, match=r"has no parameter 'decksize'.*deck_size"):
        nashzoo.make("nashzoo/kuhn_poker-v0", decksize=5)
    with pytest.raises(InvalidParameterError, match="render_mode"):
        nashzoo.make("nashzoo/leduc_holdem-v0", render_mode="rgb_array")
    with pytest.raises(InvalidParameterError, match="sequential game"):
        nashzoo.make_parallel("nashzoo/leduc_holdem-v0")


def test_render_modes(capsys):
    env = nashzoo.make("nashzoo/leduc_holdem-v0", render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "private:" in text and "to act: player_0" in text
    env = nashzoo.make("nashzoo/kuhn_poker-v0", render_mode="human")
    env.reset(seed=3)
    env.step(1)
    assert "betting: b" in capsys.readouterr().out


def test_load_game_reads_openspiels_game_strings():
    # OpenSpiel's load_game("kuhn_poker(players=3)") form, as a leaderboard names a board
    from nashzoo.envs import load_game

    three = load_game("kuhn_poker(players=3)")
    assert three.num_players == 3 and three == nashzoo.make_game("kuhn_poker", players=3)
    assert load_game("nashzoo/leduc_holdem-v0") == nashzoo.make_game("leduc_holdem")
    six = load_game("limit_holdem(players=6)")
    assert six.num_players == 6
    assert load_game("kuhn_poker( players = 3 , deck_size=5 )").deck_size == 5
    for text, match in [
        ("kuhn_poker(players=3", r"ID or ID\(KEY=VALUE,...\)"),
        ("kuhn_poker(players)", "KEY=VALUE, received 'players'"),
        ("kuhn_poker(players=3,players=4)", "'players' is given twice"),
        ("kuhn_poker(decksize=5)", "has no parameter 'decksize'"),
        (3, "named by a string"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            load_game(text)
    with pytest.raises(UnknownEnvError):
        load_game("kuhn_pokr(players=3)")


def test_a_list_of_game_strings_splits_outside_parentheses():
    from nashzoo.envs.registration import split_game_strings

    text = "kuhn_poker(players=3,deck_size=5), leduc_holdem,limit_holdem(players=6)"
    assert split_game_strings(text) == [
        "kuhn_poker(players=3,deck_size=5)", "leduc_holdem", "limit_holdem(players=6)"
    ]  # fmt: skip
