import numpy as np
import pytest

from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.games import CHANCE, TERMINAL, KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.tree import compile_game
from tests.conftest import count_tree


@pytest.mark.parametrize("game", [KuhnPokerGame(), KuhnPokerGame(8), LeducHoldemGame(),
                                  LeducHoldemGame(num_ranks=4, max_raises=1),
                                  rock_paper_scissors()], ids=repr)
def test_compiled_tree_agrees_with_the_rules(game):
    tree = compile_game(game)
    counts = count_tree(game)  # independent walk of the rules API
    assert tree.num_nodes == counts.histories
    assert tree.num_terminals == counts.terminals
    assert [len(tree.infosets_of(p)) for p in (0, 1)] == [len(s) for s in counts.infosets]
    # structure: parents precede children, children are contiguous, levels are slices
    kids = tree.num_children > 0
    assert (tree.first_child[kids] > np.flatnonzero(kids)).all()
    assert (tree.parent[1:] < np.arange(1, tree.num_nodes)).all()
    assert (np.diff(tree.depth) >= 0).all()
    for lev in range(tree.level_starts.size - 1):
        s, e = tree.level_starts[lev], tree.level_starts[lev + 1]
        assert (tree.depth[s:e] == lev).all()
    # chance probabilities sum to one below every chance node
    for n in np.flatnonzero(tree.player == CHANCE):
        fc, nc = tree.first_child[n], tree.num_children[n]
        assert tree.chance_prob[fc:fc + nc].sum() == pytest.approx(1.0)
    # utilities are zero-sum and live on terminals only
    assert np.allclose(tree.utility.sum(axis=1), 0.0)
    assert not tree.utility[tree.player != TERMINAL].any()
    assert tree.single_depth_infosets


def test_leduc_sequences_and_arrays_are_read_only():
    tree = compile_game(LeducHoldemGame())
    assert tree.summary()["infosets_per_player"] == [468, 468]
    with pytest.raises(ValueError):
        tree.player[0] = 3


def test_size_limit_names_the_size():
    with pytest.raises(GameTooLargeError, match="more than max_nodes=1,000 histories"):
        compile_game(LeducHoldemGame(), max_nodes=1000)
    with pytest.raises(InvalidParameterError, match="max_nodes"):
        compile_game(KuhnPokerGame(), max_nodes=0)
