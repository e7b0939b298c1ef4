"""Batched hand ranking (numba): the strengths of many hands at once, with the tables of
:class:`nashzoo.games.poker.hands.HandTables`.

:func:`strengths` ranks an ``(N, k)`` array of cards (5 <= k <= 7) of the 52-card deck;
:func:`category_counts` ranks *every* k-card hand of the deck (133,784,560 for k = 7)
and counts them per category, the classic check of an evaluator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from nashzoo.games.pcg import next_double, seeded_states
from nashzoo.games.poker.hand_kernel import _POW5, _strength, tables_arrays
from nashzoo.games.poker.hands import CATEGORIES, standard_tables

__all__ = [
    "strengths",
    "category_counts",
    "tables_arrays",
    "checkdown_signs",
    "check_heads_up_hands",
]


def check_poker_game(env: str, game: object, kind: type) -> None:
    """What a batched poker env needs: a ``kind`` game whose hands are 5 to 7 cards of
    the 52-card deck (the tables rank no others).

    Raises:
        InvalidParameterError: another kind of game, or other hands (named).
    """
    from nashzoo.errors import InvalidParameterError

    if not isinstance(game, kind):
        raise InvalidParameterError(
            f"{env} expects a {kind.__name__}, received {type(game).__name__}."
        )
    poker: Any = game
    if not poker.standard_hands:
        d = poker.definition
        raise InvalidParameterError(
            f"{env} ranks hands of 5 to 7 cards of the 52-card deck; received a "
            f"{d.num_cards}-card deck and {d.num_hole_cards + sum(d.num_board_cards)}-card "
            "hands (small games run in TreeVectorEnv or StateVectorEnv)."
        )


def check_heads_up_hands(game: object, what: str) -> Any:
    """``game`` as heads-up poker whose hands are 5 to 7 cards of the 52-card deck (what
    :func:`checkdown_signs` ranks); ``what`` names the caller in the error.

    Raises:
        InvalidParameterError: another game.
    """
    from nashzoo.errors import InvalidParameterError
    from nashzoo.games.poker.game import PokerGame

    poker: Any = game
    if not isinstance(game, PokerGame) or poker.num_players != 2 or not poker.standard_hands:
        raise InvalidParameterError(
            f"{what} serve heads-up poker on the 52-card deck with hands of 5 to 7 cards "
            f"(limit_holdem, no_limit_holdem); received {game}."
        )
    return poker


@njit(cache=True)
def _strengths(cards, pow5, flush, keys, values, out):
    for i in range(cards.shape[0]):
        key = 0
        nibbles = 0
        for j in range(cards.shape[1]):
            c = cards[i, j]
            key += pow5[c >> 2]
            nibbles += 1 << (4 * (c & 3))
        out[i] = _strength(key, nibbles, cards[i], flush, keys, values)


def strengths(cards: np.ndarray) -> np.ndarray:
    """``uint16`` strengths (1 to 7,462; larger wins) of an ``(N, k)`` array of distinct
    cards of the 52-card deck, ``5 <= k <= 7``.

    Raises:
        ValueError: not a 2-d integer array with 5 to 7 columns, or cards outside 0..51.
    """
    cards = np.asarray(cards)
    if cards.ndim != 2 or not 5 <= cards.shape[1] <= 7 or cards.dtype.kind not in "iu":
        raise ValueError(
            "strengths() expects an (N, k) integer array with 5 <= k <= 7, received shape "
            f"{cards.shape} and dtype {cards.dtype}."
        )
    if cards.size and (cards.min() < 0 or cards.max() > 51):
        raise ValueError("strengths() expects cards in 0..51 (rank * 4 + suit).")
    out = np.empty(cards.shape[0], dtype=np.uint16)
    _strengths(cards.astype(np.int64), _POW5, *tables_arrays(), out)
    return out


@njit(cache=True)
def _count_all(k, pow5, flush, keys, values, starts, counts):
    row = np.zeros(k, dtype=np.int64)
    idx = np.arange(k)
    while True:
        key = 0
        nibbles = 0
        for j in range(k):
            c = idx[j]
            row[j] = c
            key += pow5[c >> 2]
            nibbles += 1 << (4 * (c & 3))
        s = _strength(key, nibbles, row, flush, keys, values)
        cat = starts.size - 1
        while s < starts[cat]:
            cat -= 1
        counts[cat] += 1
        # next combination in lexicographic order
        j = k - 1
        while j >= 0 and idx[j] == 52 - k + j:
            j -= 1
        if j < 0:
            return
        idx[j] += 1
        for m in range(j + 1, k):
            idx[m] = idx[m - 1] + 1


def category_counts(k: int = 7) -> dict[str, int]:
    """How many of the C(52, k) hands of ``k`` cards (5 to 7) fall in each category of
    :data:`~nashzoo.games.poker.hands.CATEGORIES` (every hand ranked by the tables)."""
    if not 5 <= k <= 7:
        raise ValueError(f"category_counts() ranks hands of 5 to 7 cards, received k={k}.")
    counts = np.zeros(len(CATEGORIES), dtype=np.int64)
    starts = np.array(standard_tables().category_starts, dtype=np.int64)
    _count_all(k, _POW5, *tables_arrays(), starts, counts)
    return {name: int(n) for name, n in zip(CATEGORIES, counts)}


@njit(cache=True, inline="always")
def _hand_strength(cards, start, stop, hole, board0, pow5, flush, keys, values, row):
    """Strength of ``cards[start:stop]`` (a player's hole cards) with the board
    ``cards[board0:]``, built in ``row``."""
    n = 0
    for j in range(start, stop):
        row[n] = cards[j]
        n += 1
    for j in range(board0, cards.size):
        row[n] = cards[j]
        n += 1
    key = 0
    nibbles = 0
    for j in range(n):
        c = row[j]
        key += pow5[c >> 2]
        nibbles += 1 << (4 * (c & 3))
    return _strength(key, nibbles, row[:n], flush, keys, values)


@njit(cache=True, inline="always")
def _sign(full, hole, pow5, flush, keys, values, row):
    s0 = _hand_strength(full, 0, hole, hole, 2 * hole, pow5, flush, keys, values, row)
    s1 = _hand_strength(full, hole, 2 * hole, hole, 2 * hole, pow5, flush, keys, values, row)
    return 1.0 if s0 > s1 else (-1.0 if s0 < s1 else 0.0)


@njit(cache=True)
def _checkdown(
    prefixes, lengths, slots, hole, samples, exact, seed_row, pow5, flush, keys, values, out
):
    full = np.empty(slots, dtype=np.int64)
    row = np.empty(slots - hole, dtype=np.int64)
    rest = np.empty(52, dtype=np.int64)
    used = np.zeros(52, dtype=np.bool_)
    for i in range(prefixes.shape[0]):
        dealt = lengths[i]
        used[:] = False
        for j in range(dealt):
            full[j] = prefixes[i, j]
            used[full[j]] = True
        n = 0
        for c in range(52):
            if not used[c]:
                rest[n] = c
                n += 1
        missing = slots - dealt
        total = 0.0
        count = 0
        if missing == 0:
            total = _sign(full, hole, pow5, flush, keys, values, row)
            count = 1
        elif missing == 1 and exact >= 1:
            for a in range(n):
                full[dealt] = rest[a]
                total += _sign(full, hole, pow5, flush, keys, values, row)
            count = n
        elif missing == 2 and exact >= 2:
            board_only = dealt >= 2 * hole  # the two cards' order does not matter
            for a in range(n):
                full[dealt] = rest[a]
                for b in range(a + 1 if board_only else 0, n):
                    if b != a:
                        full[dealt + 1] = rest[b]
                        total += _sign(full, hole, pow5, flush, keys, values, row)
            count = n * (n - 1) // 2 if board_only else n * (n - 1)
        else:
            gen = seed_row.copy()  # the same completions for the same cards: a fixed function
            for _ in range(samples):
                for k in range(missing):  # partial Fisher-Yates shuffle of the cards left
                    m = k + int(next_double(gen, 0) * (n - k))
                    rest[k], rest[m] = rest[m], rest[k]
                    full[dealt + k] = rest[k]
                total += _sign(full, hole, pow5, flush, keys, values, row)
            count = samples
        out[i] = total / count


def checkdown_signs(
    prefixes: list[list[int]],
    hole: int,
    board: int,
    *,
    samples: int = 256,
    seed: int = 0,
    exact_missing: int = 2,
) -> np.ndarray:
    """Player 0's expected showdown result (+1 win, -1 loss, 0 tie) for each row of dealt
    cards (player 0's hole cards, player 1's, then the board, in the order dealt), the
    undealt cards completed uniformly from the 52-card deck.

    Exact over every completion when at most ``exact_missing`` cards (0, 1 or 2) are
    missing, else the mean over ``samples`` completions drawn with ``seed`` (the same
    draws for the same row: the result is a fixed function of the cards). Two missing
    cards cost about 1,000 completions a row; a search that asks often passes 1.

    Raises:
        ValueError: rows longer than ``2 * hole + board``, a hand outside 5 to 7 cards, or
            cards outside 0..51.
    """
    slots = 2 * hole + board
    if not 5 <= hole + board <= 7:
        raise ValueError(f"checkdown_signs() ranks hands of 5 to 7 cards, received {hole + board}.")
    lengths = np.array([len(r) for r in prefixes], dtype=np.int64)
    if exact_missing not in (0, 1, 2):
        raise ValueError(
            f"checkdown_signs() takes exact_missing 0, 1 or 2, received {exact_missing!r}."
        )
    if lengths.size and lengths.max() > slots:
        raise ValueError(f"checkdown_signs() takes rows of at most {slots} cards.")
    rows = np.zeros((len(prefixes), slots), dtype=np.int64)
    for i, r in enumerate(prefixes):
        rows[i, : len(r)] = r
    if rows.size and (rows.min() < 0 or rows.max() > 51):
        raise ValueError("checkdown_signs() expects cards in 0..51 (rank * 4 + suit).")
    out = np.empty(len(prefixes))
    gen = seeded_states([seed])
    _checkdown(
        rows, lengths, slots, hole, samples, exact_missing, gen, _POW5, *tables_arrays(), out
    )
    return out
