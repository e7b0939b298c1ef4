"""The compiled search: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS over tabulated views (numba).

``docs/explanation/nash-ismcts.md`` is the specification; this module is its inner loop. Every
number the search needs about the game comes from arrays (:class:`SearchGame`, built
from :class:`~nashzoo.tree.views.ViewTable`) and every number it needs from networks
from :class:`SearchKnowledge` (tabulated P, V, V_c, H, V_w); statistics live in one open
hash table (:class:`SearchStats`) keyed by (tree root, node), so the trees of one
decision share storage and are dropped together.

Trees and nodes. A tree is rooted at an information set ``root`` of its owner ``p``
(p's private information and the public history). Its nodes:

* ACT(i): ``p`` to act at information set ``i`` (the worlds are merged: ``p`` cannot
  tell them apart). Per legal action: visits, mixed and pure step weights.
* SAMPLE(i, a): after ``p`` plays ``a`` at ``i``; its children are the worlds, the
  histories of ``i`` (index ``k`` in the set), with visits per world.
* GAME(n): a history ``n`` below a world where another player acts (OPP) or chance
  does. OPP nodes record the spawned tree's step (mixed or pure) per action.

A simulation of tree ``(p, root)``: select at ACT, pass SAMPLE (the first draws the
world from ``p``'s belief; later ones follow the drawn history), walk chance and
opponent nodes (an opponent's action is the root action of ONE simulation of its own
tree, spawned up to ``spawn_cap`` levels deep; below that it plays the rollout policy),
stop at a terminal history or a node new to the tree, and back up along this tree's path
only.

Two modes share the walk:

* MT (``mode 0``, MT-ISMCTS): UCB1 with untried actions first; a new edge is valued by
  a uniformly random rollout; ACT edges keep sums of returns.
* AZ (``mode 1``, A-ISMCTS and Nash-ISMCTS): PUCT with the prior; a new node is valued
  by the tables (V at ACT nodes, V_w below worlds); every node keeps an interval
  ``[qlo, qhi]`` recomputed from its children after each simulation: SAMPLE nodes by the
  L1-ball estimator (``eps`` 0 gives A-ISMCTS, a point), ACT and OPP nodes by the
  mixed/pure average, chance nodes by expectation (the luck adjustment: the drawn
  outcome's luck never enters). Interval PUCT: a pure step when the best lower bound
  beats every other upper bound, else a mixed step sampled by the raw prior among the
  overlapping actions.

Random numbers (one xorshift stream) are drawn for world draws, mixed steps, chance
events, rollout moves and untried-action picks, in the same places for every ``eps``,
so ``eps = 0`` reproduces A-ISMCTS move for move.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from nashzoo.agents.ismcts.interval import ball_max_kernel
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.jit import compile_kernels
from nashzoo.tree.sampling import next_uniform, sample_chance, sample_slot

compile_kernels(globals())  # the draws, compiled for the search below

# -- parameter vector indices ------------------------------------------------------------
P_EXPLORE = 0  # UCB1 constant (MT) or c_puct (AZ)
P_EPS = 1  # L1 radius of the belief ball at SAMPLE nodes
P_SPAWN_CAP = 2  # nesting levels of spawned trees below the root tree
P_MODE = 3  # 0 MT-ISMCTS, 1 A-/Nash-ISMCTS
P_BELIEF = 4  # 0 the belief table, 1 Bayes with the spawned trees as opponent model
P_POLLED = 5  # 1: the polled SAMPLE estimator
P_NOISE = 6  # weight of the Dirichlet noise at the root of the root tree (0: none)
P_SCALE = 7  # 1: PUCT's exploration and the LCB on the tree's value range (min-max)
NUM_PARAMS = 8

KIND_ACT = 0
KIND_SAMPLE = 1
KIND_GAME = 2

SearchGame = namedtuple(
    "SearchGame",
    [
        "player",  # (nodes,) int8
        "parent",  # (nodes,) int32
        "first_child",  # (nodes,) int32
        "num_children",  # (nodes,) int32
        "infoset",  # (nodes,) int32
        "action",  # (nodes,) int32
        "chance_prob",  # (nodes,) float64
        "utility",  # (nodes, players) float64, scaled to [-1, 1]
        "legal",  # (infosets, actions) int32: legal actions, -1 padded
        "num_legal",  # (infosets,) int32
        "action_slot",  # (infosets, actions) int32
        "set_owner",  # (infosets,) int32
        "set_start",  # (infosets + 1,) int32
        "set_nodes",  # (sum of set sizes,) int32
        "node_position",  # (nodes,) int32
        "chance_reach",  # (nodes,) float64
    ],
)

SearchKnowledge = namedtuple(
    "SearchKnowledge",
    [
        "prior",  # (infosets, actions) P
        "child_value",  # (infosets, actions) V_c
        "act_value",  # (infosets,) V at each information set's view
        "set_belief",  # (sum of set sizes,) H over each set's histories, normalised
        "leaf_value",  # (players, nodes) V_w at each history for each viewer (exact at terminals)
    ],
)

SearchStats = namedtuple(
    "SearchStats",
    [
        "meta",  # int64 [used slots, log2 capacity]
        "keys",  # (C,) int64, -1 = empty
        "used",  # (C,) int64 slots in creation order
        "kind",  # (C,) int8
        "owner",  # (C,) int8
        "ref",  # (C,) int32: information set (ACT, SAMPLE) or node (GAME)
        "act",  # (C,) int32: the action of a SAMPLE node
        "visits",  # (C, B) float64
        "child",  # (C, B) int32 child slot, -1 unknown
        "total",  # (C, B) float64 sums of returns (MT)
        "qlo",  # (C,) float64
        "qhi",  # (C,) float64
        "nmix",  # (C,) float64
        "npure",  # (C,) float64
        "mixsum",  # (C, B) float64
        "purecnt",  # (C, B) float64
        "rlo",  # (C,) float64 at a tree's root ACT slot: the least value its ACT nodes compared
        "rhi",  # (C,) float64 ... and the greatest (value_scale "tree")
        "level_int",  # (levels, NUM_LEVEL_FIELDS) int64: each level's suspended walk
        "path_slot",  # (levels, depth) int64
        "path_index",  # (levels, depth) int64
        "mix",  # (levels, B) float64 the last mixed step's distribution per level
        "rootmix",  # (levels, B) float64 the root step's distribution per level
        "work",  # (levels, 4, B) float64 scratch
        "done",  # (B,) bool scratch
    ],
)


# Every kernel below that runs inside a search is compiled without numba's reference
# counting (``_nrt=False``): they only read and write arrays the caller owns, and the
# atomic reference-count updates numba would put around every call that passes the
# arrays on cost more than the search itself (measured: 2 us of a 2.1 us simulation).
# Consequently they never allocate or copy array slices.
search_kernel = njit(cache=True, _nrt=False)  # type: ignore[call-overload]
# Everything a simulation calls is inlined into ``run`` at numba's IR level: a call that
# is not inlined passes each array of the game, knowledge and statistics tuples as
# separate scalar arguments (hundreds of them), which cost more than the work itself
# (measured from the root, three levels of spawned trees: a Kuhn simulation took 2.0 us
# with the calls and 0.27 us inlined; Leduc 8.1 us and 1.3 us).
search_inline = njit(cache=True, _nrt=False, inline="always")  # type: ignore[call-overload]


# -- the hash table ------------------------------------------------------------------------
@search_inline
def _hash(key, bits):
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@search_inline
def find_slot(st, key):
    """The slot holding ``key``, or -1."""
    mask = st.keys.size - 1
    h = _hash(key, st.meta[1])
    while True:
        k = st.keys[h]
        if k == key:
            return h
        if k == -1:
            return -1
        h = (h + 1) & mask


@search_inline
def _create(st, key, kind, owner, ref, act, q):
    mask = st.keys.size - 1
    h = _hash(key, st.meta[1])
    while st.keys[h] != -1:
        h = (h + 1) & mask
    st.keys[h] = key
    st.used[st.meta[0]] = h
    st.meta[0] += 1
    st.kind[h] = kind
    st.owner[h] = owner
    st.ref[h] = ref
    st.act[h] = act
    st.visits[h, :] = 0.0
    st.child[h, :] = -1
    st.total[h, :] = 0.0
    st.qlo[h] = q
    st.qhi[h] = q
    st.nmix[h] = 0.0
    st.npure[h] = 0.0
    st.mixsum[h, :] = 0.0
    st.purecnt[h, :] = 0.0
    st.rlo[h] = np.inf
    st.rhi[h] = -np.inf
    return h


@search_kernel
def reset(st):
    """Forget every tree (the start of a new decision)."""
    for i in range(st.meta[0]):
        st.keys[st.used[i]] = -1
    st.meta[0] = 0


@njit(cache=True)
def rehash(old, new):
    """Copy every slot of ``old`` into the larger, empty ``new``."""
    mask = new.keys.size - 1
    for i in range(old.meta[0]):
        s = old.used[i]
        h = _hash(old.keys[s], new.meta[1])
        while new.keys[h] != -1:
            h = (h + 1) & mask
        new.keys[h] = old.keys[s]
        new.used[new.meta[0]] = h
        new.meta[0] += 1
        new.kind[h] = old.kind[s]
        new.owner[h] = old.owner[s]
        new.ref[h] = old.ref[s]
        new.act[h] = old.act[s]
        new.visits[h, :] = old.visits[s, :]
        new.total[h, :] = old.total[s, :]
        new.qlo[h] = old.qlo[s]
        new.qhi[h] = old.qhi[s]
        new.nmix[h] = old.nmix[s]
        new.npure[h] = old.npure[s]
        new.mixsum[h, :] = old.mixsum[s, :]
        new.purecnt[h, :] = old.purecnt[s, :]
        new.rlo[h] = old.rlo[s]
        new.rhi[h] = old.rhi[s]
    # child pointers hold slot numbers: translate them through the keys
    for i in range(new.meta[0]):
        h = new.used[i]
        s = old.used[i]
        for j in range(old.child.shape[1]):
            c = old.child[s, j]
            new.child[h, j] = -1 if c < 0 else find_slot(new, old.keys[c])


@search_inline
def _local_count(g):
    n_sets, n_actions = g.legal.shape
    return n_sets * (1 + n_actions) + g.player.size


@search_inline
def act_key(g, root, infoset):
    return root * _local_count(g) + infoset


@search_inline
def _sample_key(g, root, infoset, a):
    n_sets, n_actions = g.legal.shape
    return root * _local_count(g) + n_sets + infoset * n_actions + a


@search_inline
def _game_key(g, root, node):
    n_sets, n_actions = g.legal.shape
    return root * _local_count(g) + n_sets * (1 + n_actions) + node


# -- values -----------------------------------------------------------------------------
@search_inline
def _prior_value(g, kn, p, c):
    """What a node not yet in the tree is worth to ``p``: exact at a terminal, V at
    ``p``'s own information set, V_w below a world."""
    pl = g.player[c]
    if pl == TERMINAL:
        return g.utility[c, p]
    if pl == p:
        return kn.act_value[g.infoset[c]]
    return kn.leaf_value[p, c]


