"""Hypothesis property tests: random play keeps the rules' invariants."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nashzoo.games import KuhnPokerGame, LeducHoldemGame, weighted_rock_paper_scissors

GAMES = [
    KuhnPokerGame(),
    KuhnPokerGame(8),
    LeducHoldemGame(),
    LeducHoldemGame(num_ranks=4, num_suits=3, max_raises=3, num_rounds=3),
    weighted_rock_paper_scissors(),
]


@settings(max_examples=300, deadline=None)
@given(
    game_index=st.integers(0, len(GAMES) - 1),
    choices=st.lists(st.integers(0, 10**6), min_size=40, max_size=40),
)
def test_random_play_invariants(game_index, choices):
    game = GAMES[game_index]
    state = game.new_initial_state()
    for choice in choices:
        if state.is_terminal():
            break
        player = state.current_player()
        legal = list(state.legal_actions())
        assert legal == sorted(set(legal)) and legal
        if state.is_chance_node():
            probs = [p for _, p in state.chance_outcomes()]
            # each a rounded ratio, summed: within 2 u per term of 1 (u = 2**-53)
            assert abs(sum(probs) - 1.0) <= 2 * len(probs) * 2.0**-53
        else:
            mask = state.legal_actions_mask()
            assert np.flatnonzero(mask).tolist() == legal
            tensor = state.information_state_tensor(player)
            assert tensor.shape == (game.information_state_tensor_size,)
            assert set(np.unique(tensor)) <= {0.0, 1.0}
            # The player's own view and a clone agree.
            clone = state.clone()
            assert clone.information_state_string(player) == state.information_state_string(player)
        state.apply_action(legal[choice % len(legal)])
    if state.is_terminal():
        returns = state.returns()
        # zero-sum: the returns are chip counts (integers, exact in float64) or, in the
        # matrix games, one payoff and its negation (negation is exact)
        assert sum(returns) == 0.0
        assert game.min_utility <= min(returns) and max(returns) <= game.max_utility
