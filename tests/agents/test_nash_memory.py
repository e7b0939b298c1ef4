"""Parallel Nash Memory and realization-weight mixing (Oliehoek 2005, chapter 7)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nashzoo.agents.cfr import TabularPolicyAgent, make_solver
from nashzoo.agents.nash_memory import (
    ParallelNashMemory,
    behavioural_mixture,
    mix_policies,
)
from nashzoo.errors import InvalidParameterError
from nashzoo.eval import exploitability
from nashzoo.eval.exploitability import policy_values
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game, solve_zero_sum
from tests.rounding import lp_rounding, tree_rounding

KUHN = compile_game(KuhnPokerGame())
EIGHT = compile_game(KuhnPokerGame(8))


def gambler_policy(bets):
    """Player 0's pure policy betting at (J, Q, K, Jpb, Qpb, Kpb) as given."""
    probs = KUHN.legal_mask / 2.0
    for (card, hist), bet in zip([(c, h) for h in ("", "pb") for c in "JQK"], bets):
        row = KUHN.infoset_index[f"player=0 card={card} history={hist}"]
        probs[row] = [1 - bet, bet]
    return probs


def test_thesis_three_card_conversion_example():
    # Oliehoek (2005), section 7.3: weights 0.2, 0.3, 0.5 over three gambler policies.
    policies = [
        gambler_policy(b) for b in [(1, 1, 1, 1, 1, 1), (1, 0, 1, 0, 1, 1), (0, 0, 1, 0, 0, 1)]
    ]
    probs = behavioural_mixture(KUHN, 0, policies, [0.2, 0.3, 0.5])
    bet = {
        key: probs[KUHN.infoset_index[f"player=0 card={key[0]} history={key[1:]}"], 1]
        for key in ("Q", "Qpb", "Jpb")
    }
    assert bet["Q"] == pytest.approx(0.2)
    assert bet["Qpb"] == pytest.approx(0.375)
    assert bet["Jpb"] == pytest.approx(0.0)


def random_pure(tree, rng, player):
    probs = tree.uniform_probs()
    for row in tree.infosets_of(player):
        legal = np.flatnonzero(tree.legal_mask[row])
        probs[row] = 0.0
        probs[row, rng.choice(legal)] = 1.0
    return probs


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), leduc=st.booleans())
def test_converted_policy_plays_like_the_mixture(seed, k, leduc):
    tree = compile_game(LeducHoldemGame()) if leduc else EIGHT
    rng = np.random.default_rng(seed)
    policies = [random_pure(tree, rng, 0) for _ in range(k)]
    weights = rng.dirichlet(np.ones(k))
    opponent = rng.dirichlet(np.ones(tree.num_actions), size=tree.num_infosets) * tree.legal_mask
    opponent /= opponent.sum(axis=1, keepdims=True)
    seat0 = (tree.infoset_player == 0)[:, None]
    mixture_value = sum(
        w * policy_values(tree, np.where(seat0, p, opponent))[0] for w, p in zip(weights, policies)
    )
    converted = behavioural_mixture(tree, 0, policies, weights, out=opponent.copy())
    # Two routes to one expectation: the mixture's value is k tree expectations weighted
    # (within one tree_rounding and k u U); the converted policy's probabilities are
    # ratios of sums of k weights (relative error (2k + 2) u, below the tree bound's
    # per-level factor), so its value is within two tree_roundings: 4 bounds the sum.
    tol = 4 * tree_rounding(tree)
    assert policy_values(tree, converted)[0] == pytest.approx(mixture_value, abs=tol)


def test_lp_step_on_a_known_matrix_game():
    # Solved by hand from the indifference conditions: 2 x1 - x2 = -x1 + x2 gives
    # x = (2/5, 3/5), likewise y = (2/5, 3/5), value 2(2/5) - 3/5 = 1/5.
    a = np.array([[2.0, -1.0], [-1.0, 1.0]])
    # HiGHS certifies its answer to its feasibility tolerance (tests/rounding.py).
    x, y, v = solve_zero_sum(a)
    np.testing.assert_allclose(x, [2 / 5, 3 / 5], atol=lp_rounding(a))
    np.testing.assert_allclose(y, [2 / 5, 3 / 5], atol=lp_rounding(a))
    assert v == pytest.approx(1 / 5, abs=lp_rounding(a))
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0.0]])
    x, y, v = solve_zero_sum(rps)
    np.testing.assert_allclose(x, [1 / 3] * 3, atol=lp_rounding(rps))
    assert v == pytest.approx(0.0, abs=lp_rounding(rps))