@search_inline
def _model_slot(g, st, m):
    """The statistics of the opponent model at the decision above history ``m``: the
    root ACT node of the tree rooted at the decider's information set (-1: no such tree
    in this decision's set of trees)."""
    j_set = g.infoset[g.parent[m]]
    return find_slot(st, act_key(g, j_set, j_set))


@search_inline
def _belief(g, kn, st, prm, i, p, out):
    """``p``'s belief over the histories of information set ``i`` into ``out[:k]``.

    With the opponent model (``P_BELIEF`` 1) each history's chance reach is multiplied,
    at every earlier decision of another player, by that decision's likelihood
    ``(N(a) + 1) / (sum N + |A|)`` at the decider's tree. A decision is weighed only
    where the trees of every world exist: otherwise the one world whose tree exists
    (typically the searcher's own information set, whose root tree holds the whole
    search) would stand out by its counts alone, and the belief would point at the
    searcher's real private information.
    """
    start = g.set_start[i]
    k = g.set_start[i + 1] - start
    total = 0.0
    missing = 0  # bit d: some world lacks the tree of its d-th decision from the end
    if prm[P_BELIEF] != 0.0:
        for w in range(k):
            m = g.set_nodes[start + w]
            d = 0
            while m > 0:
                pl = g.player[g.parent[m]]
                if pl >= 0 and pl != p:
                    if _model_slot(g, st, m) < 0:
                        missing |= 1 << d
                    d += 1
                m = g.parent[m]
    for w in range(k):
        if prm[P_BELIEF] == 0.0:
            x = kn.set_belief[start + w]
        else:
            n = g.set_nodes[start + w]
            x = g.chance_reach[n]
            m = n
            d = 0
            while m > 0:
                par = g.parent[m]
                pl = g.player[par]
                if pl >= 0 and pl != p:
                    if not (missing >> d) & 1:
                        j_set = g.infoset[par]
                        n_legal = g.num_legal[j_set]
                        s = _model_slot(g, st, m)
                        tot = 0.0
                        for j in range(n_legal):
                            tot += st.visits[s, j]
                        x *= (st.visits[s, g.action_slot[j_set, g.action[m]]] + 1.0) / (
                            tot + n_legal
                        )
                    d += 1
                m = par
        out[w] = x
        total += x
    if total <= 0.0:
        for w in range(k):
            out[w] = 1.0 / k
    else:
        for w in range(k):
            out[w] /= total
    return k


