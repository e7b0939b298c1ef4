"""From stored match results to a crosstable and ratings.

* Crosstable: A's mean payoff per game against B with standard error and 95% CI.
* Bradley-Terry ratings on the Elo scale (400 log10 strength, mean 0), fitted by Hunter's
  MM algorithm from per-deal wins (a tie is half a win each way), with bootstrap
  confidence intervals over deals (each pairing's deals resampled: a deal's outcome is an
  independent draw given the two agents).
* Nash averaging (Balduzzi, Tuyls, Perolat, Graepel, "Re-evaluating Evaluation",
  NeurIPS 2018): the maximum-entropy Nash equilibrium of the antisymmetric payoff matrix,
  and each agent's payoff against it. Adding a copy of an agent changes nobody's score.
  The payoff matrix takes a pairing's *exact* expected score where the caller knows it
  (two policies of a game that compiles: :func:`nashzoo.eval.matches.exact_duplicate_value`)
  and the crosstable's mean (AIVAT-corrected where the tournament used AIVAT) elsewhere.
  Its 95% interval is a parametric bootstrap: each sampled cell is redrawn from a normal
  with its standard error (exact cells stay put), and the equilibrium and scores are
  recomputed on every draw.
* α-Rank (Omidshafiei, Papadimitriou, Piliouras, Tuyls, Rowland, Lespiau, Czarnecki,
  Lanctot, Perolat, Munos, "α-Rank: Multi-Agent Evaluation by Evolution", Scientific
  Reports 2019): the stationary distribution of an evolutionary process in which a
  population of ``population`` agents, all playing one agent, is invaded by a mutant
  playing another; the mutant takes over with the fixation probability of its payoff
  edge under selection intensity ``alpha`` (the single-population model with local
  selection, as OpenSpiel's ``alpharank`` computes it). Agents that the process keeps
  returning to rank high; unlike Nash averaging it ranks inside cycles too. Its interval
  is the same parametric bootstrap as Nash averaging's.

Forfeits: a forfeited block counts *every one of its deals* as lost by the forfeiter by
the game's largest payoff (``Game.max_payoff_magnitude``; 13 chips in Leduc), whatever
was played before the fault. No result of actual play is worse, so forfeiting never beats
playing, and a strategic forfeit cannot hide losses. The penalty enters all three
measures the same way: the crosstable mean (and hence Nash averaging) and the per-deal
wins of Bradley-Terry. Pairings with no stored block (an unfinished tournament) have no
crosstable entry; Nash averaging is then undefined and reported as NaN rather than
treating the gap as a draw.

Everything is computed from results sorted by (A, B, block), so the order in which
results arrived never matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nashzoo.errors import InvalidParameterError, StoreError
from nashzoo.eval.stats import Z95, mean_and_stderr
from nashzoo.eval.store import BlockResult

__all__ = [
    "Crosstable",
    "Ratings",
    "crosstable",
    "bradley_terry",
    "rate",
    "nash_averaging",
    "alpha_rank",
]


@dataclass(frozen=True)
class Crosstable:
    """Pairwise results; row agent's view, chips per game (``nan`` where nothing was played).

    Attributes:
        names: agents, in row order.
        mean, stderr, ci_low, ci_high: ``(n, n)`` arrays, ``mean`` antisymmetric.
        deals: ``(n, n)`` duplicate deals played per pairing.
        wins: ``(n, n)`` deals the row agent won (ties count half; a forfeited block's
            deals all count for the other agent).
        forfeits: ``(a, b, block, forfeiting agent, reason)`` for every forfeited block.
        plain_mean, plain_stderr: with AIVAT, the uncorrected figures of the same games
            (``None`` when no block was corrected).
    """

    names: tuple[str, ...]
    mean: np.ndarray
    stderr: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    deals: np.ndarray
    wins: np.ndarray
    forfeits: tuple[tuple[str, str, int, str, str], ...]
    plain_mean: np.ndarray | None = None
    plain_stderr: np.ndarray | None = None

    def cell(self, i: int, j: int, scale: float = 1.0) -> tuple[float, float] | None:
        """``(mean, 95% CI half-width)`` of row ``i`` against column ``j`` times
        ``scale``, or ``None`` on the diagonal and for unplayed pairings (the one place
        every crosstable rendering reads its cells from)."""
        if i == j or not np.isfinite(self.mean[i, j]):
            return None
        return (
            float(self.mean[i, j] * scale),
            float((self.ci_high[i, j] - self.mean[i, j]) * scale),
        )

    def plain_cell(self, i: int, j: int, scale: float = 1.0) -> tuple[float, float] | None:
        """:meth:`cell` of the uncorrected figures (``None`` without AIVAT)."""
        if self.plain_mean is None or self.plain_stderr is None or i == j:
            return None
        if not np.isfinite(self.plain_mean[i, j]):
            return None
        return (
            float(self.plain_mean[i, j] * scale),
            float(Z95 * self.plain_stderr[i, j] * scale),
        )


@dataclass(frozen=True)
class Ratings:
    """Ratings of every agent (same order as ``names``).

    Attributes:
        elo: Bradley-Terry ratings on the Elo scale, mean 0.
        elo_low, elo_high: 95% bootstrap interval.
        nash_mixture: the maximum-entropy Nash equilibrium over the agents (NaN while
            some pairing has no result).
        nash_score: each agent's payoff (chips/game) against that mixture (0 = in support).
        nash_low, nash_high: 95% bootstrap interval of ``nash_score`` (equal to it where
            every payoff is exact; NaN where ``nash_score`` is).
        alpharank: α-Rank's stationary mass of each agent (:func:`alpha_rank`; NaN while
            some pairing has no result).
        alpharank_low, alpharank_high: its 95% bootstrap interval.
    """

    names: tuple[str, ...]
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    nash_mixture: np.ndarray
    nash_score: np.ndarray
    nash_low: np.ndarray
    nash_high: np.ndarray
    alpharank: np.ndarray | None = None
    alpharank_low: np.ndarray | None = None
    alpharank_high: np.ndarray | None = None


def _sorted(results: Sequence[BlockResult]) -> list[BlockResult]:
    return sorted(results, key=lambda r: (r.a, r.b, r.block))


def _pair(r: BlockResult, index: dict[str, int]) -> tuple[int, int]:
    try:
        return index[r.a], index[r.b]
    except KeyError as exc:
        raise StoreError(
            f"A stored block ({r.a} vs {r.b}, block {r.block}) names agent "
            f"{exc.args[0]!r}, which is not in the tournament's agents "
            f"{sorted(index)}."
        ) from None


def _win_counts(results: Sequence[BlockResult], index: dict[str, int], n: int) -> np.ndarray:
    wins = np.zeros((n, n))
    for r in results:
        i, j = _pair(r, index)
        wins[i, j] += r.wins + 0.5 * r.ties
        wins[j, i] += r.losses + 0.5 * r.ties
    return wins


def crosstable(results: Sequence[BlockResult], names: Sequence[str]) -> Crosstable:
    """Aggregate blocks into a :class:`Crosstable` (forfeited blocks carry their penalty).

    Raises:
        StoreError: a block names an agent that is not in ``names``.
    """
    names = tuple(names)
    index = {name: k for k, name in enumerate(names)}
    n = len(names)
    acc = np.zeros((n, n, 3))
    plain = np.zeros((n, n, 3))
    corrected = False
    forfeits = []
    for r in _sorted(results):
        i, j = _pair(r, index)
        if r.forfeit is not None:
            forfeits.append((r.a, r.b, r.block, r.forfeit, r.reason or ""))
        acc[i, j] += (r.deals, r.total, r.total_sq)
        acc[j, i] += (r.deals, -r.total, r.total_sq)
        if r.plain_total is not None and r.plain_total_sq is not None:
            corrected = True
            total, total_sq = r.plain_total, r.plain_total_sq
        else:  # a forfeited or void block: its figures are the same either way
            total, total_sq = r.total, r.total_sq
        plain[i, j] += (r.deals, total, total_sq)
        plain[j, i] += (r.deals, -total, total_sq)
    mean, stderr = _means(acc)
    plain_mean, plain_stderr = _means(plain) if corrected else (None, None)
    return Crosstable(
        names,
        mean,
        stderr,
        mean - Z95 * stderr,
        mean + Z95 * stderr,
        acc[:, :, 0].astype(int),
        _win_counts(_sorted(results), index, n),
        tuple(forfeits),
        plain_mean,
        plain_stderr,
    )


def _means(acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Means and standard errors of ``(n, n, 3)`` sums ``(deals, total, total_sq)``."""
    n = acc.shape[0]
    mean = np.full((n, n), np.nan)
    stderr = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(n):
            if i != j and acc[i, j, 0] > 0:
                mean[i, j], stderr[i, j] = mean_and_stderr(
                    int(acc[i, j, 0]), acc[i, j, 1], acc[i, j, 2]
                )
    return mean, stderr


