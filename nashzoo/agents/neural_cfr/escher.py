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
OpenSpiel's ESCHER). Where the game compiles (Kuhn, Leduc) both kinds of episode run in
numba over the compiled tree: the current strategies of all information sets come from
one forward pass per regret network, and the values of all histories from one forward
pass per value network over every node's history tensor (built once); elsewhere the
episodes walk the rules (:class:`~nashzoo.games.base.State`), so any two-player game
trains. Both paths are the same algorithm (the tests check each path's regret rows and
value targets against their exact expectations).

With ``actors`` (:class:`~nashzoo.agents.runtime.ActorConfig`), the tree path's value
and regret episodes are split among actors in this process or on Ray, in lockstep
(:class:`~nashzoo.agents.neural_cfr.base.EpisodeActor`): each receives the strategy table
(and for regret episodes the node values) and returns its rows, in actor order.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.neural_cfr.base import NeuralRegretLearner, rules_copy, seed_of, stacked
from nashzoo.agents.neural_cfr.config import ESCHERConfig
from nashzoo.envs.sampling import sample_index
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.sampling import next_uniform, sample_chance, sample_recorded_child

__all__ = ["ESCHER"]


@kernel
def tree_value_episodes(n_episodes, rng_state, t, sigma, eps, player, nodes, targets, count):
    """``n_episodes`` episodes of the compiled tree under ``sigma`` mixed with ``eps`` of
    uniform (both players): each episode's terminal node with ``player``'s return, then
    its decision nodes, last first, with the return importance-weighted back to
    ``sigma`` (``sigma(a) / mixed(a)`` per action below the node). Rows go to ``nodes``
    and ``targets`` from ``count[0]``; returns False (and stops) when they are full."""
    mover = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    utility = t.utility
    path = np.zeros(nodes.shape[0], np.int64)
    weight = np.zeros(nodes.shape[0])
    for _ in range(n_episodes):
        n = 0
        length = 0
        while mover[n] != TERMINAL:
            fc = first_child[n]
            nc = num_children[n]
            if mover[n] == CHANCE:
                n = sample_chance(fc, nc, chance_prob, next_uniform(rng_state))
                continue
            row = sigma[infoset[n]]
            u = next_uniform(rng_state)
            c = fc + nc - 1
            for k in range(fc, fc + nc):
                u -= eps / nc + (1.0 - eps) * row[action[k]]
                if u < 0.0:
                    c = k
                    break
            path[length] = n
            weight[length] = row[action[c]] / (eps / nc + (1.0 - eps) * row[action[c]])
            length += 1
            n = c
        if count[0] + length + 1 > nodes.shape[0]:
            return False
        value = utility[n, player]
        nodes[count[0]] = n
        targets[count[0]] = value
        count[0] += 1
        for k in range(length - 1, -1, -1):
            value *= weight[k]
            nodes[count[0]] = path[k]
            targets[count[0]] = value
            count[0] += 1
    return True


@kernel
def tree_regret_episodes(
    n_episodes, rng_state, t, sigma, q, player, regret_nodes, regrets, strategy_nodes, counts
):
    """``n_episodes`` episodes of the compiled tree where ``player`` acts uniformly and
    the opponent by ``sigma``: at each of ``player``'s decision nodes the regret row
    ``q(child) - sigma . q`` (``q``: ``player``'s value of every node) goes to
    ``regret_nodes``/``regrets``, each opponent decision node to ``strategy_nodes``
    (``counts``: rows of each). Returns False (and stops) when a buffer is full."""
    mover = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    n_actions = t.legal_mask.shape[1]
    for _ in range(n_episodes):
        n = 0
        while mover[n] != TERMINAL:
            fc = first_child[n]
            nc = num_children[n]
            if mover[n] == CHANCE:
                n = sample_chance(fc, nc, chance_prob, next_uniform(rng_state))
            elif mover[n] == player:
                row = counts[0]
                if row >= regret_nodes.shape[0]:
                    return False
                i = infoset[n]
                v = 0.0
                for c in range(fc, fc + nc):
                    v += sigma[i, action[c]] * q[c]
                regret_nodes[row] = n
                for a in range(n_actions):
                    regrets[row, a] = 0.0
                for c in range(fc, fc + nc):
                    regrets[row, action[c]] = q[c] - v
                counts[0] += 1
                n = fc + min(int(next_uniform(rng_state) * nc), nc - 1)
            else:
                u = next_uniform(rng_state)
                n = sample_recorded_child(n, t, sigma[infoset[n]], u, strategy_nodes, counts, 1)
                if n < 0:
                    return False
    return True