@pytest.mark.parametrize(
    "tree, value, max_iterations",
    [(KUHN, -1 / 18, 15), (EIGHT, -1 / 16, 15)],
    ids=["kuhn", "8-card"],
)
def test_pnm_reaches_the_game_value(tree, value, max_iterations):
    # Oliehoek (2005): on 8-card poker the worst-case payoff reached the Nash level at
    # iteration 12; Kuhn's value is -1/18, 8-card poker's -1/16 for the gambler.
    pnm = ParallelNashMemory(tree).iterate(50)
    assert pnm.converged and len(pnm.history) <= max_iterations
    # The values and the mixture come from HiGHS's LPs over payoffs of at most 2 chips:
    # certified within lp_rounding, and the mixture's best-response gain with them.
    tol = lp_rounding(tree.utility) + 4 * tree_rounding(tree)
    assert pnm.history[-1].worst_case[0] == pytest.approx(value, abs=tol)
    assert pnm.value == pytest.approx(value, abs=tol)
    assert exploitability(pnm.average_policy()).exploitability < tol
    final = pnm.history[-1]
    assert final.support_sizes[0] < final.policies[0]  # some policies sit in memory


def test_security_set_grows():
    # Ficici & Pollack's monotonicity: at every iteration the mixture earns at least the
    # restricted value against every policy stored so far, and nothing is ever dropped.
    pnm = ParallelNashMemory(EIGHT)
    seen_sizes = []
    for _ in range(20):
        if pnm.converged:
            break
        pnm.iterate(1)
        profile = pnm.mixture_profile()
        seat0 = (EIGHT.infoset_player == 0)[:, None]
        # pnm.value is an LP's: certified within lp_rounding (tests/rounding.py)
        tol = lp_rounding(EIGHT.utility) + 2 * tree_rounding(EIGHT)
        for opponent in pnm.policies[1]:
            assert policy_values(EIGHT, np.where(seat0, profile, opponent))[0] >= pnm.value - tol
        for mine in pnm.policies[0]:
            assert policy_values(EIGHT, np.where(seat0, mine, profile))[0] <= pnm.value + tol
        seen_sizes.append(len(pnm.policies[0]) + len(pnm.policies[1]))
    assert seen_sizes == sorted(seen_sizes)


def test_pnm_is_a_solver_and_an_agent():
    pnm = make_solver("nash-memory", KUHN).iterate(30)
    agent = TabularPolicyAgent(pnm.average_policy(), name="pnm")
    # an LP's mixture: exact to HiGHS's tolerance (see test_pnm_reaches_the_game_value)
    assert exploitability(agent, KUHN).exploitability < lp_rounding(
        KUHN.utility
    ) + 4 * tree_rounding(KUHN)
    assert pnm.iteration == len(pnm.history)  # stops itself once certified


def test_bad_inputs():
    pols = [gambler_policy((1, 1, 1, 1, 1, 1)), gambler_policy((0, 0, 0, 0, 0, 0))]
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        behavioural_mixture(KUHN, 0, pols, [0.5, 0.6])
    with pytest.raises(InvalidParameterError, match="one weight per policy"):
        behavioural_mixture(KUHN, 0, pols, [1.0])
    leduc_policy = TabularPolicy.uniform(LeducHoldemGame())
    with pytest.raises(InvalidParameterError, match="cannot be mixed"):
        behavioural_mixture(KUHN, 0, [leduc_policy], [1.0])
    with pytest.raises(InvalidParameterError, match="shape"):
        ParallelNashMemory(KUHN, initial_policies=[[np.zeros((3, 2))], [pols[0]]])
    with pytest.raises(InvalidParameterError, match="tolerance"):
        ParallelNashMemory(KUHN, tolerance=-1)
    assert mix_policies(KUHN, [(pols, [0.5, 0.5]), (pols, [1.0, 0.0])]).probs.shape == (12, 2)


def test_pluggable_heuristic_and_stall():
    # An approximate heuristic: the best response to a blurred opponent (10% uniform),
    # as a sampled or learned best response would be. It fits the same interface; when it
    # finds nothing that beats the current mixtures, PNM stops and says it stalled.
    from nashzoo.agents.nash_memory import best_response_heuristic

    uniform = EIGHT.uniform_probs()

    def blurred(pnm, player, profile):
        return best_response_heuristic(pnm, player, 0.9 * profile + 0.1 * uniform)

    pnm = ParallelNashMemory(EIGHT, heuristic=blurred).iterate(100)
    assert pnm.converged or pnm.stalled
    assert len(pnm.history) < 100
    # whatever it stopped on, the mixture is far better than where it started
    assert pnm.history[-1].worst_case[0] > pnm.history[0].worst_case[0]

    calls = []

    def lazy(pnm, player, profile):
        calls.append(player)
        return [] if len(pnm.history) >= 2 else best_response_heuristic(pnm, player, profile)

    stalled = ParallelNashMemory(EIGHT, heuristic=lazy).iterate(10)
    assert stalled.stalled and not stalled.converged and len(stalled.history) == 3
    assert stalled.iteration == 3 and calls[:2] == [0, 1]