@search_inline
def _ball_min(h, v, k, eps, done, scratch):
    for w in range(k):
        scratch[w] = -v[w]
    return -ball_max_kernel(h, scratch, k, eps, done)


@search_inline
def _recompute(g, kn, st, prm, slot, level):
    """Refresh ``slot``'s interval from its children (AZ mode)."""
    p = st.owner[slot]
    kind = st.kind[slot]
    work = st.work[level]
    if kind == KIND_SAMPLE:
        i = st.ref[slot]
        j_a = g.action_slot[i, st.act[slot]]
        k = _belief(g, kn, st, prm, i, p, work[0])
        start = g.set_start[i]
        n_total = 0.0
        for w in range(k):
            n_total += st.visits[slot, w]
        polled = prm[P_POLLED] != 0.0
        res_lo = 0.0
        res_hi = 0.0
        for w in range(k):
            c = g.first_child[g.set_nodes[start + w]] + j_a
            v_star = kn.leaf_value[p, c]
            n_w = st.visits[slot, w]
            if g.player[c] == TERMINAL:
                lo = hi = g.utility[c, p]
            elif st.child[slot, w] >= 0 and n_w > 0.0:
                lo = st.qlo[st.child[slot, w]]
                hi = st.qhi[st.child[slot, w]]
            else:
                lo = hi = v_star
            if polled:
                work[1, w] = lo if n_w > 0.0 else v_star
                work[2, w] = hi if n_w > 0.0 else v_star
            else:
                work[1, w] = v_star
                if n_w > 0.0:
                    res_lo += n_w / n_total * (lo - v_star)
                    res_hi += n_w / n_total * (hi - v_star)
        eps = prm[P_EPS]
        if polled:
            st.qlo[slot] = _ball_min(work[0], work[1], k, eps, st.done, work[3])
            st.qhi[slot] = ball_max_kernel(work[0], work[2], k, eps, st.done)
        else:
            st.qlo[slot] = _ball_min(work[0], work[1], k, eps, st.done, work[3]) + res_lo
            st.qhi[slot] = ball_max_kernel(work[0], work[1], k, eps, st.done) + res_hi
        return
    steps = st.nmix[slot] + st.npure[slot]
    if kind == KIND_ACT:
        if steps <= 0.0:
            return
        i = st.ref[slot]
        lo = 0.0
        hi = 0.0
        for j in range(g.num_legal[i]):
            wgt = st.mixsum[slot, j] + st.purecnt[slot, j]
            if wgt <= 0.0:
                continue
            c = st.child[slot, j]
            if c >= 0 and st.visits[slot, j] > 0.0:
                lo += wgt * st.qlo[c]
                hi += wgt * st.qhi[c]
            else:
                v = kn.child_value[i, g.legal[i, j]]
                lo += wgt * v
                hi += wgt * v
        st.qlo[slot] = lo / steps
        st.qhi[slot] = hi / steps
        return
    n = st.ref[slot]
    fc = g.first_child[n]
    chance = g.player[n] == CHANCE
    if not chance and steps <= 0.0:
        return
    lo = 0.0
    hi = 0.0
    for j in range(g.num_children[n]):
        wgt = g.chance_prob[fc + j] if chance else st.mixsum[slot, j] + st.purecnt[slot, j]
        if wgt <= 0.0:
            continue
        c = st.child[slot, j]
        if g.player[fc + j] == TERMINAL:
            lo += wgt * g.utility[fc + j, p]
            hi += wgt * g.utility[fc + j, p]
        elif c >= 0 and st.visits[slot, j] > 0.0:
            lo += wgt * st.qlo[c]
            hi += wgt * st.qhi[c]
        else:
            v = _prior_value(g, kn, p, fc + j)
            lo += wgt * v
            hi += wgt * v
    if chance:
        st.qlo[slot] = lo
        st.qhi[slot] = hi
    else:
        st.qlo[slot] = lo / steps
        st.qhi[slot] = hi / steps


