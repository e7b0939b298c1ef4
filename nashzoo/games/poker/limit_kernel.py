"""The heads-up limit poker rules of :mod:`nashzoo.games.poker.engine` in numba, for games
on the 52-card deck whose hands have 5 to 7 cards (Limit Hold'em): the batched env
(:class:`nashzoo.vector.PokerVectorEnv`, row ``i`` of each array a game), simplex-gradient's
:class:`nashzoo.vector.poker_env.PokerDecisions` and the AEC env's lane
(:class:`LimitLane`) step the same functions.

Each game keeps its cards, the undealt deck (sorted), the bets and the public part of its
information-state tensor; a step applies one action with the engine's rules, deals the
next round's board, and at the end ranks both hands with the 7-card tables
(:mod:`nashzoo.games.poker.hand_kernel`). Cards are dealt as the engine deals them
(:meth:`PokerState.advance_chance`): each card the ``floor(u * n)``-th of the ``n`` cards
left, ``u`` the next ``random()`` of the game's PCG64 (:mod:`nashzoo.games.pcg`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nashzoo.games.lane import Lane, pack
from nashzoo.games.lane import segment as _seg
from nashzoo.games.lane import segment_row as _row
from nashzoo.games.pcg import next_double
from nashzoo.games.poker.engine import PokerGame
from nashzoo.games.poker.hand_kernel import _POW5, _rank_hand, tables_arrays

_CHANCE = -1
_TERMINAL = -4

# columns of the per-game integer state
_PLAYER, _ROUND, _RAISES, _ACTED, _NACTS, _FOLDER, _PENDING, _DEALT, _LEFT, _C0, _C1 = range(11)
_FIELDS = 11


@njit(cache=True)
def _deal(i, st, cards, deck, pub, rng, r_gen, rules, board_offset, first_player):
    """Deal the cards pending in game ``i`` (one ``random()`` of generator ``rng[r_gen]``
    each), then hand the move to the round's first player."""
    num_hole = rules[0]
    r = st[i, _ROUND]
    while st[i, _PENDING] > 0:
        left = st[i, _LEFT]
        k = int(next_double(rng, r_gen) * left)
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
def _new_hand(i, st, cards, deck, pub, rng, r_gen, rules, blinds, board_cards, board_offset, first):
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
    _deal(i, st, cards, deck, pub, rng, r_gen, rules, board_offset, first)


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
            strength[p] = _rank_hand(hand, pow5, flush, keys, values)
        if strength[0] == strength[1]:
            return 0.0
        loser = 0 if strength[0] < strength[1] else 1
    won = float(st[i, _C0 + loser])
    return -won if loser == 0 else won


@njit(cache=True)
def _act(i, a, st, pub, raise_sizes, action_offset, nda, num_rounds, board_cards):
    """Apply action ``a`` of game ``i``'s player to act (the betting only): returns 0 if
    the round goes on, 1 if the hand is over (a fold, or the last round's closing call),
    2 if a call closed the round (the next round's cards are then pending)."""
    p = st[i, _PLAYER]
    r = st[i, _ROUND]
    pub[i, action_offset[r] + nda * st[i, _NACTS] + a] = 1.0
    st[i, _NACTS] += 1
    st[i, _ACTED] += 1
    top = max(st[i, _C0], st[i, _C1])
    if a == 0:  # fold
        st[i, _FOLDER] = p
        return 1
    if a == 1:  # call (check)
        st[i, _C0 + p] = top
        if st[i, _ACTED] < 2:
            st[i, _PLAYER] = 1 - p
            return 0
        if r + 1 == num_rounds:
            return 1
        r += 1  # the call closes the round
        st[i, _ROUND] = r
        st[i, _RAISES] = 0
        st[i, _ACTED] = 0
        st[i, _NACTS] = 0
        st[i, _PENDING] = board_cards[r]
        return 2
    st[i, _C0 + p] = top + raise_sizes[r, a - 2]
    st[i, _RAISES] += 1
    st[i, _PLAYER] = 1 - p
    return 0