def bradley_terry(
    wins: np.ndarray, *, prior: float = 0.5, tol: float = 1e-10, max_iter: int = 10_000
) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from a matrix of wins, or from a batch of
    them at once (a bootstrap's draws: one fit each, all advanced together until each
    has converged, the same figures as one at a time).

    Args:
        wins: ``wins[..., i, j]`` = times ``i`` beat ``j`` (ties already split); leading
            axes are a batch.
        prior: pseudo-wins added both ways for every pair that met, so an undefeated agent
            gets a finite rating.

    Returns:
        ``wins.shape[:-1]``: each matrix's ratings.

    Raises:
        InvalidParameterError: ``wins`` is not made of square matrices.
    """
    w = np.array(wins, dtype=float)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2]:
        raise InvalidParameterError(
            f"bradley_terry takes square (n, n) win matrices (or a batch of them), "
            f"received an array of shape {w.shape}"
        )
    n = w.shape[-1]
    if n == 0:
        return np.zeros(w.shape[:-1])
    w = w.reshape(int(np.prod(w.shape[:-2], dtype=np.int64)), n, n)
    met = (w + w.transpose(0, 2, 1)) > 0
    w = w + prior * met
    games = w + w.transpose(0, 2, 1)
    total_wins = w.sum(axis=2)
    strength = np.ones((len(w), n))
    todo = np.arange(len(w))  # the fits still moving (Hunter's MM updates)
    for _ in range(max_iter):
        if not todo.size:
            break
        old = strength[todo]
        denom = (games[todo] / (old[:, :, None] + old[:, None, :])).sum(axis=2)
        new = np.where(denom > 0, total_wins[todo] / np.where(denom > 0, denom, 1.0), 1.0)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new), axis=1, keepdims=True))
        moved = np.max(np.abs(np.log(new) - np.log(old)), axis=1, initial=0.0)
        strength[todo] = new
        todo = todo[moved >= tol]
    elo = 400.0 * np.log10(strength)
    centred: np.ndarray = elo - elo.mean(axis=1, keepdims=True)
    return centred.reshape(np.shape(wins)[:-1])


def nash_averaging(payoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-entropy Nash equilibrium of the symmetric zero-sum game with antisymmetric
    ``payoffs`` (row player's payoff), and each agent's payoff against it.

    Two steps, both exact up to floating point: one LP finds the agents in the support
    of some equilibrium and an equilibrium using all of them; then Newton's method
    maximises the entropy over the equilibria, an affine set there (every such agent
    earns the value 0 against every equilibrium), keeping the other agents' payoffs at
    most 0. (A general-purpose SLSQP over all agents took up to seconds a matrix, most
    of a tournament's rating time, where weights tend to 0 at the support's edge.)

    Returns:
        ``(mixture, scores)``; agents in the support score 0, the others at most 0. Both
        are NaN when some off-diagonal entry is missing (NaN): an unplayed pairing is not
        a draw.
    """
    from scipy.optimize import linprog

    a = np.array(payoffs, dtype=float)
    n = a.shape[0]
    off_diagonal = ~np.eye(n, dtype=bool)
    if np.isnan(a[off_diagonal]).any():
        return np.full(n, np.nan), np.full(n, np.nan)
    np.fill_diagonal(a, 0.0)
    a = 0.5 * (a - a.T)
    # The equilibria's cone {q >= 0, a q <= 0} holds the sum of all equilibria, so
    # maximising sum(min(q_i, 1)) over it gives 1 exactly to the agents of some support.
    lp = linprog(
        np.r_[np.zeros(n), -np.ones(n)],
        A_ub=np.block([[a, np.zeros((n, n))], [-np.eye(n), np.eye(n)]]),
        b_ub=np.zeros(2 * n),
        bounds=[(0, None)] * n + [(0, 1)] * n,
        method="highs",
    )
    if not lp.success:  # pragma: no cover - q = 0 is feasible and the objective bounded
        raise RuntimeError(f"Nash averaging's support LP failed: {lp.message}")
    support = np.flatnonzero(lp.x[n:] > 0.5)
    others = np.setdiff1d(np.arange(n), support)
    x = lp.x[support] / lp.x[support].sum()
    x = _max_entropy(a[np.ix_(support, support)], a[np.ix_(others, support)], x)
    p = np.zeros(n)
    p[support] = x
    return p, a @ p


