"""Hand-strength columns for Texas Hold'em information-state tensors.

A network that reads a Hold'em information-state tensor sees its cards as one-hots (52
for the hole cards, 52 per board round) and has to learn from play alone which of the
1,326 hole-card pairs and 2.6 million flops make a strong hand. The card abstractions
already know: their buckets (:mod:`nashzoo.abstraction.holdem`) order a round's hands by
expected hand strength, in groups of about equal probability (one class a bucket where
there are as many buckets as classes, as preflop's 169). :class:`HoldemStrengthColumns`
reads the cards back out of tensor rows and appends, for each row, the bucket of every
round the row has reached as a fraction (bucket over buckets minus one: the hand's
strength percentile in that round, 0 for the weakest, 1 for the strongest; 0.5 in a
round of one bucket, which orders nothing; 0 where the round is not reached) and a
one-hot of the current round's tenth of that scale. A learner that takes them
(``SimplexGradientConfig(inputs="strength")``) still reads the whole tensor too, so
nothing is lost: the columns are hints, not an abstraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from nashzoo.abstraction.holdem import BucketArrays, bucket_of
from nashzoo.abstraction.isomorphism import SCRATCH
from nashzoo.abstraction.layout import holdem_bucket_tables
from nashzoo.abstraction.spec import DEFAULT_STRENGTH_ABSTRACTION
from nashzoo.errors import InvalidParameterError

__all__ = ["DEFAULT_STRENGTH_ABSTRACTION", "HoldemStrengthColumns", "STRENGTH_TENTHS"]

STRENGTH_TENTHS = 10
"""Width of the one-hot of the current round's strength (tenths of the scale)."""

CACHE_ROWS = 1 << 17
"""Sets of cards whose columns are kept (7 MiB); a full cache starts again."""


@njit(cache=True)
def _strength_columns(rows, hole_off, board_off, b, sizes, partial, out):  # pragma: no cover
    hole = np.zeros(2, np.int64)
    board = np.zeros(5, np.int64)
    hand = np.zeros(6, np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    seven = np.zeros(7, np.int64)
    counts = np.array([3, 1, 1])
    for i in range(rows.shape[0]):
        k = 0
        for c in range(52):
            if rows[i, hole_off + c] != 0.0:
                if k < 2:
                    hole[k] = c
                k += 1
        if k != 2:
            if partial and k < 2:
                continue  # the hole cards are being dealt: no strength yet
            return i  # a row without exactly two hole cards: the caller names it
        shown = 0
        for r in range(3):
            seen = 0
            for c in range(52):
                if rows[i, board_off[r] + c] != 0.0:
                    if shown + seen < 5:
                        board[shown + seen] = c
                    seen += 1
            if seen == 0:
                break
            if seen != counts[r]:
                if partial and seen < counts[r]:
                    break  # a round dealt partway: the rounds completed so far
                return i
            shown += seen
        last = 0 if shown == 0 else shown - 2
        for r in range(last + 1):
            bucket = bucket_of(hole, board, r, b, hand, scratch, seven)
            out[i, r] = bucket / (sizes[r] - 1) if sizes[r] > 1 else 0.5
        tenth = int(out[i, last] * 10)
        out[i, 4 + min(tenth, 9)] = 1.0
    return -1


class HoldemStrengthColumns:
    """Hand-strength columns for heads-up Texas Hold'em tensor rows (the module
    docstring says what they hold).

    Args:
        game: heads-up Texas Hold'em on the poker engine, limit or no-limit (the cards
            take the same places in both games' tensors).
        abstraction: the ``ehs``/``ehs2`` buckets to read the strengths from (four
            counts); the tables are built once per machine and cached (the default's
            flop and turn tables take a few minutes the first time).
        progress: show a progress bar while the tables are built.
        partial: accept rows dealt partway through a round (a search over the rules
            evaluates views between two chance outcomes: one or two flop cards, one hole
            card): they take the columns of the rounds completed so far (all zero before
            both hole cards). Otherwise such rows are refused.

    Raises:
        InvalidParameterError: another game, or an abstraction that is not
            ``ehs``/``ehs2`` with four counts.
    """

    width = 4 + STRENGTH_TENTHS
    """Columns appended: the four rounds' strengths, then the current round's tenth."""

    def __init__(
        self,
        game: Any,
        abstraction: str = DEFAULT_STRENGTH_ABSTRACTION,
        *,
        progress: bool = True,
        partial: bool = False,
    ) -> None:
        self.partial = bool(partial)
        spec, self.buckets = holdem_bucket_tables(game, abstraction, progress=progress)
        self.game = game
        self.abstraction = str(spec)
        self._arrays: BucketArrays = self.buckets.arrays()
        self._sizes = np.array(self.buckets.sizes, np.int64)
        self._hole = 2  # the tensor: player one-hot, hole cards, each board round's cards
        self._boards = np.array([o for o in game.board_offset if o >= 0], np.int64)
        self._cards_end = int(self._boards.max()) + 52
        self._index: dict[bytes, int] = {}
        self._table = np.zeros((CACHE_ROWS, self.width), np.float32)
        self._filled = 0

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        """``(N, width)`` float32 columns for ``N`` information-state tensors.

        Raises:
            InvalidParameterError: rows of another width, or a row whose cards are not two
                hole cards and a board of 0, 3, 4 or 5 cards.
        """
        rows = np.asarray(rows)
        size = self.game.information_state_tensor_size
        if rows.ndim != 2 or rows.shape[1] != size:
            raise InvalidParameterError(
                f"Expected rows of {size} entries ({self.game.short_name}'s information-state "
                f"tensor), received shape {rows.shape}."
            )
        if rows.shape[0] == 0:
            return np.zeros((0, self.width), np.float32)
        # the columns depend on the cards alone: rows with the same cards (a decision and
        # its successors, the same view met again while learning) are computed once, and
        # each set of cards once while it stays in the cache
        cards = np.packbits(rows[:, self._hole : self._cards_end] != 0, axis=1)
        keys = np.ascontiguousarray(cards).view(f"V{cards.shape[1]}").ravel()
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        index = np.array([self._index.get(k.tobytes(), -1) for k in unique], np.int64)
        missing = np.flatnonzero(index < 0)
        if missing.size:
            if self._filled + missing.size > self._table.shape[0]:
                # full: start again with this call's cards (the values do not change)
                self._index.clear()
                self._filled = 0
                self._table = np.zeros((max(CACHE_ROWS, unique.size), self.width), np.float32)
                index[:] = -1
                missing = np.arange(unique.size)
            fresh = np.zeros((missing.size, self.width), np.float32)
            bad = _strength_columns(
                np.ascontiguousarray(rows[first[missing]], np.float32),
                self._hole,
                self._boards,
                self._arrays,
                self._sizes,
                self.partial,
                fresh,
            )
            if bad >= 0:
                raise InvalidParameterError(
                    f"Row {int(first[missing[bad]])} is not a Hold'em view: it needs two hole "
                    "cards and a board of 0, 3, 4 or 5 cards dealt round by round."
                )
            slots = self._filled + np.arange(missing.size)
            self._table[slots] = fresh
            self._filled += missing.size
            for k, slot in zip(unique[missing], slots, strict=True):
                self._index[k.tobytes()] = int(slot)
            index[missing] = slots
        return self._table[index[inverse.ravel()]]

    def __repr__(self) -> str:
        return f"HoldemStrengthColumns({self.game.short_name!r}, {self.abstraction!r})"
