"""Compiled (numba) measurement loops over a :class:`~nashzoo.tree.GameTree`: reach
probabilities, expected returns and best responses. The solvers' own loops live beside
their algorithms in :mod:`nashzoo.agents.cfr`; the random draws in
:mod:`nashzoo.tree.sampling`.

Every kernel takes the tree as one :class:`~nashzoo.tree.compile.TreeArrays` (``t``) and
walks nodes by index: forward passes in breadth-first order (parents first), backward
passes in reverse order or level by level. Player ids: >= 0 players,
:data:`~nashzoo.games.CHANCE`, :data:`~nashzoo.games.TERMINAL`. ``sigma`` is an
``(num_infosets, num_actions)`` behaviour policy.

The functions are plain Python marked :func:`~nashzoo.tree.jit.kernel`; :func:`compiled`
(or a solver's own :func:`~nashzoo.tree.jit.compile_kernels`) compiles them on first use,
so importing this module does not load numba.
"""

from __future__ import annotations

import sys
from types import ModuleType

import numpy as np

from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.jit import compile_kernels, kernel

__all__ = ["forward_reach", "expected_returns", "best_response", "compiled"]


def compiled() -> ModuleType:
    """This module with its kernels compiled (numba loads on the first call)."""
    compile_kernels(globals())
    return sys.modules[__name__]


@kernel
def forward_reach(p, t, sigma, reach_own, reach_opp):
    """Reach probabilities: ``reach_own`` = player ``p``'s own contribution, ``reach_opp``
    = chance's and every other player's. With ``p = -2`` all players count as others."""
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    chance_prob = t.chance_prob
    reach_own[0] = 1.0
    reach_opp[0] = 1.0
    for n in range(player.size):
        pl = player[n]
        if pl == TERMINAL:
            continue
        fc = first_child[n]
        ro = reach_own[n]
        rp = reach_opp[n]
        if pl == CHANCE:
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro
                reach_opp[c] = rp * chance_prob[c]
        elif pl == p:
            i = infoset[n]
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro * sigma[i, action[c]]
                reach_opp[c] = rp
        else:
            i = infoset[n]
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro
                reach_opp[c] = rp * sigma[i, action[c]]


@kernel
def expected_returns(t, sigma, reach_own, reach_opp):
    """Expected return of every player under ``sigma``."""
    player = t.player
    utility = t.utility
    forward_reach(-2, t, sigma, reach_own, reach_opp)
    out = np.zeros(utility.shape[1])
    for n in range(player.size):
        if player[n] == TERMINAL:
            r = reach_opp[n]
            for q in range(utility.shape[1]):
                out[q] += r * utility[n, q]
    return out


@kernel
def best_response(p, t, reach_opp, value, q, br_action):
    """Best response of ``p`` to the others' part of the profile in ``reach_opp``.

    Requires every information set's nodes to share one depth. ``q`` (infosets x actions)
    must be zero and ``br_action`` -1 on entry; on exit ``br_action`` holds the best
    action at each of ``p``'s sets (ties go to the smallest action id). Returns the
    best-response value.
    """
    player = t.player
    first_child = t.first_child
    num_children = t.num_children
    infoset = t.infoset
    action = t.action
    level_starts = t.level_starts
    utility = t.utility
    legal_mask = t.legal_mask
    for lev in range(level_starts.size - 2, -1, -1):
        start = level_starts[lev]
        stop = level_starts[lev + 1]
        for n in range(start, stop):
            if player[n] == p:
                i = infoset[n]
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    q[i, action[c]] += value[c]
        for n in range(start, stop):
            pl = player[n]
            if pl == TERMINAL:
                value[n] = reach_opp[n] * utility[n, p]
            elif pl == p:
                i = infoset[n]
                if br_action[i] < 0:
                    best = -1
                    best_q = -np.inf
                    for a in range(legal_mask.shape[1]):
                        if legal_mask[i, a] and q[i, a] > best_q + 1e-12:
                            best = a
                            best_q = q[i, a]
                    br_action[i] = best
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    if action[c] == br_action[i]:
                        value[n] = value[c]
            else:
                v = 0.0
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    v += value[c]
                value[n] = v
    return value[0]
