"""Seeded random draws for compiled kernels: a small xorshift generator whose state is a
one-element array (numba functions share it by reference), and the draws on a tree that
the sampling solvers and the search share: a chance outcome, a child under a policy, and
whole episodes. Plain Python marked :func:`~nashzoo.tree.jit.kernel`: the module that
calls them compiles them with its own kernels (:func:`~nashzoo.tree.jit.compile_kernels`).
"""

from __future__ import annotations

import numpy as np

from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.jit import kernel

__all__ = [
    "rng_state",
    "next_uniform",
    "sample_chance",
    "sample_slot",
    "sample_child",
    "sample_recorded_child",
    "sample_paths",
]


def rng_state(seed: int) -> np.ndarray:
    """A state for :func:`next_uniform` (xorshift64*, never 0) spread from ``seed``."""
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 + 1) % 2**64 or 1], dtype=np.uint64)


@kernel
def next_uniform(rng_state):
    """xorshift64* step on ``rng_state[0]``; a float in [0, 1)."""
    x = rng_state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng_state[0] = x
    return float((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def sample_chance(fc, nc, chance_prob, u):
    """The child of a chance node (children ``fc .. fc+nc-1``) that ``u`` in [0, 1) picks."""
    for c in range(fc, fc + nc - 1):
        u -= chance_prob[c]
        if u < 0.0:
            return c
    return fc + nc - 1


@kernel
def sample_slot(weights, ids, start, count, u):
    """The slot ``k`` of ``start .. start+count-1`` that ``u`` in [0, 1) picks when slot
    ``k`` weighs ``weights[ids[k]]``; never a slot of weight 0 (unless all are): when
    rounding leaves ``u`` past the total, the last slot with weight."""
    last = start + count - 1
    for k in range(start, last):
        u -= weights[ids[k]]
        if u < 0.0:
            return k
    for k in range(last, start - 1, -1):
        if weights[ids[k]] > 0.0:
            return k
    return last


@kernel
def sample_child(n, first_child, num_children, action, probs_by_action, u):
    """The child of node ``n`` that ``u`` in [0, 1) picks under ``probs_by_action``;
    never a child of probability 0 (unless all are)."""
    return sample_slot(probs_by_action, action, first_child[n], num_children[n], u)


@kernel
def sample_recorded_child(n, t, probs_by_action, u, nodes, counts, slot):
    """Node ``n`` appended to ``nodes`` (at ``counts[slot]``, which it advances), then
    its child that ``u`` picks under ``probs_by_action``; -1 (nothing recorded) when
    ``nodes`` is full. The neural regret learners record the opponent's decisions this
    way, for the strategy memory."""
    if counts[slot] >= nodes.shape[0]:
        return -1
    nodes[counts[slot]] = n
    counts[slot] += 1
    return sample_child(n, t.first_child, t.num_children, t.action, probs_by_action, u)


@kernel
def sample_paths(n, rng_state, t, pi, beta, eta, max_len, n_players, forced, explore):
    """Sample ``n`` episodes; returns the node paths ``(n, max_len)`` (-1 padded) and which
    players played their best response ``(n, n_players)``. Player ``forced`` (if >= 0)
    always plays ``beta``; the others play ``beta`` with probability ``eta``. With
    ``explore > 0`` episode ``e``'s *explorer* ``e % n_players`` picks a uniformly random
    legal action with probability ``explore`` at each of its decisions."""
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    paths = np.full((n, max_len), -1, dtype=np.int64)
    use_beta = np.zeros((n, n_players), dtype=np.bool_)
    for e in range(n):
        for p in range(n_players):
            u = next_uniform(rng_state)
            use_beta[e, p] = True if p == forced else u < eta
        node = 0
        k = 0
        while True:
            paths[e, k] = node
            k += 1
            pl = player[node]
            if pl == TERMINAL:
                break
            fc = first_child[node]
            nc = num_children[node]
            u = next_uniform(rng_state)
            if pl == CHANCE:
                nxt = sample_chance(fc, nc, chance_prob, u)
            elif explore > 0.0 and pl == e % n_players and u < explore:
                nxt = fc + min(int(next_uniform(rng_state) * nc), nc - 1)
            else:
                if explore > 0.0 and pl == e % n_players:
                    u = (u - explore) / (1.0 - explore)  # reuse the draw, uniform again
                probs = beta if use_beta[e, pl] else pi
                nxt = sample_child(node, first_child, num_children, action, probs[infoset[node]], u)
            node = nxt
    return paths, use_beta
