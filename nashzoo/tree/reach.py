"""Reach probabilities on compiled trees."""

from __future__ import annotations

import numpy as np

from nashzoo.tree.compile import GameTree

__all__ = ["realization_weights"]


def realization_weights(tree: GameTree, probs: np.ndarray, player: int) -> np.ndarray:
    """``rho(I)``: the product of ``player``'s own action probabilities under ``probs`` on
    the path to each information set (length ``num_infosets``; other players' entries are
    meaningless). Perfect recall makes it the same for every history of a set."""
    from nashzoo.tree import kernels

    reach_own = np.empty(tree.num_nodes)
    reach_opp = np.empty(tree.num_nodes)
    kernels.forward_reach(
        player,
        tree.player,
        tree.first_child,
        tree.num_children,
        tree.infoset,
        tree.action,
        tree.chance_prob,
        np.ascontiguousarray(probs, dtype=np.float64),
        reach_own,
        reach_opp,
    )
    weights: np.ndarray = reach_own[tree.infoset_node]
    return weights