# -- selection -------------------------------------------------------------------------
@search_inline
def _select_puct(g, kn, st, prm, noise, use_noise, rng, slot, i, level):
    """Interval PUCT at ACT(i); records the step. Returns (slot index, mixed)."""
    n_legal = g.num_legal[i]
    work = st.work[level]
    sum_n = 0.0
    for j in range(n_legal):
        sum_n += st.visits[slot, j]
    sq = math.sqrt(sum_n)
    c_puct = prm[P_EXPLORE]
    scaled = prm[P_SCALE] != 0.0
    rs = st.level_int[level, L_ROOT_SLOT]
    low_seen = st.rlo[rs]
    high_seen = st.rhi[rs]
    if scaled and high_seen > low_seen:  # min-max normalisation: scale u instead
        c_puct *= high_seen - low_seen
    frac = prm[P_NOISE] if use_noise else 0.0
    best = 0
    for j in range(n_legal):
        a = g.legal[i, j]
        prior = (1.0 - frac) * kn.prior[i, a] + frac * noise[j]
        c = st.child[slot, j]
        if c >= 0 and st.visits[slot, j] > 0.0:
            lo = st.qlo[c]
            hi = st.qhi[c]
        else:
            lo = hi = kn.child_value[i, a]
        if scaled:
            low_seen = min(low_seen, lo)
            high_seen = max(high_seen, hi)
        u = c_puct * prior * sq / (1.0 + st.visits[slot, j])
        work[0, j] = lo + u
        work[1, j] = hi + u
        if work[0, j] > work[0, best]:
            best = j
    if scaled:
        st.rlo[rs] = low_seen
        st.rhi[rs] = high_seen
    # the overlap set M: the best lower bound's action and every action whose upper
    # bound reaches it (exact ties included)
    mass = 0.0
    members = 0
    for j in range(n_legal):
        if j == best or work[1, j] >= work[0, best]:
            members += 1
            mass += kn.prior[i, g.legal[i, j]]
    chosen = best
    mixed = False
    if members > 1 and mass > 0.0:
        mixed = True
        u = next_uniform(rng) * mass
        chosen = -1
        for j in range(n_legal):
            st.mix[level, j] = 0.0
            if j == best or work[1, j] >= work[0, best]:
                pj = kn.prior[i, g.legal[i, j]]
                st.mix[level, j] = pj / mass
                if chosen < 0 and pj > 0.0:
                    u -= pj
                    if u < 0.0:
                        chosen = j
        if chosen < 0:  # rounding: the last member with mass
            for j in range(n_legal):
                if st.mix[level, j] > 0.0:
                    chosen = j
    st.visits[slot, chosen] += 1.0
    if mixed:
        st.nmix[slot] += 1.0
        for j in range(n_legal):
            st.mixsum[slot, j] += st.mix[level, j]
    else:
        st.npure[slot] += 1.0
        st.purecnt[slot, chosen] += 1.0
    return chosen, mixed


