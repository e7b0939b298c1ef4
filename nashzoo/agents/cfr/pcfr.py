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
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree

__all__ = ["PredictiveCFRPlusSolver"]


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
        from nashzoo.tree import kernels

        t = self.tree
        kernels.pcfr_run(
            n,
            self.iteration,
            self.averaging_power,
            *t.walk_arrays,
            t.utility,
            t.legal_mask,
            t.infoset_node,
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
