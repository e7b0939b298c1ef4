"""Counterfactual regret minimisation and its discounted variants, on compiled trees.

Papers:
    CFR: Zinkevich, Johanson, Bowling, Piccione, "Regret Minimization in Games with
    Incomplete Information", NeurIPS 2007.
    CFR+: Tammelin, "Solving Large Imperfect Information Games Using CFR+", 2014.
    Linear CFR and DCFR: Brown & Sandholm, "Solving Imperfect-Information Games via
    Discounted Regret Minimization", AAAI 2019.
    Regret matching: Hart & Mas-Colell, "A Simple Adaptive Procedure Leading to
    Correlated Equilibrium", Econometrica 2000.

One iteration, for each player ``p`` in turn (alternating updates, as OpenSpiel's C++
solvers), on the tree arrays:

1. forward pass: reach probabilities of ``p`` and of everyone else (chance included)
   under the current policy;
2. backward pass: counterfactual values; at ``p``'s nodes add ``v(ha) - v(h)`` to the
   regret of every action;
3. add ``weight * reach_p(I) * sigma(I)`` to the average-policy sums, discount (DCFR,
   linear CFR) or floor at zero (CFR+) the regrets, and regret-match the next policy.

Variants differ only in step 3: CFR (no discount, uniform averaging), CFR+ (regrets
floored at 0, averaging weight t), linear CFR (= DCFR(1, 1, 1)), DCFR (positive regrets
times t^a/(t^a+1), negative times t^b/(t^b+1), average sums times ((t-1)/t)^g;
defaults a=1.5, b=0, g=2). Regret matching is CFR on a matrix game (one information set
per player) with simultaneous updates.
"""

from __future__ import annotations

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree

__all__ = [
    "CFRSolver",
    "CFRPlusSolver",
    "LinearCFRSolver",
    "DCFRSolver",
    "RegretMatchingSolver",
]

_AVERAGING = {"uniform": 0, "linear": 1, "dcfr": 2}


def _check_float(name: str, value: float, low: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low:
        raise InvalidParameterError(
            f"Parameter `{name}` must be a number >= {low}, received {value!r}."
        )
    return float(value)


class CFRSolver(TabularSolver):
    """Vanilla CFR (alternating updates, uniform averaging).

    The general engine of the family: subclasses only fix the keyword arguments.

    Args:
        game: the game or its compiled tree.
        regret_plus: floor cumulative regrets at zero after every update (CFR+).
        alpha: discount positive regrets by ``t^alpha / (t^alpha + 1)``; ``None``: none.
        beta: discount negative regrets by ``t^beta / (t^beta + 1)``; ``None``: none.
        gamma: with ``averaging="dcfr"``, multiply average sums by ``((t-1)/t)^gamma``.
        averaging: ``"uniform"``, ``"linear"`` (weight t) or ``"dcfr"``.
        alternating: alternating (True) or simultaneous updates.
    """

    name = "cfr"

    def __init__(
        self,
        game: Game | GameTree,
        *,
        regret_plus: bool = False,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float = 2.0,
        averaging: str = "uniform",
        alternating: bool = True,
    ) -> None:
        super().__init__(game)
        if averaging not in _AVERAGING:
            raise InvalidParameterError(
                f"Parameter `averaging` must be one of {list(_AVERAGING)}, received {averaging!r}."
            )
        self.regret_plus = bool(regret_plus)
        self.alpha = None if alpha is None else _check_float("alpha", alpha, 0.0)
        self.beta = None if beta is None else _check_float("beta", beta, 0.0)
        self.gamma = _check_float("gamma", gamma, 0.0)
        self.averaging = averaging
        self.alternating = bool(alternating)
        tree = self.tree
        mask = tree.legal_mask
        self._sigma = self.tree.uniform_probs()
        self._regret = np.zeros(mask.shape)
        self._avg = np.zeros(mask.shape)
        self._reach_own = np.zeros((tree.num_players, tree.num_nodes))
        self._reach_opp = np.zeros(tree.num_nodes)
        self._value = np.zeros(tree.num_nodes)

    def _run(self, n: int) -> None:
        from nashzoo.tree import kernels

        t = self.tree
        kernels.cfr_run(
            n,
            self.iteration,
            self.alternating,
            self.regret_plus,
            -1.0 if self.alpha is None else self.alpha,
            -1.0 if self.beta is None else self.beta,
            self.gamma,
            _AVERAGING[self.averaging],
            *t.walk_arrays,
            t.utility,
            t.legal_mask,
            t.infoset_node,
            self._player_lo,
            self._player_hi,
            self._sigma,
            self._regret,
            self._avg,
            self._reach_own,
            self._reach_opp,
            self._value,
        )

    def _average_sums(self) -> np.ndarray:
        return self._avg

    def _current_probs(self) -> np.ndarray:
        return self._sigma.copy()

    @property
    def cumulative_regret(self) -> np.ndarray:
        """A copy of the cumulative regrets, ``(num_infosets, num_actions)``."""
        return self._regret.copy()


class CFRPlusSolver(CFRSolver):
    """CFR+: regret matching+ (regrets floored at 0), alternating updates, linear averaging."""

    name = "cfr+"

    def __init__(self, game: Game | GameTree) -> None:
        super().__init__(game, regret_plus=True, averaging="linear")


class LinearCFRSolver(CFRSolver):
    """Linear CFR: iteration t's regrets and policy weighted by t (DCFR with 1, 1, 1)."""

    name = "lcfr"

    def __init__(self, game: Game | GameTree) -> None:
        super().__init__(game, alpha=1.0, beta=1.0, gamma=1.0, averaging="dcfr")


class DCFRSolver(CFRSolver):
    """Discounted CFR with Brown & Sandholm's recommended alpha=1.5, beta=0, gamma=2."""

    name = "dcfr"

    def __init__(
        self, game: Game | GameTree, *, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0
    ) -> None:
        super().__init__(game, alpha=alpha, beta=beta, gamma=gamma, averaging="dcfr")


class RegretMatchingSolver(CFRSolver):
    """Regret matching for matrix games: both players update simultaneously each round.

    Raises:
        InvalidParameterError: the game has more than one information set per player.
    """

    name = "rm"

    def __init__(self, game: Game | GameTree) -> None:
        super().__init__(game, alternating=False)
        counts = np.bincount(self.tree.infoset_player, minlength=self.tree.num_players)
        if (counts != 1).any():
            raise InvalidParameterError(
                f"Regret matching is for matrix games (one decision per player); "
                f"{self.tree.game!r} has {counts.tolist()} information sets per player. "
                "Use CFR for extensive-form games."
            )