ALPHA = 100.0
"""α-Rank's default selection intensity (OpenSpiel's), per chip of payoff."""
POPULATION = 50
"""α-Rank's default population size (OpenSpiel's)."""


def alpha_rank(
    payoffs: np.ndarray, *, alpha: float = ALPHA, population: int = POPULATION
) -> np.ndarray:
    """α-Rank's stationary distribution over the agents of a symmetric meta-game:
    ``payoffs[i, j]`` is agent i's mean payoff against agent j (a crosstable's means).

    A population of ``population`` agents all playing ``s`` is invaded by a mutant
    playing ``r`` (each other agent with probability ``1 / (n - 1)``); with the payoff
    edge ``u = alpha * (payoffs[r, s] - payoffs[s, r])`` the mutant fixes with
    probability ``(1 - exp(-u)) / (1 - exp(-population * u))`` (``1 / population`` at
    ``u = 0``). The returned vector is the stationary distribution of that Markov
    chain over the agents.

    Returns:
        One probability per agent (summing to 1); NaN everywhere when an off-diagonal
        payoff is missing (NaN).

    Raises:
        InvalidParameterError: not a square matrix, ``alpha`` not positive or
            ``population`` below 2.
    """
    a = np.array(payoffs, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise InvalidParameterError(
            f"α-Rank needs a square, non-empty payoff matrix, received shape {a.shape}."
        )
    if not (isinstance(alpha, (int, float)) and np.isfinite(alpha) and alpha > 0):
        raise InvalidParameterError(f"`alpha` must be a positive number, received {alpha!r}.")
    if isinstance(population, bool) or not isinstance(population, int) or population < 2:
        raise InvalidParameterError(
            f"`population` must be an integer >= 2, received {population!r}."
        )
    n = a.shape[0]
    off = ~np.eye(n, dtype=bool)
    if np.isnan(a[off]).any():
        return np.full(n, np.nan)
    if n == 1:
        return np.ones(1)
    edge = alpha * (a.T - a)  # edge[s, r]: mutant r's edge over residents playing s
    chain = np.where(off, _fixation(edge, population) / (n - 1), 0.0)
    chain[np.diag_indices(n)] = 1.0 - chain.sum(axis=1)
    # pi (chain - I) = 0 with sum(pi) = 1: one equation of the singular system replaced
    system = (chain - np.eye(n)).T
    system[-1] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi: np.ndarray = np.clip(np.linalg.solve(system, rhs), 0.0, None)
    out: np.ndarray = pi / pi.sum()
    return out


def _fixation(u: np.ndarray, m: int) -> np.ndarray:
    """``(1 - exp(-u)) / (1 - exp(-m u))`` elementwise, ``1 / m`` at ``u = 0``, without
    overflow: for ``u < 0`` the ratio is ``exp(-(m - 1) |u|)`` times the same form in
    ``|u|``."""
    v = np.abs(u)
    small = v < 1e-14
    safe = np.where(small, 1.0, v)
    positive = np.expm1(-safe) / np.expm1(-m * safe)  # the form for an edge v > 0
    out = np.where(u > 0, positive, positive * np.exp(-(m - 1) * safe))
    fixed: np.ndarray = np.where(small, 1.0 / m, out)
    return fixed


def _max_entropy(inner: np.ndarray, outer: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The maximum-entropy ``x`` with ``inner @ x = inner @ x0`` (0), ``sum(x) = 1`` and
    ``outer @ x <= 0``, from a feasible ``x0 > 0``: Newton's method in the null space of
    ``[inner; 1]``, backtracking to stay feasible; where a constraint of ``outer`` stops
    it, SLSQP finishes in that null space (small, and away from the weights' bound 0)."""
    from scipy.linalg import null_space
    from scipy.optimize import minimize

    tol = 1e-9 * max(1.0, float(np.abs(outer).max(initial=0.0)))
    basis = null_space(np.vstack([inner, np.ones(x.size)]))
    if basis.shape[1] == 0:  # one equilibrium
        return x

    def feasible(y: np.ndarray) -> bool:
        return bool((y > 0).all() and (outer @ y <= tol).all())

    def entropy(y: np.ndarray) -> float:
        return -float(y @ np.log(y))

    blocked = False
    for _ in range(200):
        gradient = basis.T @ (-np.log(x) - 1.0)
        step = np.linalg.solve(basis.T @ (basis / x[:, None]), gradient)
        decrement = float(gradient @ step)  # twice the entropy a full step gains, about
        if decrement < 1e-24:
            return x
        direction, t, h = basis @ step, 1.0, entropy(x)
        while t > 1e-12:
            y = x + t * direction
            if feasible(y) and entropy(y) >= h + 0.25 * t * decrement:
                break
            blocked = blocked or not feasible(y)
            t *= 0.5
        else:
            break
        x = y
    if not blocked:
        return x
    start = x

    def slack(z: np.ndarray) -> np.ndarray:  # minus the other agents' payoffs (tol spare)
        out: np.ndarray = -(outer @ (start + basis @ z))
        return out

    res = minimize(
        lambda z: -entropy(start + basis @ z),
        np.zeros(basis.shape[1]),
        jac=lambda z: basis.T @ (np.log(start + basis @ z) + 1.0),
        method="SLSQP",
        constraints=[
            {"type": "ineq", "fun": slack, "jac": lambda z: -outer @ basis},
            {"type": "ineq", "fun": lambda z: start + basis @ z - 1e-300, "jac": lambda z: basis},
        ],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    y = start + basis @ res.x
    return y if feasible(y) and entropy(y) > entropy(start) else start


def rate(
    results: Sequence[BlockResult],
    names: Sequence[str],
    *,
    bootstrap: int = 200,
    seed: int = 0,
    table: Crosstable | None = None,
    exact: np.ndarray | None = None,
    nash_bootstrap: int = 100,
) -> Ratings:
    """Bradley-Terry (with bootstrap CIs over each pairing's deals) and Nash-averaging
    ratings (with a parametric bootstrap CI over the payoff matrix's sampled cells).

    Args:
        results: stored blocks.
        names: the agents, in the order of the returned arrays.
        bootstrap: Bradley-Terry bootstrap draws (0: no interval).
        seed: seeds both bootstraps.
        table: the results' :func:`crosstable`, if the caller has it already.
        exact: ``(n, n)`` exact expected scores (chips/game, row agent's view), NaN where
            unknown; Nash averaging uses them in place of the sampled means.
        nash_bootstrap: Nash-averaging bootstrap draws (0: no interval).

    Raises:
        InvalidParameterError: no agents, or an agent named twice.
        ValueError: ``exact`` is not ``(n, n)``.
    """
    names = tuple(names)
    if not names or len(set(names)) != len(names):
        raise InvalidParameterError(
            f"rate() needs the agents' distinct names, at least one; received {list(names)!r}."
        )
    index = {name: k for k, name in enumerate(names)}
    n = len(names)
    ordered = _sorted(results)
    wins = _win_counts(ordered, index, n)
    elo = bradley_terry(wins)
    # The bootstrap resamples *deals* within each pairing (each deal's outcome, won, tied
    # or lost, is an independent draw given the two agents), not blocks: a board plays
    # few blocks per pairing (two by default), and resampling two blocks gave intervals
    # that covered the true ratings about 78% of the time instead of 95%.
    pairs: dict[tuple[int, int], np.ndarray] = {}
    for r in ordered:
        i, j = _pair(r, index)
        key = (min(i, j), max(i, j))
        won, lost = (r.wins, r.losses) if i < j else (r.losses, r.wins)
        pairs[key] = pairs.get(key, np.zeros(3)) + np.array([won, r.ties, lost])
    keys = list(pairs)
    counts = np.array([pairs[k] for k in keys], dtype=np.int64).reshape(len(keys), 3)
    totals = counts.sum(axis=1)
    shares = counts / np.maximum(totals, 1)[:, None]
    rows = np.array([k[0] for k in keys], dtype=np.int64)
    cols = np.array([k[1] for k in keys], dtype=np.int64)
    rng = np.random.default_rng(seed)
    # every draw's resampled wins (each pairing once: rows < cols), fitted in one batch
    drawn = rng.multinomial(totals, shares, size=(bootstrap, len(keys))).astype(float)
    resampled = np.zeros((bootstrap, n, n))
    resampled[:, rows, cols] = drawn[..., 0] + 0.5 * drawn[..., 1]
    resampled[:, cols, rows] = drawn[..., 2] + 0.5 * drawn[..., 1]
    samples = bradley_terry(resampled)
    low, high = (
        np.percentile(samples, [2.5, 97.5], axis=0) if bootstrap else (elo.copy(), elo.copy())
    )
    if table is None:
        table = crosstable(ordered, names)
    payoffs, stderr = table.mean.copy(), np.nan_to_num(table.stderr)
    if exact is not None:
        exact = np.asarray(exact, dtype=float)
        if exact.shape != (n, n):
            raise ValueError(f"exact must be ({n}, {n}) for {n} agents; got {exact.shape}")
        known = ~np.isnan(exact)
        payoffs[known], stderr[known] = exact[known], 0.0
    mixture, scores = nash_averaging(payoffs)
    ranked = alpha_rank(payoffs)
    nash_low, nash_high = scores.copy(), scores.copy()
    rank_low, rank_high = ranked.copy(), ranked.copy()
    upper = np.triu(np.ones((n, n), dtype=bool), 1) & (stderr > 0)
    if nash_bootstrap and upper.any() and np.isfinite(scores).all():
        draws = np.empty((nash_bootstrap, n))
        ranks = np.empty((nash_bootstrap, n))
        for s in range(nash_bootstrap):
            noise = np.zeros((n, n))
            noise[upper] = rng.standard_normal(int(upper.sum())) * stderr[upper]
            drawn_payoffs = payoffs + noise - noise.T
            draws[s] = nash_averaging(drawn_payoffs)[1]
            ranks[s] = alpha_rank(drawn_payoffs)
        nash_low, nash_high = np.percentile(draws, [2.5, 97.5], axis=0)
        rank_low, rank_high = np.percentile(ranks, [2.5, 97.5], axis=0)
    return Ratings(
        names, elo, low, high, mixture, scores, nash_low, nash_high, ranked, rank_low, rank_high
    )
