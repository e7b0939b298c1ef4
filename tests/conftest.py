"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

from hypothesis import settings

from nashzoo.games.base import Game, State


@dataclass
class TreeCounts:
    histories: int = 0
    terminals: int = 0
    infosets: tuple[set, ...] = ()


def count_tree(game: Game) -> TreeCounts:
    """Count histories, terminal histories and information sets by full enumeration,
    walking the rules API directly (independent of nashzoo.tree)."""
    counts = TreeCounts(infosets=tuple(set() for _ in range(game.num_players)))
    stack: list[State] = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        counts.histories += 1
        if state.is_terminal():
            counts.terminals += 1
            continue
        player = state.current_player()
        if player >= 0:
            counts.infosets[player].add(state.information_state_string(player))
        for action in state.legal_actions():
            stack.append(state.child(action))
    return counts


def play(game: Game, actions: list[int]) -> State:
    """Apply ``actions`` (chance outcomes included) from the root."""
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state


# Property tests are derandomized by default, so a failure in CI reproduces exactly with
# the same command; HYPOTHESIS_PROFILE=explore draws fresh examples on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    # One torch thread on the 2-core CI machine (two threads made SB3 25x slower there).
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)
