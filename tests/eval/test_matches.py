import pytest

import nashzoo
from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.eval import head_to_head
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.tree import TabularPolicy, compile_game

LEDUC = compile_game(LeducHoldemGame())


@pytest.fixture(scope="module")
def leduc_equilibrium():
    return CFRPlusSolver(LEDUC).iterate(1500).average_policy()


def test_exact_duplicate_value_against_uniform_matches_openspiel(leduc_equilibrium):
    # DESIGN.md (OpenSpiel, exact): a converged equilibrium wins +0.7072 chips/game on
    # Leduc against uniform random, averaged over both seats.
    res = head_to_head(LEDUC, leduc_equilibrium, TabularPolicy.uniform(LEDUC), exact=True)
    assert res.exact and res.stderr == 0.0
    assert res.mean == pytest.approx(0.7072, abs=2e-3)
    assert res.mean_mbb == pytest.approx(1000 * res.mean)


def test_sampled_duplicate_agrees_with_exact_within_its_interval(leduc_equilibrium):
    agent = TabularPolicyAgent(leduc_equilibrium, seed=0, name="cfr+")
    rand = nashzoo.RandomAgent(seed=1)
    exact = head_to_head(LEDUC, agent, rand, exact=True)
    sampled = head_to_head(LeducHoldemGame(), agent, rand, deals=1500, seed=3)
    assert sampled.ci95[0] <= exact.mean <= sampled.ci95[1]
    assert 0 < sampled.stderr < 0.1
    assert sampled.agent_a == "cfr+" and sampled.deals == 1500


def test_duplicate_seating_cancels_the_cards():
    # An agent against itself scores exactly zero on every duplicate deal pair.
    policy = TabularPolicy.uniform(KuhnPokerGame())
    agent = TabularPolicyAgent(policy, seed=5)
    res = head_to_head("nashzoo/kuhn_poker-v0", agent, agent, deals=200, seed=0)
    assert res.mean == 0.0 and res.stderr == 0.0


def test_seat_swap_negates_the_score():
    a, b = nashzoo.RandomAgent(), nashzoo.RandomAgent()
    ab = head_to_head(rock_paper_scissors(), a, b, deals=300, seed=9)
    ba = head_to_head(rock_paper_scissors(), b, a, deals=300, seed=9)
    assert ab.mean == pytest.approx(-ba.mean)
    assert ab.big_blind is None and ab.mean_mbb is None
