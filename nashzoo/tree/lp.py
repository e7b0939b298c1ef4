"""Zero-sum matrix games by linear programming (scipy's HiGHS): the one LP solver the
Nash memory's restricted games and the tournament's Nash averaging share."""

from __future__ import annotations

import numpy as np

from nashzoo.errors import InvalidParameterError

__all__ = ["solve_zero_sum", "min_group_weights"]


def solve_zero_sum(payoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Equilibrium of the zero-sum game where the row player receives ``payoffs``.

    One LP: the row player's maximin strategy is the primal solution, the column
    player's minimax strategy the duals of the column constraints.

    Returns:
        ``(row_strategy, column_strategy, value)``; ``value`` is the row player's.

    Raises:
        InvalidParameterError: not a finite, non-empty 2-D matrix.
    """
    from scipy.optimize import linprog

    a = np.asarray(payoffs, dtype=np.float64)
    if a.ndim != 2 or a.size == 0 or not np.isfinite(a).all():
        raise InvalidParameterError(
            f"Expected a finite, non-empty 2-D payoff matrix, received shape {a.shape}."
        )
    m, n = a.shape
    # maximise v s.t. x^T A[:, j] >= v for every column j, sum x = 1, x >= 0
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-a.T, np.ones(n)],
        b_ub=np.zeros(n),
        A_eq=[np.r_[np.ones(m), 0.0]],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    if not res.success:  # pragma: no cover - HiGHS solves every finite matrix game
        raise RuntimeError(f"LP failed: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    y = np.clip(-res.ineqlin.marginals, 0.0, None)
    return x / x.sum(), y / y.sum(), float(res.x[m])


def min_group_weights(payoffs: np.ndarray, groups: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """For each group of the row player's actions, the smallest total probability any
    maximin (equilibrium) strategy of the row player puts on it.

    A positive entry for every group means *every* equilibrium plays every group, which
    one equilibrium from :func:`solve_zero_sum` cannot show when equilibria are not unique.
    One LP per group, minimising the group's weight over the set of strategies that
    guarantee the game value (within ``tol``).

    Args:
        payoffs: the row player's ``(m, n)`` payoffs.
        groups: ``(m,)`` non-negative integer group of each row (e.g. a card's type).

    Returns:
        ``(groups.max() + 1,)`` smallest weights.
    """
    from scipy.optimize import linprog

    _, _, value = solve_zero_sum(payoffs)
    a = np.asarray(payoffs, dtype=np.float64)
    groups = np.asarray(groups)
    if groups.shape != (a.shape[0],) or not np.issubdtype(groups.dtype, np.integer):
        raise InvalidParameterError(
            f"Expected one integer group per row ({a.shape[0]}), received {groups!r}."
        )
    m = a.shape[0]
    out = np.zeros(int(groups.max()) + 1)
    for g in range(out.size):
        res = linprog(
            (groups == g).astype(np.float64),
            A_ub=-a.T,
            b_ub=np.full(a.shape[1], -value + tol),
            A_eq=np.ones((1, m)),
            b_eq=[1.0],
            bounds=[(0, None)] * m,
            method="highs",
        )
        out[g] = max(0.0, float(res.fun))
    return out
