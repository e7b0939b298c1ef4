"""Same NashConv as OpenSpiel for the same policies (skips without open_spiel)."""

import numpy as np
import pytest

from nashzoo.eval import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game
from tests.rounding import tree_rounding

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability as os_exploitability


def key_map(ours, theirs, out):
    """Walk both trees together: our information-state key -> OpenSpiel's."""
    if theirs.is_terminal():
        return
    p = theirs.current_player()
    if p >= 0:
        out[ours.information_state_string(p)] = theirs.information_state_string(p)
    for a in theirs.legal_actions():
        key_map(ours.child(a), theirs.child(a), out)


@pytest.mark.parametrize(
    "game, name", [(KuhnPokerGame(), "kuhn_poker"), (LeducHoldemGame(), "leduc_poker")]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_same_nash_conv_as_openspiel(game, name, seed):
    tree = compile_game(game)
    rng = np.random.default_rng(seed)
    probs = rng.random(tree.legal_mask.shape) * tree.legal_mask
    ours = TabularPolicy(tree, probs / probs.sum(axis=1, keepdims=True))
    os_game = pyspiel.load_game(name)
    mapping = {}
    key_map(game.new_initial_state(), os_game.new_initial_state(), mapping)
    theirs = os_policy.TabularPolicy(os_game)
    for key, their_key in mapping.items():
        theirs.policy_for_key(their_key)[:] = ours.action_probabilities(key)
    expected = os_exploitability.nash_conv(os_game, theirs)
    # four tree expectations on each side, summed in different orders (tests/rounding.py)
    assert exploitability(ours).nash_conv == pytest.approx(expected, abs=8 * tree_rounding(tree))


def openspiel_states(ours, theirs, out):
    """Our information-state key -> one OpenSpiel state of that information set."""
    if theirs.is_terminal():
        return
    p = theirs.current_player()
    if p >= 0:
        out.setdefault(ours.information_state_string(p), theirs.clone())
    for a in theirs.legal_actions():
        openspiel_states(ours.child(a), theirs.child(a), out)


@pytest.mark.parametrize("solver", ["cfr", "cfr+"])
@pytest.mark.parametrize(
    "game, name", [(KuhnPokerGame(), "kuhn_poker"), (LeducHoldemGame(), "leduc_poker")]
)
def test_cfr_average_policies_equal_openspiels(solver, game, name):
    # Issue 10: our CFR and CFR+ reproduce OpenSpiel's C++ solvers after the same
    # iterations (Kuhn's CFR+ too, since RM+ treats floating-point noise around a tied
    # regret as zero, as OpenSpiel's summation order happens to).
    from nashzoo.agents.cfr import make_solver

    os_game = pyspiel.load_game(name)
    states = {}
    openspiel_states(game.new_initial_state(), os_game.new_initial_state(), states)
    theirs = (pyspiel.CFRSolver if solver == "cfr" else pyspiel.CFRPlusSolver)(os_game)
    for _ in range(100):
        theirs.evaluate_and_update_policy()
    their_policy = theirs.average_policy()

    def distance(policy):
        worst = 0.0
        for key, state in states.items():
            expected = their_policy.action_probabilities(state)
            row = policy.action_probabilities(key)
            worst = max(worst, max(abs(row[a] - expected.get(a, 0.0)) for a in range(row.size)))
        return worst

    ours = make_solver(solver, game).iterate(100)
    assert len(states) == ours.tree.num_infosets
    # The two sum regrets in different orders, and regret matching amplifies the
    # rounding where a positive regret sum is small (it divides by it): measured 5e-14
    # (CFR) and 2.2e-10 (CFR+ on Leduc) after 100 iterations, which another CPU's
    # instructions can move. A difference in the algorithm moves the average by far more:
    # one iteration fewer already moves it by 2e-3 or more (asserted below), so 1e-6
    # separates the two by three orders of magnitude either way.
    tol = 1e-6
    assert distance(ours.average_policy()) < tol
    assert distance(make_solver(solver, game).iterate(99).average_policy()) > 1000 * tol
