"""Means, standard errors and 95% confidence intervals of match scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from nashzoo.games.base import Game

__all__ = [
    "Z95",
    "mean_and_stderr",
    "sample_mean_and_stderr",
    "ci95",
    "score_unit",
    "scale_and_unit",
    "score_digits",
]

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""


def mean_and_stderr(n: int, total: float, total_sq: float) -> tuple[float, float]:
    """Mean and its standard error from a count, a sum and a sum of squares
    (``nan`` for no data, an infinite error for one sample).

    For running totals (a stored block keeps only these three numbers). The difference
    ``total_sq - total**2 / n`` loses the variance to rounding once it is below about
    ``2**-53 * total_sq``: the error it reports never falls below about
    ``1.5e-8 * rms / sqrt(n)``, whatever the spread. Where the samples themselves are at
    hand, :func:`sample_mean_and_stderr` has no such floor."""
    if n == 0:
        return math.nan, math.nan
    mean = total / n
    if n < 2:
        return mean, math.inf
    var = max(total_sq - total * total / n, 0.0) / (n - 1)
    return mean, math.sqrt(var / n)


def sample_mean_and_stderr(samples: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and its standard error of the samples themselves, in two passes (the mean,
    then the squared deviations from it), so that a spread far below the mean's size
    (AIVAT-corrected deals with exact values agree to about 1e-15) is not lost to
    rounding; ``nan`` for no data, an infinite error for one sample."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.inf
    var = float(np.square(x - mean).sum()) / (x.size - 1)
    return mean, math.sqrt(var / x.size)


def ci95(mean: float, stderr: float) -> tuple[float, float]:
    """The normal-approximation 95% interval ``mean ± 1.96 stderr``."""
    return mean - Z95 * stderr, mean + Z95 * stderr


def score_unit(game: Game) -> tuple[float, str]:
    """``(scale, unit)`` to report a game's scores in: mbb/game (1000 / big blind) where
    the game has a big blind, its own unit per game otherwise (:attr:`Game.payoff_unit
    <nashzoo.games.base.Game.payoff_unit>`; the fighting game's win is 1 point)."""
    return scale_and_unit(game.big_blind, game.payoff_unit)


def scale_and_unit(big_blind: float | None, payoff_unit: str) -> tuple[float, str]:
    """:func:`score_unit` from a game's big blind and payoff unit (what a result keeps
    of its game)."""
    if big_blind:
        return 1000.0 / big_blind, "mbb/game"
    return 1.0, f"{payoff_unit}/game"


def score_digits(scale: float, mbb: int = 1) -> int:
    """Decimals to print a score in :func:`score_unit`'s ``scale`` with: ``mbb`` in
    mbb/game, 3 in a game's own unit (payoffs of a few units, where +0.0 would hide a
    score of +0.04)."""
    return mbb if scale != 1.0 else 3
