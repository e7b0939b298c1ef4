"""The floating-point bounds that the tests' tight tolerances are derived from.

A tolerance at or below 1e-9 must follow from the computation, not from the rounding of
the machine a test was written on: another CPU, BLAS or numba's choice of instructions
(fused multiply-adds) rounds differently. Each bound here is a first-order error bound
in the style of Higham, *Accuracy and Stability of Numerical Algorithms* (2002), ch. 3:
a sum of ``n`` products computed in float64 is within ``n u`` times the sum of the
products' absolute values of the exact sum, with ``u`` the unit roundoff.
"""

from __future__ import annotations

from typing import Any

import numpy as np

UNIT_ROUNDOFF = 2.0**-53
"""float64's unit roundoff ``u``: one rounding moves a value by at most ``u`` of itself."""

LP_TOLERANCE = 1e-7
"""HiGHS's default primal and dual feasibility tolerances (scipy's ``linprog`` passes its
defaults through): a solution of :func:`nashzoo.tree.solve_zero_sum` is certified to
satisfy its constraints within this, in the units of the payoffs (rounding is far below
it; the solver's stopping rule is not)."""


def tree_rounding(tree: Any) -> float:
    """A bound on the rounding error of one expectation over a compiled game tree.

    An expected value computed bottom up is a nest of ``depth`` weighted sums of at most
    ``branching`` children each (the weights: probabilities summing to 1), over payoffs
    of size at most ``U``; every level adds at most ``(branching + 1) u`` times the
    weighted sum of absolute values below it, which is at most ``U``. So the result is
    within ``depth (branching + 1) u U`` of the exact expectation, however the sums are
    ordered (Kuhn: 5.3e-15 chips, Leduc: 1.2e-13). Comparing two such computations (ours
    against OpenSpiel's, or two routes to one figure), the difference is within twice
    this for each expectation involved.
    """
    depth = len(tree.level_starts) - 1
    branching = int(np.max(tree.num_children))
    payoff = float(np.abs(tree.utility).max())
    return depth * (branching + 1) * UNIT_ROUNDOFF * payoff


def lp_rounding(payoffs: Any) -> float:
    """A bound on how far an LP's value or strategy weights may sit from the exact ones
    for a payoff matrix: HiGHS's feasibility tolerance in the units of the payoffs
    (:data:`LP_TOLERANCE` times the largest payoff, at least 1)."""
    return LP_TOLERANCE * max(1.0, float(np.abs(np.asarray(payoffs)).max()))
