"""One hand of a game in compiled rules, stepped a decision at a time: what an AEC env
steps when the rules have a numba kernel (:class:`~nashzoo.games.poker.kernel.PokerLane`).

A lane keeps its arrays in a few flat buffers, one per dtype, each a run of segments
(bounds in a small index array): numba unboxes every array argument of a call from
Python (about 40 ns each), so a decision costs one call of about ten arguments instead of
the batched kernels' twenty to thirty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from nashzoo.games.pcg import seeded_states

__all__ = ["Lane", "pack", "segment", "segment_row"]


def pack(parts: Sequence[Any], dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """``parts`` (arrays or sequences of numbers, flattened) end to end in one ``dtype``
    buffer, and the bounds of each: part ``s`` is ``buffer[bounds[s]:bounds[s + 1]]``."""
    sizes = [int(np.asarray(p).size) for p in parts]
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    buffer: np.ndarray = np.concatenate([np.asarray(p, dtype).ravel() for p in parts])
    return buffer, bounds


@njit(cache=True, inline="always")
def segment(buffer, bounds, s):  # type: ignore[no-untyped-def]
    """Part ``s`` of a buffer of :func:`pack` (in numba: a view)."""
    return buffer[bounds[s] : bounds[s + 1]]


@njit(cache=True, inline="always")
def segment_row(buffer, bounds, s):  # type: ignore[no-untyped-def]
    """Part ``s`` of a buffer of :func:`pack` as a one-row 2-d view (the batched
    kernels' arrays have a row per game; a lane is game 0)."""
    return buffer[bounds[s] : bounds[s + 1]].reshape((1, bounds[s + 1] - bounds[s]))


class Lane:
    """One hand in compiled rules (a subclass binds the rules).

    After :meth:`reset` and each :meth:`step`: ``player`` (the player to act, negative
    at the end), ``tensor`` and ``mask`` (the player to act's; zeros at the end),
    ``history`` (the public history: -1 for the hole cards and after its end,
    :attr:`history_length` events long) and, at the end, ``returns``. These arrays are
    the lane's own and change at the next step: copy what you keep.

    Seeded with ``s``, a lane deals the cards the rules' ``advance_chance`` deals from
    ``np.random.default_rng(s).random``.
    """

    player: int
    tensor: np.ndarray
    mask: np.ndarray
    history: np.ndarray
    returns: np.ndarray

    _derived: tuple[str, ...] = ()
    """Attributes :meth:`_bind` sets from the buffers (views into them, argument tuples):
    left out of a pickle or deep copy, which copies a view as an array of its own."""

    def __init__(self) -> None:
        self._rng = seeded_states([None])
        self.player = -1

    def _bind(self) -> None:
        """Set the :attr:`_derived` attributes from the buffers."""

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k not in self._derived}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._bind()

    def seed(self, seed: int | None) -> None:
        """Deal from ``np.random.default_rng(seed)``'s stream (``None``: OS entropy)."""
        self._rng[:] = seeded_states([seed])

    # set by a subclass: its compiled functions, and in _bind their arguments after the
    # first (the buffers), the cards dealt in order and how many of them are hole cards
    _reset_kernel: Any
    _step_kernel: Any
    _tensor_kernel: Any
    _reset_args: tuple[Any, ...]
    _step_args: tuple[Any, ...]
    _tensor_args: tuple[Any, ...]
    _cards: np.ndarray
    _hidden: int
    game: Any

    def reset(self) -> int:
        """Deal a new hand (the generator's stream goes on); returns the player to act."""
        self.player = player = int(self._reset_kernel(*self._reset_args))
        return player

    def step(self, action: int) -> int:
        """Apply ``action`` (legal: the caller checks ``mask``); returns the player to
        act, negative once the hand is over."""
        self.player = player = int(self._step_kernel(action, *self._step_args))
        return player

    @property
    def history_length(self) -> int:
        """Events so far in :attr:`history` (hole cards included)."""
        raise NotImplementedError

    def tensor_of(self, player: int) -> np.ndarray:
        """``player``'s information-state tensor now (a new array)."""
        out = np.empty(self.game.information_state_tensor_size, np.float32)
        self._tensor_kernel(player, *self._tensor_args, out)
        return out

    def hole_cards(self) -> list[int]:
        """Every player's hole cards in the order dealt (the history's hidden part)."""
        return [int(c) for c in self._cards[: self._hidden]]

    def full_history(self) -> list[int]:
        """Every event so far, hole cards included: the rules' ``State.history()``."""
        hole = self.hole_cards()
        public = self.history[len(hole) : self.history_length]
        return hole + [int(x) for x in public]
