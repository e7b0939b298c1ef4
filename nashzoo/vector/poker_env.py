"""Batched limit poker (numba): N games of a :class:`~nashzoo.games.poker.PokerGame`
stepped at once, for games too big to compile (heads-up Limit Hold'em).

Each game keeps its cards, the undealt deck (sorted), the bets and the public part of
its information-state tensor in arrays; a step applies one action per game with the
engine's rules (:mod:`nashzoo.games.poker.engine`), deals the next round's board, and at
the end of a hand ranks both hands with the 7-card tables
(:mod:`nashzoo.vector.hands`), records the returns and deals the next hand (auto-reset).

Cards are dealt as the engine deals them (:meth:`PokerState.advance_chance`): each card
is the ``floor(u * n)``-th of the ``n`` cards left, ``u`` the next ``random()`` of the
game's own PCG64 (:mod:`nashzoo.vector.pcg`). So game ``i`` seeded ``seed + i`` plays
exactly the hands of the single env ``reset(seed=seed + i)``: the same cards, the same
observations and masks, the same returns (test).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.engine import CALL, FOLD, RAISE, PokerGame
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch
from nashzoo.vector.hands import _POW5, _strength, tables_arrays
from nashzoo.vector.pcg import next_double

__all__ = ["PokerVectorEnv"]

_CHANCE = -1
_TERMINAL = -4

# columns of the per-game integer state
_PLAYER, _ROUND, _RAISES, _ACTED, _NACTS, _FOLDER, _PENDING, _DEALT, _LEFT, _C0, _C1 = range(11)
_FIELDS = 11


@njit(cache=True)
def _deal(i, st, cards, deck, pub, rng, rules, board_offset, first_player):
    """Deal the cards pending in game ``i``, then hand the move to the round's first player."""
    num_hole = rules[0]
    r = st[i, _ROUND]
    while st[i, _PENDING] > 0:
        left = st[i, _LEFT]
        k = int(next_double(rng, i) * left)
        card = deck[i, k]
        for j in range(k, left - 1):
            deck[i, j] = deck[i, j + 1]
        st[i, _LEFT] = left - 1
        n = st[i, _DEALT]
        cards[i, n] = card
        st[i, _DEALT] = n + 1
        st[i, _PENDING] -= 1
        if n >= 2 * num_hole:
            pub[i, board_offset[r] + card] = 1.0
    st[i, _PLAYER] = first_player[r]


@njit(cache=True)
def _new_hand(i, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first):
    num_cards = rules[1]
    for j in range(num_cards):
        deck[i, j] = j
    pub[i, :] = 0.0
    st[i, _ROUND] = 0
    st[i, _RAISES] = 0
    st[i, _ACTED] = 0
    st[i, _NACTS] = 0
    st[i, _FOLDER] = -1
    st[i, _DEALT] = 0
    st[i, _LEFT] = num_cards
    st[i, _C0] = blinds[0]
    st[i, _C1] = blinds[1]
    st[i, _PENDING] = 2 * rules[0] + board_cards[0]
    _deal(i, st, cards, deck, pub, rng, rules, board_offset, first)


@njit(cache=True)
def _player0_return(i, st, cards, num_hole, hand, pow5, flush, keys, values):
    """Player 0's return in finished game ``i`` (player 1's is its negative)."""
    loser = st[i, _FOLDER]
    if loser < 0:  # showdown: rank hole cards plus board with the 7-card tables
        dealt = st[i, _DEALT]
        strength = np.zeros(2, dtype=np.int64)
        for p in range(2):
            for j in range(num_hole):
                hand[j] = cards[i, p * num_hole + j]
            for j in range(2 * num_hole, dealt):
                hand[j - num_hole] = cards[i, j]
            key = 0
            nibbles = 0
            for c in hand:
                key += pow5[c >> 2]
                nibbles += 1 << (4 * (c & 3))
            strength[p] = _strength(key, nibbles, hand, flush, keys, values)
        if strength[0] == strength[1]:
            return 0.0
        loser = 0 if strength[0] < strength[1] else 1
    won = float(st[i, _C0 + loser])
    return -won if loser == 0 else won


@njit(cache=True)
def _step(
    actions, active, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset,
    first, raise_sizes, action_offset, hand, pow5, flush, keys, values, rewards, terminated,
):  # fmt: skip
    num_hole = rules[0]
    nda = rules[2]
    num_rounds = rules[3]
    for i in range(actions.size):
        if not active[i]:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            terminated[i] = False
            continue
        a = actions[i]
        p = st[i, _PLAYER]
        r = st[i, _ROUND]
        pub[i, action_offset[r] + nda * st[i, _NACTS] + a] = 1.0
        st[i, _NACTS] += 1
        st[i, _ACTED] += 1
        top = max(st[i, _C0], st[i, _C1])
        done = False
        if a == 0:  # fold
            st[i, _FOLDER] = p
            done = True
        elif a == 1:  # call (check)
            st[i, _C0 + p] = top
            if st[i, _ACTED] < 2:
                st[i, _PLAYER] = 1 - p
            elif r + 1 == num_rounds:
                done = True
            else:  # the call closes the round
                r += 1
                st[i, _ROUND] = r
                st[i, _RAISES] = 0
                st[i, _ACTED] = 0
                st[i, _NACTS] = 0
                st[i, _PENDING] = board_cards[r]
                _deal(i, st, cards, deck, pub, rng, rules, board_offset, first)
        else:
            st[i, _C0 + p] = top + raise_sizes[r, a - 2]
            st[i, _RAISES] += 1
            st[i, _PLAYER] = 1 - p
        if done:
            r0 = _player0_return(i, st, cards, num_hole, hand, pow5, flush, keys, values)
            rewards[i, 0] = r0
            rewards[i, 1] = -r0
            terminated[i] = True
            _new_hand(i, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first)
        else:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            terminated[i] = False