@search_inline
def _select_ucb(g, st, prm, rng, slot, i):
    """UCB1 at ACT(i), untried actions first (a uniform pick among them). Returns
    (slot index, whether it was untried)."""
    n_legal = g.num_legal[i]
    untried = 0
    sum_n = 0.0
    for j in range(n_legal):
        if st.visits[slot, j] == 0.0:
            untried += 1
        sum_n += st.visits[slot, j]
    if untried > 0:
        pick = int(next_uniform(rng) * untried)
        for j in range(n_legal):
            if st.visits[slot, j] == 0.0:
                if pick == 0:
                    st.visits[slot, j] += 1.0
                    return j, True
                pick -= 1
    log_n = math.log(sum_n)
    c = prm[P_EXPLORE]
    best = 0
    best_u = -1e300
    for j in range(n_legal):
        n = st.visits[slot, j]
        u = st.total[slot, j] / n + c * math.sqrt(log_n / n)
        if u > best_u:
            best_u = u
            best = j
    st.visits[slot, best] += 1.0
    return best, False


@search_inline
def _sample_index(weights_row, n, u):
    for j in range(n - 1):
        u -= weights_row[j]
        if u < 0.0:
            return j
    return n - 1


@search_inline
def _policy_move(g, kn, prm, rng, i):
    """The rollout policy's action slot at information set ``i``: the prior in AZ mode,
    uniform in MT mode."""
    n_legal = g.num_legal[i]
    u = next_uniform(rng)
    if prm[P_MODE] == 0.0:
        return min(int(u * n_legal), n_legal - 1)
    return sample_slot(kn.prior[i], g.legal[i], 0, n_legal, u)