def _compiled() -> None:
    compile_kernels(globals())


def _episode_rows(tree: Any, episodes: int) -> int:
    """Rows enough for ``episodes`` episodes of the compiled tree (one per node on an
    episode's path at most)."""
    return episodes * (int(tree.depth.max()) + 1)


def value_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """``share`` value episodes of the compiled tree from random state ``seed`` (here or
    on a :class:`~nashzoo.agents.neural_cfr.base.EpisodeActor`): the nodes on their paths and
    their importance-weighted returns."""
    _compiled()
    size = _episode_rows(tree, share)
    nodes, targets, count = np.zeros(size, np.int64), np.zeros(size), np.zeros(1, np.int64)
    done = tree_value_episodes(
        share, seed.copy(), tree.arrays, job["sigma"], job["exploration"], job["player"],
        nodes, targets, count,
    )  # fmt: skip
    assert done, "the buffer holds every episode's path"
    return nodes[: count[0]], targets[: count[0]]


def regret_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``share`` regret episodes of the compiled tree from random state ``seed``: the
    player's decision nodes with their regret rows, and the opponent's decision nodes."""
    _compiled()
    size = _episode_rows(tree, share)
    regret_nodes, strategy_nodes = np.zeros(size, np.int64), np.zeros(size, np.int64)
    regrets, counts = np.zeros((size, job["sigma"].shape[1])), np.zeros(2, np.int64)
    done = tree_regret_episodes(
        share, seed.copy(), tree.arrays, job["sigma"], job["values"], job["player"],
        regret_nodes, regrets, strategy_nodes, counts,
    )  # fmt: skip
    assert done, "the buffers hold every episode's decisions"
    return regret_nodes[: counts[0]], regrets[: counts[0]], strategy_nodes[: counts[1]]


def _rules_value_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """An :class:`~nashzoo.agents.neural_cfr.base.EpisodeActor`'s share of the value
    episodes over the rules, by its :func:`~nashzoo.agents.neural_cfr.base.rules_copy`:
    histories and their importance-weighted returns."""
    return rules_copy(job, seed, scratch)._rules_value_episodes(job["player"], share)


def _rules_regret_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: dict[str, Any]
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """An actor's share of the regret episodes over the rules (with the broadcast value
    networks): the regret rows and the strategy rows, each ``(tensors, targets, masks)``."""
    learner = rules_copy(job, seed, scratch)
    regret_rows, strategy_rows = learner._rules_regret_episodes(job["player"], share)
    n, a = learner.obs_size, learner.num_actions
    return stacked(regret_rows, n, a), stacked(strategy_rows, n, a)


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
        self._histories: np.ndarray | None = None  # every node's history tensor (tree path)

    # -- the history value function ------------------------------------------------------------
    def history_tensor(self, state: Any) -> np.ndarray:
        """The whole history as the value network reads it: both players' tensors.

        A view built here is not cached: where a player is not to move (a chance node,
        the opponent's turn) its mask is empty, and its information state may be one it
        decides at elsewhere (in Kuhn, player 0's before and after player 1's card)."""
        parts = []
        for p in (0, 1):
            view = self.observations.cached(state.information_state_string(p))
            parts.append(view.tensor if view is not None else self.observations.fresh(state, p)[0])
        return np.concatenate(parts)

    def history_values(self, player: int, histories: np.ndarray) -> np.ndarray:
        """``player``'s value network at ``(n, history_size)`` history tensors."""
        torch = self._torch
        with torch.inference_mode():
            inputs = torch.from_numpy(histories).to(self.device)
            return self.value_nets[player](inputs).cpu().numpy()[:, 0]

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

    # -- the tree path -------------------------------------------------------------------------
    def node_histories(self) -> np.ndarray:
        """``(num_nodes, history_size)`` history tensors of every node of the compiled
        tree (built once, walking the tree depth first from the rules)."""
        if self._histories is None:
            tree = self.tree
            out = np.zeros((tree.num_nodes, self.history_size), np.float32)
            stack = [(0, self.game.new_initial_state())]
            while stack:
                n, state = stack.pop()
                out[n] = self.history_tensor(state)
                fc = int(tree.first_child[n])
                for c in range(fc, fc + int(tree.num_children[n])):
                    stack.append((c, state.child(int(tree.action[c]))))
            self._histories = out
        return self._histories

    def node_values(self, player: int) -> np.ndarray:
        """``player``'s value of every node of the compiled tree: the value network's at
        one forward pass, the returns at terminal nodes."""
        tree = self.tree
        values = self.history_values(player, self.node_histories()).astype(np.float64)
        terminal = tree.player == TERMINAL
        values[terminal] = tree.utility[terminal, player]
        return values

    def _tree_value_episodes(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.config
        job = {"sigma": self._strategy_table(), "exploration": cfg.value_exploration}
        job["player"] = player
        if cfg.actors is None:
            parts = [value_work(self.tree, job, cfg.value_traversals, self._kernel_rng())]
        else:
            parts = self._on_actors(value_work, cfg.value_traversals, **job)
        rows = np.concatenate([nodes for nodes, _ in parts])
        targets = np.concatenate([values for _, values in parts])
        return self.node_histories()[rows], targets.astype(np.float32)

    def _tree_regret_episodes(self, player: int, t: int) -> None:
        cfg = self.config
        sigma = self._strategy_table()
        if cfg.actors is None:
            job = {"sigma": sigma, "values": self.node_values(player), "player": player}
            parts = [regret_work(self.tree, job, cfg.regret_traversals, self._kernel_rng())]
        else:
            values = self.node_values(player)
            parts = self._on_actors(
                regret_work, cfg.regret_traversals, sigma=sigma, values=values, player=player
            )
        for regret_nodes, regrets, strategy_nodes in parts:
            counts = np.array([len(regret_nodes), len(strategy_nodes)])
            self._store_tree_rows(player, sigma, regret_nodes, regrets, strategy_nodes, counts, t)

    # -- the rules path ------------------------------------------------------------------------
    def _value_episodes(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Histories and importance-weighted returns of ``value_traversals`` episodes of
        the current strategies mixed with uniform exploration."""
        if self.tree is not None:
            return self._tree_value_episodes(player)
        cfg = self.config
        if cfg.actors is not None:
            job = self._rules_job(regret_nets=self.regret_nets)
            parts = self._on_actors(_rules_value_work, cfg.value_traversals, player=player, **job)
            histories = np.concatenate([h for h, _ in parts])
            return histories, np.concatenate([v for _, v in parts])
        return self._rules_value_episodes(player, cfg.value_traversals)

    def _rules_value_episodes(self, player: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` value episodes over the rules (see :meth:`_value_episodes`)."""
        eps = self.config.value_exploration
        histories: list[np.ndarray] = []
        targets: list[float] = []
        for _ in range(n):
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
        if not histories:
            return np.zeros((0, self.history_size), np.float32), np.zeros(0, np.float32)
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
        inputs = torch.from_numpy(histories[rows]).to(self.device)
        outputs = torch.from_numpy(targets[rows]).to(self.device)
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
        cfg = self.config
        if self.tree is not None:
            self._tree_regret_episodes(player, t)
        elif cfg.actors is not None:
            job = self._rules_job(regret_nets=self.regret_nets, value_nets=self.value_nets)
            parts = self._on_actors(_rules_regret_work, cfg.regret_traversals, player=player, **job)
            self._store_actor_rows(player, parts, t)
        else:
            regret_rows, strategy_rows = self._rules_regret_episodes(player, cfg.regret_traversals)
            self._store(self.regret_memory[player], regret_rows, t)
            self._store(self.strategy_memory, strategy_rows, t)
        self.traversals += cfg.regret_traversals

    def _rules_regret_episodes(self, player: int, n: int) -> tuple[list[Any], list[Any]]:
        """``n`` regret episodes over the rules: the ``(tensor, regrets, mask)`` rows of
        ``player``'s decisions and the ``(tensor, strategy, mask)`` rows of the
        opponent's (see :meth:`_regret_episodes`)."""
        regret_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        strategy_rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for _ in range(n):
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
        return regret_rows, strategy_rows

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
