"""Fictitious play in two-player normal-form games (Brown 1951; Robinson 1951).

Every round each player best-responds to the *empirical average* of the other's past
plays; the averages converge to a Nash equilibrium in two-player zero-sum games
(Robinson's theorem), at a rate of about ``t^(-1/2)`` in practice, while the played
actions themselves keep cycling. XFP, FSP and NFSP (:mod:`nashzoo.agents.cfr`,
:mod:`nashzoo.agents.nfsp`) are its extensive-form descendants.

Updates are simultaneous (both respond to the averages of the previous round) or
alternating (player 1 already sees player 0's new play). Ties go to the lowest index.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from nashzoo.agents.nfg.gemp import bimatrix, nash_conv_bimatrix
from nashzoo.errors import InvalidParameterError
from nashzoo.validation import check_bool, check_int

__all__ = ["FictitiousPlay"]


class FictitiousPlay:
    """Fictitious play on a :class:`~nashzoo.games.MatrixGame`, a reduced normal form or
    a pair of payoff matrices ``(A, B)``.

    Args:
        game: the game.
        alternating: player 1 responds to averages that already include player 0's play
            of the same round.

    Attributes:
        counts: per player, how often each pure strategy was played (the first round
            plays strategy 0, by the tie rule against an empty history).
        history: per round, the pair of pure strategies played.
    """

    name = "fictitious-play"

    def __init__(self, game: Any, *, alternating: bool = False) -> None:
        self.game = game
        self.alternating = check_bool("alternating", alternating)
        a, b = bimatrix(game)
        self.a = np.asarray(a, dtype=np.float64)
        self.b = np.asarray(b, dtype=np.float64)
        m0, m1 = self.a.shape
        self.counts = [np.zeros(m0), np.zeros(m1)]
        # cumulative payoff of each pure strategy against the other's history
        self._score0 = np.zeros(m0)
        self._score1 = np.zeros(m1)
        self.history: list[tuple[int, int]] = []
        self.iteration = 0
        self.seconds = 0.0

    def iterate(self, n: int = 1) -> FictitiousPlay:
        """Play ``n`` rounds."""
        n = check_int("n", n, 0)
        start = time.perf_counter()
        for _ in range(n):
            i = int(np.argmax(self._score0))
            if self.alternating:
                self._score1 += self.b[i]
            j = int(np.argmax(self._score1))
            if not self.alternating:
                self._score1 += self.b[i]
            self._score0 += self.a[:, j]
            self.counts[0][i] += 1
            self.counts[1][j] += 1
            self.history.append((i, j))
        self.iteration += n
        self.seconds += time.perf_counter() - start
        return self

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' empirical mixtures (uniform before the first round)."""
        return tuple(  # type: ignore[return-value]
            c / c.sum() if c.sum() > 0 else np.full(c.size, 1.0 / c.size) for c in self.counts
        )

    def last(self) -> tuple[np.ndarray, np.ndarray]:
        """The pure strategies of the last round, as one-hot mixtures."""
        if not self.history:
            raise InvalidParameterError("No round has been played yet; call iterate() first.")
        i, j = self.history[-1]
        return np.eye(self.a.shape[0])[i], np.eye(self.a.shape[1])[j]

    def exploitability(self, which: str = "average") -> float:
        """NashConv / 2 of the average (or ``"last"``) mixtures."""
        if which not in ("average", "last"):
            raise InvalidParameterError(
                f"Parameter `which` must be 'average' or 'last', received {which!r}."
            )
        x0, x1 = self.average() if which == "average" else self.last()
        return nash_conv_bimatrix(self.a, self.b, x0, x1) / 2.0

    def __repr__(self) -> str:
        return f"FictitiousPlay(shape={self.a.shape}, iteration={self.iteration})"