@search_inline
def _chance_index(g, n, rng):
    fc = g.first_child[n]
    return sample_chance(fc, g.num_children[n], g.chance_prob, next_uniform(rng)) - fc


@search_inline
def _rollout(g, kn, prm, rng, c, p):
    while g.player[c] != TERMINAL:
        if g.player[c] == CHANCE:
            c = g.first_child[c] + _chance_index(g, c, rng)
        else:
            c = g.first_child[c] + _policy_move(g, kn, prm, rng, g.infoset[c])
    return g.utility[c, p]


# -- one simulation ---------------------------------------------------------------------
# A simulation of the root tree runs spawned simulations of opponents' trees inside it,
# nested up to spawn_cap levels. Rather than recursing (numba cannot cache recursive
# functions safely), each level's walk is a resumable state machine whose variables live
# in ``st.level_int[level]``: it returns to the driver when it needs an opponent's move,
# and resumes with that move once the spawned tree's simulation is over.
L_ROOT = 0
L_OWNER = 1
L_SLOT = 2
L_SET = 3
L_NODE = 4
L_DEPTH = 5
L_PATH = 6
L_ACTION = 7
L_MIXED = 8
L_PREV = 9
L_PREV_INDEX = 10
L_C = 11
L_GS = 12
L_PHASE = 13
L_ROOT_SLOT = 14
NUM_LEVEL_FIELDS = 15

PHASE_ACT = 0
PHASE_WALK = 1
PHASE_WAIT = 2


@search_inline
def _begin(g, kn, st, prm, root, level):
    """Start a simulation of the tree rooted at information set ``root`` at ``level``."""
    p = g.set_owner[root]
    key = act_key(g, root, root)
    slot = find_slot(st, key)
    if slot < 0:
        az = prm[P_MODE] != 0.0
        slot = _create(st, key, KIND_ACT, p, root, -1, kn.act_value[root] if az else 0.0)
    row = st.level_int[level]
    row[L_ROOT] = root
    row[L_ROOT_SLOT] = slot
    row[L_OWNER] = p
    row[L_SLOT] = slot
    row[L_SET] = root
    row[L_NODE] = -1
    row[L_DEPTH] = 0
    row[L_PATH] = 0
    row[L_ACTION] = -1
    row[L_MIXED] = 0
    row[L_PHASE] = PHASE_ACT


