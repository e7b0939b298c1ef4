"""Monte Carlo CFR: external sampling and outcome sampling, on compiled trees.

Paper: Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo Sampling for Regret Minimization
in Extensive Games", NeurIPS 2009.

External sampling, one iteration: for each player ``p``, sample one chance outcome and
one action of every other player at each node they reach, explore all of ``p``'s actions,
and update ``p``'s regrets with the sampled counterfactual values; the others' average
policies get their current policy added where they were sampled.

Outcome sampling, one iteration: for each player ``p``, sample one trajectory (``p``
explores with ``epsilon``-uniform mixing), and update ``p``'s regrets along it with
importance-weighted values and ``p``'s average policy with weight own reach / sampling
reach (OpenSpiel's baseline-free variant).

Both draw from a per-solver xorshift generator seeded from ``np.random.default_rng(seed)``,
so the same seed gives the same run.
"""

from __future__ import annotations

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.cfr.cfr import _check_float
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree

__all__ = ["ExternalSamplingMCCFRSolver", "OutcomeSamplingMCCFRSolver"]


class _MCCFRBase(TabularSolver):
    def __init__(self, game: Game | GameTree, *, seed: int | None = None) -> None:
        super().__init__(game)
        shape = self.tree.legal_mask.shape
        self._regret = np.zeros(shape)
        self._avg = np.zeros(shape)
        rng = np.random.default_rng(seed)
        self._rng_state = np.array([rng.integers(1, 2**63 - 1)], dtype=np.uint64)

    def _average_sums(self) -> np.ndarray:
        return self._avg

    def _current_probs(self) -> np.ndarray:
        positive = np.where(self.tree.legal_mask, np.maximum(self._regret, 0.0), 0.0)
        return self.tree.normalize_rows(positive)


class ExternalSamplingMCCFRSolver(_MCCFRBase):
    """External-sampling MCCFR.

    Args:
        game: the game or its compiled tree.
        seed: seed of the solver's generator.
    """

    name = "es-mccfr"

    def __init__(self, game: Game | GameTree, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        n = self.tree.num_nodes
        self._active = np.zeros(n, dtype=np.int64)
        self._chosen = np.zeros(n, dtype=np.int64)
        self._value = np.zeros(n)
        self._scratch = np.zeros(self.tree.num_actions)

    def _run(self, n: int) -> None:
        from nashzoo.tree import kernels

        t = self.tree
        kernels.external_sampling_run(
            n,
            self._rng_state,
            *t.walk_arrays,
            t.utility,
            t.legal_mask,
            self._regret,
            self._avg,
            self._active,
            self._chosen,
            self._value,
            self._scratch,
        )


class OutcomeSamplingMCCFRSolver(_MCCFRBase):
    """Outcome-sampling MCCFR.

    Args:
        game: the game or its compiled tree.
        epsilon: exploration of the updating player's sampling policy, in (0, 1].
        seed: seed of the solver's generator.
    """

    name = "os-mccfr"

    def __init__(
        self, game: Game | GameTree, *, epsilon: float = 0.6, seed: int | None = None
    ) -> None:
        super().__init__(game, seed=seed)
        self.epsilon = _check_float("epsilon", epsilon, 1e-9)
        if self.epsilon > 1.0:
            from nashzoo.errors import InvalidParameterError

            raise InvalidParameterError(
                f"Parameter `epsilon` must be in (0, 1], received {epsilon}."
            )
        depth = int(self.tree.depth.max()) + 1
        a = self.tree.num_actions
        self._path = (
            np.zeros(depth, np.int64),
            np.zeros(depth, np.int64),
            np.zeros((depth, a)),
            np.zeros((depth, a)),
            np.zeros((depth, 3)),
        )

    def _run(self, n: int) -> None:
        from nashzoo.tree import kernels

        t = self.tree
        kernels.outcome_sampling_run(
            n,
            self.epsilon,
            self._rng_state,
            *t.walk_arrays,
            t.utility,
            t.legal_mask,
            self._regret,
            self._avg,
            *self._path,
        )
