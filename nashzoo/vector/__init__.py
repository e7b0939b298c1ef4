"""Batched environments: many games stepped at once on arrays (numba).

``make_vector("nashzoo/leduc_holdem-v0", 1024, seed=0)`` returns a batched env whose
``reset``/``step`` take and return arrays for all games at once (:class:`Batch`), with
auto-reset and per-game seeds: game ``i`` seeded ``seed + i`` plays the episodes of the
single env ``reset(seed=seed + i)``.

======================================  ========================================
id                                      batched env
======================================  ========================================
``nashzoo/kuhn_poker-v0``               :class:`TreeVectorEnv` (compiled tree)
``nashzoo/leduc_holdem-v0``             :class:`TreeVectorEnv` (compiled tree)
``nashzoo/limit_holdem-v0``, 2-6 seats  :class:`PokerVectorEnv` (poker rules in numba)
``nashzoo/no_limit_holdem-v0``          :class:`PokerVectorEnv` (poker rules in numba)
``nashzoo/fighting_cards-v0``           :class:`FightingVectorEnv` (fighting rules in numba)
``nashzoo/liars_dice-v0``               :class:`TreeVectorEnv` (one die each), else
                                        :class:`StateVectorEnv`
``nashzoo/goofspiel-v0``                :class:`TreeVectorEnv` (up to 5 cards), else
                                        :class:`StateVectorEnv`
======================================  ========================================

Any game that compiles (:func:`nashzoo.tree.compile_game`) runs in a
:class:`TreeVectorEnv`; poker on the 52-card deck (hands of 5 to 7 cards), limit or
no-limit, 2 to 10 seats, in a :class:`PokerVectorEnv`; a fighting-card game too big to
compile in a
:class:`FightingVectorEnv`; every other game runs in a :class:`StateVectorEnv`, which
steps the rules' ``State`` objects in Python behind the same API (slower, but every
batched consumer, NFSP's self-play, ``SeatVectorEnv`` and the SB3 vec env, works on every
game).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.vector.batch import Batch

__all__ = [
    "Batch",
    "PokerVectorEnv",
    "TreeVectorEnv",
    "StateVectorEnv",
    "FightingVectorEnv",
    "make_vector",
    "vector_env",
    "STEPPING",
]

STEPPING = ("auto", "python")
"""What ``vector_env(stepped=...)`` accepts: ``"auto"`` (numba where the game has a numba
env, else Python) or ``"python"`` (always :class:`StateVectorEnv`)."""


def make_vector(
    env_id: str,
    num_envs: int,
    *,
    seed: int | Sequence[int] | None = None,
    stepped: str = "auto",
    **params: Any,
) -> Any:
    """A batched env of ``num_envs`` games of the registered ``env_id`` (see
    :func:`vector_env`).

    Raises:
        UnknownEnvError: ``env_id`` is not registered.
    """
    from nashzoo.envs.registration import make_game

    return vector_env(make_game(env_id, **params), num_envs, seed=seed, stepped=stepped)


def vector_env(
    game: Any, num_envs: int, *, seed: int | Sequence[int] | None = None, stepped: str = "auto"
) -> Any:
    """A batched env of ``num_envs`` games of ``game`` (a :class:`~nashzoo.games.Game`),
    chosen by what the game declares (:attr:`~nashzoo.games.base.Game.fast_paths`), never
    by its class: its own batched env where it declares one (poker on the 52-card deck: a
    :class:`PokerVectorEnv`), else a :class:`TreeVectorEnv`
    where it compiles, else the batched env it declares for its large sizes (a
    :class:`FightingVectorEnv`), else (or with ``stepped="python"``) a
    :class:`StateVectorEnv`.

    Raises:
        InvalidParameterError: ``num_envs`` below 1, above ``MAX_NUM_ENVS`` (2**24), or
            more games than this machine's memory holds; ``stepped`` not in
            :data:`STEPPING`.
    """
    from nashzoo.tree.compile import compiled_or_none
    from nashzoo.vector.state_env import StateVectorEnv

    if stepped not in STEPPING:
        raise InvalidParameterError(
            f"`stepped` must be one of {list(STEPPING)}, received {stepped!r}."
        )
    try:
        if stepped == "python":
            return StateVectorEnv(game, num_envs, seed=seed)
        paths = game.fast_paths  # what the game declares, never its class
        if paths.vector_env is not None:
            return paths.load("vector_env")(game, num_envs, seed=seed)
        if compiled_or_none(game) is not None:  # the tree, cached for the env to read
            from nashzoo.vector.tree_env import TreeVectorEnv

            return TreeVectorEnv(game, num_envs, seed=seed)
        if paths.large_vector_env is not None:  # too large for the tree
            return paths.load("large_vector_env")(game, num_envs, seed=seed)
        return StateVectorEnv(game, num_envs, seed=seed)
    except MemoryError:
        raise InvalidParameterError(
            f"num_envs={num_envs}: this machine's memory does not hold that many games of "
            f"{game}; ask for fewer."
        ) from None


def __getattr__(name: str) -> Any:
    if name == "TreeVectorEnv":  # numba loads on first use, not at import
        from nashzoo.vector.tree_env import TreeVectorEnv

        return TreeVectorEnv
    if name == "PokerVectorEnv":
        from nashzoo.vector.poker_env import PokerVectorEnv

        return PokerVectorEnv
    if name == "FightingVectorEnv":
        from nashzoo.vector.fighting_env import FightingVectorEnv

        return FightingVectorEnv
    if name == "StateVectorEnv":
        from nashzoo.vector.state_env import StateVectorEnv

        return StateVectorEnv
    raise AttributeError(name)