@search_inline
def _push(st, level, n_path, slot, index):
    st.path_slot[level, n_path] = slot
    st.path_index[level, n_path] = index
    return n_path + 1


@search_inline
def _step(g, kn, st, prm, noise, rng, level, reply, reply_mixed):
    """Advance the simulation at ``level`` until it ends (returns -1; its root action
    and whether that step was mixed are in ``st.level_int[level]``) or needs an
    opponent's move (returns the opponent's information set; call again with the move
    as ``reply`` once the spawned simulation is over)."""
    az = prm[P_MODE] != 0.0
    cap = int(prm[P_SPAWN_CAP])
    row = st.level_int[level]
    root = row[L_ROOT]
    p = row[L_OWNER]
    slot = row[L_SLOT]
    i = row[L_SET]
    node = row[L_NODE]
    depth = row[L_DEPTH]
    n_path = row[L_PATH]
    prev = row[L_PREV]
    prev_index = row[L_PREV_INDEX]
    c = row[L_C]
    gs = row[L_GS]
    phase = row[L_PHASE]
    leaf = 0.0
    if phase == PHASE_WAIT:  # the opponent's move arrived from its spawned tree
        j_set = g.infoset[c]
        jj = g.action_slot[j_set, reply]
        if az:
            if reply_mixed:
                st.nmix[gs] += 1.0
                for t in range(g.num_legal[j_set]):
                    st.mixsum[gs, t] += st.rootmix[level + 1, t]
            else:
                st.npure[gs] += 1.0
                st.purecnt[gs, jj] += 1.0
            st.visits[gs, jj] += 1.0
            n_path = _push(st, level, n_path, gs, jj)
            prev = gs
            prev_index = jj
        c = g.first_child[c] + jj
        phase = PHASE_WALK
    while True:
        if phase == PHASE_ACT:
            # ACT(i): the owner's action
            if az:
                j, mixed = _select_puct(
                    g, kn, st, prm, noise, level == 0 and depth == 0, rng, slot, i, level
                )
                untried = False
            else:
                j, untried = _select_ucb(g, st, prm, rng, slot, i)
                mixed = False
            if depth == 0:
                row[L_ACTION] = g.legal[i, j]
                row[L_MIXED] = 1 if mixed else 0
                if mixed:
                    for t in range(g.num_legal[i]):
                        st.rootmix[level, t] = st.mix[level, t]
            n_path = _push(st, level, n_path, slot, j)
            # SAMPLE(i, a): the first draws the world, later ones follow it
            if node < 0:
                start = g.set_start[i]
                if prm[P_BELIEF] == 0.0:  # the table's belief is normalised already
                    k = _sample_index(
                        kn.set_belief[start:], g.set_start[i + 1] - start, next_uniform(rng)
                    )
                else:
                    k_worlds = _belief(g, kn, st, prm, i, p, st.work[level, 0])
                    k = _sample_index(st.work[level, 0], k_worlds, next_uniform(rng))
                node = g.set_nodes[start + k]
            else:
                k = g.node_position[node]
            c = g.first_child[node] + j
            prev = slot
            prev_index = j
            if az:
                s = st.child[slot, j]
                if s < 0:
                    skey = _sample_key(g, root, i, g.legal[i, j])
                    s = find_slot(st, skey)
                    if s < 0:
                        s = _create(st, skey, KIND_SAMPLE, p, i, g.legal[i, j], 0.0)
                    st.child[slot, j] = s
                st.visits[s, k] += 1.0
                n_path = _push(st, level, n_path, s, k)
                prev = s
                prev_index = k
            elif untried:  # MT: a new edge is valued by a random rollout
                leaf = _rollout(g, kn, prm, rng, c, p)
                break
            phase = PHASE_WALK
        # walk the world's history to the next ACT node, a terminal or a new node
        pl = g.player[c]
        if pl == TERMINAL:
            leaf = g.utility[c, p]
            break
        if pl == p:
            i2 = g.infoset[c]
            key = act_key(g, root, i2)
            s2 = find_slot(st, key)
            created = s2 < 0
            if created:
                s2 = _create(st, key, KIND_ACT, p, i2, -1, kn.act_value[i2] if az else 0.0)
            if az:
                st.child[prev, prev_index] = s2
                if created:
                    break
            slot = s2
            i = i2
            node = c
            depth += 1
            phase = PHASE_ACT
            continue
        if az:
            gs = st.child[prev, prev_index]
            if gs < 0:
                key = _game_key(g, root, c)
                gs = find_slot(st, key)
                created = gs < 0
                if created:
                    gs = _create(st, key, KIND_GAME, p, c, -1, kn.leaf_value[p, c])
                st.child[prev, prev_index] = gs
                if created:
                    break
        if pl == CHANCE:
            jj = _chance_index(g, c, rng)
        else:
            j_set = g.infoset[c]
            if level < cap:  # the opponent's own tree decides: suspend until it has
                row[L_SLOT] = slot
                row[L_SET] = i
                row[L_NODE] = node
                row[L_DEPTH] = depth
                row[L_PATH] = n_path
                row[L_PREV] = prev
                row[L_PREV_INDEX] = prev_index
                row[L_C] = c
                row[L_GS] = gs
                row[L_PHASE] = PHASE_WAIT
                return j_set
            jj = _policy_move(g, kn, prm, rng, j_set)
            if az:
                st.npure[gs] += 1.0
                st.purecnt[gs, jj] += 1.0
        if az:
            st.visits[gs, jj] += 1.0
            n_path = _push(st, level, n_path, gs, jj)
            prev = gs
            prev_index = jj
        c = g.first_child[c] + jj
    # back up along this tree's path only
    if az:
        for t in range(n_path - 1, -1, -1):
            _recompute(g, kn, st, prm, st.path_slot[level, t], level)
    else:
        for t in range(n_path):
            st.total[st.path_slot[level, t], st.path_index[level, t]] += leaf
    return -1


