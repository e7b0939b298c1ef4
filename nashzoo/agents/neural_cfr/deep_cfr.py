"""Deep Counterfactual Regret Minimization (Deep CFR).

Paper: Brown, Lerer, Gross & Sandholm, "Deep Counterfactual Regret Minimization", ICML
2019.

CFR without tables. Each iteration ``t`` and each player ``p``:

1. **Traverse.** ``traversals`` external-sampling traversals from the root for ``p``:
   at ``p``'s decisions every legal action is explored (or, with ``sampled_actions`` =
   k, k of them drawn uniformly, their values weighted by (legal actions) / k: robust
   sampling, for games too long to explore every branch); at the opponent's one action is
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
information set is computed once and cached until the network is next fitted. Where the
game compiles (Kuhn, Leduc) the traversals run in numba over the compiled tree, the
strategies of all information sets coming from one forward pass per player
(``DeepCFRConfig.tree``); elsewhere they walk the rules (:class:`~nashzoo.games.base.
State`), so any two-player game trains. Both paths are the same algorithm (the test checks
each path's regret rows against their exact expectation). Exact exploitability is
measured where the game compiles.

With ``actors`` (:class:`~nashzoo.agents.runtime.ActorConfig`), the compiled tree's
traversals of each iteration are split among actors in this process or on Ray
(:mod:`nashzoo.agents.runtime`), in lockstep: each receives the strategy table and the
traverser, makes its share on its own random stream and returns its rows, which enter
the memories in actor order.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.neural_cfr.base import NeuralRegretLearner, rules_copy, stacked
from nashzoo.agents.neural_cfr.config import DeepCFRConfig
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.sampling import next_uniform, sample_chance, sample_recorded_child

__all__ = ["DeepCFR", "TRAVERSAL_LIMIT", "traversal_size"]

TRAVERSAL_LIMIT = 10_000_000
"""Most leaves one external-sampling traversal may reach (estimated by
:func:`traversal_size`) before :class:`DeepCFR` refuses to explore every action: 375 such
traversals a player are hours of one iteration."""


def traversal_size(game: Any, traverser: int, playouts: int = 64, seed: int = 0) -> float:
    """Knuth's estimate of the leaves one external-sampling traversal for ``traverser``
    reaches when it explores every action (the product of the traverser's numbers of legal
    actions along a random playout, averaged over ``playouts``; every choice uniform). Its
    own seeded generator: the learner's draws are untouched."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(playouts):
        state, product = game.new_initial_state(), 1.0
        state.advance_chance(rng.random)
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.current_player() == traverser:
                product *= len(legal)
            state.apply_action(int(legal[rng.integers(len(legal))]))
            state.advance_chance(rng.random)
        total += product
    return total / playouts


@kernel
def tree_traversals(
    n_traversals, rng_state, t, sigma, traverser, sampled, active, chosen, explored, value,
    regret_nodes, regrets, strategy_nodes, counts,
):  # fmt: skip
    """``n_traversals`` external-sampling traversals of the compiled tree for
    ``traverser`` under the strategies ``sigma`` (one row per information set), exploring
    ``sampled`` of the traverser's children at each of its decisions (0: all; the
    explored ones are drawn by selection sampling and marked in ``explored``). Each
    traverser decision's node goes to ``regret_nodes`` with its sampled regrets in
    ``regrets``; each opponent decision's node to ``strategy_nodes``; ``counts`` holds how
    many of each. Returns False (and stops) when a buffer is full."""
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    utility = t.utility
    legal_mask = t.legal_mask
    n_actions = legal_mask.shape[1]
    for _ in range(n_traversals):
        active[0] = 0
        size = 1
        k = 0
        while k < size:  # forward: the sampled subtree, breadth first
            n = active[k]
            k += 1
            pl = player[n]
            if pl == TERMINAL:
                continue
            fc = first_child[n]
            nc = num_children[n]
            if pl == traverser:
                need = nc if sampled == 0 or sampled >= nc else sampled
                for c in range(fc, fc + nc):
                    # selection sampling: kept with probability (still needed) / (left);
                    # exploring them all draws nothing
                    left = fc + nc - c
                    keep = need == left or (need > 0 and next_uniform(rng_state) * left < need)
                    explored[c] = 1 if keep else 0
                    if keep:
                        need -= 1
                        active[size] = c
                        size += 1
                continue
            if pl == CHANCE:
                c = sample_chance(fc, nc, chance_prob, next_uniform(rng_state))
            else:
                u = next_uniform(rng_state)
                c = sample_recorded_child(n, t, sigma[infoset[n]], u, strategy_nodes, counts, 1)
                if c < 0:
                    return False
            chosen[n] = c
            active[size] = c
            size += 1
        for k in range(size - 1, -1, -1):  # backward: values and the traverser's regrets
            n = active[k]
            pl = player[n]
            if pl == TERMINAL:
                value[n] = utility[n, traverser]
            elif pl == traverser:
                i = infoset[n]
                fc = first_child[n]
                nc = num_children[n]
                weight = 1.0 if sampled == 0 or sampled >= nc else nc / sampled
                v = 0.0
                for c in range(fc, fc + nc):
                    if explored[c]:
                        v += sigma[i, action[c]] * (weight * value[c])
                value[n] = v
                row = counts[0]
                if row >= regret_nodes.shape[0]:
                    return False
                regret_nodes[row] = n
                for a in range(n_actions):
                    regrets[row, a] = 0.0
                for c in range(fc, fc + nc):
                    regrets[row, action[c]] = (weight * value[c] if explored[c] else 0.0) - v
                counts[0] += 1
            else:
                value[n] = value[chosen[n]]
    return True


