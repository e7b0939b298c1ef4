"""Batched ACPC poker (numba): N games of a :class:`~nashzoo.games.poker.game.PokerGame`
stepped at once: no-limit Hold'em and tables of three to ten players.

Row ``i`` of every array is game ``i``; the rules are the compiled ones of
:mod:`nashzoo.games.poker.kernel` (the engine's, operation for operation, the same
functions the AEC env steps). Cards are dealt from each game's own PCG64, so game ``i``
seeded ``seed + i`` plays exactly the hands of the single env ``reset(seed=seed + i)``:
the same cards, observations, masks and returns (a test against
:class:`~nashzoo.vector.StateVectorEnv`, which steps the engine's own states).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.games.pcg import write_back
from nashzoo.games.poker.game import PokerGame
from nashzoo.games.poker.hand_kernel import _POW5, tables_arrays
from nashzoo.games.poker.kernel import (
    _FIELDS,
    _PLAYER,
    _TERMINAL,
    PokerRules,
    _act,
    _deal,
    _legal,
    _new_hand,
    _observe,
    _reset_all,
    _returns,
    _step,
    _tensor,
)
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, BulkDecisions, VectorEnvBase
from nashzoo.vector.batch import Batch
from nashzoo.vector.hands import check_poker_game

__all__ = ["PokerVectorEnv", "PokerDecisions"]


class PokerVectorEnv(VectorEnvBase):
    """``num_envs`` hands of an ACPC poker game stepped at once (numba): no-limit
    Hold'em, and limit or no-limit tables of 2 to 10 players.

    Serves every :class:`~nashzoo.games.poker.game.PokerGame` on the 52-card deck
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
        self, game: PokerGame, num_envs: int, *, seed: int | Sequence[int] | None = None
    ) -> None:
        check_poker_game("PokerVectorEnv", game, PokerGame)
        d = game.definition
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        n = d.num_players
        self.game = game
        self.num_players = n
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        arrays = PokerRules.of(game)
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
        self._slot_start = arrays.slot_start
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
            self._slot_start, self._hand, _POW5, *self._tables, self._rank, self._stake,
            *self._deals(),
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


# -- decision by decision with every legal action's child (simplex-gradient) -------------
@njit(cache=True)
def _deal_games(live, st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
                board_cards, board_round, off):  # fmt: skip
    """Deal every hand from the one generator ``rng[0]``, hand by hand."""
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, ranked, pub, spent, folded, rng, 0, rules, blinds, stacks, first,
                  board_cards, board_round, off)  # fmt: skip
        live[i] = True


@njit(cache=True)
def _views_of(games, st, cards, pub, spent, rules, stacks, limit_sizes, max_raises, fractions,
              obs, mask, who):  # fmt: skip
    """The tensor and legal mask of the player to act in each listed hand (row ``j`` for
    ``games[j]``; ``obs`` zeroed)."""
    for j in range(games.size):
        i = games[j]
        who[j] = st[i, _PLAYER]
        _tensor(i, who[j], st, cards, pub, rules, obs[j])
        _legal(i, st, spent, rules, stacks, limit_sizes, max_raises, fractions, mask[j])


@njit(cache=True)
def _children(
    games, mask, st, cards, pub, spent, folded, rules, stacks, first, board_cards, limit_sizes,
    fractions, slot_start, hand, pow5, flush, keys, values, rank, stakes, out, low, span, succ,
    succ_index, known,
):  # fmt: skip
    """Every legal action's child in each listed hand, seen by the player who acts: its
    tensor (the next row of ``succ``, whose index goes to ``succ_index``) or,
    where the action ends the hand, the mover's return rescaled by ``low`` and ``span``
    (in ``known``). A child that waits for cards is seen before they are dealt. The hands
    are left as they were. Returns the rows written."""
    saved_st = np.empty(st.shape[1], st.dtype)
    saved_spent = np.empty(spent.shape[1], spent.dtype)
    saved_folded = np.empty(folded.shape[1], folded.dtype)
    rows = 0
    for j in range(games.size):
        i = games[j]
        p = st[i, _PLAYER]
        succ_index[j, :] = -1
        known[j, :] = 0.0
        saved_st[:] = st[i, :]
        saved_spent[:] = spent[i, :]
        saved_folded[:] = folded[i, :]
        for a in range(mask.shape[1]):
            if mask[j, a] == 0:
                continue
            _act(i, a, st, pub, spent, folded, rules, stacks, first, board_cards, limit_sizes,
                 fractions, slot_start)  # fmt: skip
            if st[i, _PLAYER] == _TERMINAL:
                _returns(i, spent, folded, cards, rules, hand, pow5, flush, keys, values, rank,
                         stakes, out)  # fmt: skip
                known[j, a] = (out[p] - low) / span
            else:
                succ[rows, :] = 0.0
                _tensor(i, p, st, cards, pub, rules, succ[rows])
                succ_index[j, a] = rows
                rows += 1
            st[i, :] = saved_st
            spent[i, :] = saved_spent
            folded[i, :] = saved_folded
    return rows


