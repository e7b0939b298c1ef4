"""An abstract policy's agent on random hands: a legal distribution at every decision."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


def check_plays(agent: Any, game: Any, hands: int, seed: int, *, tensors: bool = False) -> int:
    """Deal ``hands`` random hands of ``game`` (random actions for both seats) and check
    that ``agent`` gives a distribution over the legal actions at every decision, and
    with ``tensors`` the same one from the observation tensor alone; returns the number
    of decisions checked."""
    rng = np.random.default_rng(seed)
    decisions = 0
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice(state.legal_actions())))
                continue
            p = state.current_player()
            mask = state.legal_actions_mask()
            tensor = state.information_state_tensor(p) if tensors else None
            obs = {"observation": tensor, "action_mask": mask}
            probs = agent.action_probabilities(
                obs, {"info_state": state.information_state_string(p)}
            )
            assert probs.sum() == pytest.approx(1.0) and np.all(probs[mask == 0] == 0)
            if tensors:  # the tensor names the same state as the string
                assert np.allclose(agent.action_probabilities(obs, {}), probs)
            decisions += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    return decisions