def _compiled() -> None:
    compile_kernels(globals())


def tree_rows(
    tree: Any,
    sigma: np.ndarray,
    traverser: int,
    traversals: int,
    sampled: int,
    seed: np.ndarray,
    capacity: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`tree_traversals` until its buffers suffice (a full buffer is doubled and
    the batch rerun from the same random state ``seed``): the traverser's decision
    nodes and their regret rows, the opponent's decision nodes, and the capacity used."""
    _compiled()
    n = tree.num_nodes
    scratch = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int8), np.zeros(n))
    while True:
        rng_state = seed.copy()
        regret_nodes = np.zeros(capacity, np.int64)
        regrets = np.zeros((capacity, sigma.shape[1]))
        strategy_nodes = np.zeros(capacity, np.int64)
        counts = np.zeros(2, np.int64)
        done = tree_traversals(
            traversals, rng_state, tree.arrays, sigma, traverser, sampled, *scratch,
            regret_nodes, regrets, strategy_nodes, counts,
        )  # fmt: skip
        if done:
            return (
                regret_nodes[: counts[0]],
                regrets[: counts[0]],
                strategy_nodes[: counts[1]],
                capacity,
            )
        capacity *= 2


def _traversal_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A :class:`~nashzoo.agents.neural_cfr.base.EpisodeActor`'s share of an iteration's
    traversals: the rows of :func:`tree_rows`."""
    capacity = scratch.get("capacity", 64 * max(share, 1))
    *rows, scratch["capacity"] = tree_rows(
        tree, job["sigma"], job["traverser"], share, job["sampled"], seed, capacity
    )
    return rows[0], rows[1], rows[2]


def _rules_work(
    tree: Any, job: dict[str, Any], share: int, seed: np.ndarray, scratch: dict[str, Any]
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """An :class:`~nashzoo.agents.neural_cfr.base.EpisodeActor`'s share of an
    iteration's traversals over the rules, by its
    :func:`~nashzoo.agents.neural_cfr.base.rules_copy`: the regret rows and the strategy
    rows it recorded, each as ``(tensors, targets, masks)``."""
    learner = rules_copy(job, seed, scratch)
    regret_rows, strategy_rows = learner._rules_traversals(job["traverser"], share)
    n, a = learner.obs_size, learner.num_actions
    return stacked(regret_rows, n, a), stacked(strategy_rows, n, a)


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
        self._capacity = 64 * self.config.traversals

    # -- the tree path -------------------------------------------------------------------------
    def _tree_traversals(self, traverser: int, t: int) -> None:
        """``traversals`` traversals of the compiled tree for ``traverser``, their rows
        offered to the memories (in numba), made here or, with ``actors``, split among
        the actors (:mod:`nashzoo.agents.runtime`) in lockstep."""
        sigma = self._strategy_table()
        if self.config.actors is not None:
            self._actor_traversals(traverser, sigma, t)
            return
        regret_nodes, regrets, strategy_nodes, self._capacity = tree_rows(
            self.tree, sigma, traverser, self.config.traversals, self.config.sampled_actions,
            self._kernel_rng(), self._capacity,
        )  # fmt: skip
        counts = np.array([len(regret_nodes), len(strategy_nodes)])
        self._store_tree_rows(traverser, sigma, regret_nodes, regrets, strategy_nodes, counts, t)

    def _actor_traversals(self, traverser: int, sigma: np.ndarray, t: int) -> None:
        """The iteration's traversals for ``traverser`` on the actors: the strategy
        table goes out with the job, each actor's rows come back in actor order."""
        cfg = self.config
        for regret_nodes, regrets, strategy_nodes in self._on_actors(
            _traversal_work, cfg.traversals, sigma=sigma, traverser=traverser,
            sampled=cfg.sampled_actions,
        ):  # fmt: skip
            counts = np.array([len(regret_nodes), len(strategy_nodes)])
            self._store_tree_rows(
                traverser, sigma, regret_nodes, regrets, strategy_nodes, counts, t
            )

    def _rules_on_actors(self, traverser: int, t: int) -> None:
        """The iteration's traversals over the rules for ``traverser`` on the actors:
        both regret networks go out, the rows come back and enter the memories in actor
        order."""
        job = self._rules_job(regret_nets=self.regret_nets)
        parts = self._on_actors(_rules_work, self.config.traversals, traverser=traverser, **job)
        self._store_actor_rows(traverser, parts, t)

    def _rules_traversals(self, traverser: int, n: int) -> tuple[list[Any], list[Any]]:
        """``n`` traversals over the rules for ``traverser`` (here, or by an actor's
        learner copy): the ``(tensor, regrets, mask)`` rows of its decisions and the
        ``(tensor, strategy, mask)`` rows of the opponent's, in the order recorded."""
        root = self.game.new_initial_state()
        for _ in range(n):
            self._traverse(root.clone(), traverser)
        rows = self._regret_rows, self._strategy_rows
        self._regret_rows, self._strategy_rows = [], []
        return rows

    def _traverse(self, state: Any, traverser: int) -> float:
        """External-sampling traversal: an unbiased estimate of ``traverser``'s expected
        value at ``state`` under the current strategies (exact over the explored actions
        when all are explored), recording the memories' rows."""
        if state.is_terminal():
            return float(state.returns()[traverser])
        if state.is_chance_node():
            return self._traverse(state.child(self._chance(state)), traverser)
        player = state.current_player()
        _, view, sigma = self._view(state, player)
        if player == traverser:
            values = np.zeros(self.num_actions)
            legal = np.flatnonzero(view.mask)
            sampled = self.config.sampled_actions
            weight = 1.0
            if 0 < sampled < len(legal):  # robust sampling: k uniformly, weighted |A| / k
                weight = len(legal) / sampled
                legal = np.sort(self.rng.choice(legal, sampled, replace=False))
            for a in legal:
                values[a] = weight * self._traverse(state.child(int(a)), traverser)
            value = float(sigma @ values)
            regrets = np.where(view.mask.astype(bool), values - value, 0.0)
            self._regret_rows.append((view.tensor, regrets, view.mask))
            return value
        self._strategy_rows.append((view.tensor, sigma, view.mask))
        action = sample_index(np.cumsum(sigma), self.rng.random())
        return self._traverse(state.child(action), traverser)

    def _check_traversal_size(self, traverser: int) -> None:
        """Refuse external sampling where one traversal would explore more than
        :data:`TRAVERSAL_LIMIT` leaves (Goofspiel with 13 cards: about 13! = 6e9), instead
        of an iteration that never ends and shows nothing."""
        size = traversal_size(self.game, traverser)
        if size > TRAVERSAL_LIMIT:
            raise InvalidParameterError(
                f"DeepCFRConfig.sampled_actions=0 explores every action of player "
                f"{traverser}: one traversal of {self.game} would reach about {size:.2g} "
                f"leaves (Knuth's estimate; at most {TRAVERSAL_LIMIT:,} are allowed). Set "
                "sampled_actions to 1 or 2 (robust sampling; `--sampled-actions 1`), use "
                "ESCHER, or a smaller game."
            )

    def _iteration(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        losses = []
        for traverser in (0, 1):
            if self.tree is not None:
                self._tree_traversals(traverser, t)
            else:
                if cfg.sampled_actions == 0 and t == 1:
                    self._check_traversal_size(traverser)
                if cfg.actors is not None:
                    self._rules_on_actors(traverser, t)
                else:
                    regrets, strategies = self._rules_traversals(traverser, cfg.traversals)
                    self._store(self.regret_memory[traverser], regrets, t)
                    self._store(self.strategy_memory, strategies, t)
            self.traversals += cfg.traversals
            losses.append(
                self._fit_regrets(traverser, t, cfg.regret_steps, cfg.reinitialize_regrets)
            )
        self.losses.append((losses[0], losses[1]))
        self.iterations = t
