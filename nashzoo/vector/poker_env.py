"""Batched limit poker (numba): N games of a :class:`~nashzoo.games.poker.PokerGame`
stepped at once, for games too big to compile (heads-up Limit Hold'em).

Each game keeps its cards, the undealt deck (sorted), the bets and the public part of
its information-state tensor in arrays; a step applies one action per game with the
engine's rules (:mod:`nashzoo.games.poker.engine`), deals the next round's board, and at
the end of a hand ranks both hands with the 7-card tables
(:mod:`nashzoo.vector.hands`), records the returns and deals the next hand (auto-reset).

:class:`PokerDecisions` plays hands decision by decision for simplex-gradient self-play:
the views of the players to act, the actions drawn from given probabilities, and every
legal action's child (its view from the mover's seat, or its final return), one numba
call each for all hands.

Cards are dealt as the engine deals them (:meth:`PokerState.advance_chance`): each card
is the ``floor(u * n)``-th of the ``n`` cards left, ``u`` the next ``random()`` of the
game's own PCG64 (:mod:`nashzoo.games.pcg`). So game ``i`` seeded ``seed + i`` plays
exactly the hands of the single env ``reset(seed=seed + i)``: the same cards, the same
observations and masks, the same returns (test).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.games.pcg import generator_row, sample_rows, write_back
from nashzoo.games.poker.engine import CALL, FOLD, RAISE, PokerGame
from nashzoo.games.poker.hand_kernel import _POW5, tables_arrays
from nashzoo.games.poker.limit_kernel import (
    _FIELDS,
    _NACTS,
    _PLAYER,
    _ROUND,
    _act,
    _deal,
    _new_hand,
    _player0_return,
    _view,
)
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, VectorEnvBase
from nashzoo.vector.batch import Batch
from nashzoo.vector.hands import check_poker_game

__all__ = ["PokerVectorEnv", "PokerDecisions"]


@njit(cache=True)
def _step(
    actions, active, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset,
    first, raise_sizes, action_offset, hand, pow5, flush, keys, values, rewards, terminated,
):  # fmt: skip
    num_hole = rules[0]
    nda = rules[2]
    num_rounds = rules[3]
    for i in range(actions.size):
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        terminated[i] = False
        if not active[i]:
            continue
        result = _act(
            i, actions[i], st, pub, raise_sizes, action_offset, nda, num_rounds, board_cards
        )
        if result == 2:
            _deal(i, st, cards, deck, pub, rng, i, rules, board_offset, first)
        elif result == 1:
            r0 = _player0_return(i, st, cards, num_hole, hand, pow5, flush, keys, values)
            rewards[i, 0] = r0
            rewards[i, 1] = -r0
            terminated[i] = True
            _new_hand(
                i, st, cards, deck, pub, rng, i, rules, blinds, board_cards, board_offset, first
            )


@njit(cache=True)
def _observe(st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs, mask):
    """Each game's observation and legal mask for its player to act."""
    for i in range(st.shape[0]):
        _view(i, st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs[i], mask[i])


@njit(cache=True)
def _reset_all(st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first):
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, deck, pub, rng, i, rules, blinds, board_cards, board_offset, first)


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
        check_poker_game("PokerVectorEnv", game, PokerGame)
        d = game.definition
        hand_cards = d.num_hole_cards + sum(d.num_board_cards)
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


# -- decision by decision with every legal action's child (simplex-gradient) -------------
@njit(cache=True)
def _deal_hands(live, st, cards, deck, pub, rng, rules, blinds, board_cards, board_offset, first):
    """Deal every hand from the one generator ``rng[0]``, hand by hand."""
    for i in range(st.shape[0]):
        _new_hand(i, st, cards, deck, pub, rng, 0, rules, blinds, board_cards, board_offset, first)
        live[i] = True


@njit(cache=True)
def _views_of(games, st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs, mask, who):
    """The view and legal mask of the player to act in each listed hand (row ``j`` for
    ``games[j]``)."""
    for j in range(games.size):
        i = games[j]
        who[j] = st[i, _PLAYER]
        _view(i, st, cards, pub, rules, max_raises, raise_sizes, num_sizes, obs[j], mask[j])


@njit(cache=True)
def _children(
    games, mask, st, cards, pub, rules, raise_sizes, action_offset, board_cards, hand, pow5,
    flush, keys, values, low, span, succ, succ_index, known,
):  # fmt: skip
    """Every legal action's child in each listed hand, seen by the player who acts: its
    view (the next row of ``succ``, whose index goes to ``succ_index``) or, where the
    action ends the hand, the mover's return rescaled by ``low`` and ``span`` (in
    ``known``). The hands are left as they were. Returns the rows written."""
    num_hole = rules[0]
    nda = rules[2]
    num_rounds = rules[3]
    saved = np.empty(st.shape[1], st.dtype)
    rows = 0
    for j in range(games.size):
        i = games[j]
        p = st[i, _PLAYER]
        succ_index[j, :] = -1
        known[j, :] = 0.0
        saved[:] = st[i, :]
        slot = action_offset[st[i, _ROUND]] + nda * st[i, _NACTS]
        for a in range(nda):
            if mask[j, a] == 0:
                continue
            result = _act(i, a, st, pub, raise_sizes, action_offset, nda, num_rounds, board_cards)
            if result == 1:
                r0 = _player0_return(i, st, cards, num_hole, hand, pow5, flush, keys, values)
                known[j, a] = ((r0 if p == 0 else -r0) - low) / span
            else:
                succ[rows, :] = pub[i, :]
                succ[rows, p] = 1.0
                for k in range(num_hole):
                    succ[rows, 2 + cards[i, p * num_hole + k]] = 1.0
                succ_index[j, a] = rows
                rows += 1
            pub[i, slot + a] = 0.0
            st[i, :] = saved
    return rows


