"""What a batched env returns, and the checks every batched env shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from nashzoo.errors import (
    ActionTypeError,
    InvalidActionError,
    InvalidParameterError,
    ResetNeededError,
)

__all__ = ["Batch", "check_actions", "check_only", "seeds_for"]


class Batch(NamedTuple):
    """One step of ``N`` games (fresh arrays, safe to keep).

    Attributes:
        observation: ``(N, obs)`` ``float32`` information-state tensors of the player to
            act in each game (after an episode ended: the first decision of the next).
        action_mask: ``(N, actions)`` ``int8`` legal actions of that player.
        player: ``(N,)`` the player to act.
        rewards: ``(N, players)`` returns of the episode that ended at this step, zeros
            where none ended.
        terminated: ``(N,)`` whether an episode ended at this step (the game has already
            started its next one).
    """

    observation: np.ndarray
    action_mask: np.ndarray
    player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray


def seeds_for(seed: int | Sequence[int] | None, n: int) -> list[int | None]:
    """One seed per game: ``seed + i`` for an int, the sequence itself, or ``None`` for each.

    Raises:
        InvalidParameterError: a negative or non-integer seed, or a sequence of another
            length.
    """
    if seed is None:
        return [None] * n
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise InvalidParameterError(f"Seeds are non-negative integers, received {seed}.")
        return [int(seed) + i for i in range(n)]
    if isinstance(seed, (list, tuple, np.ndarray)):
        seeds = [int(s) for s in seed]
        if len(seeds) != n or min(seeds) < 0:
            raise InvalidParameterError(
                f"Expected {n} non-negative seeds (one per game), received {len(seeds)}."
            )
        return list(seeds)
    raise InvalidParameterError(
        f"Expected an int, a sequence of {n} ints or None as seed, received {seed!r}."
    )


def check_actions(actions: Any, n: int, num_actions: int, started: bool) -> np.ndarray:
    """The actions as an ``int64`` array of shape ``(n,)``, or a clear error."""
    if not started:
        raise ResetNeededError("Call reset() before step().")
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":
        raise ActionTypeError(
            f"Expected an integer array of {n} actions, received dtype {array.dtype}."
        )
    if array.shape != (n,):
        raise InvalidActionError(
            f"Expected one action per game, shape ({n},), received shape {array.shape}."
        )
    if n and (array.min() < 0 or array.max() >= num_actions):
        raise InvalidActionError(
            f"Actions must lie in [0, {num_actions}), received values from {array.min()} "
            f"to {array.max()}."
        )
    return array.astype(np.int64, copy=False)


def check_only(only: Any, n: int) -> np.ndarray:
    """The games to step: ``(n,)`` booleans (``None``: all of them), or a clear error."""
    if only is None:
        return np.ones(n, dtype=bool)
    array = np.asarray(only)
    if array.dtype != bool or array.shape != (n,):
        raise InvalidParameterError(
            f"`only` expects a boolean array of shape ({n},), received dtype {array.dtype} "
            f"and shape {array.shape}."
        )
    return array
