import numpy as np
import pytest

from nashzoo.errors import InvalidParameterError
from nashzoo.games import (
    TERMINAL,
    MatrixGame,
    matching_pennies,
    rock_paper_scissors,
    weighted_rock_paper_scissors,
)
from tests.conftest import count_tree, play


def test_rps_payoffs_and_hidden_move():
    game = rock_paper_scissors()
    state = play(game, [0])
    # player 1 cannot see player 0's move: same information state after any row.
    assert {play(game, [a]).information_state_string(1) for a in range(3)} == {"player=1"}
    state.apply_action(1)
    assert state.current_player() == TERMINAL
    assert state.returns() == [-1.0, 1.0]  # rock loses to paper
    assert state.information_state_string(0) == "player=0 played=Rock"


@pytest.mark.parametrize("row, col, value", [(0, 2, 2), (1, 2, -2), (0, 1, -1), (2, 2, 0)])
def test_weighted_rps_payoffs(row, col, value):
    assert play(weighted_rock_paper_scissors(), [row, col]).returns() == [value, -value]


def test_matrix_tree_and_general_sum():
    counts = count_tree(matching_pennies())
    assert (counts.histories, counts.terminals) == (1 + 2 + 4, 4)
    game = MatrixGame([[3, 0], [5, 1]], [[3, 5], [0, 1]], name="prisoners_dilemma")
    assert not game.zero_sum
    assert play(game, [1, 0]).returns() == [5.0, 0.0]
    assert game.num_distinct_actions == 2


def test_rectangular_matrix_legal_actions():
    game = MatrixGame(np.arange(6).reshape(2, 3))
    state = game.new_initial_state()
    assert list(state.legal_actions()) == [0, 1]
    state.apply_action(1)
    assert list(state.legal_actions()) == [0, 1, 2]
    assert game.col_action_names == ("b0", "b1", "b2")


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([1, 2, 3],), {}, "2-D"),
        (([[1, 2]], [[1, 2, 3]]), {}, "must match"),
        (([[np.nan]],), {}, "NaN"),
        (([["a"]],), {}, "array of numbers"),
        (([[0, 1], [1, 0]],), {"row_action_names": ["x"]}, "needs 2 names"),
    ],
)
def test_matrix_bad_parameters(args, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        MatrixGame(*args, **kwargs)


def test_action_names_per_player_when_the_action_sets_differ():
    # Issue 10: MatrixGame.action_name named the wrong actions for non-square games.
    game = MatrixGame(
        [[1, 0, 2], [0, 1, 0]], row_action_names=("Up", "Down"), col_action_names=("L", "C", "R")
    )
    assert [game.action_name(a, 0) for a in range(2)] == ["Up", "Down"]
    assert [game.action_name(a, 1) for a in range(3)] == ["L", "C", "R"]
    assert game.action_name(1) == "Down (row) / C (column)"
    assert game.action_name(2) == "R (column)"
    state = game.new_initial_state()
    assert state.action_to_string(1) == "Down"
    state.apply_action(0)
    assert state.action_to_string(2) == "R"
