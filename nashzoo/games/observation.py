"""What one player observes of a state, built from the rules and cached by
information-state string.

The perfect-recall information-state string records every public action, so it fixes
the player's tensor, action mask and public history (:func:`nashzoo.testing.check_env`
verifies the bijection on every registered env). The AEC env, the single-agent wrapper,
the match engine and NFSP all serve observations from an :class:`ObservationCache`.

Cached arrays are *locked*: they are backed by immutable ``bytes``, so neither they nor
their base can be made writeable again (``setflags(write=True)`` raises). The match
engine hands them to agents as they are; the env hands out writeable copies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from nashzoo.games.base import HIDDEN, Game, State

__all__ = [
    "ObservationCache",
    "PlayerView",
    "locked_array",
    "agent_info",
    "env_info",
    "indices_tensors",
]


def indices_tensors(rows: Sequence[Sequence[int]], size: int) -> np.ndarray:
    """``(len(rows), size)`` float32 information-state tensors, each row 1 at the
    indices its entry of ``rows`` lists (:meth:`State.information_state_indices
    <nashzoo.games.base.State.information_state_indices>`) and 0 elsewhere: every row set
    in one assignment."""
    x = np.zeros((len(rows), size), dtype=np.float32)
    if len(rows):
        lengths = np.fromiter((len(idx) for idx in rows), dtype=np.int64, count=len(rows))
        flat = np.concatenate([np.asarray(idx, np.int64) for idx in rows])
        x[np.repeat(np.arange(len(rows)), lengths), flat] = 1.0
    return x


def locked_array(array: np.ndarray) -> np.ndarray:
    """A read-only copy of ``array`` that cannot be unlocked (backed by ``bytes``)."""
    array = np.ascontiguousarray(array)
    locked = np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape)
    return locked


def env_info(player: int, public_history: np.ndarray, history_length: int) -> dict[str, Any]:
    """The info the PettingZoo envs give each agent at every step: ``player``,
    ``public_history``, ``history_length`` and ``illegal_action`` (numbers and arrays
    only, the same keys every step)."""
    return {
        "player": player,
        "public_history": public_history,
        "history_length": history_length,
        "illegal_action": False,
    }


def agent_info(
    player: int,
    public_history: np.ndarray,
    history_length: int,
    info_state: str,
    *,
    illegal_action: bool = False,
) -> dict[str, Any]:
    """The ``info`` nashzoo's harness hands an agent: the env info's keys
    (:func:`env_info`) plus ``info_state``, the information-state string (see
    :mod:`nashzoo.envs.protocol`)."""
    info = env_info(player, public_history, history_length)
    info["illegal_action"] = illegal_action
    info["info_state"] = info_state
    return info


class PlayerView(NamedTuple):
    """One player's observation at one information state (all arrays locked).

    Attributes:
        tensor: ``float32`` information-state tensor.
        mask: ``int8`` legal-action mask (zeros when the player is not to move).
        public_history: ``int64`` array of length ``game.max_history_length``: the
            history as every player saw it (:data:`~nashzoo.games.base.HIDDEN` = -1 for
            private events), padded with -1 after ``history_length`` entries.
        history_length: number of events (chance included) in the history so far.
    """

    tensor: np.ndarray
    mask: np.ndarray
    public_history: np.ndarray
    history_length: int

    def info(self, player: int, info_state: str) -> Any:
        """The agent info of this view (:func:`agent_info`: the mapping
        :class:`nashzoo.envs.protocol.AgentInfo` describes)."""
        return agent_info(player, self.public_history, self.history_length, info_state)


class ObservationCache:
    """:class:`PlayerView` per information-state string, built on first use.

    Safe to share between threads (a lost race builds an entry twice, identically).

    Args:
        game: the rules.
        max_size: most entries kept (later ones are built on every call).
    """

    def __init__(self, game: Game, max_size: int = 200_000) -> None:
        self.game = game
        self.max_size = max_size
        self._cache: dict[str, PlayerView] = {}
        # cached(key): the view for key or None, the fast path of get() (a bound dict.get)
        self.cached: Callable[[str], PlayerView | None] = self._cache.get
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        self._no_history = np.full(game.max_history_length, HIDDEN, dtype=np.int64)

    def get(self, state: State, player: int, key: str) -> PlayerView:
        """View of ``player`` whose information-state string at ``state`` is ``key``."""
        hit = self._cache.get(key)
        if hit is None:
            hit = self.build(state, player)
            if len(self._cache) < self.max_size:
                self._cache[key] = hit
        return hit

    def build(self, state: State, player: int) -> PlayerView:
        """Build (without caching) the view of ``player`` at ``state``."""
        tensor, mask = self.fresh(state, player)
        history, length = self.public_history(state)
        return PlayerView(locked_array(tensor), locked_array(mask), locked_array(history), length)

    def fresh(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The tensor and mask of ``player`` at ``state`` as new writeable arrays (no
        cache: for games whose information states rarely repeat)."""
        game = self.game
        tensor = np.zeros(game.information_state_tensor_size, dtype=np.float32)
        tensor.put(state.information_state_indices(player), 1.0)
        return tensor, self.mask_of(state, player).copy()

    def mask_of(self, state: State, player: int) -> np.ndarray:
        """The ``int8`` legal-action mask of ``player`` at ``state`` (zeros when the
        player is not to move): a shared template, read-only (copy it to change it)."""
        game = self.game
        if state.current_player() == player:
            legal = tuple(state.legal_actions())
        elif game.simultaneous:
            legal = tuple(state.pending_legal_actions(player))
        else:
            legal = ()
        mask = self._masks.get(legal)
        if mask is None:  # one template per set of legal actions (a handful per game)
            template = np.zeros(game.num_distinct_actions, dtype=np.int8)
            template[list(legal)] = 1
            mask = self._masks[legal] = locked_array(template)
        return mask

    def public_history(self, state: State) -> tuple[np.ndarray, int]:
        """:meth:`State.public_history` padded to ``max_history_length`` (a new array)
        and its length."""
        public = state.public_history()
        history = self._no_history.copy()
        history[: len(public)] = public
        return history, len(public)