@njit(cache=True, inline="always")
def _view(i, st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs, mask):
    """The view (tensor) and legal mask of game ``i``'s player to act into the rows
    ``obs`` and ``mask``."""
    num_hole = rules[0]
    stack = rules[4]
    p = st[i, _PLAYER]
    r = st[i, _ROUND]
    obs[:] = pub[i, :]
    obs[p] = 1.0
    for k in range(num_hole):
        obs[2 + cards[i, p * num_hole + k]] = 1.0
    top = max(st[i, _C0], st[i, _C1])
    mask[:] = 0
    if st[i, _C0 + p] < top:
        mask[0] = 1
    mask[1] = 1
    if st[i, _RAISES] < max_raises[r]:
        for k in range(num_sizes[r]):
            if stack < 0 or top + raise_sizes[r, k] <= stack:
                mask[2 + k] = 1


# -- one game (a lane) ---------------------------------------------------------------------
(
    _S_ST, _S_CARDS, _S_DECK, _S_RULES, _S_BLINDS, _S_BOARD_CARDS, _S_BOARD_OFFSET, _S_FIRST,
    _S_MAX_RAISES, _S_NUM_SIZES, _S_RAISE_SIZES, _S_ACTION_OFFSET, _S_SLOTS, _S_HAND, _S_POW5,
    _S_HISTORY, _S_LENGTH,
) = range(17)  # fmt: skip


