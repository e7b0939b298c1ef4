"""Batched play of any game, stepped in Python: the batched env of games that neither
compile nor have a numba env (the fighting game's default preset), behind the same
:class:`~nashzoo.vector.batch.Batch` API as :class:`~nashzoo.vector.TreeVectorEnv` and
:class:`~nashzoo.vector.PokerVectorEnv`. NFSP's self-play, :class:`~nashzoo.wrappers.
SeatVectorEnv` and the SB3 vec env all reach such games through it.

Each game is a :class:`~nashzoo.games.base.State` with its own ``np.random.Generator``:
game ``i`` seeded ``seed + i`` deals the chance events of the AEC env
``reset(seed=seed + i)`` (the same generator drawn in the same order), so for the same
actions it plays the same episodes. Observations come from one shared
:class:`~nashzoo.games.observation.ObservationCache`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nashzoo.games.base import TERMINAL, Game, State
from nashzoo.games.observation import ObservationCache
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch, seeds_for

__all__ = ["StateVectorEnv"]


class StateVectorEnv(VectorEnvBase):
    """``num_envs`` games of any :class:`~nashzoo.games.Game`, stepped in Python.

    Args:
        game: the rules.
        num_envs: games in the batch.
        seed: as :meth:`reset` (``None``: OS entropy).

    Raises:
        InvalidParameterError: ``num_envs`` below 1 or above ``MAX_NUM_ENVS`` (2**24).
    """

    def __init__(self, game: Game, num_envs: int, *, seed: int | Sequence[int] | None = None):
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        self.game = game
        self.num_players = game.num_players
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        self._cache = ObservationCache(game)
        self._generators: list[np.random.Generator] = []
        self._states: list[State] = []
        self._keys: list[str] = [""] * num_envs
        self._observation = np.zeros((num_envs, self.observation_size), np.float32)
        self._mask = np.zeros((num_envs, self.num_actions), np.int8)
        self._to_act = np.zeros(num_envs, np.int64)
        if seed is not None:
            self.reset(seed=seed)

    def reset(self, *, seed: int | Sequence[int] | None = None) -> Batch:
        """Start a new episode in every game (``seed`` as in every batched env: game ``i``
        gets ``seed + i``; ``None`` keeps each game's stream)."""
        if seed is not None or not self._started:
            self._generators = [np.random.default_rng(s) for s in seeds_for(seed, self.num_envs)]
        self._reset_games()
        self._started = True
        return self._batch(
            np.zeros((self.num_envs, self.num_players)), np.zeros(self.num_envs, dtype=bool)
        )

    # -- the games -----------------------------------------------------------------------
    def _new_game(self, i: int) -> State:
        state = self.game.new_initial_state()
        state.advance_chance(self._generators[i].random)
        return state

    def _show(self, i: int) -> None:
        """Game ``i``'s player to act and that player's view, into the step's arrays."""
        state = self._states[i]
        p = state.current_player()
        key = state.information_state_string_unchecked(p)
        view = self._cache.cached(key) or self._cache.get(state, p, key)
        self._keys[i] = key
        self._observation[i] = view.tensor
        self._mask[i] = view.mask
        self._to_act[i] = p

    def _reset_games(self) -> None:
        self._states = [self._new_game(i) for i in range(self.num_envs)]
        for i in range(self.num_envs):
            self._show(i)

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        rewards.fill(0.0)
        terminated.fill(False)
        for i in np.flatnonzero(active).tolist():
            state = self._states[i]
            state.apply_unchecked(int(actions[i]))
            state.advance_chance(self._generators[i].random)
            if state.current_player() == TERMINAL:
                rewards[i] = state.returns()
                terminated[i] = True
                self._states[i] = self._new_game(i)
            self._show(i)

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        return Batch(
            observation=self._observation.copy(),
            action_mask=self._mask.copy(),
            player=self._to_act.copy(),
            rewards=rewards,
            terminated=terminated,
        )

    def information_state_strings(self) -> list[str]:
        """The information-state string of the player to act in each game."""
        return list(self._keys)
