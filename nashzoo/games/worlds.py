"""The worlds consistent with what one player knows: the histories a search agent may
imagine, never the one that is true.

A player's knowledge is its perfect-recall information-state string and the public
history (both in every agent's ``info``). :func:`consistent_histories` enumerates every
full history that gives the player exactly that knowledge, with the probability chance
assigns it; the other players' own actions are weighted 1 (their policies are unknown:
a belief multiplies them in). :func:`resample` draws one of them. OpenSpiel names the
state-level version ``resample_from_infostate``
(:meth:`nashzoo.games.base.State.resample_from_infostate`).

The enumeration walks the game tree to the history's length, pruning every prefix whose
public history disagrees with the player's: exact for any game, and fast for the small
games it is meant for (a Leduc information set has at most 5 consistent histories; the
walk visits a few dozen nodes). :func:`hidden_worlds` serves games of any size: where
the rules list their own hidden information (:mod:`nashzoo.games.hidden`: the poker
engine, fighting cards) it asks them, and walks the tree only for the others.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, Game, State
from nashzoo.games.hidden import HiddenWorlds

__all__ = [
    "World",
    "consistent_histories",
    "hidden_worlds",
    "resample",
    "state_from_history",
]


class World(NamedTuple):
    """One full history consistent with a player's information.

    Attributes:
        history: every action and chance outcome from the root.
        chance_probability: the product of the chance probabilities along it (the other
            players' actions count 1).
    """

    history: tuple[int, ...]
    chance_probability: float


def _checked_player(game: Game, player: object) -> int:
    """``player`` as an int, once it is a player of ``game``."""
    if not isinstance(player, (int, np.integer)) or not 0 <= int(player) < game.num_players:
        raise InvalidParameterError(
            f"player must be in [0, {game.num_players}), received {player!r}."
        )
    return int(player)


def state_from_history(game: Game, history: Sequence[int]) -> State:
    """The state reached by applying ``history`` (validated) from the root."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(int(action))
    return state


def consistent_histories(
    game: Game,
    player: int,
    info_state: str,
    public_history: Sequence[int],
    *,
    player_to_move: bool = False,
) -> tuple[World, ...]:
    """Every full history in which ``player``'s information-state string is ``info_state``
    and the public history is ``public_history``, with its chance probability.

    Along each path the first history with that string counts (the string changes with
    every event the player sees); with ``player_to_move`` the history must also be one
    where the player is to move (in a simultaneous move the string does not show whether
    the other player has already chosen).

    Args:
        game: the rules.
        player: whose knowledge.
        info_state: the player's information-state string.
        public_history: the public history, ``info["public_history"][:info["history_length"]]``.
        player_to_move: the player is about to act (as when its ``act`` is called).

    Returns:
        The worlds in depth-first order (cached per argument set; empty if none matches).

    Raises:
        InvalidParameterError: ``player`` is not a player of the game.
    """
    return _consistent(
        game,
        _checked_player(game, player),
        str(info_state),
        tuple(int(a) for a in public_history),
        bool(player_to_move),
    )


@functools.lru_cache(maxsize=65536)
def _consistent(
    game: Game, player: int, info_state: str, public: tuple[int, ...], to_move: bool
) -> tuple[World, ...]:
    worlds: list[World] = []

    def walk(state: State, probability: float) -> None:
        prefix = state.public_history()
        if tuple(prefix) != public[: len(prefix)]:
            return
        if state.information_state_string_unchecked(player) == info_state and (
            not to_move or state.current_player() == player
        ):
            worlds.append(World(tuple(state.history()), probability))
            return
        if state.is_terminal():
            return
        if state.current_player() == CHANCE:
            for outcome, p in state.chance_outcomes():
                walk(state.child(outcome), probability * p)
        else:
            for action in state.legal_actions():
                walk(state.child(action), probability)

    walk(game.new_initial_state(), 1.0)
    return tuple(worlds)


def resample(
    game: Game,
    player: int,
    info_state: str,
    public_history: Sequence[int],
    rng: np.random.Generator,
    weights: Sequence[float] | None = None,
    *,
    player_to_move: bool = False,
) -> State:
    """A state drawn from the worlds consistent with ``player``'s knowledge.

    Args:
        game, player, info_state, public_history, player_to_move: as in
            :func:`consistent_histories`.
        rng: the generator to draw with.
        weights: a belief over the worlds (same order as :func:`consistent_histories`);
            default: their chance probabilities (uniform over the other players' hidden
            actions).

    Raises:
        InvalidParameterError: no world matches, or ``weights`` has the wrong length or no
            positive entry.
    """
    worlds = consistent_histories(
        game, player, info_state, public_history, player_to_move=player_to_move
    )
    if not worlds:
        raise InvalidParameterError(
            f"No history of {game} gives player {player} the information state "
            f"{info_state!r} with public history {list(public_history)}."
        )
    w = np.asarray(
        [x.chance_probability for x in worlds] if weights is None else weights, dtype=np.float64
    )
    if w.shape != (len(worlds),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise InvalidParameterError(
            f"weights must be {len(worlds)} non-negative numbers with a positive sum, "
            f"received {list(w)}."
        )
    k = int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))
    return state_from_history(game, worlds[min(k, len(worlds) - 1)].history)


def hidden_worlds(
    game: Game, player: int, info_state: str, public_history: Sequence[int]
) -> HiddenWorlds:
    """The worlds ``player`` (to move) cannot tell apart, one per value of the opponent's
    private information, with their chance weights.

    From the rules where the game lists its hidden information
    (:meth:`Game.view_state <nashzoo.games.base.Game.view_state>` and
    :meth:`State.hidden_worlds <nashzoo.games.base.State.hidden_worlds>`: cost
    proportional to the number of values); otherwise from
    :func:`consistent_histories`, whose worlds are the full histories.

    Raises:
        InvalidParameterError: ``player`` is not a player of the game, or no history
            matches the view.
    """
    p = _checked_player(game, player)
    view = game.view_state(p, info_state, public_history)
    if view is not None:
        fast = view.hidden_worlds(p)
        if fast is not None:
            return fast
    worlds = consistent_histories(game, p, info_state, public_history, player_to_move=True)
    if not worlds:
        raise InvalidParameterError(
            f"No history of {game} gives player {p} the information state "
            f"{info_state!r} with public history {list(public_history)}."
        )
    return HiddenWorlds(
        p,
        [w.history for w in worlds],
        [w.chance_probability for w in worlds],
        lambda history: state_from_history(game, history),  # type: ignore[arg-type]
    )
