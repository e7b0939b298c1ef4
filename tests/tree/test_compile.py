import numpy as np
import pytest

from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.games import (
    CHANCE,
    TERMINAL,
    KuhnPokerGame,
    LeducHoldemGame,
    MatrixGame,
    rock_paper_scissors,
)
from nashzoo.games.leduc import four_bet_eight_card_poker, two_round_six_card_poker
from nashzoo.tree import compile_game
from tests.conftest import count_tree


@pytest.mark.parametrize(
    "game",
    [
        KuhnPokerGame(),
        KuhnPokerGame(8),
        LeducHoldemGame(),
        LeducHoldemGame(num_ranks=4, max_raises=1),
        rock_paper_scissors(),
    ],
    ids=repr,
)
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
        assert tree.chance_prob[fc : fc + nc].sum() == pytest.approx(1.0)
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
    # Refused at once from the parameters: the message names the exact size (9,457).
    with pytest.raises(GameTooLargeError, match="has 9,457 histories, more than max_nodes=1,000"):
        compile_game(LeducHoldemGame(), max_nodes=1000)
    with pytest.raises(InvalidParameterError, match="max_nodes"):
        compile_game(KuhnPokerGame(), max_nodes=0)


class UncountedLeduc(LeducHoldemGame):
    """A game that cannot count its histories: the limit is enforced while enumerating."""

    def count_histories(self):
        return None


def test_size_limit_while_enumerating_games_that_cannot_count():
    with pytest.raises(GameTooLargeError, match="more than max_nodes=1,000 histories"):
        compile_game(UncountedLeduc(), max_nodes=1000)


@pytest.mark.parametrize(
    "game",
    [
        KuhnPokerGame(),
        KuhnPokerGame(8),
        LeducHoldemGame(),
        two_round_six_card_poker(),
        four_bet_eight_card_poker(),
        LeducHoldemGame(num_ranks=4, num_rounds=3, max_raises=1),
        LeducHoldemGame(max_raises=0, num_rounds=1),
        rock_paper_scissors(),
        MatrixGame([[1, 2, 3], [4, 5, 6]], [[0, 0, 0], [1, 1, 1]]),
    ],
    ids=repr,
)
def test_count_histories_equals_the_enumerated_tree(game):
    assert game.count_histories() == compile_game(game).num_nodes


class NeverEnumerated(LeducHoldemGame):
    def new_initial_state(self):
        raise AssertionError("the tree was enumerated")


def test_a_huge_game_is_refused_before_any_work():
    # Issue 11: a policy file naming a huge game took 39 s before GameTooLargeError.
    huge = NeverEnumerated(num_ranks=13, num_suits=4, max_raises=10, num_rounds=6)
    with pytest.raises(GameTooLargeError, match="far too many to enumerate; measure it"):
        compile_game(huge)
