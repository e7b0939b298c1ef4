"""Walk nashzoo's games and OpenSpiel's side by side, state by state (skips without pyspiel)."""

import numpy as np
import pytest

from nashzoo.games import KuhnPokerGame, LeducHoldemGame

pyspiel = pytest.importorskip("pyspiel")


def lockstep(ours, theirs, counter):
    counter[0] += 1
    assert ours.current_player() == theirs.current_player()
    if theirs.is_terminal():
        assert ours.returns() == pytest.approx(theirs.returns())
        return
    if theirs.is_chance_node():
        mine, ref = zip(*ours.chance_outcomes()), zip(*theirs.chance_outcomes())
        (a1, p1), (a2, p2) = mine, ref
        assert a1 == a2 and np.allclose(p1, p2)
    else:
        p = theirs.current_player()
        assert list(ours.legal_actions()) == theirs.legal_actions()
        np.testing.assert_array_equal(
            ours.information_state_tensor(p), np.asarray(theirs.information_state_tensor(p))
        )
    for action in theirs.legal_actions():
        lockstep(ours.child(action), theirs.child(action), counter)


@pytest.mark.parametrize(
    "ours, name",
    [(KuhnPokerGame(), "kuhn_poker"), (LeducHoldemGame(), "leduc_poker")],
)
def test_same_tree_as_openspiel(ours, name):
    counter = [0]
    lockstep(ours.new_initial_state(), pyspiel.load_game(name).new_initial_state(), counter)
    assert counter[0] == {"kuhn_poker": 58, "leduc_poker": 9457}[name]