@njit(cache=True)
def _observe(st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs, mask):
    """Each game's observation and legal mask for its player to act."""
    num_hole = rules[0]
    stack = rules[4]
    for i in range(st.shape[0]):
        p = st[i, _PLAYER]
        r = st[i, _ROUND]
        obs[i, :] = pub[i, :]
        obs[i, p] = 1.0
        for j in range(num_hole):
            obs[i, 2 + cards[i, p * num_hole + j]] = 1.0
        top = max(st[i, _C0], st[i, _C1])
        mask[i, :] = 0
        if st[i, _C0 + p] < top:
            mask[i, 0] = 1
        mask[i, 1] = 1
        if st[i, _RAISES] < max_raises[r]:
            for k in range(num_sizes[r]):
                if stack < 0 or top + raise_sizes[r, k] <= stack:
                    mask[i, 2 + k] = 1


@njit(cache=True)
def _reset_all(st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first):
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first)


class PokerVectorEnv(VectorEnvBase):
    """``num_envs`` hands of a limit poker game stepped at once (numba).

    Serves every :class:`~nashzoo.games.poker.PokerGame` on the standard 52-card deck
    whose hands have five to seven cards (Limit Hold'em and its variants); smaller games
    compile and run in :class:`~nashzoo.vector.TreeVectorEnv`.

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
        if not isinstance(game, PokerGame):
            raise InvalidParameterError(
                f"PokerVectorEnv expects a PokerGame, received {type(game).__name__}."
            )
        d = game.definition
        hand_cards = d.num_hole_cards + sum(d.num_board_cards)
        if not game.standard_hands:
            raise InvalidParameterError(
                "PokerVectorEnv ranks hands of 5 to 7 cards of the 52-card deck; received a "
                f"{d.num_cards}-card deck and {hand_cards}-card hands (small games run in "
                "TreeVectorEnv)."
            )
        assert (FOLD, CALL, RAISE) == (0, 1, 2)  # the numba code spells them out
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        self.game = game
        self.num_players = 2
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        stack = -1 if d.stack is None else d.stack
        self._rules = np.array(
            [d.num_hole_cards, d.num_cards, self.num_actions, d.num_rounds, stack], np.int64
        )
        self._blinds = np.array(d.blinds, np.int64)
        self._board_cards = np.array(d.num_board_cards, np.int64)
        self._board_offset = np.array(game.board_offset, np.int64)
        self._first = np.array(d.first_player, np.int64)
        self._max_raises = np.array(d.max_raises, np.int64)
        self._num_sizes = np.array([len(s) for s in d.raise_sizes], np.int64)
        sizes = np.zeros((d.num_rounds, d.num_raise_sizes), np.int64)
        for r, row in enumerate(d.raise_sizes):
            sizes[r, : len(row)] = row
        self._raise_sizes = sizes
        self._action_offset = np.array(game.round_action_offset, np.int64)
        self._tables = tables_arrays()
        self._hand = np.zeros(hand_cards, np.int64)
        n = self.num_envs
        self._st = np.zeros((n, _FIELDS), np.int64)
        self._card_rows = np.zeros((n, 2 * d.num_hole_cards + sum(d.num_board_cards)), np.int64)
        self._deck = np.zeros((n, d.num_cards), np.int64)
        self._pub = np.zeros((n, self.observation_size), np.float32)
        self._mask = np.zeros((n, self.num_actions), np.int8)
        if seed is not None:
            self.reset(seed=seed)

    def _reset_games(self) -> None:
        _reset_all(
            self._st, self._card_rows, self._deck, self._pub, self._rng, self._rules,
            self._blinds, self._board_cards, self._board_offset, self._first,
        )  # fmt: skip

    def _illegal(self, actions: np.ndarray) -> np.ndarray:
        return self._mask[np.arange(self.num_envs), actions] == 0

    def _legal_actions(self, game: int) -> list[int]:
        return np.flatnonzero(self._mask[game]).tolist()

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        _step(
            actions, active, self._st, self._card_rows, self._deck, self._pub, self._rng,
            self._rules, self._blinds, self._board_cards, self._board_offset, self._first,
            self._raise_sizes, self._action_offset, self._hand, _POW5, *self._tables,
            rewards, terminated,
        )  # fmt: skip

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        obs = np.empty((self.num_envs, self.observation_size), np.float32)
        _observe(
            self._st, self._card_rows, self._pub, self._rules, self._max_raises,
            self._raise_sizes, self._num_sizes, obs, self._mask,
        )  # fmt: skip
        return Batch(
            observation=obs,
            action_mask=self._mask.copy(),
            player=self._st[:, _PLAYER].copy(),
            rewards=rewards,
            terminated=terminated,
        )
