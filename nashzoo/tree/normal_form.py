"""The reduced normal form of a small two-player extensive game.

A *reduced* pure strategy chooses one action at every information set that its own
earlier choices do not rule out (Kuhn poker: 3 cards x {bet, check-fold, check-call} = 27
for the first player, 3 cards x {check, bet} x {fold, call} = 64 for the second). Two
pure strategies that differ only at sets they never reach play identically, so the
reduced form is the smallest normal form equivalent to the tree (von Stengel 1996).

The payoff of a pure pair ``(k, l)`` is ``sum_z c(z) u(z) R0[k, z] R1[l, z]`` over the
terminal histories ``z``, with ``c`` the chance reach and ``R_p`` the 0/1 reach of ``p``'s
own actions (one array product, no game replays). A mixture over one player's pure
strategies turns back into a behavioural policy by realization weights
(:func:`~nashzoo.tree.mixture.behavioural_mixture`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.games.base import TERMINAL
from nashzoo.tree.compile import GameTree
from nashzoo.tree.mixture import mix_policies
from nashzoo.tree.policy import TabularPolicy
from nashzoo.tree.reach import forward_reach, reach_without

__all__ = ["ReducedNormalForm", "reduced_normal_form", "count_reduced_strategies"]

DEFAULT_MAX_STRATEGIES = 20_000
"""Largest number of reduced pure strategies per player :func:`reduced_normal_form` builds."""


def _plan_forest(tree: GameTree, player: int) -> tuple[list[int], dict[tuple[int, int], list[int]]]:
    """``player``'s information sets as a forest: the roots (no earlier own decision) and
    the sets below each own ``(infoset, action)`` (perfect recall makes it unique)."""
    roots: list[int] = []
    below: dict[tuple[int, int], list[int]] = {}
    for i in tree.infosets_of(player).tolist():
        node = int(tree.infoset_node[i])
        child = node
        parent = int(tree.parent[node])
        while parent >= 0 and tree.player[parent] != player:
            child, parent = parent, int(tree.parent[parent])
        if parent < 0:
            roots.append(i)
        else:
            below.setdefault((int(tree.infoset[parent]), int(tree.action[child])), []).append(i)
    return roots, below


def count_reduced_strategies(tree: GameTree, player: int) -> int:
    """The number of ``player``'s reduced pure strategies (computed without listing them)."""
    roots, below = _plan_forest(tree, player)

    def count(infosets: list[int]) -> int:
        total = 1
        for i in infosets:
            total *= sum(
                count(below.get((i, a), [])) for a in np.flatnonzero(tree.legal_mask[i]).tolist()
            )
        return total

    return count(roots)


def _enumerate(tree: GameTree, player: int) -> list[dict[int, int]]:
    roots, below = _plan_forest(tree, player)

    def plans(infosets: list[int]) -> list[dict[int, int]]:
        result: list[dict[int, int]] = [{}]
        for i in infosets:
            options = [
                {i: a, **sub}
                for a in np.flatnonzero(tree.legal_mask[i]).tolist()
                for sub in plans(below.get((i, a), []))
            ]
            result = [{**left, **right} for left in result for right in options]
        return result

    return plans(roots)


