"""ESCHER: Deep CFR without importance sampling.

Paper: McAleer, Farina, Lanctot & Sandholm, "ESCHER: Eschewing Importance Sampling in
Games by Computing a History Value Function to Estimate Regret", ICLR 2023.

Outcome-sampling regret estimates divide by the probability of the sampled path, and
those weights make their variance explode in deep games. ESCHER removes them. Each
iteration ``t`` and each player ``p``:

1. **A history value function.** ``value_traversals`` episodes are played by both
   players' current strategies (mixed with ``value_exploration`` of uniform); every
   history's return, importance-weighted back to the current strategies, is the target of
   ``p``'s *value network*, which reads the whole history (both players' information-state
   tensors side by side) and predicts ``p``'s expected return under the current profile.
2. **Regrets from the value function.** ``regret_traversals`` episodes where ``p`` acts by
   a *fixed* sampling policy (uniform over the legal actions) and the opponent by its
   current strategy. At each of ``p``'s decisions the value of every child history comes
   from the value network (exact at terminal histories), and ``q(a) - sigma . q`` is
   stored as the sampled regret. Because the sampling policy is fixed and is ``p``'s own,
   the expected sum of these rows at an information set is the counterfactual regret
   times ``p``'s sampling reach of it, the same for every iteration: no importance weight
   appears (the test checks this estimator against exact counterfactual regrets).
3. ``p``'s regret network is fitted from fresh weights to its memory, rows weighted by
   their iteration (Linear CFR); regret matching on it is the next strategy.

The opponent's strategies met during the regret episodes go to the strategy memory, and
the average policy is a network fitted to it with a t-weighted cross-entropy (as
OpenSpiel's ESCHER). The episodes walk the rules, so any two-player game trains.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.neural_cfr.base import NeuralRegretLearner, seed_of
from nashzoo.agents.neural_cfr.config import ESCHERConfig
from nashzoo.envs.sampling import sample_index

__all__ = ["ESCHER"]


class ESCHER(NeuralRegretLearner):
    """ESCHER for two-player games of :mod:`nashzoo.games`.

    Args:
        game: the rules.
        config: hyper-parameters (:class:`ESCHERConfig`).

    Raises:
        InvalidParameterError: not a two-player game, or a config of another type.
        MissingDependencyError: torch is not installed.

    A :class:`~nashzoo.agents.learner.Learner`: one step is one iteration (for each
    player: value episodes, value fit, regret episodes, regret fit).
    """

    name: ClassVar[str] = "escher"
    config_type: ClassVar[type] = ESCHERConfig
    file_format: ClassVar[str] = "nashzoo.escher"
    policy_loss: ClassVar[str] = "cross_entropy"

    def __init__(self, game: Any, config: ESCHERConfig | None = None) -> None:
        super().__init__(game, config)
        cfg = self.config
        self.history_size = 2 * self.obs_size
        self.value_nets = [
            self._network(cfg.value_sizes, seed_of(self.seed, 4, p), self.history_size, 1)
            for p in (0, 1)
        ]
        self.losses: list[tuple[float, ...]] = []  # per iteration: value and regret losses

    # -- the history value function ------------------------------------------------------------
    def history_tensor(self, state: Any) -> np.ndarray:
        """The whole history as the value network reads it: both players' tensors."""
        return np.concatenate(
            [
                self.observations.get(state, p, state.information_state_string(p)).tensor
                for p in (0, 1)
            ]
        )

    def history_values(self, player: int, histories: np.ndarray) -> np.ndarray:
        """``player``'s value network at ``(n, history_size)`` history tensors."""
        torch = self._torch
        with torch.inference_mode():
            return self.value_nets[player](torch.from_numpy(histories)).numpy()[:, 0]

    def _children_values(self, state: Any, player: int, legal: np.ndarray) -> np.ndarray:
        """``q``: ``player``'s value of each legal action's child history (the value
        network's, exact at terminal children)."""
        children = [state.child(int(a)) for a in legal]
        values = np.zeros(len(children))
        inner = [k for k, c in enumerate(children) if not c.is_terminal()]
        for k, child in enumerate(children):
            if child.is_terminal():
                values[k] = child.returns()[player]
        if inner:
            histories = np.stack([self.history_tensor(children[k]) for k in inner]).astype(
                np.float32
            )
            values[inner] = self.history_values(player, histories)
        return values

    def _value_episodes(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Histories and importance-weighted returns of ``value_traversals`` episodes of
        the current strategies mixed with uniform exploration."""
        cfg = self.config
        eps = cfg.value_exploration
        histories: list[np.ndarray] = []
        targets: list[float] = []
        for _ in range(cfg.value_traversals):
            state = self.game.new_initial_state()
            path: list[tuple[np.ndarray, float]] = []  # (history, importance of its action)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(self._chance(state))
                    continue
                mover = state.current_player()
                _, view, sigma = self._view(state, mover)
                legal = view.mask.astype(bool)
                mixed = eps * legal / legal.sum() + (1.0 - eps) * sigma
                action = sample_index(np.cumsum(mixed), self.rng.random())
                path.append((self.history_tensor(state), sigma[action] / mixed[action]))
                state.apply_action(action)
            value = float(state.returns()[player])
            histories.append(self.history_tensor(state))
            targets.append(value)
            for history, importance in reversed(path):
                value *= importance
                histories.append(history)
                targets.append(value)
        return np.stack(histories).astype(np.float32), np.array(targets, np.float32)

    def _fit_values(self, player: int, t: int) -> float:
        """Fit ``player``'s value network from fresh weights to this iteration's data."""
        torch = self._torch
        cfg = self.config
        histories, targets = self._value_episodes(player)
        net = self.value_nets[player] = self._network(
            cfg.value_sizes, seed_of(self.seed, 4, player, t), self.history_size, 1
        )
        opt = self._optimizer(net)
        batch = cfg.batch_size
        rows = self.rng.integers(len(targets), size=cfg.value_steps * batch)
        inputs, outputs = torch.from_numpy(histories[rows]), torch.from_numpy(targets[rows])
        loss = None
        for k in range(cfg.value_steps):
            pred = net(inputs[k * batch : (k + 1) * batch])[:, 0]
            loss = ((pred - outputs[k * batch : (k + 1) * batch]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return float("nan") if loss is None else loss.item()

    # -- regrets -------------------------------------------------------------------------------
    def _regret_episodes(self, player: int, t: int) -> None:
        """``regret_traversals`` episodes: ``player`` uniform, the opponent by its current
        strategy; the regret rows of ``player``'s decisions and the opponent's strategies
        go to the memories."""
        regret_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        strategy_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for _ in range(self.config.regret_traversals):
            state = self.game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(self._chance(state))
                    continue
                mover = state.current_player()
                _, view, sigma = self._view(state, mover)
                legal = np.flatnonzero(view.mask)
                if mover == player:
                    q = np.zeros(self.num_actions)
                    q[legal] = self._children_values(state, player, legal)
                    regrets = np.zeros(self.num_actions)
                    regrets[legal] = q[legal] - sigma @ q
                    regret_rows.append((view.tensor, regrets, view.mask))
                    action = int(legal[min(int(self.rng.random() * legal.size), legal.size - 1)])
                else:
                    strategy_rows.append((view.tensor, sigma, view.mask))
                    action = sample_index(np.cumsum(sigma), self.rng.random())
                state.apply_action(action)
        self.traversals += self.config.regret_traversals
        self._store(self.regret_memory[player], regret_rows, t)
        self._store(self.strategy_memory, strategy_rows, t)

    def _iteration(self) -> None:
        t = self.iterations + 1
        losses: list[float] = []
        for player in (0, 1):
            losses.append(self._fit_values(player, t))
            self._regret_episodes(player, t)
            losses.append(self._fit_regrets(player, t, self.config.regret_steps, True))
        self.losses.append(tuple(losses))
        self.iterations = t

    # -- files ---------------------------------------------------------------------------------
    def _extra_networks(self) -> dict[str, Any]:
        return {"value0": self.value_nets[0], "value1": self.value_nets[1]}
