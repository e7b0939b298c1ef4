"""Fighting cards: the rules table, the chance model, hidden information, tree sizes,
the stage game's equilibria, and the env adapters."""

import math

import numpy as np
import pytest

import nashzoo
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games import TERMINAL, FightingCardGame
from nashzoo.games.fighting import (
    ATTACK,
    BLOCK,
    DODGE,
    THROW,
    card_damage,
    fighting_cards_small,
    fighting_cards_tiny,
)
from nashzoo.testing import check_env
from nashzoo.tree import compile_game
from nashzoo.tree.lp import min_group_weights, solve_zero_sum
from tests.conftest import count_tree, coverage_paused
from tests.rounding import lp_rounding, tree_rounding


@pytest.mark.parametrize(
    "a, b, dealt_by_a, dealt_by_b",
    [
        ((ATTACK, 2), (THROW, 3), 4, 0),  # attack interrupts a throw: 2r
        ((ATTACK, 1), (ATTACK, 3), 1, 0),  # the faster attack hits
        ((ATTACK, 2), (ATTACK, 2), 2, 2),  # equal ranks trade
        ((THROW, 1), (THROW, 2), 1, 0),  # the faster throw lands
        ((THROW, 2), (THROW, 2), 0, 0),
        ((THROW, 3), (BLOCK, 1), 3, 0),
        ((THROW, 3), (DODGE, 2), 4, 0),  # s + 1 against a dodge
        ((BLOCK, 1), (ATTACK, 3), 3, 0),  # a block reflects the attack's rank
        ((DODGE, 2), (ATTACK, 3), 3, 0),  # a dodge counters for d + 1
        ((BLOCK, 2), (DODGE, 3), 0, 0),
    ],
)
def test_damage_follows_the_rules_table(a, b, dealt_by_a, dealt_by_b):
    assert (card_damage(*a, *b), card_damage(*b, *a)) == (dealt_by_a, dealt_by_b)


def test_every_stage_equilibrium_plays_every_type_with_three_ranks():
    game = FightingCardGame()
    stage = game.stage_game()
    assert np.allclose(stage.row_payoffs, -stage.row_payoffs.T)  # symmetric zero-sum
    _, _, value = solve_zero_sum(stage.row_payoffs)
    assert value == pytest.approx(0.0, abs=lp_rounding(stage.row_payoffs))
    weights = min_group_weights(stage.row_payoffs, game.card_types)
    # the smallest weight of a type over all equilibria (module docstring: .23/.31/.15/.31)
    assert weights == pytest.approx([3 / 13, 4 / 13, 2 / 13, 4 / 13], abs=1e-6)


def test_min_group_weights_rejects_a_dominated_type():
    # with a block that reflects nothing, Block is dominated by Dodge: some (in fact
    # every) equilibrium leaves it out, and the check must say so
    game = FightingCardGame()
    table = game.damage_table.copy()
    block = game.card_types == BLOCK
    table[np.ix_(block, game.card_types == ATTACK)] = 0
    weights = min_group_weights(table - table.T, game.card_types)
    assert weights[BLOCK] == 0.0
    # one rank is the documented parity case: 4 options, odd support
    one = FightingCardGame(ranks=1, hand_size=1)
    assert np.count_nonzero(min_group_weights(one.stage_game().row_payoffs, one.card_types)) < 4


def test_deal_probabilities_are_hypergeometric():
    game = FightingCardGame(ranks=1, copies=2, hand_size=3)
    assert len(game.hands) == 20 - 4  # multisets of 3 from 4 kinds, less the 4 triples
    assert sum(game.hand_probs) == pytest.approx(1.0)
    two_attacks = game.hands.index((2, 1, 0, 0))
    assert game.hand_probs[two_attacks] == pytest.approx(math.comb(2, 2) * 2 / math.comb(8, 3))


def test_player_one_cannot_see_the_hidden_card():
    game = fighting_cards_small()
    deal = game.hands.index((1, 1, 0, 0))  # A1 T1
    views = set()
    for card in (0, 1):  # player 0 plays A1 or T1
        state = game.new_initial_state()
        state.apply_action(deal)
        state.apply_action(game.hands.index((0, 0, 1, 1)))  # player 1: B1 D1
        state.apply_action(card)
        views.add((state.information_state_string(1), state.information_state_tensor(1).tobytes()))
        assert list(state.public_history()) == [-1, -1]
    assert len(views) == 1
    state.apply_action(3)  # D1 against T1: the throw deals 1 + 1
    assert state.hit_points == (3, 1)
    assert state.public_history() == [-1, -1, 1, 3]
    assert state.information_state_string(1) == "player=1 hp=1/3 deal=B1,D1 | D1vT1"


