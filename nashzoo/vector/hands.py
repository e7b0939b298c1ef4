"""Batched hand ranking (numba): the strengths of many hands at once, with the tables of
:class:`nashzoo.games.poker.hands.HandTables`.

:func:`strengths` ranks an ``(N, k)`` array of cards (5 <= k <= 7) of the 52-card deck;
:func:`category_counts` ranks *every* k-card hand of the deck (133,784,560 for k = 7)
and counts them per category, the classic check of an evaluator.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from nashzoo.extras import user_cache_dir
from nashzoo.games.poker.hands import CATEGORIES, standard_tables

if not numba.config.CACHE_DIR:  # type: ignore[attr-defined]
    numba.config.CACHE_DIR = str(user_cache_dir("numba"))  # type: ignore[attr-defined]

__all__ = ["strengths", "category_counts", "tables_arrays"]

_POW5 = np.array([5**r for r in range(13)], dtype=np.int64)


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
