"""Regret matching in two-player normal-form games, with full or sampled feedback.

Regret matching (Hart & Mas-Colell, "A Simple Adaptive Procedure Leading to Correlated
Equilibrium", Econometrica 2000) plays each action with probability proportional to its
positive cumulative regret (uniformly when no regret is positive). Two kinds of feedback:

* ``feedback="full"``: the regret of action ``a`` in round ``t`` is its expected payoff
  against the other's current mixture minus the mixture's own: ``r(a) += u(a, s_-i) -
  u(s_i, s_-i)``. This is the matrix-game form of what CFR does at every information set.
* ``feedback="sampled"`` (the textbook procedure): both players draw an action from their
  current mixtures, and the regret of every action is what it would have earned against
  the action the other actually drew, minus what the drawn action earned: ``r(a) +=
  u(a, b_-i) - u(b_i, b_-i)``. It needs only the payoffs of one column (or row) per round,
  and it is an unbiased estimate of the full-feedback regret.

In a two-player zero-sum game both players' regrets grow sub-linearly, so the average of
the mixtures they played converges to a Nash equilibrium (average regret ``O(t^-1/2)``;
with sampled feedback the same rate holds in expectation, with more noise); the current
mixtures themselves keep cycling. :meth:`RegretMatching.empirical` gives the frequencies
of the drawn actions instead, whose marginals converge too (Hart & Mas-Colell's statement
is about this empirical distribution of play).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from nashzoo.agents.nfg.gemp import bimatrix, nash_conv_bimatrix
from nashzoo.errors import InvalidParameterError
from nashzoo.validation import check_int

__all__ = ["FEEDBACK", "RegretMatching"]

FEEDBACK = ("full", "sampled")


def _matched(regret: np.ndarray) -> np.ndarray:
    """The mixture proportional to the positive part of ``regret`` (uniform if none)."""
    positive = np.maximum(regret, 0.0)
    total = positive.sum()
    return positive / total if total > 0 else np.full(regret.size, 1.0 / regret.size)


class RegretMatching:
    """Regret matching on a :class:`~nashzoo.games.MatrixGame`, a reduced normal form or
    a pair of payoff matrices ``(A, B)``.

    Args:
        game: the game.
        feedback: ``"full"`` (expected payoffs against the other's mixture) or
            ``"sampled"`` (payoffs against the other's drawn action; see the module).
        seed: seed of the draws (every round draws both actions, with either feedback,
            so :meth:`empirical` is defined for both).

    Attributes:
        regrets: per player, the cumulative regret of each action.
        strategy_sums: per player, the sum of the mixtures played so far.
        counts: per player, how often each action was drawn.
        iteration: rounds played.
    """

    name = "regret-matching"

    def __init__(self, game: Any, *, feedback: str = "full", seed: int = 0) -> None:
        if feedback not in FEEDBACK:
            raise InvalidParameterError(
                f"Parameter `feedback` must be one of {FEEDBACK}, received {feedback!r}."
            )
        self.game = game
        self.feedback = feedback
        a, b = bimatrix(game)
        self.a = np.asarray(a, dtype=np.float64)
        self.b = np.asarray(b, dtype=np.float64)
        self.seed = check_int("seed", seed, 0)
        self.rng = np.random.default_rng(self.seed)
        m0, m1 = self.a.shape
        self.regrets = [np.zeros(m0), np.zeros(m1)]
        self.strategy_sums = [np.zeros(m0), np.zeros(m1)]
        self.counts = [np.zeros(m0), np.zeros(m1)]
        self.iteration = 0
        self.seconds = 0.0

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' mixtures for the next round."""
        return _matched(self.regrets[0]), _matched(self.regrets[1])

    def iterate(self, n: int = 1) -> RegretMatching:
        """Play ``n`` rounds (both players update simultaneously)."""
        n = check_int("n", n, 0)
        start = time.perf_counter()
        a, b = self.a, self.b
        r0, r1 = self.regrets
        # one uniform number per player and round, drawn in one call (seeded stream)
        uniforms = self.rng.random((n, 2))
        for t in range(n):
            x0, x1 = _matched(r0), _matched(r1)
            i = min(int(np.searchsorted(np.cumsum(x0), uniforms[t, 0], side="right")), x0.size - 1)
            j = min(int(np.searchsorted(np.cumsum(x1), uniforms[t, 1], side="right")), x1.size - 1)
            if self.feedback == "full":
                u0 = a @ x1  # each row's expected payoff against x1
                u1 = x0 @ b
                r0 += u0 - x0 @ u0
                r1 += u1 - u1 @ x1
            else:
                r0 += a[:, j] - a[i, j]
                r1 += b[i, :] - b[i, j]
            self.strategy_sums[0] += x0
            self.strategy_sums[1] += x1
            self.counts[0][i] += 1
            self.counts[1][j] += 1
        self.iteration += n
        self.seconds += time.perf_counter() - start
        return self

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        """The average of the mixtures played (uniform before the first round)."""
        return self._normalised(self.strategy_sums)

    def empirical(self) -> tuple[np.ndarray, np.ndarray]:
        """The frequencies of the drawn actions (uniform before the first round)."""
        return self._normalised(self.counts)

    @staticmethod
    def _normalised(sums: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return tuple(  # type: ignore[return-value]
            s / s.sum() if s.sum() > 0 else np.full(s.size, 1.0 / s.size) for s in sums
        )

    def exploitability(self, which: str = "average") -> float:
        """NashConv / 2 of the ``"average"``, ``"empirical"`` or ``"current"`` mixtures."""
        pick = {"average": self.average, "empirical": self.empirical, "current": self.current}
        if which not in pick:
            raise InvalidParameterError(
                f"Parameter `which` must be one of {tuple(pick)}, received {which!r}."
            )
        x0, x1 = pick[which]()
        return nash_conv_bimatrix(self.a, self.b, x0, x1) / 2.0

    def __repr__(self) -> str:
        return (
            f"RegretMatching(shape={self.a.shape}, feedback={self.feedback!r}, "
            f"iteration={self.iteration})"
        )
