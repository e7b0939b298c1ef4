"""Suit isomorphism: the lossless abstraction of poker hands.

Two hands that differ only by a renaming of the suits are strategically the same: A♠K♠ and
A♥K♥ before the flop, or A♠K♦ on Q♠7♠2♦ and A♥K♣ on Q♥7♥2♣. :class:`HandIndexer` maps a
hand to the index of its class, ``0 .. size - 1``, a perfect hash that solvers and
bucket tables use as a row number. A hand is dealt in *rounds* (Hold'em: ``(2, 3, 1,
1)``, the hole cards, the flop, the turn, the river); cards of one round are a set,
rounds stay apart (an ace on the flop is not an ace in the hole). The class counts are
those of Waugh, "A Fast and Optimal Hand Isomorphism Algorithm" (AAAI workshop, 2013):
169 preflop, 1,286,792 flop, 13,960,050 turn and 123,156,254 river hands (tests).

The index is built suit by suit (our formulation of the same idea):

1. each suit's *shape* is how many of its cards each round dealt, and its *suit index*
   numbers its rank sets given that shape (each round's ranks among those the suit's
   earlier rounds left, in colexicographic order);
2. a hand's *configuration* is the multiset of its four shapes; the configurations are
   listed once, each with the number of classes it holds and its offset;
3. within a configuration, the suits that share a shape are interchangeable, so they
   count as a multiset of suit indices (numbered as combinations with repetition), and
   the groups of equal shapes combine in mixed radix.

Cards are ``rank * 4 + suit`` (ranks 0..12, suits 0..3), as the poker engine numbers them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError

__all__ = ["HandIndexer", "HOLDEM_ROUNDS", "hand_index", "comb", "SCRATCH"]

HOLDEM_ROUNDS = (2, 3, 1, 1)
"""Cards per round of Texas Hold'em: hole cards, flop, turn, river."""

_RANKS = 13
_SUITS = 4
_BASE = 14  # a shape's count per round, 0..13, as a base-14 digit


@njit(cache=True)
def comb(n, k):
    """The binomial coefficient C(n, k) (0 when k < 0 or k > n)."""
    if k < 0 or n < k:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _shape_size(code, nrounds):
    """How many rank-set sequences a suit of shape ``code`` has."""
    size = 1
    used = 0
    for _ in range(nrounds):
        n = code % _BASE
        code //= _BASE
        size *= comb(_RANKS - used, n)
        used += n
    return size


@njit(cache=True)
def _suit_index(scratch, s, nrounds):
    """Number of suit ``s``'s rank sets (``scratch[4 * s + q]`` per round) given its
    shape."""
    used = 0
    index = 0
    mult = 1
    for q in range(nrounds):
        m = scratch[4 * s + q]
        n = _popcount(m)
        avail = _RANKS - _popcount(used)
        acc = 0
        j = 1
        for b in range(_RANKS):
            if (m >> b) & 1:
                below = _popcount(used & ((1 << b) - 1))
                acc += comb(b - below, j)
                j += 1
        index += acc * mult
        mult *= comb(avail, n)
        used |= m
    return index


SCRATCH = 28
"""Length of the ``int64`` scratch array :func:`hand_index` works in."""


@njit(cache=True)
def hand_index(cards, ncards, rounds, nrounds, keys, offsets, scratch):
    """The class index of the first ``ncards`` of ``cards`` dealt in the first
    ``nrounds`` rounds of ``rounds``, with that round count's configuration table
    (``keys`` sorted, ``offsets`` beside them); ``scratch``: :data:`SCRATCH` int64s it
    overwrites (no allocation per call). -1 for a hand the table does not hold."""
    # scratch: 0..15 rank masks (suit * 4 + round), 16..19 shape codes, 20..23 suit
    # indices, 24..27 the suits in canonical order
    for i in range(16):
        scratch[i] = 0
    pos = 0
    for q in range(nrounds):
        for _ in range(rounds[q]):
            c = cards[pos]
            scratch[4 * (c & 3) + q] |= 1 << (c >> 2)
            pos += 1
    for s in range(_SUITS):
        digit = 1
        v = 0
        for q in range(nrounds):
            v += _popcount(scratch[4 * s + q]) * digit
            digit *= _BASE
        scratch[16 + s] = v
        scratch[20 + s] = _suit_index(scratch, s, nrounds)
        scratch[24 + s] = s
    # the suits in canonical order: shape descending, then suit index descending
    for i in range(1, _SUITS):
        j = i
        while j > 0:
            a = scratch[24 + j]
            b = scratch[24 + j - 1]
            if scratch[16 + a] > scratch[16 + b] or (
                scratch[16 + a] == scratch[16 + b] and scratch[20 + a] > scratch[20 + b]
            ):
                scratch[24 + j] = b
                scratch[24 + j - 1] = a
                j -= 1
            else:
                break
    base = 1
    for _ in range(nrounds):
        base *= _BASE
    key = 0
    for i in range(_SUITS):
        key = key * base + scratch[16 + scratch[24 + i]]
    at = np.searchsorted(keys, key)
    if at >= keys.size or keys[at] != key:
        return -1
    index = 0
    radix = 1
    i = 0
    while i < _SUITS:
        code = scratch[16 + scratch[24 + i]]
        k = 1
        while i + k < _SUITS and scratch[16 + scratch[24 + i + k]] == code:
            k += 1
        size = _shape_size(code, nrounds)
        # the group's suit indices as a multiset: ascending x_0 <= x_1 <= ..., made
        # strictly increasing by + j, numbered as a combination (colex)
        group = 0
        for j in range(k):
            x = scratch[20 + scratch[24 + i + k - 1 - j]]  # ascending
            group += comb(x + j, j + 1)
        index += group * radix
        radix *= comb(size + k - 1, k)
        i += k
    return offsets[at] + index