@njit(cache=True, inline="always")
def _sizes(ints, li):
    """The ``(rounds, sizes)`` table of raise sizes."""
    rounds = li[_S_BOARD_CARDS + 1] - li[_S_BOARD_CARDS]
    flat = _seg(ints, li, _S_RAISE_SIZES)
    return flat.reshape((rounds, flat.size // rounds))


@njit(cache=True, inline="always")
def _lane_publish(ints, li, pub, mask, obs):
    """The lane's view and mask for its player to act (zeros at the end) and its public
    history: the hole cards hidden, then each round's board cards and actions."""
    st = _row(ints, li, _S_ST)
    cards = _row(ints, li, _S_CARDS)
    rules = _seg(ints, li, _S_RULES)
    if st[0, _PLAYER] >= 0:
        _view(
            0, st, cards, pub, rules, _seg(ints, li, _S_MAX_RAISES), _sizes(ints, li),
            _seg(ints, li, _S_NUM_SIZES), obs, mask,
        )  # fmt: skip
    else:
        obs[:] = 0.0
        mask[:] = 0
    history = _seg(ints, li, _S_HISTORY)
    board_cards = _seg(ints, li, _S_BOARD_CARDS)
    action_offset = _seg(ints, li, _S_ACTION_OFFSET)
    slots = _seg(ints, li, _S_SLOTS)
    nda = rules[2]
    history[:] = -1
    pos = 2 * rules[0]
    board = pos
    for r in range(st[0, _ROUND] + 1):
        for _ in range(board_cards[r]):
            if board < st[0, _DEALT]:
                history[pos] = cards[0, board]
                pos += 1
                board += 1
        for k in range(slots[r]):
            base = action_offset[r] + nda * k
            found = -1
            for a in range(nda):
                if pub[0, base + a] > 0.0:
                    found = a
            if found < 0:
                break
            history[pos] = found
            pos += 1
    ints[li[_S_LENGTH]] = pos


@njit(cache=True)
def limit_lane_reset(ints, li, pub, mask, rng, obs):
    """Deal a new hand in the lane; returns its player to act."""
    st = _row(ints, li, _S_ST)
    _new_hand(
        0, st, _row(ints, li, _S_CARDS), _row(ints, li, _S_DECK), pub, rng, 0,
        _seg(ints, li, _S_RULES), _seg(ints, li, _S_BLINDS), _seg(ints, li, _S_BOARD_CARDS),
        _seg(ints, li, _S_BOARD_OFFSET), _seg(ints, li, _S_FIRST),
    )  # fmt: skip
    _lane_publish(ints, li, pub, mask, obs)
    return st[0, _PLAYER]


@njit(cache=True)
def limit_lane_step(a, ints, li, pub, mask, rng, obs, returns, flush, keys, values):
    """Apply legal action ``a`` of the lane's player to act and deal what is owed; at the
    end put both returns in ``returns``; returns the player to act (-4 at the end)."""
    st = _row(ints, li, _S_ST)
    cards = _row(ints, li, _S_CARDS)
    rules = _seg(ints, li, _S_RULES)
    board_cards = _seg(ints, li, _S_BOARD_CARDS)
    result = _act(
        0, a, st, pub, _sizes(ints, li), _seg(ints, li, _S_ACTION_OFFSET), rules[2], rules[3],
        board_cards,
    )  # fmt: skip
    if result == 2:
        _deal(
            0, st, cards, _row(ints, li, _S_DECK), pub, rng, 0, rules,
            _seg(ints, li, _S_BOARD_OFFSET), _seg(ints, li, _S_FIRST),
        )  # fmt: skip
    elif result == 1:
        r0 = _player0_return(
            0, st, cards, rules[0], _seg(ints, li, _S_HAND), _seg(ints, li, _S_POW5), flush,
            keys, values,
        )  # fmt: skip
        returns[0] = r0
        returns[1] = -r0
        st[0, _PLAYER] = _TERMINAL
    _lane_publish(ints, li, pub, mask, obs)
    return st[0, _PLAYER]


@njit(cache=True)
def limit_lane_tensor(p, ints, li, pub, obs):
    """Player ``p``'s information-state tensor of the lane into ``obs``."""
    num_hole = ints[li[_S_RULES]]
    cards = _seg(ints, li, _S_CARDS)
    obs[:] = pub[0, :]
    obs[p] = 1.0
    for k in range(num_hole):
        obs[2 + cards[p * num_hole + k]] = 1.0


class LimitLane(Lane):
    """One hand of a heads-up limit poker game in the compiled rules
    (:class:`~nashzoo.games.lane.Lane`): the same cards, tensors, masks, public history
    and returns as a :class:`~nashzoo.games.poker.engine.PokerState` dealt from the same
    generator (a test plays the two in lockstep); ``player`` is -4 at the end."""

    def __init__(self, game: PokerGame) -> None:
        super().__init__()
        self.game = game
        d = game.definition
        sizes = np.zeros((d.num_rounds, d.num_raise_sizes), np.int64)
        for r, row in enumerate(d.raise_sizes):
            sizes[r, : len(row)] = row
        h = d.num_hole_cards
        self._ints, li = pack(
            [
                np.zeros(_FIELDS), np.zeros(2 * h + sum(d.num_board_cards)),
                np.zeros(d.num_cards),
                [h, d.num_cards, game.num_distinct_actions, d.num_rounds,
                 -1 if d.stack is None else d.stack],
                d.blinds, d.num_board_cards, game.board_offset, d.first_player, d.max_raises,
                [len(s) for s in d.raise_sizes], sizes, game.round_action_offset,
                game.round_slots, np.zeros(h + sum(d.num_board_cards)), _POW5,
                np.full(game.max_history_length, -1), [0],
            ],
            np.int64,
        )  # fmt: skip
        self._li = li
        size = game.information_state_tensor_size
        self._pub = np.zeros((1, size), np.float32)
        self.tensor = np.zeros(size, np.float32)
        self.mask = np.zeros(game.num_distinct_actions, np.int8)
        self.returns = np.zeros(2, np.float64)
        self._length_at = int(li[_S_LENGTH])
        self._hidden = 2 * h
        self._bind()

    _derived = ("history", "_cards", "_reset_args", "_step_args", "_tensor_args")
    _reset_kernel = staticmethod(limit_lane_reset)
    _step_kernel = staticmethod(limit_lane_step)
    _tensor_kernel = staticmethod(limit_lane_tensor)

    def _bind(self) -> None:
        li = self._li
        self.history = self._ints[li[_S_HISTORY] : li[_S_HISTORY + 1]]
        self._cards = self._ints[li[_S_CARDS] : li[_S_CARDS + 1]]
        self._reset_args = (self._ints, li, self._pub, self.mask, self._rng, self.tensor)
        self._step_args = (*self._reset_args, self.returns, *tables_arrays())
        self._tensor_args = (self._ints, li, self._pub)

    @property
    def history_length(self) -> int:
        return int(self._ints[self._length_at])
