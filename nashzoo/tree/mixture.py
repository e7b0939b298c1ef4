"""Mixed -> behavioural policy conversion by realization weights (Kuhn's theorem).

Given policies pi_k of one player with mixture weights mu_k, the behavioural policy

    pi(a | I) = sum_k mu_k rho_k(I) pi_k(a | I) / sum_k mu_k rho_k(I)

plays exactly like the mixture, where rho_k(I) is the product of the player's own action
probabilities under pi_k on the path to I (its realization weight). Oliehoek (2005),
section 7.3, works the 3-card example used in the tests. Information sets that no policy
of the mixture reaches get the uniform policy over their legal actions (any choice plays
the same there, since they are never reached).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.tree.compile import GameTree
from nashzoo.tree.policy import TabularPolicy
from nashzoo.tree.reach import realization_weights

__all__ = ["behavioural_mixture", "mix_policies"]


def _as_array(tree: GameTree, policy: Any) -> np.ndarray:
    if isinstance(policy, TabularPolicy):
        if policy.game != tree.game:
            raise InvalidParameterError(
                f"A policy for {policy.game} cannot be mixed in {tree.game}."
            )
        return policy.probs
    arr = np.asarray(policy, dtype=np.float64)
    if arr.shape != tree.legal_mask.shape:
        raise InvalidParameterError(
            f"Policy arrays must have shape {tree.legal_mask.shape} for {tree.game}, "
            f"received {arr.shape}."
        )
    return arr


def behavioural_mixture(
    tree: GameTree,
    player: int,
    policies: Sequence[Any],
    weights: Sequence[float] | np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Rows of ``player`` of the behavioural equivalent of a mixture of ``policies``.

    Args:
        tree: the compiled game.
        player: whose rows to mix.
        policies: TabularPolicies or ``(num_infosets, num_actions)`` arrays.
        weights: mixture weights, non-negative and summing to 1.
        out: array whose ``player`` rows receive the result (a uniform profile if None).

    Returns:
        ``out`` (all rows; only ``player``'s were written).

    Raises:
        InvalidParameterError: weights are negative, do not sum to 1, or do not match the
            policies; a policy belongs to another game or has the wrong shape.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or len(w) != len(policies) or len(w) == 0:
        raise InvalidParameterError(
            f"Need one weight per policy: {len(policies)} policies, weights {list(w)}."
        )
    if (w < -1e-12).any() or abs(w.sum() - 1.0) > 1e-6:
        raise InvalidParameterError(
            f"Mixture weights must be non-negative and sum to 1, received {w.tolist()} "
            f"(sum {w.sum():.6g})."
        )
    arrays = [_as_array(tree, p) for p in policies]
    rows = tree.infosets_of(player)
    num = np.zeros((rows.size, tree.num_actions))
    den = np.zeros(rows.size)
    for weight, probs in zip(w, arrays):
        if weight <= 0:
            continue
        rho = realization_weights(tree, probs, player)[rows] * weight
        num += rho[:, None] * probs[rows]
        den += rho
    mask = tree.legal_mask[rows]
    uniform = mask / mask.sum(axis=1, keepdims=True)
    mixed = np.where(den[:, None] > 0, num / np.where(den > 0, den, 1.0)[:, None], uniform)
    if out is None:
        out = tree.uniform_probs()
    out[rows] = mixed
    return out


def mix_policies(
    tree: GameTree, mixtures: Sequence[tuple[Sequence[Any], Sequence[float] | np.ndarray]]
) -> TabularPolicy:
    """A full profile: player ``i``'s rows are the behavioural mixture ``mixtures[i]`` =
    ``(policies, weights)``."""
    probs = tree.uniform_probs()
    for player, (policies, weights) in enumerate(mixtures):
        behavioural_mixture(tree, player, policies, weights, out=probs)
    return TabularPolicy(tree, probs)