def _configurations(rounds: Sequence[int]) -> list[tuple[int, ...]]:
    """Every configuration (four shape codes, descending) of hands dealt in ``rounds``."""
    per_round = []
    for n in rounds:  # the ways to split a round's n cards over four suits
        per_round.append([c for c in itertools.product(range(n + 1), repeat=_SUITS) if sum(c) == n])
    configs = set()
    for split in itertools.product(*per_round):
        codes = []
        for s in range(_SUITS):
            counts = [split[q][s] for q in range(len(rounds))]
            if sum(counts) > _RANKS:
                break
            codes.append(sum(n * _BASE**q for q, n in enumerate(counts)))
        else:
            configs.add(tuple(sorted(codes, reverse=True)))
    return sorted(configs)


class HandIndexer:
    """Indices of suit-isomorphic poker hands, round by round (see the module docstring).

    Args:
        rounds: cards dealt per round, e.g. :data:`HOLDEM_ROUNDS`; at most 4 rounds.

    Raises:
        InvalidParameterError: no rounds, more than 4, or a round of no card or more than
            the deck holds.
    """

    def __init__(self, rounds: Sequence[int] = HOLDEM_ROUNDS) -> None:
        rounds = tuple(int(n) for n in rounds)
        if not 1 <= len(rounds) <= 4 or min(rounds) < 1 or sum(rounds) > _RANKS * _SUITS:
            raise InvalidParameterError(
                f"HandIndexer expects 1 to 4 rounds of at least one card each (52 in all), "
                f"received {rounds}."
            )
        self.rounds = rounds
        self._rounds = np.array(rounds + (0,) * (4 - len(rounds)), np.int64)
        self.tables: list[tuple[np.ndarray, np.ndarray]] = []
        self.sizes: list[int] = []
        for r in range(len(rounds)):
            configs = _configurations(rounds[: r + 1])
            base = _BASE ** (r + 1)
            keys, offsets, total = [], [], 0
            for config in configs:
                key = 0
                for code in config:
                    key = key * base + code
                size = 1
                for code, group in itertools.groupby(config):
                    k = len(list(group))
                    size *= int(comb(int(_shape_size(code, r + 1)) + k - 1, k))
                keys.append(key)
                offsets.append(total)
                total += size
            order = np.argsort(keys)
            self.tables.append(
                (np.array(keys, np.int64)[order], np.array(offsets, np.int64)[order])
            )
            self.sizes.append(total)

    def size(self, round_: int) -> int:
        """How many classes the hands of rounds ``0 .. round_`` form."""
        return self.sizes[round_]

    def index(self, hand: Sequence[int], round_: int | None = None) -> int:
        """The class of ``hand`` (the cards of each round in turn; ``round_`` defaults
        to the last round they fill).

        Raises:
            InvalidParameterError: a card outside 0..51, a card twice, or not the number
                of cards of whole rounds.
        """
        cards = np.asarray(hand, np.int64)
        counts = np.cumsum(self.rounds)
        if round_ is None:
            hits = np.flatnonzero(counts == cards.size)
            if hits.size == 0:
                raise InvalidParameterError(
                    f"{cards.size} cards are not whole rounds of {self.rounds}."
                )
            round_ = int(hits[0])
        if cards.size != counts[round_]:
            raise InvalidParameterError(
                f"Round {round_} of {self.rounds} needs {counts[round_]} cards, received "
                f"{cards.size}."
            )
        if cards.size and (
            cards.min() < 0 or cards.max() > 51 or np.unique(cards).size < cards.size
        ):
            raise InvalidParameterError(
                f"Expected distinct cards in 0..51, received {cards.tolist()}."
            )
        keys, offsets = self.tables[round_]
        scratch = np.zeros(SCRATCH, np.int64)
        return int(hand_index(cards, cards.size, self._rounds, round_ + 1, keys, offsets, scratch))

    def arrays(self, round_: int) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
        """``(rounds, nrounds, keys, offsets)``: what :func:`hand_index` takes for
        ``round_`` inside other numba code."""
        keys, offsets = self.tables[round_]
        return self._rounds, round_ + 1, keys, offsets
