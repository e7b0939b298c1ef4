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
from nashzoo.games.base import TERMINAL
from nashzoo.tree.compile import GameTree
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.kernels import forward_reach

__all__ = [
    "CFRSolver",
    "CFRPlusSolver",
    "LinearCFRSolver",
    "DCFRSolver",
    "RegretMatchingSolver",
]

_AVERAGING = {"uniform": 0, "linear": 1, "dcfr": 2}

REGRET_NOISE = 1e-12
"""Regret-matching+ floors cumulative regrets below this at zero. An exact tie (regret 0)
comes out of floating-point sums as 0 or +-1e-17 depending on the summation order; RM+
would turn a +1e-17 into a pure strategy. Real CFR+ regrets this small do not move a
policy. (Tie handling that matches OpenSpiel's CFR+ to 1e-9.)"""


# -- the algorithm (compiled on first use) ----------------------------------------------
@kernel
def cfr_values(p, t, sigma, reach_opp, value, regret):
    """Backward pass of CFR for player ``p``: adds the instantaneous counterfactual
    regrets of ``p``'s information sets to ``regret`` and returns ``p``'s
    counterfactual value of the root."""
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    utility = t.utility
    for n in range(player.size - 1, -1, -1):
        pl = player[n]
        if pl == TERMINAL:
            value[n] = reach_opp[n] * utility[n, p]
            continue
        if reach_opp[n] == 0.0:  # no one else plays here: every value below is 0, and
            value[n] = 0.0  # so is every regret it would add (exact, not an estimate)
            continue
        fc = first_child[n]
        nc = num_children[n]
        if pl == p:
            i = infoset[n]
            v = 0.0
            for c in range(fc, fc + nc):
                v += sigma[i, action[c]] * value[c]
            value[n] = v
            for c in range(fc, fc + nc):
                regret[i, action[c]] += value[c] - v
        else:
            v = 0.0
            for c in range(fc, fc + nc):
                v += value[c]
            value[n] = v
    return value[0]


@kernel
def update_player(
    lo,
    hi,
    regret,
    sigma,
    avg,
    legal_mask,
    infoset_node,
    reach_own,
    pos_discount,
    neg_discount,
    floor_regrets,
    avg_decay,
    avg_weight,
):
    """After a CFR pass for the player owning sets ``lo .. hi-1``: accumulate the average
    policy with the policy just played, discount (or floor) the regrets, and regret-match
    the next policy."""
    n_actions = legal_mask.shape[1]
    for i in range(lo, hi):
        w = avg_weight * reach_own[infoset_node[i]]
        total = 0.0
        for a in range(n_actions):
            avg[i, a] = avg[i, a] * avg_decay + w * sigma[i, a]
            r = regret[i, a]
            if r > 0.0:
                r *= pos_discount
            elif floor_regrets:
                r = 0.0
            else:
                r *= neg_discount
            if floor_regrets and r < REGRET_NOISE:
                r = 0.0
            regret[i, a] = r
            if r > 0.0 and legal_mask[i, a]:
                total += r
        if total > 0.0:
            for a in range(n_actions):
                r = regret[i, a]
                sigma[i, a] = r / total if (r > 0.0 and legal_mask[i, a]) else 0.0
        else:
            count = 0
            for a in range(n_actions):
                if legal_mask[i, a]:
                    count += 1
            for a in range(n_actions):
                sigma[i, a] = 1.0 / count if legal_mask[i, a] else 0.0


@kernel
def cfr_run(
    n_iters,
    t0,
    alternating,
    regret_plus,
    alpha,
    beta,
    gamma,
    averaging,
    tree,
    player_lo,
    player_hi,
    sigma,
    regret,
    avg,
    reach_own,
    reach_opp,
    value,
):
    """Run ``n_iters`` CFR-family iterations starting after iteration ``t0``.

    ``alpha``/``beta`` < 0 mean no discount of positive/negative regrets; ``averaging``
    0 = uniform weights, 1 = linear (weight t), 2 = DCFR (old sum times ((t-1)/t)^gamma).
    ``reach_own`` is ``(num_players, num_nodes)``. With ``alternating`` each player's
    update sees the others' policies already updated in the same iteration.
    """
    legal_mask = tree.legal_mask
    infoset_node = tree.infoset_node
    n_players = player_lo.size
    for it in range(n_iters):
        t = t0 + it + 1
        pos = 1.0 if alpha < 0 else t**alpha / (t**alpha + 1.0)
        neg = 1.0 if beta < 0 else t**beta / (t**beta + 1.0)
        if averaging == 1:
            decay, weight = 1.0, float(t)
        elif averaging == 2:
            decay, weight = ((t - 1.0) / t) ** gamma, 1.0
        else:
            decay, weight = 1.0, 1.0
        # the first n_players rounds compute each player's values (and update it at once
        # when alternating); the next n_players update every player after them otherwise
        for k in range(2 * n_players):
            p = k % n_players
            if k < n_players:
                forward_reach(p, tree, sigma, reach_own[p], reach_opp)
                cfr_values(p, tree, sigma, reach_opp, value, regret)
            if alternating == (k < n_players):
                update_player(
                    player_lo[p],
                    player_hi[p],
                    regret,
                    sigma,
                    avg,
                    legal_mask,
                    infoset_node,
                    reach_own[p],
                    pos,
                    neg,
                    regret_plus,
                    decay,
                    weight,
                )


def _compiled() -> None:
    compile_kernels(globals())


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
        _compiled()
        cfr_run(
            n,
            self.iteration,
            self.alternating,
            self.regret_plus,
            -1.0 if self.alpha is None else self.alpha,
            -1.0 if self.beta is None else self.beta,
            self.gamma,
            _AVERAGING[self.averaging],
            self.tree.arrays,
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
                f"{self.tree.game} has {counts.tolist()} information sets per player. "
                "Use CFR for extensive-form games."
            )
