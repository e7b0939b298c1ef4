"""Approximate Nash equilibria of two-player normal-form games by stochastic optimisation.

Paper: Gemp, Marris & Piliouras, "Approximating Nash Equilibria in Normal-Form Games via
Stochastic Optimization", ICLR 2024.

Player ``k`` mixes ``x_k`` on the simplex; its payoff gradient is ``g_0 = A x_1`` and
``g_1 = B^T x_0``. With Shannon-entropy regularisation of weight ``tau`` the gradient
becomes ``g_k^tau = g_k - tau (log x_k + 1)``, and the loss

    L^tau(x) = sum_k eta_k || Pi g_k^tau ||^2,        Pi = I - 1 1^T / m_k,

vanishes exactly at the logit quantal-response equilibria of temperature ``tau`` (at
``tau = 0``: at the interior Nash equilibria). ``Pi g`` is the payoff gradient projected
onto the simplex's tangent space (the "projected form" the simplex-gradient agent also
uses). Its unbiased estimate needs *two* independent samples of the opponent's pure play:
``(Pi g_a)^T (Pi g_b)`` has expectation ``||Pi g||^2`` although ``||Pi g_a||^2`` does not.

The gradient of ``L`` needs the Jacobians ``d g_0 / d x_1 = A``, ``d g_1 / d x_0 = B^T``
(constant in two-player games) and ``d g_k / d x_k = -tau diag(1 / x_k)``:

    grad_{x_0} L = 2 eta_0 (-tau / x_0) * Pi g_0^tau + 2 eta_1 B Pi g_1^tau,

and symmetrically for ``x_1``; with sampled ``g`` it stays unbiased (one sample per term,
the Jacobians are exact). Steps are mirror descent (exponentiated gradient, keeping ``x``
interior) or projected Euclidean descent; both keep every probability at least
``exp(-1/tau) / m`` so that ``log x`` stays finite (ADIDAS does the same).

Solutions of a reduced normal form (:mod:`nashzoo.tree.normal_form`) convert to a
behavioural :class:`~nashzoo.tree.TabularPolicy` by :meth:`GempSolver.behavioural_policy`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.games.matrix import MatrixGame
from nashzoo.tree.jit import compile_kernels
from nashzoo.tree.normal_form import ReducedNormalForm
from nashzoo.tree.policy import TabularPolicy
from nashzoo.tree.sampling import next_uniform, rng_state
from nashzoo.validation import Config, check_int, choice, integer, number, numbers

compile_kernels(globals())  # next_uniform, compiled for the loop below

__all__ = ["GempConfig", "GempSolver", "bimatrix", "nash_conv_bimatrix", "gemp_loss"]


_STEPS = ("euclidean", "mirror", "softmax")


@dataclass(frozen=True)
class GempConfig(Config):
    """Options of :class:`GempSolver`.

    Attributes:
        tau: entropy temperature; the solver finds the logit QRE of this temperature
            (0: the Nash equilibrium, for games with an interior one).
        learning_rate: step size on the loss gradient.
        eta: per-player weights ``(eta_0, eta_1)`` of the loss terms.
        step: ``"softmax"`` (gradient descent on the logits of ``x``: the chain rule
            multiplies ``-tau / x`` by ``x``, which keeps the steps well conditioned near
            the boundary, where the QREs of games with pure-strategy payoff gaps much larger
            than ``tau`` lie), ``"mirror"`` (exponentiated gradient) or ``"euclidean"``
            (projected).
        estimate: ``"exact"`` (the payoff gradients from the full matrices) or
            ``"sampled"`` (two independent samples of the opponent's pure play per step:
            the paper's unbiased estimator, for games whose matrices are too large to
            multiply every step).
        init: ``"uniform"`` starting mixtures, or ``"random"`` (Dirichlet(1) draws from
            ``seed``; RPS's uniform start is already its equilibrium).
        seed: seed of the random start and of the sampling.
    """

    tau: float = number(0.05, low=0.0)
    learning_rate: float = number(0.3, low=0.0, low_inclusive=False)
    eta: tuple[float, float] = numbers((1.0, 1.0), length=2, low=0.0, low_inclusive=False)
    step: Literal["softmax", "mirror", "euclidean"] = choice("softmax", _STEPS)
    estimate: Literal["exact", "sampled"] = choice("exact", ("exact", "sampled"))
    init: Literal["uniform", "random"] = choice("uniform", ("uniform", "random"))
    seed: int = integer(0, low=0)


def bimatrix(game: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(A, B)``: the row and column players' payoff matrices of a
    :class:`~nashzoo.games.MatrixGame`, a :class:`~nashzoo.tree.normal_form.ReducedNormalForm`
    or a pair of arrays."""
    if isinstance(game, MatrixGame):
        return game.row_payoffs, game.col_payoffs
    if isinstance(game, ReducedNormalForm):
        return game.payoffs
    if isinstance(game, tuple) and len(game) == 2:
        a, b = (np.asarray(m, dtype=np.float64) for m in game)
        if a.ndim == 2 and a.shape == b.shape and np.all(np.isfinite(a)) and np.all(np.isfinite(b)):
            return a, b
    raise InvalidParameterError(
        "Expected a MatrixGame, a ReducedNormalForm or a pair of equal-shape finite "
        f"payoff matrices, received {type(game).__name__}."
    )


def nash_conv_bimatrix(a: np.ndarray, b: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> float:
    """Sum over both players of what a best response gains against ``(x0, x1)``."""
    return float(
        (a @ x1).max() - x0 @ a @ x1 + (x0 @ b).max() - x0 @ b @ x1,
    )


def gemp_loss(
    a: np.ndarray,
    b: np.ndarray,
    x0: np.ndarray,
    x1: np.ndarray,
    tau: float,
    eta: tuple[float, float] = (1.0, 1.0),
) -> float:
    """``L^tau(x) = sum_k eta_k ||Pi g_k^tau||^2``, computed exactly."""
    total = 0.0
    for e, g, x in ((eta[0], a @ x1, x0), (eta[1], b.T @ x0, x1)):
        if tau > 0:
            g = g - tau * (np.log(x) + 1.0)
        pg = g - g.mean()
        total += e * float(pg @ pg)
    return total


@njit(cache=True)
def _project_simplex(v, floor):  # pragma: no cover - compiled
    """Euclidean projection of ``v`` onto {x : sum x = 1, x >= floor}."""
    m = v.size
    w = v - floor
    u = np.sort(w)[::-1]
    target = 1.0 - floor * m
    css = 0.0
    theta = 0.0
    for j in range(m):
        css += u[j]
        t = (css - target) / (j + 1)
        if u[j] - t > 0:
            theta = t
    out = np.empty(m)
    for j in range(m):
        out[j] = max(w[j] - theta, 0.0) + floor
    return out


@njit(cache=True)
def _sample(x, u):  # pragma: no cover - compiled
    c = 0.0
    for j in range(x.size):
        c += x[j]
        if u < c:
            return j
    return x.size - 1


@njit(cache=True)
def _gemp_run(
    n, a, b, x0, x1, tau, eta0, eta1, lr, mode, sampled, state, floor0, floor1
):  # pragma: no cover
    """``n`` descent steps on ``L^tau``; returns the mean of the two-sample loss estimates."""
    bt = b.T.copy()
    loss_sum = 0.0
    for _ in range(n):
        if sampled:
            ga0 = a[:, _sample(x1, next_uniform(state))].copy()
            gb0 = a[:, _sample(x1, next_uniform(state))].copy()
            ga1 = bt[:, _sample(x0, next_uniform(state))].copy()
            gb1 = bt[:, _sample(x0, next_uniform(state))].copy()
        else:
            ga0 = a @ x1
            gb0 = ga0.copy()
            ga1 = bt @ x0
            gb1 = ga1.copy()
        if tau > 0:
            e0 = -tau * (np.log(x0) + 1.0)
            e1 = -tau * (np.log(x1) + 1.0)
            ga0 += e0
            gb0 += e0
            ga1 += e1
            gb1 += e1
        ga0 -= ga0.mean()
        gb0 -= gb0.mean()
        ga1 -= ga1.mean()
        gb1 -= gb1.mean()
        loss_sum += eta0 * (ga0 @ gb0) + eta1 * (ga1 @ gb1)
        # gradient of L: own Jacobian -tau/x (diagonal) and the other's constant Jacobian
        d0 = 2.0 * eta1 * (b @ gb1)
        d1 = 2.0 * eta0 * (a.T @ gb0)
        if tau > 0:
            d0 += 2.0 * eta0 * (-tau / x0) * gb0
            d1 += 2.0 * eta1 * (-tau / x1) * gb1
        d0 -= d0.mean()
        d1 -= d1.mean()
        if mode == 2:  # gradient descent on the logits theta of x = softmax(theta)
            y0 = np.log(x0) - lr * x0 * (d0 - x0 @ d0)
            y1 = np.log(x1) - lr * x1 * (d1 - x1 @ d1)
            y0 = np.exp(y0 - y0.max())
            y1 = np.exp(y1 - y1.max())
            y0 /= y0.sum()
            y1 /= y1.sum()
            x0[:] = _project_simplex(y0, floor0) if y0.min() < floor0 else y0
            x1[:] = _project_simplex(y1, floor1) if y1.min() < floor1 else y1
        elif mode == 1:
            y0 = np.log(x0) - lr * d0
            y1 = np.log(x1) - lr * d1
            y0 = np.exp(y0 - y0.max())
            y1 = np.exp(y1 - y1.max())
            y0 /= y0.sum()
            y1 /= y1.sum()
            # keep every probability at least the floor (mix towards uniform)
            x0[:] = _project_simplex(y0, floor0) if y0.min() < floor0 else y0
            x1[:] = _project_simplex(y1, floor1) if y1.min() < floor1 else y1
        else:
            x0[:] = _project_simplex(x0 - lr * d0, floor0)
            x1[:] = _project_simplex(x1 - lr * d1, floor1)
    return loss_sum / max(n, 1)


class GempSolver:
    """Descent on Gemp et al.'s loss for a two-player normal-form game.

    Args:
        game: a :class:`~nashzoo.games.MatrixGame`, a
            :class:`~nashzoo.tree.normal_form.ReducedNormalForm` (then
            :meth:`behavioural_policy` gives the tree policy) or a pair ``(A, B)``.
        config: the options (defaults: ``tau=0.05``, logit steps of 0.3, exact gradients).
        **overrides: fields of :class:`GempConfig` to change.

    Example:
        >>> from nashzoo.games.matrix import rock_paper_scissors
        >>> solver = GempSolver(rock_paper_scissors()).iterate(2000)
        >>> solver.loss() < 1e-8
        True
    """

    name = "gemp"

    def __init__(self, game: Any, config: GempConfig | None = None, **overrides: Any) -> None:
        if config is None:
            config = GempConfig(**overrides)
        elif overrides:
            from dataclasses import replace

            config = replace(config, **overrides)
        self.config = config
        self.game = game
        a, b = bimatrix(game)
        # its own writeable copies: a read-only payoff matrix (a reduced normal form's) is
        # another numba type, and passing it on compiled the descent loop a second time
        self.a = np.array(a, dtype=np.float64, order="C")
        self.b = np.array(b, dtype=np.float64, order="C")
        m0, m1 = self.a.shape
        tau = config.tau
        self._floor = tuple((np.exp(-1.0 / tau) / m if tau > 0 else 0.0) for m in (m0, m1))
        if config.init == "random":
            rng = np.random.default_rng(config.seed)
            self.x = [rng.dirichlet(np.ones(m)) for m in (m0, m1)]
            self.x = [
                np.maximum(x, f) / np.maximum(x, f).sum() for x, f in zip(self.x, self._floor)
            ]
        else:
            self.x = [np.full(m0, 1.0 / m0), np.full(m1, 1.0 / m1)]
        self.iteration = 0
        self.seconds = 0.0
        self.loss_estimates: list[float] = []

    def iterate(self, n: int = 1) -> GempSolver:
        """Run ``n`` descent steps (compiled; the first call compiles outside the clock)."""
        n = check_int("n", n, 0)
        c = self.config
        args = (
            self.a,
            self.b,
            self.x[0],
            self.x[1],
            float(c.tau),
            c.eta[0],
            c.eta[1],
            float(c.learning_rate),
            _STEPS.index(c.step),
            c.estimate == "sampled",
        )
        if not getattr(self, "_compiled", False):
            _gemp_run(0, *args, rng_state(0), *self._floor)
            self._compiled = True
        start = time.perf_counter()
        estimate = _gemp_run(n, *args, rng_state(c.seed + self.iteration), *self._floor)
        self.seconds += time.perf_counter() - start
        self.iteration += n
        if n:
            self.loss_estimates.append(float(estimate))
        return self

    def loss(self, tau: float | None = None) -> float:
        """The exact loss ``L^tau`` at the current point (``tau`` defaults to the config's)."""
        t = self.config.tau if tau is None else tau
        return gemp_loss(self.a, self.b, self.x[0], self.x[1], t, self.config.eta)

    def nash_conv(self) -> float:
        """Unregularised NashConv of the current point (sum of best-response gains)."""
        return nash_conv_bimatrix(self.a, self.b, self.x[0], self.x[1])

    def exploitability(self) -> float:
        """NashConv / 2 (the mean best-response gain), as for the tree solvers."""
        return self.nash_conv() / 2.0

    def qre_bound(self) -> float:
        """An upper bound on :meth:`nash_conv` at an exact QRE of temperature ``tau``:
        ``tau (ln m_0 + ln m_1)`` (a best response gains at most the entropy it gives up)."""
        m0, m1 = self.a.shape
        return float(self.config.tau * (np.log(m0) + np.log(m1)))

    def values(self) -> tuple[float, float]:
        """Both players' expected payoffs at the current point."""
        x0, x1 = self.x
        return float(x0 @ self.a @ x1), float(x0 @ self.b @ x1)

    def behavioural_policy(self) -> TabularPolicy:
        """The current mixtures as a behavioural profile of the tree (reduced normal forms
        only), by realization weights."""
        if not isinstance(self.game, ReducedNormalForm):
            raise InvalidParameterError(
                "behavioural_policy() needs the solver to be built on a ReducedNormalForm, "
                f"it was built on {type(self.game).__name__}."
            )
        policy = self.game.behavioural(self.x[0], self.x[1])
        policy.metadata.update({"algorithm": "gemp", "iterations": self.iteration})
        return policy

    def __repr__(self) -> str:
        return (
            f"GempSolver(shape={self.a.shape}, tau={self.config.tau}, iteration={self.iteration})"
        )
