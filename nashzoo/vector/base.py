"""What every batched env shares: seeding, checking a step, and the step's arrays.

A batched env subclasses :class:`VectorEnvBase` and supplies its game arrays:
``_reset_games()`` deals every game, ``_step_games(...)`` applies the checked actions and
``_batch(...)`` builds the step's :class:`~nashzoo.vector.batch.Batch`. Where the env
keeps the step's legal mask in ``self._mask`` (``(num_envs, num_actions)``), the base
class flags masked-out actions (``_illegal``) and lists a game's legal actions for the
error (``_legal_actions``); an env that keeps them otherwise overrides both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.pcg import generator_row, sample_rows, seeded_states, write_back
from nashzoo.vector.batch import Batch, check_actions, check_only, seeds_for

__all__ = ["VectorEnvBase", "BulkDecisions", "MAX_NUM_ENVS"]

MAX_NUM_ENVS = 2**24
"""The most games one batched env holds (16,777,216): far beyond what a batch of self-play
needs, and each game keeps its own generator and arrays (a Limit Hold'em batch of this
size takes several GiB). Asking for more is an error naming this limit, never a bare
MemoryError."""


class VectorEnvBase:
    """``num_envs`` games stepped at once, each with its own NumPy PCG64 generator."""

    num_envs: int
    num_players: int
    num_actions: int

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs
        self._rng = seeded_states([None] * num_envs)
        self._started = False

    # -- supplied by each batched env ----------------------------------------------------
    def _reset_games(self) -> None:
        raise NotImplementedError

    _mask: np.ndarray  # (num_envs, num_actions) legal mask of the players to act

    def _illegal(self, actions: np.ndarray) -> np.ndarray:
        illegal: np.ndarray = self._mask[np.arange(self.num_envs), actions] == 0
        return illegal

    def _legal_actions(self, game: int) -> list[int]:
        legal: list[int] = np.flatnonzero(self._mask[game]).tolist()
        return legal

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        raise NotImplementedError

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        raise NotImplementedError

    # -- the API -------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int] | None = None) -> Batch:
        """Start a new episode in every game.

        Args:
            seed: an int seeds game ``i`` with ``seed + i`` (Gymnasium's convention); a
                sequence gives one seed per game; ``None`` keeps each game's stream
                (the first reset draws OS entropy).
        """
        if seed is not None or not self._started:
            self._rng = seeded_states(seeds_for(seed, self.num_envs))
        self._reset_games()
        self._started = True
        return self._batch(
            np.zeros((self.num_envs, self.num_players)), np.zeros(self.num_envs, dtype=bool)
        )

    def step(self, actions: Any, *, only: Any = None) -> Batch:
        """Apply one action per game (for the player to act in it).

        Args:
            actions: ``(num_envs,)`` integer actions.
            only: ``(num_envs,)`` booleans: step only these games; the others keep
                their state (their entries of ``actions`` are ignored, though still
                checked to lie in range). ``None`` steps all.

        Raises:
            ResetNeededError: before :meth:`reset`.
            InvalidActionError, ActionTypeError: not an integer array of shape
                ``(num_envs,)`` with values in ``[0, num_actions)``.
            IllegalActionError: an action is masked out (no game is changed).
        """
        actions = check_actions(actions, self.num_envs, self.num_actions, self._started)
        active = check_only(only, self.num_envs)
        bad = self._illegal(actions) & active
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"Action {int(actions[i])} is illegal in game {i} (and {int(bad.sum()) - 1} "
                f"other games); legal actions there are {self._legal_actions(i)}. No game "
                "was stepped."
            )
        rewards = np.empty((self.num_envs, self.num_players))
        terminated = np.empty(self.num_envs, dtype=bool)
        self._step_games(actions, active, rewards, terminated)
        return self._batch(rewards, terminated)


class BulkDecisions:
    """What the bulk self-play arrays a game declares (``FastPaths.decisions``) share:
    their games still live, and every draw from one ``np.random.Generator``'s own PCG64
    stream (taken before a numba call and given back after it), so that a learner using
    them plays the games that stepping the rules one state at a time plays with the same
    generator. A subclass adds ``deal``, ``views``, ``successors`` and ``apply``."""

    live: np.ndarray  # (num_games,) whether each game is still going

    def _row(self, rng: np.random.Generator) -> np.ndarray:
        """``rng``'s stream as a row numba draws from (:func:`generator_row`).

        Raises:
            InvalidParameterError: ``rng`` is not a PCG64 ``np.random.Generator``.
        """
        try:
            return generator_row(rng)
        except TypeError as exc:
            raise InvalidParameterError(f"{type(self).__name__} draws from {exc}") from None

    def live_games(self) -> np.ndarray:
        """The games not over, in order."""
        return np.flatnonzero(self.live)

    def sample(self, probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One action per row of ``probs``, drawn from ``rng`` row by row."""
        row = self._row(rng)
        out = np.empty(probs.shape[0], np.int64)
        sample_rows(np.ascontiguousarray(probs, np.float64), row, out)
        write_back(rng, row)
        return out
