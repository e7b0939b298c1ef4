"""Off-tree bet translation: a no-limit bet the abstraction does not make, read as one
that it does.

A blueprint solved with a few bet sizes (half pot, pot, all-in) meets bets of other
sizes from an opponent that plays the real game, or a game with other sizes. The
pseudo-harmonic mapping (Ganzfried & Sandholm, "Action Translation in Extensive-Form
Games with Large Action Spaces", IJCAI 2013) reads a bet of ``x`` times the pot, between
the abstraction's sizes ``A < x < B``, as ``A`` with probability

    f_A(x) = (B - x)(1 + A) / ((B - A)(1 + x))

and as ``B`` otherwise: exact at ``A`` and ``B``, monotone between them, and the least
exploitable of the mappings the paper compares against bets chosen to fool it. A bet
below the smallest size reads as the smallest, one above the largest as the largest.

Sizes are fractions of the pot after a call: a raise to ``t`` when the most anyone has
put in is ``m`` and the pot after calling it is ``q`` has size ``(t - m) / q`` (the
poker engine's pot-fraction raises, and universal_poker's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.game import PokerGame

__all__ = ["pseudo_harmonic", "translate_size", "pot_fraction", "translates"]


def translates(game: Any) -> bool:
    """Whether bets of ``game`` can be translated: heads-up no-limit poker of the engine
    (the games an action abstraction and bet translation apply to)."""
    return isinstance(game, PokerGame) and not game.limit and game.num_players == 2


def pseudo_harmonic(x: float, a: float, b: float) -> float:
    """The probability that the pseudo-harmonic mapping reads a bet of ``x`` pots as the
    smaller size ``a`` (the larger ``b`` otherwise), for ``0 <= a < b`` and ``x`` between
    them.

    Raises:
        InvalidParameterError: sizes out of that order, or not finite.
    """
    x, a, b = float(x), float(a), float(b)
    if not all(np.isfinite(v) for v in (x, a, b)) or not 0 <= a < b or not a <= x <= b:
        raise InvalidParameterError(
            f"pseudo_harmonic takes sizes 0 <= a <= x <= b with a < b (fractions of the pot), "
            f"received x={x!r}, a={a!r}, b={b!r}."
        )
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def translate_size(x: float, sizes: Sequence[float], u: float) -> int:
    """The index in ``sizes`` (fractions of the pot, any order) that a bet of ``x`` pots
    reads as, drawing between its two neighbours with the uniform number ``u`` in
    ``[0, 1)``: the smaller one when ``u`` is below :func:`pseudo_harmonic`'s probability.

    Raises:
        InvalidParameterError: no sizes, or ``u`` outside ``[0, 1)``.
    """
    if len(sizes) == 0:
        raise InvalidParameterError("translate_size needs at least one size to read a bet as.")
    if not 0 <= u < 1:
        raise InvalidParameterError(f"translate_size takes u in [0, 1), received {u!r}.")
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    values = [float(sizes[i]) for i in order]
    if x <= values[0]:
        return order[0]
    if x >= values[-1]:
        return order[-1]
    k = int(np.searchsorted(values, x, side="right"))  # values[k - 1] <= x < values[k]
    a, b = values[k - 1], values[k]
    if x == a:
        return order[k - 1]
    return order[k - 1] if u < pseudo_harmonic(x, a, b) else order[k]


def pot_fraction(raise_to: int, spent: Sequence[int], player: int) -> float:
    """The size of ``player``'s raise to ``raise_to`` chips as a fraction of the pot after
    a call, where ``spent`` is what each player has put in before it."""
    top = max(spent)
    pot = sum(spent) + top - spent[player]
    return (raise_to - top) / pot
