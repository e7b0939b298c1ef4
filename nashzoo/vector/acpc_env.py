"""Batched ACPC poker (numba): N games of an :class:`~nashzoo.games.poker.acpc.AcpcPokerGame`
stepped at once: no-limit Hold'em and tables of three to ten players.

Each game keeps its cards (in the order dealt, and sorted), each player's chips in the
pot, who has folded, the betting round's counters and the indices of the public part of
its information-state tensor (board cards and betting actions) in arrays. A step applies
one action per game with the rules of :mod:`nashzoo.games.poker.acpc` (the ACPC's, as
OpenSpiel's ``universal_poker`` plays them):

* the raise actions: a limit game's one raise (all-in when the stack is shorter); a
  no-limit game's pot fractions (raise to the bet plus the fraction of the pot after
  calling, rounded half away from zero) and All-In;
* the minimum raise-to (twice the big blind at first; a raise to ``r`` over a bet of
  ``m`` lifts it to ``2r - m``; a new round resets it to the bet plus the big blind);
* turns among the players who have neither folded nor gone all-in, a round closing when
  all of them have called the last raise, and the rest of the board dealt once at most
  one of them is left;
* the returns: one player left takes the others' chips; at a showdown, the hands ranked
  with the 7-card tables (:mod:`nashzoo.vector.hands`) and the pot split in side pots,
  smallest stake first, as ACPC's ``valueOfState`` splits it.

Which players have called since the last raise is kept as one count (the engine keeps
the round's action list): a player who called or raised does not act again before the
next raise, so the count is the engine's ``_called()`` at every step.

Cards are dealt as the engine deals them (:meth:`AcpcPokerState.advance_chance`): each
card the ``floor(u * n)``-th of the ``n`` cards left, ``u`` the next ``random()`` of the
game's own PCG64 (:mod:`nashzoo.vector.pcg`). So game ``i`` seeded ``seed + i`` plays
exactly the hands of the single env ``reset(seed=seed + i)``: the same cards,
observations, masks and returns (a test against
:class:`~nashzoo.vector.StateVectorEnv`, which steps the engine's own states).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.games.poker.acpc import CALL, FOLD, AcpcPokerGame
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch
from nashzoo.vector.hands import _POW5, _strength, check_poker_game, tables_arrays
from nashzoo.vector.pcg import next_double

__all__ = ["AcpcVectorEnv"]

_CHANCE = -1
_TERMINAL = -4

# columns of the per-game integer state
(
    _PLAYER, _ROUND, _PENDING, _DEALT, _LIVE, _FINISHED, _MAX_SPENT, _MIN_RAISE_TO,
    _MOVES, _RAISES, _CALLED, _FOLDED, _PUBLIC,
) = range(13)  # fmt: skip
_FIELDS = 13

# rows of the rules vector
_NP, _HOLE, _CARDS, _NDA, _NR, _BB, _LIMIT, _ALL_IN, _ACT_OFF, _BOARD_TOTAL = range(10)


@njit(cache=True, inline="always")
def _next_to_act(i, after, spent, folded, stacks, n):
    """The next player after ``after`` who has neither folded nor gone all-in."""
    q = after
    for _ in range(n):
        q = (q + 1) % n
        if folded[i, q] == 0 and spent[i, q] < stacks[q]:
            return q
    return after


@njit(cache=True, inline="always")
def _deal(i, st, cards, ranked, pub, spent, folded, rng, rules, stacks, first, board_round, off):
    """Deal the cards pending in game ``i`` (one ``random()`` each), then hand the move to
    the round's first player who can act, or end the hand if the betting is over.

    The ``k``-th of the cards left (in order) is found from the dealt cards kept sorted
    in ``ranked`` (at most a few dozen), rather than from a deck array shifted per card."""
    n = rules[_NP]
    private = n * rules[_HOLE]
    while st[i, _PENDING] > 0:
        dealt = st[i, _DEALT]
        card = int(next_double(rng, i) * (rules[_CARDS] - dealt))
        j = 0
        while j < dealt and ranked[i, j] <= card:
            card += 1
            j += 1
        for m in range(dealt, j, -1):  # insert it, keeping the dealt cards sorted
            ranked[i, m] = ranked[i, m - 1]
        ranked[i, j] = card
        cards[i, dealt] = card
        st[i, _DEALT] = dealt + 1
        st[i, _PENDING] -= 1
        if dealt >= private:  # a board card, in the slot of the round it belongs to
            _public(i, off[board_round[dealt - private]] + card, st, pub)
    if st[i, _FINISHED]:
        st[i, _PLAYER] = _TERMINAL
    else:
        start = (first[st[i, _ROUND]] - 1) % n
        st[i, _PLAYER] = _next_to_act(i, start, spent, folded, stacks, n)


@njit(cache=True, inline="always")
def _public(i, index, st, pub):
    """Record a public tensor index of game ``i`` (a board card or a betting action)."""
    pub[i, st[i, _PUBLIC]] = index
    st[i, _PUBLIC] += 1


@njit(cache=True)
def _new_hand(i, st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
              board_cards, board_round, off):  # fmt: skip
    n = rules[_NP]
    st[i, _PUBLIC] = 0
    top = 0
    for p in range(n):
        spent[i, p] = blinds[p]
        folded[i, p] = 0
        top = max(top, blinds[p])
    st[i, _ROUND] = 0
    st[i, _DEALT] = 0
    st[i, _PENDING] = n * rules[_HOLE] + board_cards[0]
    st[i, _LIVE] = n
    st[i, _FINISHED] = 0
    st[i, _MAX_SPENT] = top
    st[i, _MIN_RAISE_TO] = 2 * top
    st[i, _MOVES] = 0
    st[i, _RAISES] = 0
    st[i, _CALLED] = 0
    st[i, _FOLDED] = 0
    _deal(i, st, cards, ranked, pub, spent, folded, rng, rules, stacks, first, board_round, off)


@njit(cache=True, inline="always")
def _raise_to(i, p, a, st, spent, rules, stacks, limit_sizes, fractions):
    """The raise-to total of raise action ``a`` of player ``p`` in game ``i``."""
    if rules[_LIMIT]:
        return min(st[i, _MAX_SPENT] + limit_sizes[st[i, _ROUND]], stacks[p])
    if a == rules[_ALL_IN]:
        return stacks[p]
    top = st[i, _MAX_SPENT]
    pot = 0
    for q in range(rules[_NP]):
        pot += spent[i, q]
    pot_after_call = pot + top - spent[i, p]
    return int(np.floor(top + fractions[a - 2] * pot_after_call + 0.5))


@njit(cache=True, inline="always")
def _legal(i, st, spent, rules, stacks, limit_sizes, max_raises, fractions, row):
    """Game ``i``'s legal actions for its player to act, as 0/1 into ``row``."""
    p = st[i, _PLAYER]
    row[:] = 0
    row[CALL] = 1
    top = st[i, _MAX_SPENT]
    if spent[i, p] < top and spent[i, p] < stacks[p]:
        row[FOLD] = 1
    if st[i, _LIVE] <= 1:
        return
    if rules[_LIMIT]:
        if st[i, _RAISES] < max_raises[st[i, _ROUND]]:
            row[2] = 1
        return
    stack = stacks[p]
    low = st[i, _MIN_RAISE_TO]
    if low > stack:
        if top >= stack:
            return
        low = stack
    for a in range(2, rules[_ALL_IN]):
        size = _raise_to(i, p, a, st, spent, rules, stacks, limit_sizes, fractions)
        if low <= size < stack:
            row[a] = 1
    row[rules[_ALL_IN]] = 1


