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
==============================  ========================================

Any game that compiles (:func:`nashzoo.tree.compile_game`) runs in a
:class:`TreeVectorEnv`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nashzoo.vector.batch import Batch

__all__ = ["Batch", "TreeVectorEnv", "make_vector"]


def make_vector(
    env_id: str, num_envs: int, *, seed: int | Sequence[int] | None = None, **params: Any
) -> Any:
    """A batched env of ``num_envs`` games of the registered ``env_id``.

    Raises:
        UnknownEnvError: ``env_id`` is not registered.
        GameTooLargeError: the game has no batched env and does not compile.
    """
    from nashzoo.envs.registration import make_game
    from nashzoo.vector.tree_env import TreeVectorEnv

    return TreeVectorEnv(make_game(env_id, **params), num_envs, seed=seed)


def __getattr__(name: str) -> Any:
    if name == "TreeVectorEnv":  # numba loads on first use, not at import
        from nashzoo.vector.tree_env import TreeVectorEnv

        return TreeVectorEnv
    raise AttributeError(name)