@njit(cache=True)
def _apply_games(
    games, actions, live, st, cards, ranked, pub, spent, folded, rng, rules, stacks, first,
    board_cards, board_round, off, limit_sizes, fractions, slot_start, hand, pow5, flush, keys,
    values, rank, stakes, out, returns,
):  # fmt: skip
    """Each listed hand's action, then the cards it waits for (from ``rng[0]``, hand by
    hand); a hand that ends records player 0's return."""
    for j in range(games.size):
        i = games[j]
        result = _act(i, actions[j], st, pub, spent, folded, rules, stacks, first, board_cards,
                      limit_sizes, fractions, slot_start)  # fmt: skip
        if result == 2:
            _deal(i, st, cards, ranked, pub, spent, folded, rng, 0, rules, stacks, first,
                  board_round, off)  # fmt: skip
        if st[i, _PLAYER] == _TERMINAL:
            _returns(i, spent, folded, cards, rules, hand, pow5, flush, keys, values, rank,
                     stakes, out)  # fmt: skip
            returns[i] = out[0]
            live[i] = False


class PokerDecisions(BulkDecisions):
    """``num_games`` hands of a heads-up poker game played decision by decision (numba),
    with every legal action's child: what simplex-gradient self-play learns from in a
    turn-based game (the game's declared ``FastPaths.decisions``).

    All random numbers come from one PCG64 stream (a ``np.random.Generator``'s own,
    taken before and given back after each call), in the order a loop over single
    :class:`~nashzoo.games.poker.game.PokerState` objects draws them: the deals hand
    by hand, then per round of decisions one ``random()`` per action (hand by hand), then
    the hands' next cards hand by hand. A learner using this class plays the hands that
    stepping the rules one state at a time plays with the same generator (a test).

    Args:
        game: a heads-up game :class:`PokerVectorEnv` serves (the 52-card deck, hands of 5
            to 7 cards).
        num_games: hands played at once.

    Raises:
        InvalidParameterError: not such a game, or ``num_games`` below 1.
    """

    def __init__(self, game: PokerGame, num_games: int) -> None:
        n = check_int("num_games", num_games, 1, MAX_NUM_ENVS)
        self._env = PokerVectorEnv(game, n)  # the hands' arrays and the game's tables
        if game.num_players != 2:
            raise InvalidParameterError(
                f"PokerDecisions plays heads-up games; {game} has {game.num_players} players."
            )
        self.game = game
        self.num_games = n
        self.live = np.zeros(n, bool)
        self.returns = np.zeros(n)  # player 0's return once a hand is over
        self.observation_size = game.information_state_tensor_size
        a = game.num_distinct_actions
        self._succ = np.zeros((n * a, self.observation_size), np.float32)
        self._rows = np.zeros((n, a), np.int64)
        self._known = np.zeros((n, a), np.float32)
        self._out = np.zeros(2)
        self._low = float(game.min_utility)
        self._span = float(game.max_utility - game.min_utility)

    def deal(self, rng: np.random.Generator) -> None:
        """Start every hand (its cards drawn from ``rng``)."""
        e, row = self._env, self._row(rng)
        _deal_games(
            self.live, e._st, e._dealt_cards, e._ranked, e._pub, e._chips, e._folds, row,
            e._rules, e._blinds, e._stack_row, e._first, e._board_cards, e._board_round,
            e._offset,
        )  # fmt: skip
        self.returns[:] = 0.0
        write_back(rng, row)

    def views(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The tensor, mask and seat of the player to act in each of ``games``, and the
        games (one row each)."""
        e = self._env
        obs = np.zeros((games.size, self.observation_size), np.float32)
        mask = np.empty((games.size, self.game.num_distinct_actions), np.int8)
        who = np.empty(games.size, np.int64)
        _views_of(
            games, e._st, e._dealt_cards, e._pub, e._chips, e._rules, e._stack_row,
            e._limit_sizes, e._max_raises, e._fractions, obs, mask, who,
        )  # fmt: skip
        return obs, mask, who, games

    def successors(
        self, games: np.ndarray, mask: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every legal action's child (see :func:`_children`; ``mask`` is :meth:`views`',
        ``actions`` are not needed: the children do not depend on them): ``(succ, index,
        known)``."""
        e = self._env
        rows = _children(
            games, mask, e._st, e._dealt_cards, e._pub, e._chips, e._folds, e._rules,
            e._stack_row, e._first, e._board_cards, e._limit_sizes, e._fractions,
            e._slot_start, e._hand, _POW5, *e._tables, e._rank, e._stake, self._out, self._low,
            self._span, self._succ, self._rows, self._known,
        )  # fmt: skip
        return (
            self._succ[:rows].copy(),
            self._rows[: games.size].copy(),
            self._known[: games.size].copy(),
        )

    def apply(self, games: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> None:
        """Each of ``games`` plays its action (and deals the cards it waits for, from
        ``rng``)."""
        e, row = self._env, self._row(rng)
        _apply_games(
            games, actions, self.live, e._st, e._dealt_cards, e._ranked, e._pub, e._chips,
            e._folds, row, e._rules, e._stack_row, e._first, e._board_cards, e._board_round,
            e._offset, e._limit_sizes, e._fractions, e._slot_start, e._hand, _POW5,
            *e._tables, e._rank, e._stake, self._out, self.returns,
        )  # fmt: skip
        write_back(rng, row)
