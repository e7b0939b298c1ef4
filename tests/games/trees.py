"""Walking a game tree in the tests."""

from __future__ import annotations


def walk(state):
    """Histories below ``state`` (itself included) and the longest run of player actions."""
    total, longest = 1, 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        n, depth = walk(child)
        total += n
        longest = max(longest, depth + (state.current_player() >= 0))
    return total, longest
