"""Card buckets for Texas Hold'em by expected hand strength (E[HS] or E[HS^2]).

A hand's *strength* HS on a full board is its chance of beating a uniformly random
opponent hand (ties count half); on an earlier round, E[HS] averages it over the cards
still to come, and E[HS^2] averages its square, which tells a hand that is always
middling from a drawing hand that will be very strong or very weak (Johanson, Burch,
Valenzano & Bowling, "Evaluating State-Space Abstractions in Extensive-Form Games",
AAMAS 2013). Each round's hands are split into buckets of equal probability by that
value: the preflop classes (169 suit-isomorphic starting hands), the flop's (1,286,792
classes of hole cards and flop), the turn's (hole cards and the four board cards), each
from a table; the river's from the value computed when asked (990 opponent hands).

The tables come from one sweep over the 134,459 suit-isomorphic five-card boards: on
each, every one of the 1,081 hole-card pairs left is ranked with the 7-card evaluator
(:mod:`nashzoo.vector.hands`), its HS found by counting the pairs it beats among those
that do not share its cards, and HS and HS^2 added to the preflop, flop and turn classes
the pair and each subset of the board form (weighted by how many boards the isomorphic
board stands for). The sweep takes a few minutes once and is cached on disk
(:func:`~nashzoo.extras.user_cache_dir`, under a key of its version); bucket tables for
any counts follow from it in seconds, and are cached too.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import njit, prange

from nashzoo.abstraction.buckets import equal_weight_buckets
from nashzoo.abstraction.isomorphism import SCRATCH, HandIndexer, hand_index
from nashzoo.errors import InvalidParameterError
from nashzoo.extras import (
    cache_lock,
    cache_written,
    progress_bar,
    temporary_sibling,
    user_cache_dir,
)
from nashzoo.games.poker.hand_kernel import _POW5, _rank_hand, tables_arrays
from nashzoo.tree.jit import ReadOnlyTables

__all__ = ["BUCKETS_VERSION", "HoldemBuckets", "holdem_buckets", "SWEEP_VERSION", "strength_sweep"]

log = logging.getLogger(__name__)

SWEEP_VERSION = 1
"""Version of the sweep's method and file; a cached sweep of another version is rebuilt."""
BUCKETS_VERSION = 2
"""How bucket tables are cut from the sweep (2: classes of equal value share a bucket);
cached tables of another version are rebuilt from the sweep."""

_HOLE = HandIndexer((2,))
_FLOP = HandIndexer((2, 3))
_TURN = HandIndexer((2, 4))  # E[HS] does not care which board card came on the turn
_BOARD = HandIndexer((5,))
HALF_UNITS = 1980
"""A hand's HS in half units: twice the opponent pairs it beats plus those it ties, out of
the 990 that share no card with it (an integer from 0 to 1,980, so sums are exact)."""