@dataclass(frozen=True)
class ReducedNormalForm:
    """A two-player game's reduced normal form.

    Attributes:
        tree: the compiled game.
        strategies: per player, ``(K_p, num_infosets, num_actions)`` behavioural arrays of
            the pure strategies (one-hot where the strategy chooses; uniform at the sets it
            never reaches and at the other player's sets).
        labels: per player, a readable name per pure strategy (``"<infoset>-><action>; ..."``).
        payoffs: per player, the ``(K_0, K_1)`` expected returns of every pure pair.
    """

    tree: GameTree
    strategies: tuple[np.ndarray, np.ndarray]
    labels: tuple[tuple[str, ...], tuple[str, ...]]
    payoffs: tuple[np.ndarray, np.ndarray] = field(repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """``(K_0, K_1)``: the number of reduced pure strategies of each player."""
        rows, cols = self.payoffs[0].shape
        return int(rows), int(cols)

    def check_mixture(self, player: int, weights: Any) -> np.ndarray:
        """``weights`` as a distribution over ``player``'s pure strategies, or an error."""
        w = np.asarray(weights, dtype=np.float64)
        k = self.shape[player]
        if w.shape != (k,) or not np.all(np.isfinite(w)) or (w < -1e-9).any():
            raise InvalidParameterError(
                f"Player {player}'s mixture must be {k} non-negative weights, received shape "
                f"{w.shape}."
            )
        if abs(w.sum() - 1.0) > 1e-6:
            raise InvalidParameterError(
                f"Player {player}'s mixture must sum to 1, received {w.sum():.6g}."
            )
        clipped: np.ndarray = np.clip(w, 0.0, None)
        result: np.ndarray = clipped / clipped.sum()
        return result

    def behavioural(self, x0: Any, x1: Any) -> TabularPolicy:
        """The behavioural profile that plays like the mixtures ``x0`` and ``x1`` (Kuhn's
        theorem, by realization weights)."""
        w = (self.check_mixture(0, x0), self.check_mixture(1, x1))
        return mix_policies(self.tree, [(list(self.strategies[p]), w[p]) for p in range(2)])

    def matrix_game(self, name: str | None = None) -> Any:
        """The reduced normal form as a :class:`~nashzoo.games.MatrixGame` (its rows are
        player 0's pure strategies)."""
        from nashzoo.games.matrix import MatrixGame

        return MatrixGame(
            self.payoffs[0],
            self.payoffs[1],
            row_action_names=self.labels[0],
            col_action_names=self.labels[1],
            name=name or f"{self.tree.game.short_name}_reduced_normal_form",
        )


def reduced_normal_form(
    tree: GameTree, *, max_strategies: int = DEFAULT_MAX_STRATEGIES
) -> ReducedNormalForm:
    """Enumerate both players' reduced pure strategies and their payoff matrices.

    Args:
        tree: a compiled two-player game.
        max_strategies: refuse (``GameTooLargeError``) when a player has more reduced pure
            strategies than this (Leduc has about 10^60).

    Raises:
        InvalidParameterError: the game does not have two players.
        GameTooLargeError: too many pure strategies.
    """
    if tree.num_players != 2:
        raise InvalidParameterError(
            f"The reduced normal form is built for two-player games; {tree.game} has "
            f"{tree.num_players}."
        )
    for p in range(2):
        count = count_reduced_strategies(tree, p)
        if count > max_strategies:
            raise GameTooLargeError(
                f"Player {p} of {tree.game} has {count:,} reduced pure strategies, more "
                f"than max_strategies={max_strategies:,}; solve the tree with a CFR-family "
                "solver instead."
            )
    terminals = np.flatnonzero(tree.player == TERMINAL)
    chance = reach_without(tree, np.ones(tree.legal_mask.shape), 0)[terminals]
    names = tree.game.action_names if hasattr(tree.game, "action_names") else None
    strategies = []
    labels = []
    reach = []
    own = np.empty(tree.num_nodes)
    other = np.empty(tree.num_nodes)
    for p in range(2):
        plans = _enumerate(tree, p)
        arrays = np.broadcast_to(tree.uniform_probs(), (len(plans), *tree.legal_mask.shape)).copy()
        rows = np.empty((len(plans), terminals.size))
        text = []
        for k, plan in enumerate(plans):
            for i, a in plan.items():
                arrays[k, i] = 0.0
                arrays[k, i, a] = 1.0
            forward_reach(tree, p, arrays[k], own, other)
            rows[k] = own[terminals]
            text.append(
                "; ".join(
                    f"{tree.infoset_keys[i]}->{names[a] if names else a}"
                    for i, a in sorted(plan.items())
                )
            )
        strategies.append(arrays)
        labels.append(tuple(text))
        reach.append(rows)
    payoffs = tuple(
        (reach[0] * (chance * tree.utility[terminals, p])) @ reach[1].T for p in range(2)
    )
    return ReducedNormalForm(
        tree=tree,
        strategies=(strategies[0], strategies[1]),
        labels=(labels[0], labels[1]),
        payoffs=(payoffs[0], payoffs[1]),
    )
