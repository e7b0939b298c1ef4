"""The sequence-form LP (nashzoo.tree.sequence_form): exact game values, plans, and the
range of what equilibria score against a fixed opponent."""

import numpy as np
import pytest

from nashzoo.agents.cfr import CFRPlusSolver
from nashzoo.agents.scripted import FightingHeuristicAgent
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.eval.exploitability import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, MatrixGame
from nashzoo.games.fighting import fighting_cards_small, fighting_cards_tiny
from nashzoo.games.kuhn import kuhn_equilibrium
from nashzoo.tree import TabularPolicy, compile_game, policy_values, seat_profiles
from nashzoo.tree.sequence_form import (
    equilibrium_score_range,
    sequence_form,
    solve_sequence_form,
)
from tests.rounding import lp_rounding, tree_rounding


@pytest.mark.parametrize(
    ("game", "value"),
    [
        (KuhnPokerGame(), -1 / 18),  # Kuhn 1950
        (LeducHoldemGame(), -0.085606424078),  # OpenSpiel's sequence_form_lp test
    ],
)
def test_the_lp_solves_kuhn_and_leduc_exactly(game, value):
    policy, found = solve_sequence_form(game)
    scale = lp_rounding(policy.tree.utility)
    assert found == pytest.approx(value, abs=10 * scale)
    assert policy_values(policy.tree, policy.probs)[0] == pytest.approx(value, abs=10 * scale)
    assert exploitability(policy).nash_conv == pytest.approx(0.0, abs=100 * scale)


def test_a_plan_meets_its_constraints_and_plays_like_its_policy():
    tree = compile_game(LeducHoldemGame())
    rng = np.random.default_rng(0)
    probs = rng.random(tree.legal_mask.shape) * tree.legal_mask
    probs /= probs.sum(axis=1, keepdims=True)
    form = sequence_form(tree)
    plans = [form.realization_plan(probs, p) for p in range(2)]
    for p in range(2):
        matrix, rhs = form.constraints(p)
        np.testing.assert_allclose(matrix @ plans[p], rhs, atol=1e-12)
    # x^T A y is the expected payoff of the profile
    expected = policy_values(tree, probs)[0]
    assert plans[0] @ (form.payoff @ plans[1]) == pytest.approx(
        expected, abs=4 * tree_rounding(tree)
    )
    back = tree.uniform_probs()
    for p in range(2):
        form.behavioural(plans[p], p, back)
    np.testing.assert_allclose(back, probs, atol=1e-12)  # every set is reached


def test_kuhn_equilibria_score_one_ninth_to_one_sixth_against_uniform_play():
    # Kuhn (1950): player 0's equilibria are the family alpha in [0, 1/3], player 1's is
    # unique; against uniform play they win 1/9 (alpha 0) to 1/6 (alpha 1/3) a game over
    # the two seats.
    tree = compile_game(KuhnPokerGame())
    uniform = TabularPolicy.uniform(tree)
    found = equilibrium_score_range(tree, uniform)
    assert found.value[0] == pytest.approx(-1 / 18, abs=1e-6)
    assert found.value[1] == pytest.approx(1 / 18, abs=1e-6)
    assert found.low == pytest.approx(1 / 9, abs=1e-5)
    assert found.high == pytest.approx(1 / 6, abs=1e-5)
    assert found.seat_high[1] - found.seat_low[1] == pytest.approx(0.0, abs=1e-5)
    # the ends are the family's ends, seat by seat
    for alpha, seat0 in ((0.0, found.seat_low[0]), (1 / 3, found.seat_high[0])):
        member = TabularPolicy.from_table(tree, kuhn_equilibrium(alpha))
        a, _ = seat_profiles(tree, member.probs, uniform.probs)
        assert policy_values(tree, a)[0] == pytest.approx(seat0, abs=1e-5)
    # a best response to uniform play wins more than any equilibrium
    assert found.best_response_score > found.high + 0.05


def test_without_the_guarantee_the_range_reaches_the_best_response():
    # the check that the guarantee binds: relax it to nearly nothing and the most a
    # "safe" plan wins against uniform is a best response's
    tree = compile_game(KuhnPokerGame())
    loose = equilibrium_score_range(tree, TabularPolicy.uniform(tree), tol=0.99)
    assert loose.high == pytest.approx(loose.best_response_score, abs=1e-6)
    tight = equilibrium_score_range(tree, TabularPolicy.uniform(tree))
    assert tight.high < loose.high - 0.05


def test_fighting_equilibria_barely_beat_the_heuristic_where_a_best_response_crushes_it():
    # the presets that compile: every equilibrium of the tiny preset scores 0 against
    # the scripted heuristic, of the small one at most about 0.05; CFR+'s equilibrium
    # (an independent solver) lies in the range
    for game, at_most in ((fighting_cards_tiny(), 1e-5), (fighting_cards_small(), 0.06)):
        tree = compile_game(game)
        heuristic = TabularPolicy.from_agent(FightingHeuristicAgent(game), tree)
        found = equilibrium_score_range(tree, heuristic)
        assert -1e-5 <= found.low <= found.high <= at_most
        assert found.best_response_score > 0.3
        cfr = CFRPlusSolver(tree).iterate(3000).average_policy()
        a, b = seat_profiles(tree, cfr.probs, heuristic.probs)
        score = (policy_values(tree, a)[0] + policy_values(tree, b)[1]) / 2
        slack = exploitability(cfr).nash_conv
        assert found.low - slack - 1e-6 <= score <= found.high + slack + 1e-6


def test_bad_input_is_refused_by_name():
    with pytest.raises(InvalidParameterError, match="two-player games.*has 3"):
        sequence_form(KuhnPokerGame(players=3))
    dilemma = MatrixGame([[3, 0], [5, 1]], [[3, 5], [0, 1]])
    with pytest.raises(InvalidParameterError, match="zero-sum"):
        solve_sequence_form(dilemma)
    with pytest.raises(InvalidParameterError, match="tol must be a number in"):
        equilibrium_score_range(KuhnPokerGame(), TabularPolicy.uniform(KuhnPokerGame()), tol=-1)
    with pytest.raises(InvalidParameterError, match="received True"):
        equilibrium_score_range(KuhnPokerGame(), TabularPolicy.uniform(KuhnPokerGame()), tol=True)
    with pytest.raises(InvalidParameterError, match=r"for leduc_holdem, not for kuhn_poker"):
        equilibrium_score_range(KuhnPokerGame(), TabularPolicy.uniform(LeducHoldemGame()))
    with pytest.raises(PolicyFileError, match="shape"):
        equilibrium_score_range(KuhnPokerGame(), np.ones((3, 2)))
    with pytest.raises(InvalidParameterError, match="action_probabilities"):
        equilibrium_score_range(KuhnPokerGame(), "uniform")
    form = sequence_form(KuhnPokerGame())
    with pytest.raises(InvalidParameterError, match=r"shape \(12, 2\), received \(3,\)"):
        form.realization_plan(np.ones(3), 0)
