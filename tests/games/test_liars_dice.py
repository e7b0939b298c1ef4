"""Liar's Dice (issue 93): OpenSpiel's ``liars_dice`` rules, bid encoding, strings and
tensors in lockstep; its tree sizes (294,883 histories and 24,576 information sets for
one six-sided die each: OpenSpiel's documented figure); the game values OpenSpiel's
sequence-form LP computes; CFR+ equal to OpenSpiel's C++ CFR+ at equal iterations; and
the refusals."""

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.cfr import make_solver
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.liars_dice import LiarsDiceGame
from nashzoo.testing import check_env
from nashzoo.tree import compile_game, nash_conv_array
from nashzoo.tree.sequence_form import solve_sequence_form


@pytest.mark.parametrize(
    "params",
    [
        {"dice": 1, "faces": 6},
        {"dice": 2, "faces": 3},
        {"dice": 2, "faces": 4, "bidding_rule": "reset-quantity"},
    ],
    ids=["1x6", "2x3", "2x4-reset-quantity"],
)
def test_lockstep_with_openspiel(params):
    """The same players, chance outcomes, legal actions, information states (OpenSpiel's
    string after ``P<player> ``, the same tensor) and returns over 1,000 random games."""
    pyspiel = pytest.importorskip("pyspiel")
    ours = LiarsDiceGame(**params)
    theirs = pyspiel.load_game(
        "liars_dice",
        {"numdice": ours.dice, "dice_sides": ours.faces, "bidding_rule": ours.bidding_rule},
    )
    assert ours.num_distinct_actions == theirs.num_distinct_actions()
    assert ours.information_state_tensor_size == theirs.information_state_tensor_shape()[0]
    assert ours.max_game_length == theirs.max_game_length()
    rng = np.random.default_rng(0)
    decisions = 0
    for _ in range(1000):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not b.is_terminal():
            assert a.current_player() == b.current_player()
            if b.is_chance_node():
                assert a.chance_outcomes() == b.chance_outcomes()
                action = int(rng.integers(ours.faces))
            else:
                legal = b.legal_actions()
                assert list(a.legal_actions()) == legal
                for p in range(2):
                    assert a.information_state_string(p) == f"P{p} {b.information_state_string(p)}"
                    np.testing.assert_array_equal(
                        a.information_state_tensor(p), b.information_state_tensor(p)
                    )
                # call liar often enough that games end at every length
                call = a.history()[ours.total_dice :] and rng.random() < 0.3
                action = legal[-1] if call else int(rng.choice(legal))
                decisions += 1
            a.apply_action(action)
            b.apply_action(action)
        assert a.is_terminal() and a.returns() == b.returns()
    assert decisions > 2500


def test_tree_sizes():
    # one die of six faces each: OpenSpiel's 24,576 information sets; the histories are
    # 1 + 6 partial rolls and 36 rolls times 2^13 - 1 bid sequences
    tree = compile_game(LiarsDiceGame())
    assert (tree.num_nodes, tree.num_infosets) == (294_883, 24_576)
    assert LiarsDiceGame().count_histories() == 1 + 6 + 36 * (2**13 - 1)
    for params in ({"faces": 2}, {"faces": 3}, {"dice": 2, "faces": 2}):
        game = LiarsDiceGame(**params)
        assert compile_game(game).num_nodes == game.count_histories()


def test_game_values_are_openspiels_sequence_form_lp():
    # computed with OpenSpiel's sequence_form_lp.solve_zero_sum_game (2026-12-05): player
    # 0's value 1/2 with two-faced dice, 1/9 with three-faced
    for faces, value in ((2, 1 / 2), (3, 1 / 9)):
        _, ours = solve_sequence_form(LiarsDiceGame(faces=faces))
        assert ours == pytest.approx(value, abs=1e-7)


def test_cfr_plus_is_openspiels_at_equal_iterations():
    # measured: 0.00047993 after 100 iterations with three faces, 0.00229521 with four,
    # the same digits as OpenSpiel's C++ CFR+ (and 0.14160143 with six after 10)
    pyspiel = pytest.importorskip("pyspiel")
    for faces in (3, 4):
        tree = compile_game(LiarsDiceGame(faces=faces))
        ours = make_solver("cfr+", tree).iterate(100).average_policy().probs
        game = pyspiel.load_game("liars_dice", {"dice_sides": faces})
        solver = pyspiel.CFRPlusSolver(game)
        for _ in range(100):
            solver.evaluate_and_update_policy()
        theirs = pyspiel.exploitability(game, solver.average_policy())
        assert nash_conv_array(tree, ours) / 2 == pytest.approx(theirs, abs=1e-9)


def test_the_env_and_its_gymnasium_view():
    env = nashzoo.make("nashzoo/liars_dice-v0", faces=4)
    assert env.action_space("player_0").n == 9 and check_env(env, episodes=200).decisions > 200
    import gymnasium

    single = gymnasium.make("nashzoo/LiarsDice-v0", opponent="random")
    observation, _ = single.reset(seed=0)
    assert observation.shape == (21,)


