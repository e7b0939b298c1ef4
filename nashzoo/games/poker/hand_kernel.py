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

__all__ = ["tables_arrays"]

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
