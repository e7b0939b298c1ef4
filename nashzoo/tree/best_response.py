"""Exact best responses and policy values on compiled trees (tree algorithms, no API).

These are the array kernels behind :func:`nashzoo.eval.exploitability` and the solvers
that need best responses (XFP, the Nash memory). Every call is safe to run concurrently:
scratch arrays are per thread.
"""

from __future__ import annotations

import threading

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.tree.compile import GameTree
from nashzoo.tree.reach import forward_reach

__all__ = ["best_response_value", "policy_values", "nash_conv_array"]


class _Workspace:
    """Scratch arrays for one tree in one thread (reused: solvers evaluate often)."""

    def __init__(self, tree: GameTree) -> None:
        n = tree.num_nodes
        self.tree = tree
        self.reach_own = np.empty(n)
        self.reach_opp = np.empty(n)
        self.value = np.empty(n)
        self.q = np.empty(tree.legal_mask.shape)
        self.br = np.empty(tree.num_infosets, dtype=np.int64)


_local = threading.local()


def _workspace(tree: GameTree) -> _Workspace:
    cache: dict[int, _Workspace] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
    hit = cache.get(id(tree))
    if hit is None or hit.tree is not tree:
        if len(cache) > 32:
            cache.clear()
        hit = cache[id(tree)] = _Workspace(tree)
    return hit


def best_response_value(
    tree: GameTree, probs: np.ndarray, player: int, br_action: np.ndarray | None = None
) -> float:
    """Value of ``player``'s best response to the others' rows of ``probs``.

    Args:
        tree: compiled game (every information set's nodes at one depth).
        probs: ``(num_infosets, num_actions)`` profile.
        player: the best-responding player.
        br_action: optional int64 array (``num_infosets``) receiving the best actions at
            ``player``'s sets (ties go to the smallest action id).

    Raises:
        InvalidParameterError: the tree has information sets spanning several depths.
    """
    from nashzoo.tree.kernels import compiled

    if not tree.single_depth_infosets:
        raise InvalidParameterError(
            f"Exact best response needs every information set's histories at one depth; "
            f"{tree.game} breaks this."
        )
    ws = _workspace(tree)
    forward_reach(tree, player, probs, ws.reach_own, ws.reach_opp)
    ws.q.fill(0.0)
    br = ws.br if br_action is None else br_action
    br.fill(-1)
    kernels = compiled()
    return float(kernels.best_response(player, tree.arrays, ws.reach_opp, ws.value, ws.q, br))


def policy_values(tree: GameTree, probs: np.ndarray) -> np.ndarray:
    """Expected return of every player under the profile ``probs`` (a fresh array)."""
    from nashzoo.tree.kernels import compiled

    ws = _workspace(tree)
    values: np.ndarray = compiled().expected_returns(tree.arrays, probs, ws.reach_own, ws.reach_opp)
    return values


def nash_conv_array(tree: GameTree, probs: np.ndarray) -> float:
    """NashConv of a raw ``(num_infosets, num_actions)`` profile (the fast path solvers use)."""
    values = policy_values(tree, probs)
    return float(
        sum(best_response_value(tree, probs, p) - values[p] for p in range(tree.num_players))
    )
