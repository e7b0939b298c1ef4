import numpy as np
import pytest

from nashzoo.errors import GameOverError, IllegalActionError, InvalidParameterError
from nashzoo.games import CHANCE, TERMINAL, KuhnPokerGame
from nashzoo.games.kuhn import BET, PASS
from tests.conftest import count_tree, play


def test_kuhn_tree_size_matches_openspiel():
    # OpenSpiel kuhn_poker: 58 histories, 30 terminal, 6 information sets per player.
    counts = count_tree(KuhnPokerGame())
    assert counts.histories == 58
    assert counts.terminals == 30
    assert [len(s) for s in counts.infosets] == [6, 6]


@pytest.mark.parametrize("n", [3, 4, 5, 8, 13])
def test_n_card_tree_size(n):
    # n*(n-1) deals, each with 4 decision nodes and 5 terminals, plus 1 + n chance nodes;
    # each player has n cards x 2 decision points (Oliehoek 2005, 8-card poker: 16 each).
    counts = count_tree(KuhnPokerGame(n))
    deals = n * (n - 1)
    assert counts.histories == 1 + n + 9 * deals
    assert counts.terminals == 5 * deals
    assert [len(s) for s in counts.infosets] == [2 * n, 2 * n]


# (cards, betting) -> returns; J=0 < Q=1 < K=2.
@pytest.mark.parametrize(
    "cards, bets, expected",
    [
        ((2, 0), [PASS, PASS], [1, -1]),  # K vs J, check-check: K wins the antes
        ((0, 2), [PASS, PASS], [-1, 1]),
        ((0, 1), [BET, PASS], [1, -1]),  # bet, fold: bettor takes the ante
        ((0, 1), [BET, BET], [-2, 2]),  # bet, call: Q beats J for 2
        ((1, 0), [PASS, BET, PASS], [-1, 1]),  # check, bet, fold
        ((1, 0), [PASS, BET, BET], [2, -2]),  # check, bet, call
    ],
)
def test_kuhn_payoffs_of_hand_picked_deals(cards, bets, expected):
    state = play(KuhnPokerGame(), list(cards) + bets)
    assert state.is_terminal()
    assert state.returns() == expected


def test_kuhn_information_state_string_and_tensor():
    game = KuhnPokerGame()
    state = play(game, [1, 2, PASS, BET])
    assert state.current_player() == 0
    assert state.information_state_string(0) == "player=0 card=Q history=pb"
    assert state.information_state_string(1) == "player=1 card=K history=pb"
    tensor = state.information_state_tensor(0)
    # OpenSpiel layout: player one-hot, card one-hot, 2 bits per action.
    expected = np.zeros(11, np.float32)
    expected[[0, 2 + 1, 5 + 0, 7 + 1]] = 1
    np.testing.assert_array_equal(tensor, expected)
    assert tensor.dtype == np.float32


def test_kuhn_chance_and_errors():
    game = KuhnPokerGame()
    state = game.new_initial_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_action(1)
    assert state.chance_outcomes() == [(0, 0.5), (2, 0.5)]
    with pytest.raises(IllegalActionError, match="not legal for chance"):
        state.apply_action(1)  # the same card twice
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match="non-chance node"):
        state.chance_outcomes()
    state.apply_action(BET)
    state.apply_action(BET)
    assert state.current_player() == TERMINAL
    with pytest.raises(GameOverError, match="game is over"):
        state.apply_action(PASS)


def test_clone_is_independent():
    state = play(KuhnPokerGame(), [0, 1])
    other = state.clone()
    other.apply_action(BET)
    assert state.history() == [0, 1] and other.history() == [0, 1, BET]


@pytest.mark.parametrize("bad", [2, 0, -1, 3.0, "3", True])
def test_kuhn_bad_deck_size(bad):
    with pytest.raises(InvalidParameterError, match="deck_size"):
        KuhnPokerGame(bad)


def test_eight_card_names_and_equality():
    game = KuhnPokerGame(8)
    assert game.card_names == tuple("12345678")
    assert game == KuhnPokerGame(deck_size=8) and game != KuhnPokerGame()
    assert repr(game) == "KuhnPokerGame(deck_size=8)"
