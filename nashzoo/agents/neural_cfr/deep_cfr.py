"""Deep Counterfactual Regret Minimization (Deep CFR).

Paper: Brown, Lerer, Gross & Sandholm, "Deep Counterfactual Regret Minimization", ICML
2019.

CFR without tables. Each iteration ``t`` and each player ``p``:

1. **Traverse.** ``traversals`` external-sampling traversals from the root for ``p``:
   at ``p``'s decisions every legal action is explored; at the opponent's one action is
   drawn from the opponent's current strategy; chance is drawn. A player's current
   strategy at an information set is regret matching on what its *advantage network*
   predicts there (the action of highest predicted advantage when none is positive).
   Each of ``p``'s decisions stores ``(information state, t, sampled regrets)`` in ``p``'s
   advantage memory; each opponent decision stores ``(information state, t, strategy)`` in
   the strategy memory. Both memories are reservoir samples, so every iteration keeps
   its share.
2. **Fit the advantage network** of ``p`` (from fresh weights by default) to its memory,
   each row's squared error weighted by its iteration ``t``: Linear CFR's weighting,
   which makes the network predict the cumulative regrets up to a scale.

The average strategy is a *policy network* fitted to the strategy memory with the same
``t`` weighting (squared error of the probabilities, as OpenSpiel's Deep CFR); it is the
output, and it approaches a Nash equilibrium in two-player zero-sum games as the
networks' errors shrink. It is fitted lazily, when the policy is asked for after more
iterations (:meth:`~nashzoo.agents.neural_cfr.base.NeuralRegretLearner.fit_policy`).

Within one iteration a player's network does not change, so its strategy at an
information set is computed once and cached until the network is next fitted. The
traversals walk the rules (:class:`~nashzoo.games.base.State`), so any two-player game
trains, whether or not it compiles; exact exploitability is measured where it compiles.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.neural_cfr.base import NeuralRegretLearner
from nashzoo.agents.neural_cfr.config import DeepCFRConfig
from nashzoo.envs.sampling import sample_index

__all__ = ["DeepCFR"]


class DeepCFR(NeuralRegretLearner):
    """Deep CFR for two-player games of :mod:`nashzoo.games`.

    Args:
        game: the rules.
        config: hyper-parameters (:class:`DeepCFRConfig`).

    Raises:
        InvalidParameterError: not a two-player game, or a config of another type.
        MissingDependencyError: torch is not installed.

    A :class:`~nashzoo.agents.learner.Learner`: one step is one iteration (``traversals``
    traversals for each player, each followed by that player's advantage fit).
    """

    name: ClassVar[str] = "deep-cfr"
    config_type: ClassVar[type] = DeepCFRConfig
    file_format: ClassVar[str] = "nashzoo.deep_cfr"
    policy_loss: ClassVar[str] = "mse"

    def __init__(self, game: Any, config: DeepCFRConfig | None = None) -> None:
        super().__init__(game, config)
        self.losses: list[tuple[float, float]] = []  # per iteration, each player's last loss
        self._regret_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._strategy_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _traverse(self, state: Any, traverser: int) -> float:
        """External-sampling traversal: ``traverser``'s expected value at ``state`` under
        the current strategies, recording the memories' rows."""
        if state.is_terminal():
            return float(state.returns()[traverser])
        if state.is_chance_node():
            return self._traverse(state.child(self._chance(state)), traverser)
        player = state.current_player()
        _, view, sigma = self._view(state, player)
        if player == traverser:
            values = np.zeros(self.num_actions)
            for legal in np.flatnonzero(view.mask):
                values[legal] = self._traverse(state.child(int(legal)), traverser)
            value = float(sigma @ values)
            regrets = np.where(view.mask.astype(bool), values - value, 0.0)
            self._regret_rows.append((view.tensor, regrets, view.mask))
            return value
        self._strategy_rows.append((view.tensor, sigma, view.mask))
        action = sample_index(np.cumsum(sigma), self.rng.random())
        return self._traverse(state.child(action), traverser)

    def _iteration(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        losses = []
        for traverser in (0, 1):
            root = self.game.new_initial_state()
            for _ in range(cfg.traversals):
                self._traverse(root.clone(), traverser)
            self.traversals += cfg.traversals
            self._store(self.regret_memory[traverser], self._regret_rows, t)
            self._store(self.strategy_memory, self._strategy_rows, t)
            self._regret_rows, self._strategy_rows = [], []
            losses.append(
                self._fit_regrets(traverser, t, cfg.regret_steps, cfg.reinitialize_regrets)
            )
        self.losses.append((losses[0], losses[1]))
        self.iterations = t
