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

Both draw from a per-solver PCG64 stream (``np.random.PCG64(seed)``'s, stepped in numba),
so the same seed gives the same run. The external-sampling traversal is the one the
card-abstraction solver (:mod:`nashzoo.agents.cfr.abstract`) runs on sampled deals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN
from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.cfr.cfr import _check_float
from nashzoo.games import Game
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.compile import GameTree
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.sampling import sample_chance, sample_child

if TYPE_CHECKING:  # the kernels' PCG64 step; _compiled() binds it (it loads numba)
    from nashzoo.games.pcg import next_double

__all__ = ["ExternalSamplingMCCFRSolver", "OutcomeSamplingMCCFRSolver"]


# -- the algorithms (compiled on first use) ---------------------------------------------
@kernel
def regret_matching(regret, row, legal, out):
    """Regret matching at ``regret[row]`` over the actions ``legal`` allows, into ``out``
    (uniform over them when no regret is positive).

    Each regret is read once: the positive parts are copied into ``out`` and divided by
    their sum, so ``out`` is a distribution even while other threads add to the row (the
    abstraction solver's lock-free threads). Reading a regret a second time to divide it
    could meet a larger value than the one summed, and a sum near 0 then made weights of
    1e16."""
    total = 0.0
    count = 0
    for a in range(out.size):
        out[a] = 0.0
        if legal[a]:
            count += 1
            r = regret[row, a]
            if r > 0.0:
                out[a] = r
                total += r
    if total > 0.0:
        for a in range(out.size):
            out[a] /= total
    else:
        for a in range(out.size):
            if legal[a]:
                out[a] = 1.0 / count


@kernel
def external_sampling_traverse(
    p, rng, player, first_child, num_children, action, chance_prob, row_base, row_key,
    row_round, legal_mask, legal_row, payoff, pot, sign, regret, avg, active, chosen, value,
    sig,
):  # fmt: skip
    """One external-sampling traversal for player ``p`` (Lanctot et al. 2009): chance and
    the other players sample one child, ``p`` explores all; the others' average policies
    get their current policy added at every sampled decision, and ``p``'s regrets the
    value of each action minus the policy's. ``value[0]`` ends as ``p``'s sampled value.

    The one MCCFR traversal, on a compiled tree and on a card abstraction's betting tree:

    - the regret row of decision ``n`` is ``row_base[n] + row_key[player, row_round[n]]``
      (a compiled tree: its information set, with ``row_key`` 0; an abstraction: the
      decision's block plus the acting player's bucket key in that round);
    - its legal actions are ``legal_mask[legal_row[n]]``;
    - an end is worth ``payoff[n, p]``, except a showdown of the betting tree
      (``SHOWDOWN``), worth ``sign[p] * pot[n, p]`` with ``sign`` this deal's result;
    - draws are ``next_double(rng, 0)``, a PCG64 row of ``seeded_states``."""
    n_actions = legal_mask.shape[1]
    active[0] = 0
    size = 1
    k = 0
    while k < size:  # forward: collect the sampled subtree breadth first
        n = active[k]
        k += 1
        pl = player[n]
        if pl in (TERMINAL, FOLDED, SHOWDOWN):
            continue
        fc = first_child[n]
        nc = num_children[n]
        if pl == p:
            for c in range(fc, fc + nc):
                active[size] = c
                size += 1
            continue
        if pl == CHANCE:
            c = sample_chance(fc, nc, chance_prob, next_double(rng, 0))
        else:
            row = row_base[n] + row_key[pl, row_round[n]]
            regret_matching(regret, row, legal_mask[legal_row[n]], sig)
            for a in range(n_actions):
                avg[row, a] += sig[a]
            c = sample_child(n, first_child, num_children, action, sig, next_double(rng, 0))
        chosen[n] = c
        active[size] = c
        size += 1
    for k in range(size - 1, -1, -1):  # backward over the sampled subtree
        n = active[k]
        pl = player[n]
        if pl in (TERMINAL, FOLDED):
            value[n] = payoff[n, p]
        elif pl == SHOWDOWN:
            value[n] = sign[p] * pot[n, p]
        elif pl == p:
            row = row_base[n] + row_key[p, row_round[n]]
            regret_matching(regret, row, legal_mask[legal_row[n]], sig)
            fc = first_child[n]
            v = 0.0
            for c in range(fc, fc + num_children[n]):
                v += sig[action[c]] * value[c]
            value[n] = v
            for c in range(fc, fc + num_children[n]):
                regret[row, action[c]] += value[c] - v
        else:
            value[n] = value[chosen[n]]


@kernel
def external_sampling_run(n_iters, rng, t, no_key, no_round, no_pot, no_sign, regret, avg,
                          active, chosen, value, sig):  # fmt: skip
    """External-sampling MCCFR on a compiled tree: per iteration one traversal per
    player (:func:`external_sampling_traverse`, rows the tree's information sets)."""
    for _it in range(n_iters):
        for p in range(t.utility.shape[1]):
            external_sampling_traverse(
                p, rng, t.player, t.first_child, t.num_children, t.action, t.chance_prob,
                t.infoset, no_key, no_round, t.legal_mask, t.infoset, t.utility, no_pot,
                no_sign, regret, avg, active, chosen, value, sig,
            )  # fmt: skip


@kernel
def outcome_sampling_run(
    n_iters,
    epsilon,
    rng,
    t,
    regret,
    avg,
    path_node,
    path_child,
    path_sigma,
    path_sample,
    path_reach,
):
    """Outcome-sampling MCCFR (Lanctot et al. 2009) without baseline, as OpenSpiel's:
    one sampled trajectory per player per iteration, the updating player exploring with
    ``epsilon``-uniform mixing; at its nodes, regrets get the importance-weighted
    counterfactual values and the average policy its own reach over the sampling reach.

    ``path_reach[d]`` holds (own reach, others' reach, sampling reach) before depth d."""
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    utility = t.utility
    legal_mask = t.legal_mask
    n_players = utility.shape[1]
    n_actions = legal_mask.shape[1]
    for _it in range(n_iters):
        for p in range(n_players):
            n = 0
            depth = 0
            my_reach = 1.0
            opp_reach = 1.0
            sample_reach = 1.0
            while player[n] != TERMINAL:
                pl = player[n]
                fc = first_child[n]
                nc = num_children[n]
                if pl == CHANCE:
                    c = sample_chance(fc, nc, chance_prob, next_double(rng, 0))
                    opp_reach *= chance_prob[c]
                    sample_reach *= chance_prob[c]
                    n = c
                    continue
                i = infoset[n]
                sig = path_sigma[depth]
                smp = path_sample[depth]
                regret_matching(regret, i, legal_mask[i], sig)
                count = 0
                for a in range(n_actions):
                    if legal_mask[i, a]:
                        count += 1
                for a in range(n_actions):
                    if pl == p and legal_mask[i, a]:
                        smp[a] = epsilon / count + (1.0 - epsilon) * sig[a]
                    else:
                        smp[a] = sig[a]
                c = sample_child(n, first_child, num_children, action, smp, next_double(rng, 0))
                path_node[depth] = n
                path_child[depth] = c
                path_reach[depth, 0] = my_reach
                path_reach[depth, 1] = opp_reach
                path_reach[depth, 2] = sample_reach
                a = action[c]
                if pl == p:
                    my_reach *= sig[a]
                else:
                    opp_reach *= sig[a]
                sample_reach *= smp[a]
                depth += 1
                n = c
            child_value = utility[n, p]
            for d in range(depth - 1, -1, -1):
                node = path_node[d]
                a_s = action[path_child[d]]
                sig = path_sigma[d]
                sampled_value = child_value / path_sample[d, a_s]
                value_estimate = sig[a_s] * sampled_value
                if player[node] == p:
                    i = infoset[node]
                    w = path_reach[d, 1] / path_reach[d, 2]
                    avg_w = path_reach[d, 0] / path_reach[d, 2]
                    for a in range(n_actions):
                        if legal_mask[i, a]:
                            cfa = sampled_value if a == a_s else 0.0
                            regret[i, a] += w * (cfa - value_estimate)
                            avg[i, a] += avg_w * sig[a]
                child_value = value_estimate


def _compiled() -> None:
    """Compile this module's kernels, with the PCG64 step they draw from (imported here:
    :mod:`nashzoo.games.pcg` loads numba, which importing a solver must not)."""
    from nashzoo.games.pcg import next_double

    compile_kernels(globals(), next_double=next_double)


class _MCCFRBase(TabularSolver):
    def __init__(self, game: Game | GameTree, *, seed: int | None = None) -> None:
        super().__init__(game)
        shape = self.tree.legal_mask.shape
        self._regret = np.zeros(shape)
        self._avg = np.zeros(shape)
        from nashzoo.games.pcg import seeded_states

        self._rng = seeded_states([seed])

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
        n, players = self.tree.num_nodes, self.tree.utility.shape[1]
        # the traversal's abstraction-only inputs, as zeros that take no memory
        self._none = (
            np.zeros((players, 1), np.int64),
            np.zeros(n, np.int64),
            np.zeros((1, players)),
            np.zeros(players),
        )
        self._active = np.zeros(n, dtype=np.int64)
        self._chosen = np.zeros(n, dtype=np.int64)
        self._value = np.zeros(n)
        self._sig = np.zeros(self.tree.num_actions)

    def _run(self, n: int) -> None:
        _compiled()
        external_sampling_run(
            n,
            self._rng,
            self.tree.arrays,
            *self._none,
            self._regret,
            self._avg,
            self._active,
            self._chosen,
            self._value,
            self._sig,
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
        _compiled()
        outcome_sampling_run(
            n,
            self.epsilon,
            self._rng,
            self.tree.arrays,
            self._regret,
            self._avg,
            *self._path,
        )
