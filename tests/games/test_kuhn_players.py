"""Kuhn poker with a player count (issue 38): OpenSpiel's N-player rules, checked against
OpenSpiel's tree sizes, its ``kuhn_poker(players=N)`` in lockstep, and its CFR+; the
two-player-only tools refuse an N-player game at once."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.agents.cfr import make_solver
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.exploitability import exploitability
from nashzoo.eval.matches import head_to_head
from nashzoo.games import KuhnPokerGame
from nashzoo.tree import compile_game
from nashzoo.tree.best_response import nash_conv_array

# OpenSpiel's kuhn_poker(players=N), every history and information set enumerated
# (open_spiel 2.0.2): 58 / 617 / 7,886 histories, 12 / 48 / 160 information sets
OPENSPIEL_SIZES = {2: (58, 12), 3: (617, 48), 4: (7886, 160)}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tree_sizes_match_openspiel(players):
    game = KuhnPokerGame(players=players)
    tree = compile_game(game)
    histories, infosets = OPENSPIEL_SIZES[players]
    assert tree.num_nodes == game.count_histories() == histories
    assert tree.num_infosets == infosets
    assert game.deck_size == players + 1
    assert game.information_state_tensor_size == players + (players + 1) + 2 * (2 * players - 1)


def test_three_player_rules_by_hand():
    game = KuhnPokerGame(players=3)
    state = game.new_initial_state()
    for card in (0, 3, 2):  # J to player 0, the top card to player 1, K to player 2
        state.apply_action(card)
    state.apply_action(0)  # player 0 passes
    state.apply_action(1)  # player 1 bets
    state.apply_action(1)  # player 2 calls
    assert not state.is_terminal() and state.current_player() == 0
    state.apply_action(0)  # player 0 folds: the betting is back at the bettor
    assert state.is_terminal()
    assert state.returns() == [-1.0, 3.0, -2.0]  # player 1's top card wins the pot of 5
    everyone_passes = game.new_initial_state()
    for action in (0, 1, 2, 0, 0, 0):
        everyone_passes.apply_action(action)
    assert everyone_passes.is_terminal() and everyone_passes.returns() == [-1.0, -1.0, 2.0]


@pytest.mark.parametrize("bad", [{"players": 1}, {"players": 11}, {"players": 3, "deck_size": 3}])
def test_bad_player_counts_are_refused_by_name(bad):
    field = "players" if "deck_size" not in bad else "deck_size"
    with pytest.raises(InvalidParameterError, match=field):
        KuhnPokerGame(**bad)


def test_cfr_plus_solves_three_player_kuhn_and_exploitability_is_nash_conv_over_n():
    game = KuhnPokerGame(players=3)
    solver = make_solver("cfr+", game).iterate(1000)
    policy = solver.average_policy()
    nash_conv = nash_conv_array(policy.tree, policy.probs)
    assert nash_conv < 1e-3  # measured 3.2e-05, the same as OpenSpiel's CFR+ (below)
    uniform = build_agent("random", game)
    result = exploitability(uniform, game)
    assert result.exploitability == pytest.approx(result.nash_conv / 3)
    assert result.nash_conv > 100 * nash_conv


def test_two_player_tools_refuse_a_three_player_game():
    game = KuhnPokerGame(players=3)
    agent = build_agent("random", game)
    with pytest.raises(InvalidParameterError, match="two-player"):
        head_to_head(game, agent, agent, deals=2)
    from nashzoo.eval.lbr import local_best_response

    with pytest.raises(InvalidParameterError, match="two-player"):
        local_best_response(game, agent, hands=2)
    from nashzoo.agents.nash_memory import ParallelNashMemory

    with pytest.raises(InvalidParameterError, match="two-player"):
        ParallelNashMemory(game)


# -- against OpenSpiel (skipped without it) ----------------------------------------------------


def test_lockstep_with_openspiel_three_players():
    pyspiel = pytest.importorskip("pyspiel")
    ours_game = KuhnPokerGame(players=3)
    theirs_game = pyspiel.load_game("kuhn_poker", {"players": 3})
    rng = np.random.default_rng(0)
    for _ in range(300):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while not theirs.is_terminal():
            assert list(ours.legal_actions()) == list(theirs.legal_actions())
            if not theirs.is_chance_node():
                p = theirs.current_player()
                assert ours.current_player() == p
                np.testing.assert_array_equal(
                    ours.information_state_tensor(p), theirs.information_state_tensor(p)
                )
            action = int(rng.choice(theirs.legal_actions()))
            ours.apply_action(action)
            theirs.apply_action(action)
        assert ours.is_terminal()
        assert ours.returns() == pytest.approx(theirs.returns())


def test_cfr_plus_nash_conv_equals_openspiels_on_three_player_kuhn():
    pyspiel = pytest.importorskip("pyspiel")
    ours = make_solver("cfr+", KuhnPokerGame(players=3)).iterate(1000).average_policy()
    game = pyspiel.load_game("kuhn_poker", {"players": 3})
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(1000):
        solver.evaluate_and_update_policy()
    theirs = pyspiel.nash_conv(game, solver.average_policy())
    assert nash_conv_array(ours.tree, ours.probs) == pytest.approx(theirs, rel=1e-6)


def test_three_player_env_passes_pettingzoo_api_and_seed_tests():
    from pettingzoo.test import api_test, seed_test

    import nashzoo

    env = nashzoo.make("nashzoo/kuhn_poker-v0", players=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    api_test(env, num_cycles=100)
    seed_test(lambda: nashzoo.make("nashzoo/kuhn_poker-v0", players=3), num_cycles=50)


def test_every_two_player_learner_and_search_refuses_a_three_player_game():
    # issue 38: algorithms defined for two-player zero-sum games say so at configuration
    # time (the learners through the registry, the search, Nash memory, AIVAT, the
    # learned best response); the CFR family solves N players (the test above)
    from nashzoo.agents.learner import get_learner
    from nashzoo.eval.aivat import check_aivat_game

    pytest.importorskip("torch")
    game = KuhnPokerGame(players=3)
    for name in ("nfsp", "deep-cfr", "escher", "simplex-gradient", "nash-ismcts", "nash-memory"):
        cls = get_learner(name).load_class()
        with pytest.raises(InvalidParameterError, match="two-player"):
            cls(game, cls.config_type())
    with pytest.raises(InvalidParameterError, match="two-player zero-sum"):
        check_aivat_game(game)
    from nashzoo.agents.ismcts import SearchTables
    from nashzoo.tree import compile_game

    with pytest.raises(InvalidParameterError, match="two-player zero-sum games.*3 players"):
        SearchTables.uninformed(compile_game(game))
    pytest.importorskip("sb3_contrib")
    from nashzoo.bounds import learned_best_response

    with pytest.raises(InvalidParameterError, match="two-player"):
        learned_best_response(game, build_agent("random", game), steps=8)