@njit(cache=True, inline="always")
def _act(i, a, st, pub, spent, folded, rules, stacks, first, board_cards, limit_sizes,
         fractions):  # fmt: skip
    """Apply action ``a`` of game ``i``'s player to act (the betting only): returns 0 if a
    player is to act, 1 if the hand is over, 2 if cards are to be dealt (a new round's
    board, or the rest of the board once the betting is over)."""
    n = rules[_NP]
    p = st[i, _PLAYER]
    _public(i, rules[_ACT_OFF] + rules[_NDA] * st[i, _MOVES] + a, st, pub)
    st[i, _MOVES] += 1
    if a == FOLD:
        folded[i, p] = 1
        st[i, _FOLDED] += 1
        st[i, _LIVE] -= 1
        if st[i, _FOLDED] + 1 >= n:  # one player left: no showdown
            st[i, _PLAYER] = _TERMINAL
            st[i, _FINISHED] = 1
            return 1
    elif a == CALL:
        spent[i, p] = min(st[i, _MAX_SPENT], stacks[p])
        if spent[i, p] >= stacks[p]:
            st[i, _LIVE] -= 1
        else:
            st[i, _CALLED] += 1
    else:
        size = _raise_to(i, p, a, st, spent, rules, stacks, limit_sizes, fractions)
        if 2 * size - st[i, _MAX_SPENT] > st[i, _MIN_RAISE_TO]:
            st[i, _MIN_RAISE_TO] = 2 * size - st[i, _MAX_SPENT]
        st[i, _MAX_SPENT] = size
        spent[i, p] = size
        st[i, _RAISES] += 1
        if size >= stacks[p]:
            st[i, _LIVE] -= 1
            st[i, _CALLED] = 0
        else:
            st[i, _CALLED] = 1
    if st[i, _CALLED] < st[i, _LIVE]:
        st[i, _PLAYER] = _next_to_act(i, p, spent, folded, stacks, n)
        return 0
    # the round is over
    r = st[i, _ROUND]
    if st[i, _LIVE] > 1 and r + 1 < rules[_NR]:
        r += 1
        st[i, _ROUND] = r
        st[i, _MIN_RAISE_TO] = st[i, _MAX_SPENT] + max(rules[_BB], 1)
        st[i, _RAISES] = 0
        st[i, _CALLED] = 0
        st[i, _PENDING] = board_cards[r]
        if board_cards[r]:
            st[i, _PLAYER] = _CHANCE
            return 2
        st[i, _PLAYER] = _next_to_act(i, (first[r] - 1) % n, spent, folded, stacks, n)
        return 0
    st[i, _FINISHED] = 1
    st[i, _ROUND] = rules[_NR] - 1
    st[i, _PENDING] = rules[_BOARD_TOTAL] - (st[i, _DEALT] - n * rules[_HOLE])
    if st[i, _PENDING]:
        st[i, _PLAYER] = _CHANCE
        return 2
    st[i, _PLAYER] = _TERMINAL
    return 1