def test_refusals():
    with pytest.raises(InvalidParameterError, match="dice.*received 0"):
        LiarsDiceGame(dice=0)
    with pytest.raises(InvalidParameterError, match="faces.*received 1"):
        LiarsDiceGame(faces=1)
    with pytest.raises(InvalidParameterError, match="players.*received 7"):
        LiarsDiceGame(players=7)
    with pytest.raises(InvalidParameterError, match="bidding_rule.*'reset-face'.*'bluff'"):
        LiarsDiceGame(bidding_rule="bluff")
    state = LiarsDiceGame().new_initial_state()
    state.apply_action(5)
    state.apply_action(2)
    with pytest.raises(IllegalActionError):  # liar before any bid
        state.apply_action(12)
    state.apply_action(7)  # "2-2"
    with pytest.raises(IllegalActionError):  # a bid that does not raise
        state.apply_action(3)
    with pytest.raises(IllegalActionError):
        state.apply_action(7)


def test_the_rule_based_baseline_beats_random_and_is_the_games_declared_agent():
    # measured over 1,000 duplicate deals: +0.590 points a game against random (95% CI
    # +0.553 .. +0.627) with one six-faced die, +0.190 (+0.144 .. +0.236) with three
    # faces, +0.642 (+0.607 .. +0.677) with two four-faced dice
    from nashzoo.agents.scripted import LiarsDiceRulesAgent, baselines
    from nashzoo.agents.specs import build_agent
    from nashzoo.eval.matches import head_to_head
    from nashzoo.eval.stats import Z95

    for game in (LiarsDiceGame(), LiarsDiceGame(faces=3), LiarsDiceGame(dice=2, faces=4)):
        rules = build_agent("dice-rules", game)
        assert isinstance(rules, LiarsDiceRulesAgent)
        match = head_to_head(game, rules, build_agent("random", game), deals=1000, seed=0)
        assert match.mean - Z95 * match.stderr > 0, (game, match)
    assert set(baselines(LiarsDiceGame())) == {"random", "dice-rules"}
    with pytest.raises(InvalidParameterError, match="dice-rules is a rule-based agent of other"):
        build_agent("dice-rules", nashzoo.make_game("kuhn_poker"))


def test_the_rules_own_hidden_worlds_answer_as_each_world_does():
    """Heads-up, in random games of two six-faced dice each (beyond any tree walk; the
    walk itself is matched on small variants in tests/games/test_hidden.py): what the
    fast path says about a world (the opponent's strings and tensor indices had it rolled
    those dice, the returns at the end) is what that world's own state says."""
    game = LiarsDiceGame(dice=2)
    rng = np.random.default_rng(0)
    values, weights = game.dice_values()
    assert len(values) == 21 and weights.sum() == pytest.approx(1.0)
    assert weights[values.index((1, 2))] == pytest.approx(2 / 36)  # rolled 1-2 or 2-1
    for _ in range(40):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rng.integers(6)))
        while True:
            player = state.current_player()
            worlds = state.hidden_worlds(player)
            picked = [int(k) for k in rng.choice(len(worlds), 4, replace=False)]
            for k in picked:
                world, value = worlds.state(k), worlds.values[k]
                for seat in (player, 1 - player):
                    assert world.information_state_string(seat) == (
                        state.information_state_string_as(seat, value)
                        if seat != player
                        else state.information_state_string(seat)
                    )
                assert world.information_state_indices(1 - player) == (
                    state.information_state_indices_as(1 - player, value)
                )
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        worlds = state.hidden_worlds(0)
        over = state.returns_over(0, worlds.values)
        assert list(over) == [worlds.state(k).returns()[0] for k in range(len(worlds))]
        assert state.returns()[0] == over[worlds.index_of(state.private_information(1))]


def test_the_hidden_information_refusals():
    game = LiarsDiceGame(dice=2, faces=12)
    state = game.new_initial_state()
    with pytest.raises(InvalidParameterError, match="every die rolled; 0 of 4"):
        state.hidden_worlds(0)
    for face in (9, 10, 0, 11):
        state.apply_action(face)
    # faces of two digits read back from the string: "P0 1011" is ten and eleven
    view = game.view_state(0, state.information_state_string(0), state.public_history())
    assert view.information_state_string(0) == "P0 1011" and view.dice_of(0) == (10, 11)
    with pytest.raises(InvalidParameterError, match="player 1's information-state string"):
        game.view_state(1, "P0 1011", state.public_history())
    with pytest.raises(InvalidParameterError, match="'P0 <its 2 dice> <bids>'"):
        game.view_state(0, "P0 1x", state.public_history())
    with pytest.raises(InvalidParameterError, match="not a history of"):
        game.view_state(0, "P0 1011", [*state.public_history(), 3, 2])  # a bid lower
    with pytest.raises(InvalidParameterError, match="disagrees with public_history"):
        game.view_state(0, "P0 1011 1-1", state.public_history())
    with pytest.raises(InvalidParameterError, match="a terminal state of a two-player game"):
        state.returns_over(0, [(1, 1)])
    three = LiarsDiceGame(players=3).new_initial_state()
    for _ in range(3):
        three.apply_action(0)
    assert three.hidden_worlds(0) is None
