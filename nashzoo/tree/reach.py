"""Reach probabilities on compiled trees."""

from __future__ import annotations

import numpy as np

from nashzoo.tree.compile import GameTree

__all__ = ["forward_reach", "realization_weights"]


def forward_reach(
    tree: GameTree, player: int, probs: np.ndarray, reach_own: np.ndarray, reach_opp: np.ndarray
) -> None:
    """Fill ``reach_own`` (``player``'s own contribution to each node's reach) and
    ``reach_opp`` (chance's and the other players') under the profile ``probs``; with
    ``player = -2`` every player counts as "other". One compiled forward pass."""
    from nashzoo.tree import kernels

    kernels.forward_reach(
        player,
        *tree.walk_arrays,
        probs,
        reach_own,
        reach_opp,
    )


def realization_weights(tree: GameTree, probs: np.ndarray, player: int) -> np.ndarray:
    """``rho(I)``: the product of ``player``'s own action probabilities under ``probs`` on
    the path to each information set (length ``num_infosets``; other players' entries are
    meaningless). Perfect recall makes it the same for every history of a set."""
    reach_own = np.empty(tree.num_nodes)
    reach_opp = np.empty(tree.num_nodes)
    forward_reach(tree, player, np.ascontiguousarray(probs, dtype=np.float64), reach_own, reach_opp)
    weights: np.ndarray = reach_own[tree.infoset_node]
    return weights