@njit(cache=True)
def _returns(i, spent, folded, cards, rules, hand, pow5, flush, keys, values, rank, stakes, out):
    """Every player's return in finished game ``i``, into ``out`` (the engine's
    ``returns``, operation for operation)."""
    n = rules[_NP]
    h = rules[_HOLE]
    total = 0
    last = -1
    live = 0
    for p in range(n):
        total += spent[i, p]
        if folded[i, p] == 0:
            live += 1
            last = p
    if live == 1:
        for p in range(n):
            out[p] = -float(spent[i, p])
        out[last] = float(total - spent[i, last])
        return
    board = rules[_BOARD_TOTAL]
    for p in range(n):
        out[p] = 0.0
        stakes[p] = float(spent[i, p])
        if folded[i, p]:
            continue
        for j in range(h):
            hand[j] = cards[i, p * h + j]
        for j in range(board):
            hand[h + j] = cards[i, n * h + j]
        key = 0
        nibbles = 0
        for c in hand:
            key += pow5[c >> 2]
            nibbles += 1 << (4 * (c & 3))
        rank[p] = _strength(key, nibbles, hand, flush, keys, values)
    while True:
        inside = 0
        size = 0.0
        best = -1
        for p in range(n):
            if stakes[p] > 0:
                if inside == 0 or stakes[p] < size:
                    size = stakes[p]
                inside += 1
                if folded[i, p] == 0 and rank[p] > best:
                    best = rank[p]
        if inside < 2:
            return  # what nobody matched goes back
        winners = 0
        for p in range(n):
            if stakes[p] > 0 and folded[i, p] == 0 and rank[p] == best:
                winners += 1
        pot = size * inside
        share = pot / winners
        for p in range(n):
            if stakes[p] > 0:
                out[p] -= size
                stakes[p] -= size
                if folded[i, p] == 0 and rank[p] == best:
                    out[p] += share


