"""Suit isomorphism: the class counts of Waugh (2013) and an index that is a bijection
from classes onto 0 .. size - 1."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from nashzoo.abstraction.isomorphism import SCRATCH, HandIndexer, hand_index
from nashzoo.errors import InvalidParameterError


@pytest.mark.parametrize(
    "rounds, sizes",
    [
        # Waugh, "A Fast and Optimal Hand Isomorphism Algorithm" (2013), and his
        # hand-isomorphism library's README for the rounds 2,3,1,1
        ((2, 3, 1, 1), (169, 1_286_792, 55_190_538, 2_428_287_420)),
        ((2, 4), (169, 13_960_050)),  # the turn as one board of four cards
        ((2, 5), (169, 123_156_254)),  # the river likewise
        ((5,), (134_459,)),  # five-card boards
        ((3,), (1_755,)),  # flops
    ],
)
def test_class_counts_are_the_known_ones(rounds, sizes):
    indexer = HandIndexer(rounds)
    assert tuple(indexer.size(r) for r in range(len(rounds))) == sizes


def _canonical(hand, rounds):
    """The smallest renaming of the suits (brute force over the 24 permutations)."""
    best = None
    for perm in itertools.permutations(range(4)):
        parts, at = [], 0
        for n in rounds:
            parts.append(tuple(sorted((c >> 2) * 4 + perm[c & 3] for c in hand[at : at + n])))
            at += n
        key = tuple(parts)
        best = key if best is None or key < best else best
    return best


@pytest.mark.parametrize("rounds", [(2, 3, 1, 1), (2, 4), (1, 1, 1)])
def test_same_class_same_index_and_back(rounds):
    """On random hands: two hands share an index exactly when a renaming of the suits
    maps one onto the other (checked against the brute-force canonical form)."""
    indexer = HandIndexer(rounds)
    rng = np.random.default_rng(0)
    n = sum(rounds)
    seen: dict = {}
    for _ in range(3000):
        hand = [int(c) for c in rng.choice(52, n, replace=False)]
        if seen and rng.random() < 0.5:  # a renamed copy of an earlier hand
            key = list(seen)[int(rng.integers(len(seen)))]
            perm = rng.permutation(4)
            base = [c for part in key for c in part]
            hand = [(c >> 2) * 4 + int(perm[c & 3]) for c in base]
        index = indexer.index(hand)
        assert 0 <= index < indexer.size(len(rounds) - 1)
        key = _canonical(hand, rounds)
        assert seen.setdefault(key, index) == index
    indices = list(seen.values())
    assert len(set(indices)) == len(indices)  # different classes, different indices


@njit(cache=True)
def _flop_hits(rounds, keys, offsets, size):
    hits = np.zeros(size, np.int64)
    cards = np.zeros(5, np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(52):
                if c in (a, b):
                    continue
                for d in range(c + 1, 52):
                    if d in (a, b):
                        continue
                    for e in range(d + 1, 52):
                        if e in (a, b):
                            continue
                        cards[0] = a
                        cards[1] = b
                        cards[2] = c
                        cards[3] = d
                        cards[4] = e
                        k = hand_index(cards, 5, rounds, 2, keys, offsets, scratch)
                        hits[k] += 1
    return hits


def test_every_flop_class_is_hit_and_weighs_what_its_symmetry_says():
    """All 25,989,600 hole-and-flop hands: the indices cover 0 .. 1,286,791, each class
    holding 24 / (its suit symmetries) hands x 1 (so 4, 6, 12 or 24)."""
    indexer = HandIndexer((2, 3))
    rounds, _, keys, offsets = indexer.arrays(1)
    hits = _flop_hits(rounds, keys, offsets, indexer.size(1))
    assert hits.sum() == 1326 * 19600
    assert hits.min() > 0
    assert set(np.unique(hits).tolist()) <= {4, 6, 12, 24}


def test_bad_hands_are_refused():
    indexer = HandIndexer()
    with pytest.raises(InvalidParameterError, match="not whole rounds"):
        indexer.index([1, 2, 3])
    with pytest.raises(InvalidParameterError, match="distinct cards in 0..51"):
        indexer.index([1, 1])
    with pytest.raises(InvalidParameterError, match="distinct cards in 0..51"):
        indexer.index([0, 52])
    with pytest.raises(InvalidParameterError, match="1 to 4 rounds"):
        HandIndexer((2, 3, 1, 1, 1))
