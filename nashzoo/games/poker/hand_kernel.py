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

__all__ = ["showdown_signs", "tables_arrays"]

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