@njit(cache=True)
def _step(actions, active, rewards, terminated, limit_sizes, fractions, hand, pow5, flush, keys,
          values, rank, stakes, st, cards, ranked, pub, spent, folded, rng, rules, blinds,
          stacks, first, board_cards, board_round, off):  # fmt: skip
    n = rules[_NP]
    for i in range(actions.size):
        terminated[i] = False
        for p in range(n):
            rewards[i, p] = 0.0
        if not active[i]:
            continue
        result = _act(
            i, actions[i], st, pub, spent, folded, rules, stacks, first, board_cards,
            limit_sizes, fractions,
        )  # fmt: skip
        if result == 2:
            _deal(i, st, cards, ranked, pub, spent, folded, rng, rules, stacks, first,
                  board_round, off)  # fmt: skip
            if st[i, _PLAYER] != _TERMINAL:
                continue
        elif result == 0:
            continue
        _returns(i, spent, folded, cards, rules, hand, pow5, flush, keys, values, rank, stakes,
                 rewards[i])  # fmt: skip
        terminated[i] = True
        _new_hand(i, st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
                  board_cards, board_round, off)  # fmt: skip


@njit(cache=True)
def _observe(st, cards, pub, spent, rules, stacks, limit_sizes, max_raises, fractions, obs,
             mask):  # fmt: skip
    """Each game's observation and legal mask for its player to act."""
    h = rules[_HOLE]
    n = rules[_NP]
    for i in range(st.shape[0]):
        p = st[i, _PLAYER]
        for j in range(st[i, _PUBLIC]):
            obs[i, pub[i, j]] = 1.0
        obs[i, p] = 1.0
        for j in range(h):
            obs[i, n + cards[i, p * h + j]] = 1.0
        _legal(i, st, spent, rules, stacks, limit_sizes, max_raises, fractions, mask[i])


@njit(cache=True)
def _reset_all(st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
               board_cards, board_round, off):  # fmt: skip
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
                  board_cards, board_round, off)  # fmt: skip


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
        rules = np.zeros(10, np.int64)
        rules[_NP], rules[_HOLE], rules[_CARDS] = n, d.num_hole_cards, d.num_cards
        rules[_NDA], rules[_NR], rules[_BB] = self.num_actions, d.num_rounds, d.big_blind
        rules[_LIMIT], rules[_ALL_IN] = int(game.limit), game.all_in
        rules[_ACT_OFF], rules[_BOARD_TOTAL] = game.actions_offset, sum(d.num_board_cards)
        self._rules = rules
        self._blinds = np.array(d.blinds, np.int64)
        self._stack_row = np.array(d.stacks, np.int64)
        self._first = np.array(d.first_player, np.int64)
        self._board_cards = np.array(d.num_board_cards, np.int64)
        self._board_round = np.array(
            [r for r, k in enumerate(d.num_board_cards) for _ in range(k)] or [0], np.int64
        )
        self._offset = np.array(game.board_offset, np.int64)
        self._limit_sizes = np.array(d.raise_sizes or [0] * d.num_rounds, np.int64)
        self._max_raises = np.array(d.max_raises or [0] * d.num_rounds, np.int64)
        self._fractions = np.array(game.raises or [0.0], np.float64)
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
