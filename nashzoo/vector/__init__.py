"""Batched environments: many games stepped at once on arrays (numba).

``make_vector("nashzoo/leduc_holdem-v0", 1024, seed=0)`` returns a batched env whose
``reset``/``step`` take and return arrays for all games at once (:class:`Batch`), with
auto-reset and per-game seeds: game ``i`` seeded ``seed + i`` plays the episodes of the
single env ``reset(seed=seed + i)``.

==============================  ========================================
id                              batched env
==============================  ========================================
``nashzoo/kuhn_poker-v0``       :class:`TreeVectorEnv` (compiled tree)
``nashzoo/leduc_holdem-v0``     :class:`TreeVectorEnv` (compiled tree)
``nashzoo/limit_holdem-v0``     :class:`PokerVectorEnv` (poker rules in numba)
==============================  ========================================

Any game that compiles (:func:`nashzoo.tree.compile_game`) runs in a
:class:`TreeVectorEnv`; limit poker on the 52-card deck (hands of 5 to 7 cards) runs in a
:class:`PokerVectorEnv`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.vector.batch import Batch

__all__ = ["Batch", "PokerVectorEnv", "TreeVectorEnv", "make_vector", "vector_env"]


def make_vector(
    env_id: str, num_envs: int, *, seed: int | Sequence[int] | None = None, **params: Any
) -> Any:
    """A batched env of ``num_envs`` games of the registered ``env_id``.

    Raises:
        UnknownEnvError: ``env_id`` is not registered.
        GameTooLargeError: the game has no batched env and does not compile.
    """
    from nashzoo.envs.registration import make_game

    return vector_env(make_game(env_id, **params), num_envs, seed=seed)


def vector_env(game: Any, num_envs: int, *, seed: int | Sequence[int] | None = None) -> Any:
    """A batched env of ``num_envs`` games of ``game`` (a :class:`~nashzoo.games.Game`):
    a :class:`PokerVectorEnv` for limit poker on the 52-card deck, else a
    :class:`TreeVectorEnv`.

    Raises:
        GameTooLargeError: the game has no batched env and does not compile.
        InvalidParameterError: ``num_envs`` below 1, above ``MAX_NUM_ENVS`` (2**24), or
            more games than this machine's memory holds.
    """
    from nashzoo.games.poker.engine import PokerGame

    try:
        if isinstance(game, PokerGame) and game.standard_hands:
            from nashzoo.vector.poker_env import PokerVectorEnv

            return PokerVectorEnv(game, num_envs, seed=seed)
        from nashzoo.vector.tree_env import TreeVectorEnv

        return TreeVectorEnv(game, num_envs, seed=seed)
    except MemoryError:
        raise InvalidParameterError(
            f"num_envs={num_envs}: this machine's memory does not hold that many games of "
            f"{game!r}; ask for fewer."
        ) from None


def __getattr__(name: str) -> Any:
    if name == "TreeVectorEnv":  # numba loads on first use, not at import
        from nashzoo.vector.tree_env import TreeVectorEnv

        return TreeVectorEnv
    if name == "PokerVectorEnv":
        from nashzoo.vector.poker_env import PokerVectorEnv

        return PokerVectorEnv
    raise AttributeError(name)
