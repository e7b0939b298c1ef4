"""The hidden information of poker: the opponent's hole cards.

What a search over the rules needs (:mod:`nashzoo.games.hidden`): a state rebuilt from a
player's view (:func:`view_state`), a feature row per possible set of hole cards
(:func:`hole_features`), and those cards one by one for H-splitting
(:func:`hole_pieces`), from the engine's information-state strings (``player=P hole=...
board=... bets=...``) and its deal order (each player's hole cards in seat order, then
the board). Kept apart from :mod:`nashzoo.games.poker.game` so that the rules stay one
readable file.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import State
from nashzoo.games.hidden import Combinations, view_from_history
from nashzoo.validation import check_int

__all__ = [
    "card_features",
    "hole_features",
    "board_features",
    "BOARD_FEATURES",
    "hole_pieces",
    "view_state",
    "with_hole",
]


@functools.cache
def card_features(num_ranks: int, num_suits: int) -> np.ndarray:
    """``(num_cards, num_cards + num_ranks + num_suits)``: each card's one-hot card, rank
    and suit (cards are ``rank * num_suits + suit``)."""
    n = num_ranks * num_suits
    table = np.zeros((n, n + num_ranks + num_suits), dtype=np.float32)
    for c in range(n):
        table[c, c] = 1.0
        table[c, n + c // num_suits] = 1.0
        table[c, n + num_ranks + c % num_suits] = 1.0
    table.setflags(write=False)
    return table


def hole_features(
    definition: Any,
    values: Sequence[Any] | np.ndarray,
    board: Sequence[int] | np.ndarray | None = None,
    group: np.ndarray | None = None,
) -> np.ndarray:
    """Per set of hole cards (or its first cards, a partial set): the one-hot of each
    card, its rank and its suit, summed, and 1 where two cards share a rank; then how the
    cards meet ``board`` (one board for every row, or boards padded with -1 and each row's
    ``group``: :func:`board_features`, zero without one)."""
    d = definition
    table = card_features(d.num_ranks, d.num_suits)
    # rows of the player's hole cards, or of the first cards of a set (a partial world)
    cards = np.asarray(values, dtype=np.int64).reshape(len(values), -1 if len(values) else 1)
    width = table.shape[1] + 1
    out = np.zeros((len(values), width + BOARD_FEATURES), dtype=np.float32)
    out[:, : width - 1] = table[cards].sum(axis=1)
    if cards.shape[1] > 1:
        ranks = np.sort(cards // d.num_suits, axis=1)
        out[:, width - 1] = (np.diff(ranks, axis=1) == 0).any(axis=1)
    boards = np.asarray(() if board is None else board, dtype=np.int64)
    out[:, width:] = board_features(d, cards, boards, group)
    return out


BOARD_FEATURES = 9
"""Width of :func:`board_features`."""


def board_features(
    definition: Any, cards: np.ndarray, boards: np.ndarray, group: np.ndarray | None = None
) -> np.ndarray:
    """How each set of hole cards ``cards`` (``(worlds, num_hole_cards)``) meets its
    board: ``boards`` is one board ``(k,)`` for every row, or ``(boards, k)`` padded with
    -1 with ``group`` naming each row's. The features: a board is dealt; the share of
    hole cards that pair it; the hole ranks' most copies among hole and board, as three
    flags (a pair, trips, quads that use the board); two hole ranks paired on the board;
    the most cards of one hole card's suit among hole and board, over 5; the longest run
    of ranks through a hole card's rank, over 5; the share of hole cards above the
    board's top rank. All zero before the board. These are what a bilinear score of the
    cards cannot express: who holds a made hand, a draw or a blocker on this board.
    Computed in numba, a row at a time (a search asks for a few dozen rows at once)."""
    d = definition
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    worlds = cards.shape[0]
    out = np.zeros((worlds, BOARD_FEATURES), dtype=np.float32)
    boards = np.atleast_2d(np.asarray(boards, dtype=np.int64))
    if not worlds or not boards.shape[1]:
        return out
    group = np.zeros(worlds, dtype=np.int64) if group is None else np.asarray(group, np.int64)
    from nashzoo.games.poker.hand_kernel import board_features_into  # numba: loaded on use

    board_features_into(cards, np.ascontiguousarray(boards), group, d.num_ranks, d.num_suits, out)
    return out


def hole_pieces(num_hole_cards: int, values: Sequence[Any]) -> np.ndarray | None:
    """The hole cards of each value, in the order the value lists them (``None`` with
    one hole card: nothing to split)."""
    h = num_hole_cards
    if h < 2:
        return None
    if isinstance(values, Combinations):
        return values.take(np.arange(len(values)))
    return np.asarray(values, dtype=np.int64).reshape(len(values), h)


def view_state(game: Any, player: int, info_state: str, public_history: Sequence[int]) -> State:
    """A state of ``game`` with ``player``'s hole cards read from ``info_state``
    (``hole=...``), the board and the bets from ``public_history``, and every other
    player holding the lowest cards left.

    Raises:
        InvalidParameterError: the string or the history is not one of this game's, or
            the two disagree.
    """
    n = game.num_players
    check_int("player", player, low=0, high=n - 1)
    h = game.definition.num_hole_cards
    head = str(info_state).split(" ", 2)
    if len(head) < 2 or head[0] != f"player={player}" or not head[1].startswith("hole="):
        raise InvalidParameterError(
            f"info_state must be player {player}'s information-state string of "
            f"{game.short_name} ('player={player} hole=...'), received {info_state!r}."
        )
    names = {name: card for card, name in enumerate(game.card_names)}
    text = head[1][len("hole=") :]
    own = [names.get(text[i : i + 2], -1) for i in range(0, len(text), 2)]
    public = [int(a) for a in public_history]
    dealt = min(n * h, len(public))
    if -1 in own or len(own) != max(0, min(h, dealt - player * h)):
        raise InvalidParameterError(
            f"info_state {info_state!r} does not name player {player}'s "
            f"{min(h, max(0, dealt - player * h))} hole card(s) of {game.short_name}."
        )
    board = next((f[len("board=") :] for f in head[2].split(" ") if f.startswith("board=")), "")
    board = board.replace("/", "") if len(head) > 2 else ""
    used = set(own) | {names.get(board[i : i + 2], -1) for i in range(0, len(board), 2)}
    spare = iter(c for c in range(game.num_cards) if c not in used)
    history = [
        own[i - player * h] if player * h <= i < (player + 1) * h else next(spare)
        for i in range(dealt)
    ]
    state: State = view_from_history(game, history + public[dealt:], player, info_state, public)
    return state


def with_hole(state: Any, player: int, cards: Sequence[int]) -> tuple[Any, bool]:
    """A clone of a poker ``state`` in which ``player`` holds ``cards``
    (in no other hand and not on the board: the caller's promise), and whether they
    differ from the cards it held (then the engine refreshes what it derived from them)."""
    h = state.game.definition.num_hole_cards
    new = state.clone()
    old = state._cards[player * h : (player + 1) * h]
    new._cards[player * h : (player + 1) * h] = cards
    new._history[player * h : (player + 1) * h] = cards
    changed = set(old) != set(cards)
    if changed:
        new._remaining = sorted(set(state._remaining).union(old).difference(cards))
    return new, changed