def test_a_game_ends_on_hit_points_or_empty_decks():
    game = fighting_cards_small()
    state = game.new_initial_state()
    state.apply_action(game.hands.index((1, 0, 0, 1)))  # A1 D1
    state.apply_action(game.hands.index((0, 1, 1, 0)))  # T1 B1
    state.apply_action(0)  # A1
    state.apply_action(1)  # T1: 2 damage
    assert state.hit_points == (3, 1) and state.is_chance_node()
    state.apply_action(1)  # player 0 draws T1 (its deck holds T1, B1)
    state.apply_action(3)  # player 1 draws D1
    with pytest.raises(IllegalActionError):
        state.apply_action(0)  # A1 was played
    state.apply_action(1)  # T1
    state.apply_action(3)  # D1: caught, 2 damage
    assert state.current_player() == TERMINAL and state.returns() == [1.0, -1.0]


def test_presets_tree_sizes_agree_with_a_direct_walk():
    for game, histories, infosets in (
        (fighting_cards_tiny(), 2229, 104),
        (fighting_cards_small(), 18915, 1100),
    ):
        tree = compile_game(game)
        counts = count_tree(game)
        assert tree.num_nodes == counts.histories == histories
        assert tree.num_infosets == sum(len(s) for s in counts.infosets) == infosets


@pytest.mark.parametrize(
    "params",
    [
        {"ranks": 1, "copies": 1, "hand_size": 3, "hit_points": 3},
        {"ranks": 1, "copies": 1, "hand_size": 2, "hit_points": 3},
        {"ranks": 1, "copies": 2, "hand_size": 6, "hit_points": 2},  # a KO on exchange 1
        {"ranks": 1, "copies": 2, "hand_size": 7, "hit_points": 3},  # copies: draws
        {"ranks": 1, "copies": 1, "hand_size": 4, "hit_points": 9},  # one exchange only
    ],
)
def test_the_lower_bound_on_histories_never_exceeds_the_count(params):
    game = FightingCardGame(**params)
    with coverage_paused():  # the reference count (22 s traced, 3 s plain); the rules'
        histories = count_tree(game).histories  # lines are traced in the tests above
    bound = game.histories_lower_bound()
    assert 0 < bound <= histories, (bound, histories)


def test_the_default_preset_is_refused_at_once_by_its_lower_bound():
    """It once took a minute of enumeration (every batched env, NFSP and SB3 on the
    default preset waited for it) before the tree was found too large."""
    import time

    from nashzoo.errors import GameTooLargeError

    game = FightingCardGame()
    assert game.histories_lower_bound() == 39_833_421  # the formula's value, > 5 million
    start = time.perf_counter()
    with pytest.raises(GameTooLargeError, match="more than 39,833,421 histories"):
        compile_game(game)
    assert time.perf_counter() - start < 10.0  # a minute before


def test_symmetric_small_preset_has_value_zero():
    # the rules treat both seats alike (player 1's hidden-move order changes nothing), so
    # the game value is 0; CFR+ gets within its exploitability of it
    from nashzoo.agents.cfr import make_solver
    from nashzoo.tree.best_response import policy_values

    solver = make_solver("cfr+", fighting_cards_small())
    solver.iterate(300)
    policy = solver.average_policy()
    gap = solver.exploitability()
    assert gap < 2e-3
    assert abs(policy_values(policy.tree, policy.probs)[0]) <= 2 * gap + tree_rounding(policy.tree)


def test_joint_successor_is_the_sequential_round():
    game = fighting_cards_small()
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(5)
    after = state.joint_successor([state.legal_actions()[0], state.pending_legal_actions(1)[1]])
    manual = state.clone()
    manual.apply_action(state.legal_actions()[0])
    manual.apply_action(manual.legal_actions()[1])
    assert after.history() == manual.history() and after.hit_points == manual.hit_points
    with pytest.raises(InvalidParameterError, match="beginning of a simultaneous round"):
        manual.joint_successor([0, 0])
    with pytest.raises(InvalidParameterError, match="sequential"):
        nashzoo.make_game("nashzoo/kuhn_poker-v0").new_initial_state().joint_successor([0, 0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"ranks": 0}, "ranks"),
        ({"ranks": 2, "hand_size": 9}, "hand_size"),
        ({"hit_points": 0}, "hit_points"),
        ({"copies": 1.5}, "copies"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        FightingCardGame(**kwargs)


@pytest.mark.parametrize("name", ["fighting_cards_tiny", "fighting_cards_small", "fighting_cards"])
def test_envs_pass_check_env_and_pettingzoo_tests(name):
    from pettingzoo.test import parallel_api_test

    check_env(nashzoo.make(f"nashzoo/{name}-v0"))
    parallel_api_test(nashzoo.make_parallel(f"nashzoo/{name}-v0"), num_cycles=30)


def test_default_env_observation_holds_hand_known_cards_and_hit_points():
    env = nashzoo.make("nashzoo/fighting_cards-v0")
    env.reset(seed=3)
    game = env.unwrapped.game
    assert game.deck_size == 12 and game.information_state_tensor_size == 434
    obs, _, _, _, info = env.last()
    hand = obs["observation"][game._off_hand : game._off_own].reshape(game.num_kinds, 1)
    assert hand.sum() == 3 and np.array_equal(hand[:, 0].astype(np.int8), obs["action_mask"])
    hp = obs["observation"][game._off_hp : game._off_deal]
    assert hp.sum() == 20
    assert set(info) == {"player", "public_history", "history_length", "illegal_action"}
