"""Batched envs over a compiled game tree: N games of Kuhn, Leduc (or any game that
compiles) stepped at once in numba.

Each game is a node index of :class:`~nashzoo.tree.GameTree`; a step follows the chosen
child, resolves chance nodes with the game's own PCG64 generator (the numbers
``np.random.default_rng(seed).random()`` gives, each chance event one draw, the outcome
picked as :func:`~nashzoo.games.base.sample_chance_outcome` picks it) and, at the end of
an episode, records the returns and starts the next episode at once (auto-reset).
Observations and masks are rows of the tree's information-state tensors and legal
masks, so game ``i`` seeded ``seed + i`` plays exactly the episodes of the single env
``reset(seed=seed + i)`` followed by plain ``reset()`` calls (test).

That holds for games that deal through the generic :meth:`State.advance_chance` (Kuhn,
Leduc). The poker engine's presets deal the ``floor(u * n)``-th card left instead: the
same distribution, but a draw that lands within rounding of a boundary between two
cards may pick the other one, so their batched episodes are not guaranteed to equal
the single env's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.games.base import Game
from nashzoo.games.pcg import next_double
from nashzoo.tree import GameTree, compile_game
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch

__all__ = ["TreeVectorEnv"]

_CHANCE = -1
_TERMINAL = -4


@njit(cache=True)
def _resolve(node, i, player, first_child, num_children, chance_prob, rng):
    """Follow chance nodes from ``node`` with generator ``i``; the first non-chance node."""
    while player[node] == _CHANCE:
        u = next_double(rng, i)
        first = first_child[node]
        count = num_children[node]
        pick = first + count - 1
        for c in range(first, first + count):
            u -= chance_prob[c]
            if u < 0.0:
                pick = c
                break
        node = pick
    return node


@njit(cache=True)
def _reset_all(nodes, root, player, first_child, num_children, chance_prob, rng):
    for i in range(nodes.size):
        nodes[i] = _resolve(root, i, player, first_child, num_children, chance_prob, rng)


@njit(cache=True)
def _step(
    nodes, actions, active, child, root, player, first_child, num_children, chance_prob,
    utility, rng, rewards, terminated,
):  # fmt: skip
    for i in range(nodes.size):
        if not active[i]:
            rewards[i, :] = 0.0
            terminated[i] = False
            continue
        node = child[nodes[i], actions[i]]
        node = _resolve(node, i, player, first_child, num_children, chance_prob, rng)
        if player[node] == _TERMINAL:
            for p in range(utility.shape[1]):
                rewards[i, p] = utility[node, p]
            terminated[i] = True
            node = _resolve(root, i, player, first_child, num_children, chance_prob, rng)
        else:
            for p in range(utility.shape[1]):
                rewards[i, p] = 0.0
            terminated[i] = False
        nodes[i] = node


class TreeVectorEnv(VectorEnvBase):
    """``num_envs`` games of a compiled game stepped at once.

    Args:
        game: the rules (it must compile: Kuhn, Leduc, the small presets).
        num_envs: games in the batch.
        seed: as :meth:`reset` (``None``: OS entropy).

    Raises:
        InvalidParameterError: ``num_envs`` below 1 or above ``MAX_NUM_ENVS`` (2**24).
        GameTooLargeError: the game does not compile.
    """

    def __init__(self, game: Game, num_envs: int, *, seed: int | Sequence[int] | None = None):
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        self.game = game
        tree: GameTree = compile_game(game)
        self.tree = tree
        self.num_players = game.num_players
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        child = np.full((tree.num_nodes, self.num_actions), -1, dtype=np.int64)
        decision = np.flatnonzero(tree.player >= 0)
        for node in decision.tolist():
            first, count = int(tree.first_child[node]), int(tree.num_children[node])
            child[node, tree.action[first : first + count]] = np.arange(first, first + count)
        self._child = child
        self._node_owner = tree.player.astype(np.int64)
        self._first = tree.first_child.astype(np.int64)
        self._count = tree.num_children.astype(np.int64)
        self._prob = tree.chance_prob.astype(np.float64)
        self._utility = np.ascontiguousarray(tree.utility, dtype=np.float64)
        self._infoset = tree.infoset.astype(np.int64)
        self._tensor = tree.infoset_tensor.astype(np.float32)
        self._mask = tree.legal_mask.astype(np.int8)
        self._nodes = np.zeros(self.num_envs, dtype=np.int64)
        if seed is not None:
            self.reset(seed=seed)

    def _reset_games(self) -> None:
        _reset_all(
            self._nodes, 0, self._node_owner, self._first, self._count, self._prob, self._rng
        )

    def _illegal(self, actions: np.ndarray) -> np.ndarray:
        return self._child[self._nodes, actions] < 0

    def _legal_actions(self, game: int) -> list[int]:
        return np.flatnonzero(self._mask[self._infoset[self._nodes[game]]]).tolist()

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        _step(
            self._nodes, actions, active, self._child, 0, self._node_owner, self._first,
            self._count, self._prob, self._utility, self._rng, rewards, terminated,
        )  # fmt: skip

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        infosets = self._infoset[self._nodes]
        return Batch(
            observation=self._tensor[infosets],
            action_mask=self._mask[infosets],
            player=self._node_owner[self._nodes],
            rewards=rewards,
            terminated=terminated,
        )

    def information_state_strings(self) -> list[str]:
        """The information-state string of the player to act in each game."""
        keys = self.tree.infoset_keys
        return [keys[i] for i in self._infoset[self._nodes].tolist()]
