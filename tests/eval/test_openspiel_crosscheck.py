"""Same NashConv as OpenSpiel for the same policies (skips without open_spiel)."""

import numpy as np
import pytest

from nashzoo.eval import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game

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
    assert exploitability(ours).nash_conv == pytest.approx(expected, abs=1e-9)
