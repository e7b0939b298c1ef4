"""Predictive CFR+ on compiled trees.

Paper: Farina, Kroer & Sandholm, "Faster Game Solving via Predictive Blackwell
Approachability: Connecting Regret Matching and Mirror Descent", AAAI 2021.

CFR+ with optimism: every information set keeps its regrets floored at zero (regret
matching+), and the policy it plays next regret-matches the cumulative regrets *plus a
prediction of the next instantaneous regret*, which PCFR+ takes to be the last one.
Alternating updates; the average policy weighs iteration ``t`` by ``t^2`` (the paper's
quadratic averaging).
"""

from __future__ import annotations

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.cfr.cfr import REGRET_NOISE, cfr_values
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.kernels import forward_reach

__all__ = ["PredictiveCFRPlusSolver"]


# -- the algorithm (compiled on first use) ----------------------------------------------
@kernel
def pcfr_run(
    n_iters,
    t0,
    avg_power,
    tree,
    player_lo,
    player_hi,
    sigma,
    regret,
    instant,
    avg,
    reach_own,
    reach_opp,
    value,
):
    """Run ``n_iters`` iterations of predictive CFR+ (alternating updates) after ``t0``.

    Per information set: the instantaneous regrets ``r`` of this pass (collected in
    ``instant``), ``R = max(R + r, 0)``, and the next policy regret-matches ``R + r``
    (the prediction of the next regret is the last one). The average sums add the policy
    just played times ``t ** avg_power`` times the player's reach.
    """
    legal_mask = tree.legal_mask
    infoset_node = tree.infoset_node
    n_players = player_lo.size
    n_actions = legal_mask.shape[1]
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        for p in range(n_players):
            forward_reach(p, tree, sigma, reach_own[p], reach_opp)
            for i in range(player_lo[p], player_hi[p]):
                for a in range(n_actions):
                    instant[i, a] = 0.0
            cfr_values(p, tree, sigma, reach_opp, value, instant)
            for i in range(player_lo[p], player_hi[p]):
                w = weight * reach_own[p][infoset_node[i]]
                total = 0.0
                count = 0
                for a in range(n_actions):
                    avg[i, a] += w * sigma[i, a]
                    if not legal_mask[i, a]:
                        continue
                    count += 1
                    r = regret[i, a] + instant[i, a]
                    regret[i, a] = r if r > REGRET_NOISE else 0.0
                    pred = regret[i, a] + instant[i, a]
                    if pred > 0.0:
                        total += pred
                for a in range(n_actions):
                    if not legal_mask[i, a]:
                        sigma[i, a] = 0.0
                    elif total > 0.0:
                        pred = regret[i, a] + instant[i, a]
                        sigma[i, a] = pred / total if pred > 0.0 else 0.0
                    else:
                        sigma[i, a] = 1.0 / count


def _compiled() -> None:
    compile_kernels(globals())


class PredictiveCFRPlusSolver(TabularSolver):
    """Predictive CFR+ (PCFR+).

    Args:
        game: the game or its compiled tree.
        averaging_power: the average policy weighs iteration ``t`` by ``t**averaging_power``
            (2: quadratic, the paper's choice; 1: linear as CFR+; 0: uniform).
    """

    name = "pcfr+"

    def __init__(self, game: Game | GameTree, *, averaging_power: float = 2.0) -> None:
        super().__init__(game)
        if (
            isinstance(averaging_power, bool)
            or not isinstance(averaging_power, (int, float))
            or not 0.0 <= averaging_power <= 4.0
        ):
            raise InvalidParameterError(
                f"Parameter `averaging_power` must be a number in [0, 4], received "
                f"{averaging_power!r}."
            )
        self.averaging_power = float(averaging_power)
        tree = self.tree
        shape = tree.legal_mask.shape
        self._sigma = tree.uniform_probs()
        self._regret = np.zeros(shape)
        self._instant = np.zeros(shape)
        self._avg = np.zeros(shape)
        self._reach_own = np.zeros((tree.num_players, tree.num_nodes))
        self._reach_opp = np.zeros(tree.num_nodes)
        self._value = np.zeros(tree.num_nodes)

    def _run(self, n: int) -> None:
        _compiled()
        pcfr_run(
            n,
            self.iteration,
            self.averaging_power,
            self.tree.arrays,
            self._player_lo,
            self._player_hi,
            self._sigma,
            self._regret,
            self._instant,
            self._avg,
            self._reach_own,
            self._reach_opp,
            self._value,
        )

    def _average_sums(self) -> np.ndarray:
        return self._avg

    def _current_probs(self) -> np.ndarray:
        return self._sigma.copy()