@njit(cache=True)
def _apply_hands(
    games, actions, live, st, cards, deck, pub, rng, rules, board_cards, board_offset, first,
    raise_sizes, action_offset, hand, pow5, flush, keys, values, returns,
):  # fmt: skip
    """Each listed hand's action, then its deal if the round closed (from ``rng[0]``,
    hand by hand); a hand that ends records player 0's return."""
    num_hole = rules[0]
    nda = rules[2]
    num_rounds = rules[3]
    for j in range(games.size):
        i = games[j]
        result = _act(
            i, actions[j], st, pub, raise_sizes, action_offset, nda, num_rounds, board_cards
        )
        if result == 2:
            _deal(i, st, cards, deck, pub, rng, 0, rules, board_offset, first)
        elif result == 1:
            returns[i] = _player0_return(i, st, cards, num_hole, hand, pow5, flush, keys, values)
            live[i] = False


class PokerDecisions:
    """``num_games`` hands of a limit poker game played decision by decision (numba),
    with every legal action's child: what simplex-gradient self-play learns from in a
    turn-based game.

    All random numbers come from one PCG64 stream (a ``np.random.Generator``'s own,
    taken before and given back after each call), in the order a loop over single
    :class:`~nashzoo.games.poker.engine.PokerState` objects draws them: the deals hand by
    hand, then per round of decisions one ``random()`` per action (hand by hand), then
    the hands' next board cards hand by hand. A learner using this class plays the hands
    that stepping the rules one state at a time plays with the same generator.

    Args:
        game: the rules (as :class:`PokerVectorEnv`: the 52-card deck, hands of 5 to 7
            cards).
        num_games: hands played at once.

    Raises:
        InvalidParameterError: not such a game, or ``num_games`` below 1.
    """

    def __init__(self, game: PokerGame, num_games: int) -> None:
        n = check_int("num_games", num_games, 1, MAX_NUM_ENVS)
        self._env = PokerVectorEnv(game, n)  # the hands' arrays and the game's tables
        self.game = game
        self.num_games = n
        self.live = np.zeros(n, bool)
        self.returns = np.zeros(n)  # player 0's return once a hand is over
        self.observation_size = game.information_state_tensor_size
        a = game.num_distinct_actions
        self._succ = np.zeros((n * a, self.observation_size), np.float32)
        self._rows = np.zeros((n, a), np.int64)
        self._known = np.zeros((n, a), np.float32)
        self._low = float(game.min_utility)
        self._span = float(game.max_utility - game.min_utility)

    @staticmethod
    def _row(rng: np.random.Generator) -> np.ndarray:
        try:
            return generator_row(rng)
        except TypeError as exc:
            raise InvalidParameterError(f"PokerDecisions draws from {exc}") from None

    def deal(self, rng: np.random.Generator) -> None:
        """Start every hand (its cards drawn from ``rng``)."""
        e, row = self._env, self._row(rng)
        _deal_hands(
            self.live, e._st, e._card_rows, e._deck, e._pub, row, e._rules, e._blinds,
            e._board_cards, e._board_offset, e._first,
        )  # fmt: skip
        self.returns[:] = 0.0
        write_back(rng, row)

    def live_games(self) -> np.ndarray:
        """The hands not over, in order."""
        return np.flatnonzero(self.live)

    def views(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The tensor, mask and seat of the player to act in each of ``games``, and the
        games (one row each)."""
        e = self._env
        obs = np.empty((games.size, self.observation_size), np.float32)
        mask = np.empty((games.size, self.game.num_distinct_actions), np.int8)
        who = np.empty(games.size, np.int64)
        _views_of(
            games, e._st, e._card_rows, e._pub, e._rules, e._max_raises, e._raise_sizes,
            e._num_sizes, obs, mask, who,
        )  # fmt: skip
        return obs, mask, who, games

    def sample(self, probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One action per row of ``probs``, drawn from ``rng`` row by row."""
        row = self._row(rng)
        out = np.empty(probs.shape[0], np.int64)
        sample_rows(np.ascontiguousarray(probs, np.float64), row, out)
        write_back(rng, row)
        return out

    def successors(
        self, games: np.ndarray, mask: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every legal action's child (see :func:`_children`; ``mask`` is :meth:`views`',
        ``actions`` are not needed: the children do not depend on them): ``(succ, index,
        known)``."""
        e = self._env
        rows = _children(
            games, mask, e._st, e._card_rows, e._pub, e._rules, e._raise_sizes,
            e._action_offset, e._board_cards, e._hand, _POW5, *e._tables, self._low,
            self._span, self._succ, self._rows, self._known,
        )  # fmt: skip
        return (
            self._succ[:rows].copy(),
            self._rows[: games.size].copy(),
            self._known[: games.size].copy(),
        )

    def apply(self, games: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> None:
        """Each of ``games`` plays its action (and deals the next round's cards, from
        ``rng``, where the action closed a round)."""
        e, row = self._env, self._row(rng)
        _apply_hands(
            games, actions, self.live, e._st, e._card_rows, e._deck, e._pub, row, e._rules,
            e._board_cards, e._board_offset, e._first, e._raise_sizes, e._action_offset,
            e._hand, _POW5, *e._tables, self.returns,
        )  # fmt: skip
        write_back(rng, row)
