"""The ACPC poker rules in numba (:mod:`nashzoo.games.poker.game`, operation for operation),
for games on the 52-card deck whose hands have 5 to 7 cards: the batched env
(:class:`nashzoo.vector.PokerVectorEnv`, many games at once, row ``i`` of each array) and
the AEC env (:class:`nashzoo.envs.compiled.CompiledEnv`, one game: a *lane*) step the same
functions.

A game's integer state is a row of ``st`` (columns ``_PLAYER`` ... ``_PUBLIC``) beside its
cards (in the order dealt, and sorted), each player's chips in the pot, who has folded,
and the indices of the public part of its information-state tensor (board cards and
betting actions, in the order they happened). A step applies one action with the rules of
:mod:`nashzoo.games.poker.game` (the ACPC's, as OpenSpiel's ``universal_poker`` plays
them):

* the raise actions: a limit game's one raise (all-in when the stack is shorter); a
  no-limit game's pot fractions (raise to the bet plus the fraction of the pot after
  calling, rounded half away from zero) and All-In;
* the minimum raise-to (twice the big blind at first; a raise to ``r`` over a bet of
  ``m`` lifts it to ``2r - m``; a new round resets it to the bet plus the big blind);
* turns among the players who have neither folded nor gone all-in, a round closing when
  all of them have called the last raise, and the rest of the board dealt once at most
  one of them is left;
* the returns: one player left takes the others' chips; at a showdown, the hands ranked
  with the 7-card tables (:mod:`nashzoo.games.poker.hand_kernel`) and the pot split in
  side pots, smallest stake first, as ACPC's ``valueOfState`` splits it.

Which players have called since the last raise is kept as one count (the engine keeps
the round's action list): a player who called or raised does not act again before the
next raise, so the count is the engine's ``_called()`` at every step.

Cards are dealt as the engine deals them (:meth:`PokerState.advance_chance`): each
card the ``floor(u * n)``-th of the ``n`` cards left, ``u`` the next ``random()`` of the
game's own PCG64 (:mod:`nashzoo.games.pcg`), so a game seeded ``s`` deals the cards of
``np.random.default_rng(s)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from nashzoo.games.lane import Lane, pack
from nashzoo.games.lane import segment as _seg
from nashzoo.games.lane import segment_row as _row
from nashzoo.games.pcg import next_double
from nashzoo.games.poker.game import CALL, FOLD, PokerGame
from nashzoo.games.poker.hand_kernel import _POW5, _rank_hand, tables_arrays

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
def _deal(i, st, cards, ranked, pub, spent, folded, rng, g, rules, stacks, first, board_round,
          off):  # fmt: skip
    """Deal the cards pending in game ``i`` (one ``random()`` each of generator row ``g``:
    the game's own, or one shared by many games), then hand the move to the round's first
    player who can act, or end the hand if the betting is over.

    The ``k``-th of the cards left (in order) is found from the dealt cards kept sorted
    in ``ranked`` (at most a few dozen), rather than from a deck array shifted per card."""
    n = rules[_NP]
    private = n * rules[_HOLE]
    while st[i, _PENDING] > 0:
        dealt = st[i, _DEALT]
        card = int(next_double(rng, g) * (rules[_CARDS] - dealt))
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
def _new_hand(i, st, cards, ranked, pub, spent, folded, rng, g, rules, blinds, stacks, first,
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
    _deal(i, st, cards, ranked, pub, spent, folded, rng, g, rules, stacks, first, board_round, off)


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
        # a stack at or below the bet can only call (all in): a raise would lower it
        if st[i, _RAISES] < max_raises[st[i, _ROUND]] and stacks[p] > top:
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
         fractions, slot_start):  # fmt: skip
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
        if slot_start[r] >= 0:  # heads-up limit: each round's actions in a block of its own
            st[i, _MOVES] = slot_start[r]
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
        rank[p] = _rank_hand(hand, pow5, flush, keys, values)
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
def _step(actions, active, rewards, terminated, limit_sizes, fractions, slot_start, hand, pow5,
          flush, keys, values, rank, stakes, st, cards, ranked, pub, spent, folded, rng, rules,
          blinds, stacks, first, board_cards, board_round, off):  # fmt: skip
    n = rules[_NP]
    for i in range(actions.size):
        terminated[i] = False
        for p in range(n):
            rewards[i, p] = 0.0
        if not active[i]:
            continue
        result = _act(
            i, actions[i], st, pub, spent, folded, rules, stacks, first, board_cards,
            limit_sizes, fractions, slot_start,
        )  # fmt: skip
        if result == 2:
            _deal(i, st, cards, ranked, pub, spent, folded, rng, i, rules, stacks, first,
                  board_round, off)  # fmt: skip
            if st[i, _PLAYER] != _TERMINAL:
                continue
        elif result == 0:
            continue
        _returns(i, spent, folded, cards, rules, hand, pow5, flush, keys, values, rank, stakes,
                 rewards[i])  # fmt: skip
        terminated[i] = True
        _new_hand(i, st, cards, ranked, pub, spent, folded, rng, i, rules, blinds, stacks, first,
                  board_cards, board_round, off)  # fmt: skip


@njit(cache=True, inline="always")
def _tensor(i, p, st, cards, pub, rules, obs, first=0):
    """Player ``p``'s information-state tensor of game ``i`` into the zeroed row ``obs``
    (the engine's ``information_state_indices``); the public entries from the
    ``first``-th (those before are set already)."""
    h = rules[_HOLE]
    for j in range(first, st[i, _PUBLIC]):
        obs[pub[i, j]] = 1.0
    obs[p] = 1.0
    for j in range(h):
        obs[rules[_NP] + cards[i, p * h + j]] = 1.0


@njit(cache=True)
def _observe(st, cards, pub, spent, rules, stacks, limit_sizes, max_raises, fractions, obs,
             mask):  # fmt: skip
    """Each game's observation and legal mask for its player to act (``obs`` zeroed)."""
    for i in range(st.shape[0]):
        _tensor(i, st[i, _PLAYER], st, cards, pub, rules, obs[i])
        _legal(i, st, spent, rules, stacks, limit_sizes, max_raises, fractions, mask[i])


@njit(cache=True)
def _reset_all(st, cards, ranked, pub, spent, folded, rng, rules, blinds, stacks, first,
               board_cards, board_round, off):  # fmt: skip
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, ranked, pub, spent, folded, rng, i, rules, blinds, stacks, first,
                  board_cards, board_round, off)  # fmt: skip


class PokerRules(NamedTuple):
    """A game's definition as the arrays the compiled rules read."""

    rules: np.ndarray
    """``_NP`` ... ``_BOARD_TOTAL``: players, hole cards, deck, actions, rounds, big
    blind, limit (0/1), the All-In action, the tensor offset of the actions, board cards."""
    blinds: np.ndarray
    stacks: np.ndarray
    first: np.ndarray
    board_cards: np.ndarray
    board_round: np.ndarray
    """The round of each board card, in the order dealt."""
    off: np.ndarray
    """The tensor offset of each round's board."""
    limit_sizes: np.ndarray
    max_raises: np.ndarray
    fractions: np.ndarray
    slot_start: np.ndarray
    """Per round, the tensor slot of its first action (heads-up limit); -1: the actions
    take slots in the order played."""

    @classmethod
    def of(cls, game: PokerGame) -> PokerRules:
        """The arrays of ``game`` (its hands must be 5 to 7 cards of the 52-card deck:
        the caller checks)."""
        d = game.definition
        rules = np.zeros(10, np.int64)
        rules[_NP], rules[_HOLE], rules[_CARDS] = d.num_players, d.num_hole_cards, d.num_cards
        rules[_NDA], rules[_NR] = game.num_distinct_actions, d.num_rounds
        rules[_BB], rules[_LIMIT], rules[_ALL_IN] = d.big_blind, int(game.limit), game.all_in
        rules[_ACT_OFF], rules[_BOARD_TOTAL] = game.actions_offset, sum(d.num_board_cards)
        return cls(
            rules=rules,
            blinds=np.array(d.blinds, np.int64),
            stacks=np.array(d.stacks, np.int64),
            first=np.array(d.first_player, np.int64),
            board_cards=np.array(d.num_board_cards, np.int64),
            board_round=np.array(
                [r for r, k in enumerate(d.num_board_cards) for _ in range(k)] or [0], np.int64
            ),
            off=np.array(game.board_offset, np.int64),
            limit_sizes=np.array([s[0] for s in d.raise_sizes] or [0] * d.num_rounds, np.int64),
            max_raises=np.array(d.max_raises or [0] * d.num_rounds, np.int64),
            fractions=np.array(game.raises or [0.0], np.float64),
            slot_start=np.array(game.slot_start or [-1] * d.num_rounds, np.int64),
        )


# -- one game (a lane): every array in a few flat buffers, so that a decision is one call --
# numba unboxes each array argument of a call from Python (about 40 ns each); a lane keeps
# its integer arrays as segments of one buffer (``_S_*``, bounds in ``li``), its floats
# and int8s in two more, so a step takes 10 arguments where the batched one takes 27.
(
    _S_ST, _S_CARDS, _S_RANKED, _S_PUB, _S_SPENT, _S_RULES, _S_BLINDS, _S_STACKS, _S_FIRST,
    _S_BOARD_CARDS, _S_BOARD_ROUND, _S_OFF, _S_LIMIT_SIZES, _S_MAX_RAISES, _S_HAND, _S_RANK,
    _S_POW5, _S_HISTORY, _S_SLOT_START, _S_DECODED,
) = range(20)  # fmt: skip
_F_FRACTIONS, _F_STAKES, _F_RETURNS = range(3)
_B_FOLDED, _B_MASK = range(2)


@njit(cache=True, inline="always")
def _lane_tensor(p, ints, li, obs):
    """Player ``p``'s information-state tensor of the lane into ``obs`` (zeroed first)."""
    obs[:] = 0.0
    _tensor(
        0, p, _row(ints, li, _S_ST), _row(ints, li, _S_CARDS), _row(ints, li, _S_PUB),
        _seg(ints, li, _S_RULES), obs,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _lane_publish(ints, li, flo, lf, i8, lb, obs):
    """The lane's tensor and mask for its player to act (zeros at the end) and its public
    history (hole cards hidden, then the board cards and actions in order, -1 after)."""
    st = _row(ints, li, _S_ST)
    cards = _row(ints, li, _S_CARDS)
    pub = _row(ints, li, _S_PUB)
    rules = _seg(ints, li, _S_RULES)
    history = _seg(ints, li, _S_HISTORY)
    mask = _row(i8, lb, _B_MASK)
    p = st[0, _PLAYER]
    decoded = _seg(ints, li, _S_DECODED)
    if p >= 0:
        # the tensor in place: within a hand the public entries only grow (those before
        # ``decoded[0]`` are set already); the seat and the hole cards are the player's
        obs[: rules[_NP] + rules[_CARDS]] = 0.0
        _tensor(0, p, st, cards, pub, rules, obs, decoded[0])
        _legal(
            0, st, _row(ints, li, _S_SPENT), rules, _seg(ints, li, _S_STACKS),
            _seg(ints, li, _S_LIMIT_SIZES), _seg(ints, li, _S_MAX_RAISES),
            _seg(flo, lf, _F_FRACTIONS), mask[0],
        )  # fmt: skip
    else:
        obs[:] = 0.0
        mask[0, :] = 0
    # the public events not yet in the history: ``decoded`` holds how many are, and how
    # many of them were board cards
    hidden = rules[_NP] * rules[_HOLE]
    act_off = rules[_ACT_OFF]
    for j in range(decoded[0], st[0, _PUBLIC]):
        idx = pub[0, j]
        if idx >= act_off:
            history[hidden + j] = (idx - act_off) % rules[_NDA]
        else:
            history[hidden + j] = cards[0, hidden + decoded[1]]
            decoded[1] += 1
    decoded[0] = st[0, _PUBLIC]


@njit(cache=True)
def lane_reset(ints, li, flo, lf, i8, lb, rng, obs):
    """Deal a new hand in the lane; returns its player to act."""
    st = _row(ints, li, _S_ST)
    _seg(ints, li, _S_HISTORY)[:] = -1
    _seg(ints, li, _S_DECODED)[:] = 0
    obs[:] = 0.0
    _new_hand(
        0, st, _row(ints, li, _S_CARDS), _row(ints, li, _S_RANKED), _row(ints, li, _S_PUB),
        _row(ints, li, _S_SPENT), _row(i8, lb, _B_FOLDED), rng, 0, _seg(ints, li, _S_RULES),
        _seg(ints, li, _S_BLINDS), _seg(ints, li, _S_STACKS), _seg(ints, li, _S_FIRST),
        _seg(ints, li, _S_BOARD_CARDS), _seg(ints, li, _S_BOARD_ROUND), _seg(ints, li, _S_OFF),
    )  # fmt: skip
    _lane_publish(ints, li, flo, lf, i8, lb, obs)
    return st[0, _PLAYER]


@njit(cache=True)
def lane_step(a, ints, li, flo, lf, i8, lb, rng, obs, flush, keys, values):
    """Apply legal action ``a`` of the lane's player to act, deal what is owed, and at the
    end put the returns in the float buffer; returns the player to act (-4 at the end)."""
    st = _row(ints, li, _S_ST)
    cards = _row(ints, li, _S_CARDS)
    pub = _row(ints, li, _S_PUB)
    spent = _row(ints, li, _S_SPENT)
    folded = _row(i8, lb, _B_FOLDED)
    rules = _seg(ints, li, _S_RULES)
    stacks = _seg(ints, li, _S_STACKS)
    first = _seg(ints, li, _S_FIRST)
    result = _act(
        0, a, st, pub, spent, folded, rules, stacks, first, _seg(ints, li, _S_BOARD_CARDS),
        _seg(ints, li, _S_LIMIT_SIZES), _seg(flo, lf, _F_FRACTIONS), _seg(ints, li, _S_SLOT_START),
    )  # fmt: skip
    if result == 2:
        _deal(
            0, st, cards, _row(ints, li, _S_RANKED), pub, spent, folded, rng, 0, rules, stacks,
            first, _seg(ints, li, _S_BOARD_ROUND), _seg(ints, li, _S_OFF),
        )  # fmt: skip
    if st[0, _PLAYER] == _TERMINAL:
        _returns(
            0, spent, folded, cards, rules, _seg(ints, li, _S_HAND), _seg(ints, li, _S_POW5),
            flush, keys, values, _seg(ints, li, _S_RANK), _seg(flo, lf, _F_STAKES),
            _seg(flo, lf, _F_RETURNS),
        )  # fmt: skip
    _lane_publish(ints, li, flo, lf, i8, lb, obs)
    return st[0, _PLAYER]


@njit(cache=True)
def lane_tensor(p, ints, li, obs):
    """Player ``p``'s information-state tensor of the lane into ``obs``."""
    _lane_tensor(p, ints, li, obs)


class PokerLane(Lane):
    """One hand of an ACPC game in the compiled rules (:class:`~nashzoo.games.lane.Lane`):
    the same cards, tensors, masks, public history and returns as an
    :class:`~nashzoo.games.poker.game.PokerState` dealt from the same generator (a
    test plays the two in lockstep); ``player`` is -4 at the end."""

    def __init__(self, game: PokerGame) -> None:
        super().__init__()
        self.game = game
        d = game.definition
        arrays = PokerRules.of(game)
        n = d.num_players
        dealt = n * d.num_hole_cards + sum(d.num_board_cards)
        pub = game.max_game_length + sum(d.num_board_cards)
        self._ints, li = pack(
            [
                np.zeros(_FIELDS), np.zeros(dealt), np.zeros(dealt), np.zeros(pub),
                np.zeros(n), arrays.rules, arrays.blinds, arrays.stacks, arrays.first,
                arrays.board_cards, arrays.board_round, arrays.off, arrays.limit_sizes,
                arrays.max_raises, np.zeros(d.num_hole_cards + sum(d.num_board_cards)),
                np.zeros(n), _POW5, np.full(game.max_history_length, -1), arrays.slot_start,
                np.zeros(2),
            ],
            np.int64,
        )  # fmt: skip
        self._flo, self._lf = pack([arrays.fractions, np.zeros(n), np.zeros(n)], np.float64)
        self._i8, self._lb = pack([np.zeros(n), np.zeros(game.num_distinct_actions)], np.int8)
        self._li = li
        self.tensor = np.zeros(game.information_state_tensor_size, np.float32)
        self._hidden = n * d.num_hole_cards
        self._bind()

    _derived = (
        "mask", "history", "returns", "_st", "_cards", "_reset_args", "_step_args",
        "_tensor_args",
    )  # fmt: skip
    _reset_kernel = staticmethod(lane_reset)
    _step_kernel = staticmethod(lane_step)
    _tensor_kernel = staticmethod(lane_tensor)

    def _bind(self) -> None:
        li, lf, lb = self._li, self._lf, self._lb
        self.mask = self._i8[lb[_B_MASK] : lb[_B_MASK + 1]]
        self.history = self._ints[li[_S_HISTORY] : li[_S_HISTORY + 1]]
        self.returns = self._flo[lf[_F_RETURNS] : lf[_F_RETURNS + 1]]
        self._st = self._ints[li[_S_ST] : li[_S_ST + 1]]
        self._cards = self._ints[li[_S_CARDS] : li[_S_CARDS + 1]]
        self._reset_args = (self._ints, li, self._flo, lf, self._i8, lb, self._rng, self.tensor)
        self._step_args = (*self._reset_args, *tables_arrays())
        self._tensor_args = (self._ints, li)

    @property
    def history_length(self) -> int:
        return self._hidden + int(self._st[_PUBLIC])