# -- the sweep ----------------------------------------------------------------------------
@njit(cache=True)
def _boards(rounds, keys, offsets, size):
    """One board of each suit-isomorphic class of five cards, and how many boards the
    class holds."""
    first = np.full((size, 5), -1, np.int64)
    weight = np.zeros(size, np.int64)
    cards = np.zeros(5, np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        cards[0] = a
                        cards[1] = b
                        cards[2] = c
                        cards[3] = d
                        cards[4] = e
                        k = hand_index(cards, 5, rounds, 1, keys, offsets, scratch)
                        if weight[k] == 0:
                            first[k, :] = cards
                        weight[k] += 1
    return first, weight


@njit(cache=True)
def _colex2(a, b):
    return b * (b - 1) // 2 + a  # a < b


@njit(cache=True)
def _colex3(a, b, c):
    return c * (c - 1) * (c - 2) // 6 + b * (b - 1) // 2 + a  # a < b < c


@njit(cache=True, parallel=True)
def _flop_table(rounds, keys, offsets):
    """The flop class of every (hole pair, flop) by their colex numbers (-1 where they
    share a card): the sweep looks each up instead of computing it."""
    table = np.full((1326, 22100), -1, np.int32)
    for b in prange(52):
        cards = np.zeros(5, np.int64)
        scratch = np.zeros(SCRATCH, np.int64)
        for a in range(b):
            h = _colex2(a, b)
            for f2 in range(52):
                if f2 in (a, b):
                    continue
                for f1 in range(f2):
                    if f1 in (a, b):
                        continue
                    for f0 in range(f1):
                        if f0 in (a, b):
                            continue
                        cards[0] = a
                        cards[1] = b
                        cards[2] = f0
                        cards[3] = f1
                        cards[4] = f2
                        table[h, _colex3(f0, f1, f2)] = hand_index(
                            cards, 5, rounds, 2, keys, offsets, scratch
                        )
    return table


@njit(cache=True)
def board_strengths(board, pow5, flush, hkeys, hvalues, rest, pa, pb, half, strength):
    """Every hole pair of the 47 cards off ``board``: its cards (``rest[pa]``,
    ``rest[pb]``; the pair of positions ``i < j`` is number :func:`pair_slot`), its 7-card
    ``strength`` and its HS in half units (``half``), with card removal (the opponent
    pairs that share a card with it do not count)."""
    n = 0
    for c in range(52):
        if c != board[0] and c != board[1] and c != board[2] and c != board[3] and c != board[4]:
            rest[n] = c
            n += 1
    seven = np.zeros(7, np.int64)
    for j in range(5):
        seven[2 + j] = board[j]
    per_card = np.zeros((47, 46), np.int64)
    filled = np.zeros(47, np.int64)
    m = 0
    for i in range(47):
        for j in range(i + 1, 47):
            seven[0] = rest[i]
            seven[1] = rest[j]
            s = _rank_hand(seven, pow5, flush, hkeys, hvalues)
            pa[m] = i
            pb[m] = j
            strength[m] = s
            per_card[i, filled[i]] = s
            filled[i] += 1
            per_card[j, filled[j]] = s
            filled[j] += 1
            m += 1
    everyone = np.sort(strength)
    for i in range(47):
        per_card[i, :] = np.sort(per_card[i, :])
    for k in range(1081):
        s = strength[k]
        i = pa[k]
        j = pb[k]
        less = np.searchsorted(everyone, s) - np.searchsorted(per_card[i], s)
        less -= np.searchsorted(per_card[j], s)
        upto = np.searchsorted(everyone, s, side="right")
        upto -= np.searchsorted(per_card[i], s, side="right")
        upto -= np.searchsorted(per_card[j], s, side="right")
        equal = upto - less + 1  # the pair itself: taken off three times, counted once
        half[k] = 2 * less + equal


@njit(cache=True)
def pair_slot(i, j):
    """The number :func:`board_strengths` gives the pair of positions ``i < j``."""
    return i * (93 - i) // 2 + j - i - 1


@njit(cache=True, parallel=True)
def _sweep(
    boards, weights, start, stop, parts, pow5, flush, hkeys, hvalues, flop_table,
    hole_rounds, hole_keys, hole_offsets, turn_rounds, turn_keys, turn_offsets,
    pre, flop, turn, river, with_flop, with_turn,
):  # fmt: skip
    """Boards ``start .. stop - 1``, split into ``parts`` that run in parallel, each into
    its own rows: per class (axis 2) the weight, the sum of half-unit HS and the sum of
    its squares (integers: the result does not depend on the order of the additions);
    ``river[part, k]``: the weight of hands whose river HS is ``k`` half units. Without
    ``with_flop`` (``with_turn``) the flop's (turn's) classes are left out."""
    span = stop - start
    for part in prange(parts):
        rest = np.zeros(47, np.int64)
        pa = np.zeros(1081, np.int64)
        pb = np.zeros(1081, np.int64)
        half = np.zeros(1081, np.int64)
        strength = np.zeros(1081, np.int64)
        hand = np.zeros(6, np.int64)
        f = np.zeros(3, np.int64)
        scratch = np.zeros(SCRATCH, np.int64)
        for bi in range(start + part * span // parts, start + (part + 1) * span // parts):
            board = boards[bi]
            w = weights[bi]
            board_strengths(board, pow5, flush, hkeys, hvalues, rest, pa, pb, half, strength)
            for k in range(1081):
                x = half[k]
                x2 = x * x
                river[part, x] += w
                a = rest[pa[k]]
                b = rest[pb[k]]
                hand[0] = a
                hand[1] = b
                c = hand_index(hand, 2, hole_rounds, 1, hole_keys, hole_offsets, scratch)
                pre[part, c, 0] += w
                pre[part, c, 1] += w * x
                pre[part, c, 2] += w * x2
                if not (with_flop or with_turn):
                    continue
                h = _colex2(a, b)
                for drop in range(5):  # the turn's four cards: the board without one
                    if with_turn:
                        t = 2
                        for q in range(5):
                            if q != drop:
                                hand[t] = board[q]
                                t += 1
                        c = hand_index(hand, 6, turn_rounds, 2, turn_keys, turn_offsets, scratch)
                        turn[part, c, 0] += w
                        turn[part, c, 1] += w * x
                        turn[part, c, 2] += w * x2
                    if not with_flop:
                        continue
                    for drop2 in range(drop + 1, 5):  # the flop: without another
                        t = 0
                        for q in range(5):
                            if q != drop and q != drop2:
                                f[t] = board[q]
                                t += 1
                        # the three cards in increasing order for their colex number
                        lo = min(f[0], f[1], f[2])
                        hi = max(f[0], f[1], f[2])
                        mid = f[0] + f[1] + f[2] - lo - hi
                        c = flop_table[h, _colex3(lo, mid, hi)]
                        flop[part, c, 0] += w
                        flop[part, c, 1] += w * x
                        flop[part, c, 2] += w * x2
    return 0


@dataclass(frozen=True)
class StrengthSweep:
    """Per class of each round: its weight (how many hands it stands for) and the sums of
    its hands' river HS in half units and of their squares over the cards to come
    (``(classes, 3)`` int64); ``river[k]``: the weight of river hands of HS ``k``."""

    preflop: np.ndarray
    flop: np.ndarray
    turn: np.ndarray
    river: np.ndarray

    def means(self, round_: int, squared: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(E[HS] or E[HS^2], weight)`` of each class of ``round_`` (0, 1 or 2)."""
        table = (self.preflop, self.flop, self.turn)[round_]
        weight = table[:, 0].astype(np.float64)
        total = table[:, 2] / HALF_UNITS**2 if squared else table[:, 1] / HALF_UNITS
        return total / np.maximum(weight, 1.0), weight


def _sweep_path(rounds: tuple[bool, bool]) -> Path:
    suffix = {
        (True, True): "",
        (True, False): "-flop",
        (False, True): "-turn",
        (False, False): "-river",
    }
    name = f"holdem-strength-sweep{suffix[rounds]}-v{SWEEP_VERSION}.npz"
    return user_cache_dir("abstraction") / name


def canonical_boards() -> tuple[np.ndarray, np.ndarray]:
    """Every suit-isomorphic class of 5-card boards (134,459) as ``(classes, 5)`` cards
    and the number of boards each stands for (they sum to C(52, 5) = 2,598,960)."""
    rounds, _, keys, offsets = _BOARD.arrays(0)
    return _boards(rounds, keys, offsets, _BOARD.size(0))


def sweep_boards(
    boards: np.ndarray,
    weights: np.ndarray,
    *,
    parts: int = 1,
    bar: Any = None,
    rounds: tuple[bool, bool] = (True, True),
) -> StrengthSweep:
    """The sweep's sums over ``boards`` (each counted ``weights`` times), split into
    ``parts`` that run in parallel; integers, so the same whatever ``parts`` is.
    ``rounds``: whether to sum the flop's and the turn's classes (an abstraction with one
    bucket on a round needs none of them; the turn's are most of the time)."""
    with_flop, with_turn = bool(rounds[0]), bool(rounds[1])
    fr, _, fk, fo = _FLOP.arrays(1)
    flop_table = _flop_table(fr, fk, fo) if with_flop else np.zeros((1, 1), np.int32)
    pre = np.zeros((parts, _HOLE.size(0), 3), np.int64)
    flop = np.zeros((parts, _FLOP.size(1) if with_flop else 0, 3), np.int64)
    turn = np.zeros((parts, _TURN.size(1) if with_turn else 0, 3), np.int64)
    river = np.zeros((parts, HALF_UNITS + 1), np.int64)
    flush, hkeys, hvalues = tables_arrays()
    hr, _, hk, ho = _HOLE.arrays(0)
    tr, _, tk, to = _TURN.arrays(1)
    chunks = np.linspace(0, len(boards), min(101, len(boards) + 1)).astype(np.int64)
    for start, stop in itertools.pairwise(chunks):
        _sweep(
            boards, weights, int(start), int(stop), parts, _POW5, flush, hkeys, hvalues,
            flop_table, hr, hk, ho, tr, tk, to, pre, flop, turn, river, with_flop, with_turn,
        )  # fmt: skip
        if bar is not None:
            bar.update(int(stop - start))
    return StrengthSweep(pre.sum(axis=0), flop.sum(axis=0), turn.sum(axis=0), river.sum(axis=0))


def strength_sweep(
    *, rounds: tuple[bool, bool] = (True, True), progress: bool = True, cache: bool = True
) -> StrengthSweep:
    """The sweep (see the module docstring), from the cache or computed (on this 2-core
    machine: 2.7 minutes in all, 62 s without the turn's classes, 18 s without the flop's
    and the turn's; peak memory about 0.6 GiB plus 0.45 GiB per core with the turn's).

    Args:
        rounds: whether the flop's and the turn's classes are wanted (a cached sweep
            with more serves a request for fewer).
        progress: show a progress bar while computing.
        cache: read and write the on-disk cache.
    """
    rounds = (bool(rounds[0]), bool(rounds[1]))
    if not cache:
        return _compute_sweep(rounds, progress)
    found = _cached_sweep(rounds)
    if found is not None:
        return found
    path = _sweep_path(rounds)
    # processes that need the same sweep at once (a tournament's workers, a test suite's)
    # take turns: the first computes it, the others then read its file
    with cache_lock(path, "the Hold'em strength sweep"):
        found = _cached_sweep(rounds)
        if found is not None:
            return found
        sweep = _compute_sweep(rounds, progress)
        tmp = temporary_sibling(path)
        np.savez(tmp, version=SWEEP_VERSION, **sweep.__dict__)
        tmp.replace(path)
        cache_written(path, "the Hold'em strength sweep")
    return sweep


def _cached_sweep(rounds: tuple[bool, bool]) -> StrengthSweep | None:
    """A cached sweep with at least the classes of ``rounds``, or None."""
    options = (rounds, (True, False), (False, True), (True, True))
    for have in dict.fromkeys(options):
        if have[0] < rounds[0] or have[1] < rounds[1]:
            continue  # a sweep without the classes asked for
        path = _sweep_path(have)
        if not path.is_file():
            continue
        try:
            with np.load(path, allow_pickle=False) as data:
                if int(data["version"]) == SWEEP_VERSION:
                    fields = StrengthSweep.__dataclass_fields__
                    return StrengthSweep(**{k: data[k] for k in fields})
        except Exception as exc:  # a damaged cache is rebuilt, never trusted
            log.warning("rebuilding the Hold'em strength sweep: %s is unreadable (%s)", path, exc)
    return None


def _compute_sweep(rounds: tuple[bool, bool], progress: bool) -> StrengthSweep:
    """Every canonical board swept, on numba's threads."""
    boards, weights = canonical_boards()
    bar = (
        progress_bar(total=len(boards), desc="Hold'em hand strength", unit="board")
        if progress
        else None
    )
    parts = max(1, int(numba.get_num_threads()))
    sweep = sweep_boards(boards, weights, parts=parts, bar=bar, rounds=rounds)
    if bar is not None:
        bar.close()
    return sweep


# -- buckets ------------------------------------------------------------------------------
class BucketArrays(NamedTuple):
    """What :func:`bucket_of` reads (numba takes it as one argument)."""

    preflop: np.ndarray
    flop: np.ndarray
    turn: np.ndarray
    river_edges: np.ndarray
    squared: bool
    hole_rounds: np.ndarray
    hole_keys: np.ndarray
    hole_offsets: np.ndarray
    flop_rounds: np.ndarray
    flop_keys: np.ndarray
    flop_offsets: np.ndarray
    turn_rounds: np.ndarray
    turn_keys: np.ndarray
    turn_offsets: np.ndarray
    flush: np.ndarray
    hand_keys: np.ndarray
    hand_values: np.ndarray
    pow5: np.ndarray


@njit(cache=True)
def hand_rank(seven, b):
    """The 7-card strength of ``seven`` (larger wins) with ``b``'s evaluator tables."""
    return _rank_hand(seven, b.pow5, b.flush, b.hand_keys, b.hand_values)


@njit(cache=True)
def river_strength(hole, board, b, seven):
    """HS of ``hole`` (2 cards) on the 5-card ``board`` in half units (0 to
    :data:`HALF_UNITS`): twice the opponent pairs of the 45 cards left it beats plus
    those it ties (``seven``: 7 int64s of scratch)."""
    for j in range(5):
        seven[2 + j] = board[j]
    seven[0] = hole[0]
    seven[1] = hole[1]
    own = _rank_hand(seven, b.pow5, b.flush, b.hand_keys, b.hand_values)
    half = 0
    for x in range(52):
        if x == hole[0] or x == hole[1] or x == board[0] or x == board[1] or x == board[2]:
            continue
        if x == board[3] or x == board[4]:
            continue
        for y in range(x + 1, 52):
            if y == hole[0] or y == hole[1] or y == board[0] or y == board[1]:
                continue
            if y == board[2] or y == board[3] or y == board[4]:
                continue
            seven[0] = x
            seven[1] = y
            theirs = _rank_hand(seven, b.pow5, b.flush, b.hand_keys, b.hand_values)
            if own > theirs:
                half += 2
            elif own == theirs:
                half += 1
    return half


@njit(cache=True)
def bucket_of(hole, board, r, b, hand, scratch, seven):
    """The bucket of ``hole`` with the first cards of ``board`` that round ``r`` shows
    (0 preflop, 1 flop, 2 turn, 3 river); ``hand``, ``scratch``, ``seven``: int64
    scratch arrays of 6, :data:`~nashzoo.abstraction.isomorphism.SCRATCH` and 7."""
    hand[0] = hole[0]
    hand[1] = hole[1]
    if r == 0:
        return b.preflop[
            hand_index(hand, 2, b.hole_rounds, 1, b.hole_keys, b.hole_offsets, scratch)
        ]
    if r == 3:  # HS and HS^2 order river hands alike: edges on HS in half units
        return np.searchsorted(b.river_edges, river_strength(hole, board, b, seven), side="right")
    for j in range(2 + r):
        hand[2 + j] = board[j]
    if r == 1:
        return b.flop[hand_index(hand, 5, b.flop_rounds, 2, b.flop_keys, b.flop_offsets, scratch)]
    return b.turn[hand_index(hand, 6, b.turn_rounds, 2, b.turn_keys, b.turn_offsets, scratch)]


@njit(cache=True)
def buckets_of(holes, board, r, b, out):
    """:func:`bucket_of` of every row of ``holes`` (``(n, 2)``) with one ``board``,
    into ``out``: a range of holdings on one public state at once (on the river, every
    pair's HS from :func:`board_strengths`, each pair of cards ranked once, instead of
    :func:`river_strength` ranking every opponent pair again for each hand)."""
    if r == 3:
        rest = np.zeros(47, np.int64)
        pa = np.zeros(1081, np.int64)
        pb = np.zeros(1081, np.int64)
        half = np.zeros(1081, np.int64)
        strength = np.zeros(1081, np.int64)
        board_strengths(board, b.pow5, b.flush, b.hand_keys, b.hand_values, rest, pa, pb,
                        half, strength)  # fmt: skip
        position = np.full(52, -1, np.int64)
        for i in range(47):
            position[rest[i]] = i
        for k in range(holes.shape[0]):
            i, j = position[holes[k, 0]], position[holes[k, 1]]
            slot = pair_slot(min(i, j), max(i, j))
            out[k] = np.searchsorted(b.river_edges, half[slot], side="right")
        return
    hand = np.zeros(6, np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    seven = np.zeros(7, np.int64)
    for i in range(holes.shape[0]):
        out[i] = bucket_of(holes[i], board, r, b, hand, scratch, seven)


def _river_edges(hist: np.ndarray, count: int) -> np.ndarray:
    """Thresholds on the river's HS in half units splitting the hands' weight
    (``hist[k]``: the weight of HS ``k``) into ``count`` parts as equal as the values
    allow (a hand at a threshold goes to the upper part)."""
    cum = np.cumsum(hist) / hist.sum()
    return np.searchsorted(cum, np.arange(1, count) / count).astype(np.int64)


@dataclass(frozen=True)
class HoldemBuckets(ReadOnlyTables):
    """Per-round card buckets of Texas Hold'em by E[HS] (``kind="ehs"``) or E[HS^2]
    (``"ehs2"``): ``counts`` buckets per round (preflop, flop, turn, river; 169 or more
    preflop is the lossless 169 classes).

    Attributes:
        preflop, flop, turn: the bucket of each suit-isomorphic class of the round.
        river_edges: thresholds between river buckets on HS in half units (E[HS] and
            E[HS^2] order river hands alike).
        fingerprint: a hash of the tables, which a saved policy keeps so that it is only
            ever played with the buckets it was solved with.
    """

    kind: str
    counts: tuple[int, int, int, int]
    preflop: np.ndarray
    flop: np.ndarray
    turn: np.ndarray
    river_edges: np.ndarray
    fingerprint: str

    @functools.cached_property
    def sizes(self) -> tuple[int, int, int, int]:
        """Buckets each round really has (preflop at most 169)."""
        return (
            int(self.preflop.max()) + 1,
            int(self.flop.max()) + 1,
            int(self.turn.max()) + 1,
            int(self.river_edges.size) + 1,
        )

    @functools.cached_property
    def _arrays(self) -> BucketArrays:
        return self.arrays()

    def arrays(self) -> BucketArrays:
        """The tables as :func:`bucket_of` reads them."""
        flush, keys, values = tables_arrays()
        hr, _, hk, ho = _HOLE.arrays(0)
        fr, _, fk, fo = _FLOP.arrays(1)
        tr, _, tk, to = _TURN.arrays(1)
        return BucketArrays(
            self.preflop, self.flop, self.turn, self.river_edges, self.kind == "ehs2",
            hr, hk, ho, fr, fk, fo, tr, tk, to, flush, keys, values, _POW5,
        )  # fmt: skip

    def bucket(self, hole: Any, board: Any = ()) -> int:
        """The bucket of the two ``hole`` cards with the ``board`` so far (0, 3, 4 or 5
        cards; cards are ``rank * 4 + suit``).

        Raises:
            InvalidParameterError: not 2 hole cards, a board of another size, a card out
                of 0..51 or a card twice.
        """
        hole = np.asarray(hole, np.int64)
        board = np.asarray(board, np.int64).reshape(-1)
        rounds = {0: 0, 3: 1, 4: 2, 5: 3}
        cards = np.concatenate([hole, board])
        if (
            hole.size != 2
            or board.size not in rounds
            or cards.min() < 0
            or cards.max() > 51
            or np.unique(cards).size != cards.size
        ):
            raise InvalidParameterError(
                f"A Hold'em bucket needs 2 hole cards and a board of 0, 3, 4 or 5 cards, "
                f"all distinct in 0..51; received hole {hole.tolist()} board {board.tolist()}."
            )
        full = np.zeros(5, np.int64)
        full[: board.size] = board
        return int(
            bucket_of(
                hole,
                full,
                rounds[board.size],
                self._arrays,
                np.zeros(6, np.int64),
                np.zeros(SCRATCH, np.int64),
                np.zeros(7, np.int64),
            )
        )

    def buckets_many(self, holes: np.ndarray, board: Any = ()) -> np.ndarray:
        """:meth:`bucket` of every row of ``holes`` (``(n, 2)``, each distinct from the
        board) with one ``board``, in numba: what an agent asked about a whole range
        needs."""
        holes = np.ascontiguousarray(holes, dtype=np.int64).reshape(-1, 2)
        board = np.asarray(board, np.int64).reshape(-1)
        rounds = {0: 0, 3: 1, 4: 2, 5: 3}
        if board.size not in rounds:
            raise InvalidParameterError(
                f"A Hold'em board has 0, 3, 4 or 5 cards; received {board.tolist()}."
            )
        full = np.zeros(5, np.int64)
        full[: board.size] = board
        out = np.zeros(len(holes), np.int64)
        buckets_of(holes, full, rounds[board.size], self._arrays, out)
        return out


def holdem_buckets(
    kind: str, counts: tuple[int, int, int, int], *, progress: bool = True, cache: bool = True
) -> HoldemBuckets:
    """The bucket tables for ``kind`` (``"ehs"`` or ``"ehs2"``) and ``counts`` per round,
    from the on-disk cache or built from the strength sweep (:func:`strength_sweep`).

    Raises:
        InvalidParameterError: another kind, or counts that are not four whole numbers
            from 1 to 65,535.
    """
    if kind not in ("ehs", "ehs2"):
        raise InvalidParameterError(f"Hold'em buckets are 'ehs' or 'ehs2', received {kind!r}.")
    if len(counts) != 4 or any(
        not isinstance(c, (int, np.integer)) or not 1 <= c <= 65_535 for c in counts
    ):
        raise InvalidParameterError(
            f"Hold'em buckets need 4 counts (preflop, flop, turn, river) from 1 to 65,535, "
            f"received {list(counts)}."
        )
    counts = tuple(int(c) for c in counts)  # type: ignore[assignment]
    version = f"{SWEEP_VERSION}.{BUCKETS_VERSION}"
    name = f"holdem-{kind}-{'-'.join(map(str, counts))}-v{version}.npz"
    path = user_cache_dir("abstraction") / name
    if cache and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                if header == {"kind": kind, "counts": list(counts), "version": version}:
                    return _finish(kind, counts, data["preflop"], data["flop"], data["turn"],
                                   data["river_edges"])  # fmt: skip
        except Exception as exc:
            log.warning("rebuilding the Hold'em buckets: %s is unreadable (%s)", path, exc)
    # a round of one bucket needs no strengths: the sweep skips its classes
    rounds = (counts[1] > 1, counts[2] > 1)
    sweep = strength_sweep(rounds=rounds, progress=progress, cache=cache)
    squared = kind == "ehs2"
    sizes = (_HOLE.size(0), _FLOP.size(1), _TURN.size(1))
    preflop, flop, turn = (
        equal_weight_buckets(*sweep.means(r, squared), counts[r])
        if r == 0 or rounds[r - 1]
        else np.zeros(sizes[r], np.int32)
        for r in range(3)
    )
    edges = _river_edges(sweep.river, counts[3])
    if cache:
        tmp = temporary_sibling(path)
        header = json.dumps({"kind": kind, "counts": list(counts), "version": version})
        np.savez(tmp, header=header, preflop=preflop, flop=flop, turn=turn, river_edges=edges)
        tmp.replace(path)
        cache_written(path, f"Hold'em {kind} buckets {'/'.join(map(str, counts))}")
    return _finish(kind, counts, preflop, flop, turn, edges)


def _finish(
    kind: str,
    counts: tuple[int, int, int, int],
    preflop: np.ndarray,
    flop: np.ndarray,
    turn: np.ndarray,
    edges: np.ndarray,
) -> HoldemBuckets:
    digest = hashlib.sha256()
    for array in (preflop, flop, turn, edges):
        array = np.ascontiguousarray(array)
        digest.update(array.dtype.str.encode())
        digest.update(array.tobytes())
    preflop, flop, turn = (np.asarray(a, np.int32) for a in (preflop, flop, turn))
    edges = np.asarray(edges, np.int64)
    return HoldemBuckets(kind, counts, preflop, flop, turn, edges, digest.hexdigest()[:16])
