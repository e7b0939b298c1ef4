"""Batched ACPC poker (numba): N games of an :class:`~nashzoo.games.poker.acpc.AcpcPokerGame`
stepped at once: no-limit Hold'em and tables of three to ten players.

Row ``i`` of every array is game ``i``; the rules are the compiled ones of
:mod:`nashzoo.games.poker.acpc_kernel` (the engine's, operation for operation, the same
functions the AEC env steps). Cards are dealt from each game's own PCG64, so game ``i``
seeded ``seed + i`` plays exactly the hands of the single env ``reset(seed=seed + i)``:
the same cards, observations, masks and returns (a test against
:class:`~nashzoo.vector.StateVectorEnv`, which steps the engine's own states).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nashzoo.games.poker.acpc import AcpcPokerGame
from nashzoo.games.poker.acpc_kernel import (
    _FIELDS,
    _PLAYER,
    AcpcRules,
    _observe,
    _reset_all,
    _step,
)
from nashzoo.games.poker.hand_kernel import _POW5, tables_arrays
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch
from nashzoo.vector.hands import check_poker_game

__all__ = ["AcpcVectorEnv"]


class AcpcVectorEnv(VectorEnvBase):
    """``num_envs`` hands of an ACPC poker game stepped at once (numba): no-limit
    Hold'em, and limit or no-limit tables of 2 to 10 players.

    Serves every :class:`~nashzoo.games.poker.acpc.AcpcPokerGame` on the 52-card deck
    whose hands (hole cards and board) have five to seven cards; smaller games compile
    and run in :class:`~nashzoo.vector.TreeVectorEnv`, or in
    :class:`~nashzoo.vector.StateVectorEnv`.

    Args:
        game: the rules.
        num_envs: games in the batch.
        seed: as :meth:`reset` (``None``: OS entropy).

    Raises:
        InvalidParameterError: not such a game, or ``num_envs`` below 1.
    """

    def __init__(
        self, game: AcpcPokerGame, num_envs: int, *, seed: int | Sequence[int] | None = None
    ) -> None:
        check_poker_game("AcpcVectorEnv", game, AcpcPokerGame)
        d = game.definition
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        n = d.num_players
        self.game = game
        self.num_players = n
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        arrays = AcpcRules.of(game)
        self._rules = arrays.rules
        self._blinds = arrays.blinds
        self._stack_row = arrays.stacks
        self._first = arrays.first
        self._board_cards = arrays.board_cards
        self._board_round = arrays.board_round
        self._offset = arrays.off
        self._limit_sizes = arrays.limit_sizes
        self._max_raises = arrays.max_raises
        self._fractions = arrays.fractions
        self._tables = tables_arrays()
        self._hand = np.zeros(d.num_hole_cards + sum(d.num_board_cards), np.int64)
        self._rank = np.zeros(n, np.int64)
        self._stake = np.zeros(n, np.float64)
        k = self.num_envs
        self._st = np.zeros((k, _FIELDS), np.int64)
        self._dealt_cards = np.zeros((k, n * d.num_hole_cards + sum(d.num_board_cards)), np.int64)
        self._ranked = np.zeros_like(self._dealt_cards)
        self._chips = np.zeros((k, n), np.int64)
        self._folds = np.zeros((k, n), np.int8)
        # the public tensor indices set so far (board cards and betting actions), in order
        self._pub = np.zeros((k, game.max_game_length + sum(d.num_board_cards)), np.int64)
        self._mask = np.zeros((k, self.num_actions), np.int8)
        if seed is not None:
            self.reset(seed=seed)

    def _deals(self) -> tuple[np.ndarray, ...]:
        return (
            self._st, self._dealt_cards, self._ranked, self._pub, self._chips, self._folds,
            self._rng, self._rules, self._blinds, self._stack_row, self._first,
            self._board_cards, self._board_round, self._offset,
        )  # fmt: skip

    def _reset_games(self) -> None:
        _reset_all(*self._deals())

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        _step(
            actions, active, rewards, terminated, self._limit_sizes, self._fractions,
            self._hand, _POW5, *self._tables, self._rank, self._stake, *self._deals(),
        )  # fmt: skip

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        obs = np.zeros((self.num_envs, self.observation_size), np.float32)
        _observe(
            self._st, self._dealt_cards, self._pub, self._chips, self._rules, self._stack_row,
            self._limit_sizes, self._max_raises, self._fractions, obs, self._mask,
        )  # fmt: skip
        return Batch(
            observation=obs,
            action_mask=self._mask.copy(),
            player=self._st[:, _PLAYER].copy(),
            rewards=rewards,
            terminated=terminated,
        )
