"""Hand ranking in numba, for the compiled rules and every batched evaluator: a hand of 5
to 7 cards of the 52-card deck ranked with the tables of
:class:`nashzoo.games.poker.hands.HandTables` (a flush table indexed by the suit's rank
bits, and the sorted base-5 keys of every rank multiset with their strengths).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nashzoo.extras import use_numba_user_cache
from nashzoo.games.poker.hands import standard_tables

use_numba_user_cache()

__all__ = ["showdown_signs", "tables_arrays", "board_features_into"]

_POW5 = np.array([5**r for r in range(13)], dtype=np.int64)
"""A card's rank ``r`` adds ``5**r`` to its hand's multiset key."""


def tables_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(flush, multiset_keys, multiset_strengths)`` of the standard tables."""
    t = standard_tables()
    return t.flush, t.multiset_keys, t.multiset_strengths


@njit(cache=True, inline="always")
def _strength(key, nibbles, row, flush, keys, values):
    flushed = (nibbles + 0x3333) & 0x8888
    if flushed:
        suit = 0
        while not (flushed >> (4 * suit + 3)) & 1:
            suit += 1
        mask = 0
        for c in row:
            if c & 3 == suit:
                mask |= 1 << (c >> 2)
        return flush[mask]
    return values[np.searchsorted(keys, key)]


@njit(cache=True, inline="always")
def _rank_hand(hand, pow5, flush, keys, values):
    """The strength of the 5 to 7 cards in ``hand`` (larger wins)."""
    key = 0
    nibbles = 0
    for c in hand:
        key += pow5[c >> 2]
        nibbles += 1 << (4 * (c & 3))
    return _strength(key, nibbles, hand, flush, keys, values)


@njit(cache=True)
def showdown_signs(mine, known, holdings, live, boards, flush, keys, values, total, count):
    """Add, for every live holding and every board that does not hold its cards, the
    showdown sign of ``mine`` against it (+1, -1, 0) to ``total`` and 1 to ``count``:
    ``mine`` and each row of ``holdings`` a player's hole cards, ``known`` the board so far,
    each row of ``boards`` a completion of it (``(1, 0)`` when it is complete). LBR's win
    probabilities (:mod:`nashzoo.eval.lbr_range`)."""
    pow5 = _POW5
    h, k, r, m = mine.size, known.size, boards.shape[1], holdings.shape[1]
    row = np.empty(h + k + r, dtype=np.int64)
    theirs = np.empty(m + k + r, dtype=np.int64)
    on = np.zeros(64, dtype=np.bool_)
    for j in range(h):
        row[j] = mine[j]
    for j in range(k):
        row[h + j] = known[j]
        theirs[m + j] = known[j]
    for b in range(boards.shape[0]):
        for j in range(r):
            c = boards[b, j]
            row[h + k + j] = c
            theirs[m + k + j] = c
            on[c] = True
        ours = _rank_hand(row, pow5, flush, keys, values)
        for i in range(holdings.shape[0]):
            if not live[i]:
                continue
            clash = False
            for j in range(m):
                c = holdings[i, j]
                clash = clash or on[c]
                theirs[j] = c
            if clash:
                continue
            other = _rank_hand(theirs, pow5, flush, keys, values)
            total[i] += 1.0 if ours > other else (-1.0 if ours < other else 0.0)
            count[i] += 1
        for j in range(r):
            on[boards[b, j]] = False


@njit(cache=True)
def board_features_into(
    cards: np.ndarray,
    boards: np.ndarray,
    group: np.ndarray,
    num_ranks: int,
    num_suits: int,
    out: np.ndarray,
) -> None:  # pragma: no cover (numba)
    """:func:`nashzoo.games.poker.private.board_features` of every row into ``out``
    (zeros; ``boards`` padded with -1, ``group`` naming each row's)."""
    h = cards.shape[1]
    board_ranks = np.zeros(num_ranks, np.int64)
    board_suits = np.zeros(num_suits, np.int64)
    present = np.zeros(num_ranks, np.int64)
    left = np.zeros(num_ranks, np.int64)
    right = np.zeros(num_ranks, np.int64)
    for w in range(cards.shape[0]):
        board = boards[group[w]]
        board_ranks[:] = 0
        board_suits[:] = 0
        top = -1
        on = False
        for c in board:
            if c >= 0:
                on = True
                board_ranks[c // num_suits] += 1
                board_suits[c % num_suits] += 1
                top = max(top, c // num_suits)
        if not on:
            continue
        matched = 0
        copies = 0
        flush = 0
        above = 0
        paired = 0
        for r in range(num_ranks):
            present[r] = 1 if board_ranks[r] > 0 else 0
        for j in range(h):
            rank, suit = cards[w, j] // num_suits, cards[w, j] % num_suits
            present[rank] = 1
            same = 0
            same_suit = 0
            first = True  # no earlier hole card of this rank
            for k in range(h):
                other = cards[w, k]
                same += other // num_suits == rank
                same_suit += other % num_suits == suit
                if k < j and other // num_suits == rank:
                    first = False
            if board_ranks[rank] > 0:
                matched += 1
                copies = max(copies, board_ranks[rank] + same)
                paired += first
            flush = max(flush, board_suits[suit] + same_suit)
            above += rank > top
        for r in range(num_ranks):  # runs of present ranks ending, and starting, at r
            left[r] = present[r] * (1 + (left[r - 1] if r else 0))
            q = num_ranks - 1 - r
            right[q] = present[q] * (1 + (right[q + 1] if r else 0))
        run = 0
        for j in range(h):
            rank = cards[w, j] // num_suits
            run = max(run, left[rank] + right[rank] - 1)
        out[w, 0] = 1.0
        out[w, 1] = matched / h
        out[w, 2] = copies >= 2
        out[w, 3] = copies >= 3
        out[w, 4] = copies >= 4
        out[w, 5] = paired >= 2
        out[w, 6] = min(flush, 5) / 5.0
        out[w, 7] = min(run, 5) / 5.0
        out[w, 8] = above / h