@search_kernel
def run(g, kn, st, prm, noise, rng, root, n_sims, margin, fresh, out):
    """Up to ``n_sims`` simulations of the tree rooted at ``root`` (after forgetting every
    tree when ``fresh``); stops early when the table is half full less ``margin`` slots
    (the caller grows it and calls again). Writes the root's visits and each action's
    value interval (NaN if unvisited) into ``out[0:3, :num_legal]``, and the root tree's
    value range (``value_scale`` "tree"; 0 when none) into ``out[3, 0]``. Returns the
    number of simulations run."""
    if fresh:
        reset(st)
    limit = st.keys.size // 2 - margin
    done = 0
    while done < n_sims and st.meta[0] <= limit:
        # one simulation of the root tree, with the simulations it spawns one level
        # down each (written out here rather than as an inlined function: numba copies
        # an inlined function's whole IR once for each level of inlining, and this one
        # holds every helper a simulation calls, which took 10 s of the kernel's compile)
        level = 0
        _begin(g, kn, st, prm, root, 0)
        reply = -1
        reply_mixed = False
        while True:
            need = _step(g, kn, st, prm, noise, rng, level, reply, reply_mixed)
            if need >= 0:
                level += 1
                _begin(g, kn, st, prm, need, level)
                reply = -1
                reply_mixed = False
                continue
            if level == 0:  # the root tree's simulation ended
                break
            reply = st.level_int[level, L_ACTION]  # the spawned tree's action, for its parent
            reply_mixed = st.level_int[level, L_MIXED] == 1
            level -= 1
        done += 1
    slot = find_slot(st, act_key(g, root, root))
    for j in range(g.num_legal[root]):
        n = st.visits[slot, j] if slot >= 0 else 0.0
        out[0, j] = n
        if n <= 0.0:
            out[1, j] = np.nan
            out[2, j] = np.nan
        elif prm[P_MODE] == 0.0:
            out[1, j] = st.total[slot, j] / n
            out[2, j] = out[1, j]
        else:
            out[1, j] = st.qlo[st.child[slot, j]]
            out[2, j] = st.qhi[st.child[slot, j]]
    out[3, 0] = 0.0
    if slot >= 0 and st.rhi[slot] > st.rlo[slot]:
        out[3, 0] = st.rhi[slot] - st.rlo[slot]
    return done
