"""Poker hand ranking: the best five-card hand of up to seven cards.

Cards are integers ``rank * num_suits + suit`` (ACPC's and OpenSpiel universal_poker's
numbering: rank 0 is the deuce, suits in the order ``c d h s``). A hand's *strength* is an
integer; a larger strength wins and equal strengths split the pot.

Two evaluators share one definition of poker hands (:func:`hand_value`):

* :func:`hand_value` ranks any hand of 1 to 7 cards of any deck (pairs, two pair, trips,
  straights and flushes when five cards make them; the wheel A-2-3-4-5 counts when the
  deck has an ace). Short decks and hands of fewer than five cards (Leduc's two) use it.
* :class:`HandTables` ranks five to seven cards of the standard 52-card deck by table
  look-up: a flush table indexed by the 13-bit rank mask of the flush suit and a table of
  rank multisets keyed by ``sum(5 ** rank)``. No 7-card hand can hold a flush together
  with a full house or four of a kind (that needs eight cards), so a flush, if there is
  one, is the hand. Strengths are the 7,462 classes of five-card hands, 1 (7-5-4-3-2
  offsuit) to 7,462 (a royal flush). :func:`standard_tables` builds them once (about
  0.3 s) and keeps them.

The batched evaluator for arrays of hands lives in :mod:`nashzoo.vector.hands` (numba).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "strength_function",
    "CATEGORIES",
    "RANK_CHARS",
    "SUIT_CHARS",
    "HandTables",
    "card_name",
    "hand_value",
    "standard_tables",
    "parse_cards",
]

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
CATEGORIES: tuple[str, ...] = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
"""Hand categories, weakest first (the first element of :func:`hand_value`)."""


def card_name(card: int, num_suits: int = 4) -> str:
    """``"As"`` for card 51 of the standard deck (``rank * num_suits + suit``)."""
    rank, suit = divmod(card, num_suits)
    rank_char = RANK_CHARS[rank] if rank < len(RANK_CHARS) else f"<{rank}>"
    return rank_char + SUIT_CHARS[suit]


def parse_cards(text: str, num_suits: int = 4) -> list[int]:
    """``"AsKd"`` or ``"As Kd"`` to card ids.

    Raises:
        ValueError: a character is not a rank or suit, or the text has an odd length.
    """
    compact = text.replace(" ", "")
    if len(compact) % 2:
        raise ValueError(f"Cards are pairs of rank and suit like 'As', received {text!r}.")
    cards = []
    for i in range(0, len(compact), 2):
        r, s = compact[i], compact[i + 1]
        if r not in RANK_CHARS or s not in SUIT_CHARS[:num_suits]:
            raise ValueError(
                f"Unknown card {r + s!r} in {text!r}: ranks are {RANK_CHARS}, suits "
                f"{SUIT_CHARS[:num_suits]}."
            )
        cards.append(RANK_CHARS.index(r) * num_suits + SUIT_CHARS.index(s))
    return cards


def _straight_top(present: Sequence[bool], num_ranks: int) -> int:
    """Top rank of the best straight among the ranks present, or -1."""
    run = 0
    for r in range(num_ranks - 1, -1, -1):
        run = run + 1 if present[r] else 0
        if run == 5:
            return r + 4
    # the wheel: A-2-3-4-5, with the ace low (only a deck with an ace has it)
    if num_ranks == 13 and present[12] and all(present[r] for r in range(4)):
        return 3
    return -1


def hand_value(cards: Sequence[int], num_ranks: int = 13, num_suits: int = 4) -> tuple[int, ...]:
    """The best five-card poker hand among ``cards`` (1 to 7 cards) as a comparable tuple.

    ``(category, ranks...)``: the index into :data:`CATEGORIES`, then the ranks that break
    ties, most important first (for two pair: high pair, low pair, kicker). Tuples compare
    like the hands: larger wins, equal ties.
    """
    counts = [0] * num_ranks
    by_suit: list[list[int]] = [[] for _ in range(num_suits)]
    for c in cards:
        r, s = divmod(c, num_suits)
        counts[r] += 1
        by_suit[s].append(r)
    flushes = [_flush_value(ranks, num_ranks) for ranks in by_suit if len(ranks) >= 5]
    if not flushes:
        return _rank_value(counts)
    value = max(flushes)  # with ten or more cards two suits can each make one
    # with eight or more cards a flush may coexist with quads or a full house
    return max(value, _rank_value(counts)) if len(cards) > 7 else value


def _flush_value(flush_ranks: Sequence[int], num_ranks: int) -> tuple[int, ...]:
    present = [False] * num_ranks
    for r in flush_ranks:
        present[r] = True
    top = _straight_top(present, num_ranks)
    if top >= 0:
        return (8, top)
    return (5, *sorted(flush_ranks, reverse=True)[:5])


def _rank_value(counts: Sequence[int]) -> tuple[int, ...]:
    """The best hand of a rank multiset (``counts[r]`` cards of rank ``r``), no flush."""
    groups = sorted(((k, r) for r, k in enumerate(counts) if k), reverse=True)
    singles = [r for k, r in sorted(((0, r) for r, k in enumerate(counts) if k), reverse=True)]
    top_count, top_rank = groups[0]
    if top_count >= 4:
        return (7, top_rank, *[r for r in singles if r != top_rank][:1])
    if top_count == 3 and len(groups) > 1 and groups[1][0] >= 2:
        return (6, top_rank, groups[1][1])
    if sum(counts) >= 5:
        top = _straight_top([k > 0 for k in counts], len(counts))
        if top >= 0:
            return (4, top)
    if top_count == 3:
        return (3, top_rank, *[r for r in singles if r != top_rank][:2])
    if top_count == 2 and len(groups) > 1 and groups[1][0] == 2:
        low = groups[1][1]
        return (2, top_rank, low, *[r for r in singles if r not in (top_rank, low)][:1])
    if top_count == 2:
        return (1, top_rank, *[r for r in singles if r != top_rank][:3])
    return (0, *singles[:5])


class HandTables:
    """Look-up tables ranking five to seven cards of the standard 52-card deck.

    Attributes:
        values: the 7,462 distinct five-card :func:`hand_value` tuples, weakest first;
            strength ``k`` is ``values[k - 1]``.
        category_starts: the first strength of each category of :data:`CATEGORIES`.
        flush: ``uint16`` array of 8,192: strength of the flush (or straight flush) made
            by a 13-bit mask of ranks of one suit with at least five bits set; 0 elsewhere.
        multiset_keys: sorted ``int64`` keys ``sum(5 ** rank)`` of every rank multiset of
            five to seven cards (counts at most 4).
        multiset_strengths: ``uint16`` strength of each key without a flush.
    """

    def __init__(self) -> None:
        def multisets(size: int) -> list[tuple[int, ...]]:
            return [
                ranks
                for ranks in itertools.combinations_with_replacement(range(13), size)
                if all(ranks.count(r) <= 4 for r in ranks)
            ]

        def counts_of(ranks: tuple[int, ...]) -> list[int]:
            return [ranks.count(r) for r in range(13)]

        # five-card classes: every rank multiset without a flush, every rank set as a flush
        values = {_rank_value(counts_of(ranks)) for ranks in multisets(5)}
        values.update(_flush_value(ranks, 13) for ranks in itertools.combinations(range(13), 5))
        self.values: list[tuple[int, ...]] = sorted(values)
        strength = {v: i + 1 for i, v in enumerate(self.values)}
        self.category_starts: tuple[int, ...] = tuple(
            next(i + 1 for i, v in enumerate(self.values) if v[0] == c)
            for c in range(len(CATEGORIES))
        )
        flush = np.zeros(1 << 13, dtype=np.uint16)
        for mask in range(1 << 13):
            if bin(mask).count("1") >= 5:
                flush[mask] = strength[_flush_value([r for r in range(13) if mask >> r & 1], 13)]
        self.flush = flush
        keys = {
            sum(5**r for r in ranks): strength[_rank_value(counts_of(ranks))]
            for size in (5, 6, 7)
            for ranks in multisets(size)
        }
        order = sorted(keys)
        self.multiset_keys = np.array(order, dtype=np.int64)
        self.multiset_strengths = np.array([keys[k] for k in order], dtype=np.uint16)
        self._multiset = keys
        self._flush = flush.tolist()
        self._rank_key = [5 ** (c // 4) for c in range(52)]
        self._rank_bit = [1 << (c // 4) for c in range(52)]
        self._suit_nibble = [1 << (4 * (c % 4)) for c in range(52)]

    def strength(self, cards: Sequence[int]) -> int:
        """Strength (1 to 7,462) of the best five-card hand among 5 to 7 cards.

        The caller passes distinct cards of the 52-card deck; nothing is validated (the
        engine's showdown is the hot path).
        """
        nibbles = 0
        key = 0
        rank_key = self._rank_key
        suit_nibble = self._suit_nibble
        for c in cards:
            key += rank_key[c]
            nibbles += suit_nibble[c]
        flushed = (nibbles + 0x3333) & 0x8888  # a suit nibble of 5 or more
        if flushed:
            suit = (flushed.bit_length() - 4) >> 2
            bits = self._rank_bit
            mask = 0
            for c in cards:
                if c & 3 == suit:
                    mask |= bits[c]
            return self._flush[mask]  # type: ignore[no-any-return]
        return self._multiset[key]

    def category(self, strength: int) -> int:
        """Index into :data:`CATEGORIES` of a strength."""
        starts = self.category_starts
        c = len(starts) - 1
        while strength < starts[c]:
            c -= 1
        return c

    def value(self, strength: int) -> tuple[int, ...]:
        """The :func:`hand_value` tuple of a strength."""
        return self.values[strength - 1]


@functools.cache
def standard_tables() -> HandTables:
    """The :class:`HandTables` of the 52-card deck, built on first use and kept."""
    return HandTables()


STRENGTH_CACHE = 1 << 16
"""Hands each small-deck strength function remembers (then it starts over)."""


def strength_function(
    num_ranks: int, num_suits: int, hand_cards: int
) -> tuple[bool, Callable[[Sequence[int]], Any]]:
    """``(standard, strength)`` for hands of ``hand_cards`` cards from a deck of
    ``num_ranks`` x ``num_suits``: the standard 52-card tables for 5 to 7 cards of the full
    deck (``standard`` True), else :func:`hand_value` on this deck. The poker engine uses
    it."""
    if num_ranks * num_suits == 52 and 5 <= hand_cards <= 7:
        return True, standard_tables().strength
    return False, _RememberedValue(num_ranks, num_suits)


class _RememberedValue:
    """:func:`hand_value` on one deck, remembering up to :data:`STRENGTH_CACHE` hands
    (then starting over): searches value the same few again and again (Leduc has 30
    ordered pairs). Pickles without what it remembers."""

    def __init__(self, num_ranks: int, num_suits: int) -> None:
        self.num_ranks = num_ranks
        self.num_suits = num_suits
        self.known: dict[tuple[int, ...], tuple[int, ...]] = {}

    def __call__(self, cards: Sequence[int]) -> tuple[int, ...]:
        key = tuple(cards)
        found = self.known.get(key)
        if found is None:
            if len(self.known) >= STRENGTH_CACHE:
                self.known.clear()
            found = self.known[key] = hand_value(key, self.num_ranks, self.num_suits)
        return found

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (_RememberedValue, (self.num_ranks, self.num_suits))
