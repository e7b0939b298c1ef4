"""Observations built from the rules, cached by information-state string.

The string records every public action, so it fixes the tensor and the action mask
(:func:`nashzoo.testing.check_env` verifies the bijection on every registered env); both
the AEC env and the match engine of :mod:`nashzoo.eval` serve observations from here.
"""

from __future__ import annotations

import numpy as np

from nashzoo.games.base import Game, State

__all__ = ["ObservationCache"]


class ObservationCache:
    """``(tensor, mask)`` per information-state string, built on first use.

    The cached arrays are read-only: callers that hand observations to users copy them.

    Args:
        game: the rules.
        max_size: most entries kept (later ones are built on every call).
    """

    def __init__(self, game: Game, max_size: int = 200_000) -> None:
        self.game = game
        self.max_size = max_size
        self._cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def get(self, state: State, player: int, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Observation of ``player`` whose information-state string is ``key``."""
        hit = self._cache.get(key)
        if hit is None:
            hit = self._build(state, player)
            if len(self._cache) < self.max_size:
                self._cache[key] = hit
        return hit

    def _build(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray]:
        game = self.game
        tensor = np.zeros(game.information_state_tensor_size, dtype=np.float32)
        tensor[state._information_state_indices(player)] = 1.0
        mask = np.zeros(game.num_distinct_actions, dtype=np.int8)
        if state.current_player() == player:
            mask[list(state.legal_actions())] = 1
        elif game.simultaneous:
            mask[list(state.pending_legal_actions(player))] = 1
        tensor.setflags(write=False)
        mask.setflags(write=False)
        return tensor, mask
