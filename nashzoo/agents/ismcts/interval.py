"""The exact extremes of an expectation over an L1 ball of beliefs.

Nash-ISMCTS does not trust its belief ``h`` over the worlds at a SAMPLE node: it widens
the node's value ``h . v`` into the interval of ``q . v`` over every distribution ``q`` on
the consistent worlds within L1 distance ``eps`` of ``h``. The maximum moves mass to the
best world, taking it from the worst worlds first; moving mass ``t`` costs ``2 t`` of L1
distance and changes the objective linearly, so the greedy move is exact, in
O(k log k) for k worlds.

Worked examples (the specification's T5): ``h = (.5, .5), v = (0, 1), eps = .2`` gives
``[0.4, 0.6]``; ``h = (.95, .05), v = (1, 0), eps = .2`` gives ``[0.85, 1.0]`` (the maximum
is capped: only 0.05 of mass can move).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.tree.jit import use_user_cache

use_user_cache()

__all__ = ["ball_max", "ball_min", "ball_interval", "ball_max_kernel", "ball_max_groups"]


@njit(cache=True)
def ball_max_kernel(h, v, k, eps, done):
    """:func:`ball_max` over the first ``k`` entries of ``h`` and ``v``, unchecked (the
    search's inner loop calls it; ``done`` is a boolean scratch array of length >= k).

    Mass moves to the best world from the worst worlds first (ties: the lower index
    first), ``eps / 2`` of it at most."""
    best = 0
    for c in range(1, k):
        if v[c] > v[best]:
            best = c
    value = 0.0
    for c in range(k):
        value += h[c] * v[c]
        done[c] = False
    done[best] = True
    budget = min(eps / 2.0, 1.0 - h[best])
    while budget > 0.0:
        worst = -1
        for c in range(k):
            if not done[c] and (worst < 0 or v[c] < v[worst]):
                worst = c
        if worst < 0:
            break
        done[worst] = True
        t = min(h[worst], budget)
        value += t * (v[best] - v[worst])
        budget -= t
    return value


@njit(cache=True)
def ball_max_groups(h, v, bounds, eps, done, out):
    """:func:`ball_max_kernel` of many groups at once: group ``g`` is entries
    ``bounds[g]:bounds[g + 1]`` of ``h`` (normalized within the group) and ``v``; its
    maximum goes to ``out[g]``."""
    for g in range(bounds.size - 1):
        a, b = bounds[g], bounds[g + 1]
        out[g] = ball_max_kernel(h[a:b], v[a:b], b - a, eps, done)


def _checked(
    h: Sequence[float] | np.ndarray, v: Sequence[float] | np.ndarray, eps: float
) -> tuple[np.ndarray, np.ndarray, float]:
    hh = np.asarray(h, dtype=np.float64)
    vv = np.asarray(v, dtype=np.float64)
    if hh.ndim != 1 or hh.shape != vv.shape or hh.size == 0:
        raise InvalidParameterError(
            f"h and v must be non-empty vectors of one length, received shapes {hh.shape} "
            f"and {vv.shape}."
        )
    if not (np.isfinite(hh).all() and np.isfinite(vv).all()) or (hh < -1e-12).any():
        raise InvalidParameterError("h must be finite and non-negative, v finite.")
    if abs(hh.sum() - 1.0) > 1e-9:
        raise InvalidParameterError(f"h must sum to 1, received {hh.sum()!r}.")
    if isinstance(eps, bool) or not np.isfinite(eps) or eps < 0:
        raise InvalidParameterError(f"eps must be a finite number >= 0, received {eps!r}.")
    return np.clip(hh, 0.0, None), vv, float(eps)


def ball_max(h: Sequence[float] | np.ndarray, v: Sequence[float] | np.ndarray, eps: float) -> float:
    """``max { q . v : q a distribution on the same worlds, |q - h|_1 <= eps }``.

    Args:
        h: the belief over the consistent worlds (sums to 1).
        v: each world's value.
        eps: the L1 radius.

    Raises:
        InvalidParameterError: shapes differ, ``h`` is not a distribution, ``eps`` < 0.
    """
    hh, vv, eps = _checked(h, v, eps)
    return float(ball_max_kernel(hh, vv, hh.size, eps, np.zeros(hh.size, dtype=np.bool_)))


def ball_min(h: Sequence[float] | np.ndarray, v: Sequence[float] | np.ndarray, eps: float) -> float:
    """``min { q . v : |q - h|_1 <= eps }`` (:func:`ball_max` of ``-v``, negated)."""
    return -ball_max(h, -np.asarray(v, dtype=np.float64), eps)


def ball_interval(
    h: Sequence[float] | np.ndarray, v: Sequence[float] | np.ndarray, eps: float
) -> tuple[float, float]:
    """``(ball_min, ball_max)``: the value interval of a SAMPLE node."""
    return ball_min(h, v, eps), ball_max(h, v, eps)
