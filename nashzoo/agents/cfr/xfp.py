"""Full-width extensive-form fictitious play (XFP).

Paper: Heinrich, Lanctot, Silver, "Fictitious Self-Play in Extensive-Form Games",
ICML 2015 (Algorithm 1 and Theorem 7).

One iteration t (starting from the uniform policy pi_1):

1. for every player, compute an exact pure best response beta_{t+1} to the others'
   current average policy pi_t (on the tree arrays);
2. mix in realization-weight space with alpha = 1 / (t + 1): at each information set u
   of player i,

       pi_{t+1}(u) = pi_t(u) + alpha x_beta(u) / ((1 - alpha) x_pi(u) + alpha x_beta(u))
                               * (beta_{t+1}(u) - pi_t(u)),

   where x(u) is the product of player i's own action probabilities on the path to u
   (the realization weight). This makes pi_{t+1} behave exactly like the mixture
   (1 - alpha) pi_t + alpha beta_{t+1} of the two strategies.
"""

from __future__ import annotations

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.games import Game
from nashzoo.tree.best_response import best_response_value
from nashzoo.tree.compile import GameTree
from nashzoo.tree.reach import realization_weights

__all__ = ["XFPSolver"]


class XFPSolver(TabularSolver):
    """Full-width XFP; its average policy is the fictitious-play mixture.

    Args:
        game: the game or its compiled tree.
    """

    name = "xfp"

    def __init__(self, game: Game | GameTree) -> None:
        super().__init__(game)
        self._pi = self.tree.uniform_probs()
        self._br_actions = np.zeros(self.tree.num_infosets, dtype=np.int64)

    def _run(self, n: int) -> None:
        t = self.tree
        rows = np.arange(t.num_infosets)
        for k in range(n):
            step = self.iteration + k + 1  # pi_step is current; produce pi_{step+1}
            alpha = 1.0 / (step + 1)
            beta = np.zeros_like(self._pi)
            for p in range(t.num_players):
                best_response_value(t, self._pi, p, self._br_actions)
                own = t.infoset_player == p
                beta[rows[own], self._br_actions[own]] = 1.0
            new_pi = self._pi.copy()
            for p in range(t.num_players):
                own = t.infoset_player == p
                x_pi = realization_weights(t, self._pi, p)[own]
                x_beta = realization_weights(t, beta, p)[own]
                denom = (1.0 - alpha) * x_pi + alpha * x_beta
                with np.errstate(invalid="ignore", divide="ignore"):
                    coef = np.where(denom > 0, alpha * x_beta / np.where(denom > 0, denom, 1), 0.0)
                new_pi[own] = self._pi[own] + coef[:, None] * (beta[own] - self._pi[own])
            self._pi = new_pi

    def _average_sums(self) -> np.ndarray:
        return self._pi

    def _current_probs(self) -> np.ndarray:
        return self._pi.copy()
