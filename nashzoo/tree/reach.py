"""Reach probabilities on compiled trees."""

from __future__ import annotations

import numpy as np

from nashzoo.tree.compile import GameTree

__all__ = [
    "forward_reach",
    "realization_weights",
    "edge_probabilities",
    "node_values",
    "reach_without",
]


def forward_reach(
    tree: GameTree, player: int, probs: np.ndarray, reach_own: np.ndarray, reach_opp: np.ndarray
) -> None:
    """Fill ``reach_own`` (``player``'s own contribution to each node's reach) and
    ``reach_opp`` (chance's and the other players') under the profile ``probs``; with
    ``player = -2`` every player counts as "other". One compiled forward pass."""
    from nashzoo.tree.kernels import compiled

    compiled().forward_reach(player, tree.arrays, probs, reach_own, reach_opp)


def realization_weights(tree: GameTree, probs: np.ndarray, player: int) -> np.ndarray:
    """``rho(I)``: the product of ``player``'s own action probabilities under ``probs`` on
    the path to each information set (length ``num_infosets``; other players' entries are
    meaningless). Perfect recall makes it the same for every history of a set."""
    reach_own = np.empty(tree.num_nodes)
    reach_opp = np.empty(tree.num_nodes)
    forward_reach(tree, player, np.ascontiguousarray(probs, dtype=np.float64), reach_own, reach_opp)
    weights: np.ndarray = reach_own[tree.infoset_node]
    return weights


def edge_probabilities(tree: GameTree, probs: np.ndarray) -> np.ndarray:
    """The probability of the edge into each node under ``probs`` (chance probabilities
    after chance nodes, ``probs[infoset, action]`` after decisions; 1 at the root)."""
    edge = np.ones(tree.num_nodes)
    child = np.arange(1, tree.num_nodes)
    parent = tree.parent[child]
    decision = tree.player[parent] >= 0
    edge[child] = tree.chance_prob[child]
    edge[child[decision]] = probs[tree.infoset[parent[decision]], tree.action[child[decision]]]
    return edge


def node_values(tree: GameTree, probs: np.ndarray) -> np.ndarray:
    """``(num_nodes, num_players)``: every player's expected return from each node on
    when everyone plays ``probs`` (terminal nodes: their payoffs)."""
    edge = edge_probabilities(tree, probs)
    value: np.ndarray = tree.utility.copy()
    starts = tree.level_starts
    for level in range(len(starts) - 2, 0, -1):  # deepest level first
        nodes = np.arange(starts[level], starts[level + 1])
        np.add.at(value, tree.parent[nodes], edge[nodes, None] * value[nodes])
    return value


def reach_without(tree: GameTree, probs: np.ndarray, player: int) -> np.ndarray:
    """Each node's reach probability from chance and every player but ``player`` (what
    ``player``'s Bayesian belief over the histories of its view is proportional to)."""
    edge = edge_probabilities(tree, probs)
    child = np.arange(1, tree.num_nodes)
    edge[child[tree.player[tree.parent[child]] == player]] = 1.0
    reach = np.ones(tree.num_nodes)
    starts = tree.level_starts
    for level in range(1, len(starts) - 1):
        nodes = np.arange(starts[level], starts[level + 1])
        reach[nodes] = reach[tree.parent[nodes]] * edge[nodes]
    return reach
