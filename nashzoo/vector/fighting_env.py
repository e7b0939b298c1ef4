"""Batched fighting cards (numba): N games of a
:class:`~nashzoo.games.fighting.FightingCardGame` held in arrays and stepped at once.

The rules are those of :mod:`nashzoo.games.fighting`, written a second time over arrays:
each game keeps both hands and decks (counts per card kind), the hit points, the hand each
player was dealt, the revealed exchanges, each player's draws, player 0's hidden card and
the phase. Chance is drawn as the rules draw it (:func:`~nashzoo.games.base.
sample_chance_outcome` over the same outcomes in the same order, one ``random()`` of the
game's PCG64 per event, :mod:`nashzoo.games.pcg`), and a view is built from the same
indices as :meth:`~nashzoo.games.fighting.FightingCardState.information_state_indices`.
So game ``i`` seeded ``seed + i`` plays the episodes of the single env
``reset(seed=seed + i)``, with the same observations and masks (tests).

Two ways in:

* :class:`FightingVectorEnv`, the batched env of every other game (one action per game
  for the player to act, auto-reset; NFSP's self-play, ``SeatVectorEnv`` and SB3);
* :class:`FightingExchanges`, whole exchanges at once for simplex-gradient self-play:
  both players' views, both cards drawn from given probabilities, and for every playable
  card of each player its *successor* (the exchange resolved against the opponent's
  actual card) as a view or a known final return, all in one call per exchange for all
  the games.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.errors import InvalidParameterError
from nashzoo.games.fighting import FightingCardGame
from nashzoo.games.pcg import next_double, write_back
from nashzoo.validation import check_int
from nashzoo.vector.base import MAX_NUM_ENVS, BulkDecisions, VectorEnvBase
from nashzoo.vector.batch import Batch

__all__ = ["FightingVectorEnv", "FightingExchanges"]

# phases, as in nashzoo.games.fighting
_DEAL0, _DEAL1, _ACT0, _ACT1, _DRAW0, _DRAW1, _OVER = range(7)

# columns of the per-game integer state
_PHASE, _PENDING, _NCARDS, _HP0, _HP1, _DEALT0, _DEALT1, _NDRAW0, _NDRAW1 = range(9)
_FIELDS = 9

# entries of the game's constants
_K, _C, _H, _P, _N, _OFF_OWN, _OFF_OPP, _OFF_OPP_HAND, _OFF_HP, _OFF_DEAL, _OFF_ROUNDS = range(11)


def _constants(game: FightingCardGame) -> np.ndarray:
    layout = game.tensor_layout
    assert layout.hand == 2  # the numba code spells it out
    return np.array(
        [
            game.num_kinds,
            game.copies,
            game.hand_size,
            game.hit_points,
            game.num_exchanges,
            layout.own_discards,
            layout.opponent_discards,
            layout.opponent_hand_size,
            layout.hit_points,
            layout.deal,
            layout.exchanges,
        ],
        np.int64,
    )


# -- the rules ---------------------------------------------------------------------------------
@njit(cache=True)
def _advance(i, st, hand, deck, draws, hands, hand_probs, rng, r, gc):
    """Draw game ``i``'s chance events (deals, draws) until a player is to act or the
    game is over, one ``random()`` of generator ``rng[r]`` each, as
    ``State.advance_chance`` does."""
    k_kinds = gc[_K]
    while True:
        phase = st[i, _PHASE]
        if phase in (_DEAL0, _DEAL1):
            p = phase - _DEAL0
            u = next_double(rng, r)
            chosen = hand_probs.size - 1
            for h in range(hand_probs.size):
                u -= hand_probs[h]
                if u < 0.0:
                    chosen = h
                    break
            for k in range(k_kinds):
                hand[i, p, k] = hands[chosen, k]
                deck[i, p, k] = gc[_C] - hands[chosen, k]
            st[i, _DEALT0 + p] = chosen
            st[i, _PHASE] = phase + 1
        elif phase in (_DRAW0, _DRAW1):
            p = phase - _DRAW0
            u = next_double(rng, r)
            total = 0
            for k in range(k_kinds):
                total += deck[i, p, k]
            chosen = -1
            last = -1
            for k in range(k_kinds):
                n = deck[i, p, k]
                if n:
                    last = k
                    u -= n / total
                    if u < 0.0:
                        chosen = k
                        break
            if chosen < 0:
                chosen = last
            deck[i, p, chosen] -= 1
            hand[i, p, chosen] += 1
            draws[i, p, st[i, _NDRAW0 + p]] = chosen
            st[i, _NDRAW0 + p] += 1
            st[i, _PHASE] = _DRAW1 if phase == _DRAW0 else _ACT0
        else:
            return


@njit(cache=True)
def _new_game(i, st, hand, deck, draws, hands, hand_probs, rng, r, gc):
    st[i, _PHASE] = _DEAL0
    st[i, _PENDING] = -1
    st[i, _NCARDS] = 0
    st[i, _HP0] = gc[_P]
    st[i, _HP1] = gc[_P]
    st[i, _DEALT0] = -1
    st[i, _DEALT1] = -1
    st[i, _NDRAW0] = 0
    st[i, _NDRAW1] = 0
    _advance(i, st, hand, deck, draws, hands, hand_probs, rng, r, gc)


@njit(cache=True)
def _resolve(i, card0, card1, st, hand, deck, cards, damage):
    """Both cards leave the hands and the exchange is resolved (the state then waits for
    the draws, or is over)."""
    hand[i, 0, card0] -= 1
    hand[i, 1, card1] -= 1
    st[i, _HP1] -= damage[card0, card1]
    st[i, _HP0] -= damage[card1, card0]
    n = st[i, _NCARDS]
    cards[i, n, 0] = card0
    cards[i, n, 1] = card1
    st[i, _NCARDS] = n + 1
    st[i, _PENDING] = -1
    empty = True
    for k in range(deck.shape[2]):
        if deck[i, 0, k]:
            empty = False
            break
    if min(st[i, _HP0], st[i, _HP1]) <= 0 or empty:
        st[i, _PHASE] = _OVER
    else:
        st[i, _PHASE] = _DRAW0


@njit(cache=True)
def _return0(i, st):
    """Player 0's return in finished game ``i`` (+1, -1 or 0)."""
    diff = st[i, _HP0] - st[i, _HP1]
    return 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)


@njit(cache=True)
def _thermometer(out, offset, counts, c):
    for a in range(counts.size):
        for j in range(counts[a]):
            out[offset + a * c + j] = 1.0


@njit(cache=True)
def _view(i, p, st, hand, cards, draws, hands, gc, out, own, opp_seen):
    """Player ``p``'s information-state tensor of game ``i`` into the zeroed row
    ``out`` (``own`` and ``opp_seen`` are scratch rows of ``K`` integers)."""
    k_kinds = gc[_K]
    c = gc[_C]
    opp = 1 - p
    phase = st[i, _PHASE]
    out[p] = 1.0
    own[:] = 0
    opp_seen[:] = 0
    base = gc[_OFF_ROUNDS]
    ncards = st[i, _NCARDS]
    ndraws = st[i, _NDRAW0 + p]
    for n in range(ncards):
        mine = cards[i, n, p]
        theirs = cards[i, n, opp]
        own[mine] += 1
        opp_seen[theirs] += 1
        out[base + mine] = 1.0
        out[base + k_kinds + theirs] = 1.0
        if n < ndraws:
            out[base + 2 * k_kinds + draws[i, p, n]] = 1.0
        base += 3 * k_kinds
    if p == 0 and phase == _ACT1:  # player 0's own card, not yet revealed
        pending = st[i, _PENDING]
        own[pending] += 1
        out[base + pending] = 1.0
        if ncards < ndraws:
            out[base + 2 * k_kinds + draws[i, p, ncards]] = 1.0
    _thermometer(out, 2, hand[i, p], c)
    _thermometer(out, gc[_OFF_OWN], own, c)
    _thermometer(out, gc[_OFF_OPP], opp_seen, c)
    dealt = st[i, _DEALT0 + p]
    if dealt >= 0:
        _thermometer(out, gc[_OFF_DEAL], hands[dealt], c)
    opp_hand = 0
    for k in range(k_kinds):
        opp_hand += hand[i, opp, k]
    if opp == 0 and phase == _ACT1:
        opp_hand += 1
    out[gc[_OFF_OPP_HAND] + min(opp_hand, gc[_H])] = 1.0
    for side in range(2):
        hp = st[i, _HP0 + (p if side == 0 else opp)]
        start = gc[_OFF_HP] + side * gc[_P]
        for j in range(max(0, min(hp, gc[_P]))):
            out[start + j] = 1.0


# -- one action per game (the batched env) ---------------------------------------------------
@njit(cache=True)
def _reset_all(st, hand, deck, draws, hands, hand_probs, rng, gc):
    for i in range(st.shape[0]):
        _new_game(i, st, hand, deck, draws, hands, hand_probs, rng, i, gc)


@njit(cache=True)
def _step(
    actions, active, st, hand, deck, cards, draws, hands, hand_probs, damage, rng, gc,
    rewards, terminated,
):  # fmt: skip
    for i in range(actions.size):
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        terminated[i] = False
        if not active[i]:
            continue
        if st[i, _PHASE] == _ACT0:
            st[i, _PENDING] = actions[i]
            st[i, _PHASE] = _ACT1
            continue
        _resolve(i, st[i, _PENDING], actions[i], st, hand, deck, cards, damage)
        _advance(i, st, hand, deck, draws, hands, hand_probs, rng, i, gc)
        if st[i, _PHASE] == _OVER:
            r0 = _return0(i, st)
            rewards[i, 0] = r0
            rewards[i, 1] = -r0
            terminated[i] = True
            _new_game(i, st, hand, deck, draws, hands, hand_probs, rng, i, gc)


@njit(cache=True)
def _observe(st, hand, cards, draws, hands, gc, obs, mask, player):
    k_kinds = gc[_K]
    own = np.zeros(k_kinds, np.int64)
    opp_seen = np.zeros(k_kinds, np.int64)
    for i in range(st.shape[0]):
        p = 0 if st[i, _PHASE] == _ACT0 else 1
        player[i] = p
        obs[i, :] = 0.0
        _view(i, p, st, hand, cards, draws, hands, gc, obs[i], own, opp_seen)
        for k in range(k_kinds):
            mask[i, k] = 1 if hand[i, p, k] > 0 else 0


class _Arrays:
    """The games' arrays and the game's tables (shared by both ways in)."""

    def __init__(self, game: FightingCardGame, n: int) -> None:
        self.check(game)
        self.game = game
        k = game.num_kinds
        self.gc = _constants(game)
        self.hands = np.array(game.hands, np.int64)
        self.hand_probs = np.asarray(game.hand_probs, np.float64)
        self.damage = np.asarray(game.damage_table, np.int64)
        self.st = np.zeros((n, _FIELDS), np.int64)
        self.hand = np.zeros((n, 2, k), np.int64)
        self.deck = np.zeros((n, 2, k), np.int64)
        self.cards = np.zeros((n, game.num_exchanges, 2), np.int64)
        self.draws = np.zeros((n, 2, game.num_exchanges), np.int64)

    @staticmethod
    def check(game: object) -> None:
        """Raise unless ``game`` is a fighting-card game."""
        if not isinstance(game, FightingCardGame):
            raise InvalidParameterError(
                f"The batched fighting game expects a FightingCardGame, received "
                f"{type(game).__name__}."
            )


class FightingVectorEnv(VectorEnvBase):
    """``num_envs`` games of fighting cards stepped at once (numba), one action per game
    for the player to act (player 0, then player 1 with player 0's card hidden).

    Args:
        game: the rules (any preset).
        num_envs: games in the batch.
        seed: as :meth:`reset` (``None``: OS entropy).

    Raises:
        InvalidParameterError: not a fighting-card game, or ``num_envs`` out of range.
    """

    def __init__(
        self, game: FightingCardGame, num_envs: int, *, seed: int | Sequence[int] | None = None
    ) -> None:
        _Arrays.check(game)
        super().__init__(check_int("num_envs", num_envs, 1, MAX_NUM_ENVS))
        self.game = game
        self.num_players = 2
        self.num_actions = game.num_distinct_actions
        self.observation_size = game.information_state_tensor_size
        self._a = _Arrays(game, num_envs)
        self._mask = np.zeros((num_envs, self.num_actions), np.int8)
        self._to_act = np.zeros(num_envs, np.int64)
        if seed is not None:
            self.reset(seed=seed)

    def _reset_games(self) -> None:
        a = self._a
        _reset_all(a.st, a.hand, a.deck, a.draws, a.hands, a.hand_probs, self._rng, a.gc)

    def _step_games(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        a = self._a
        _step(
            actions, active, a.st, a.hand, a.deck, a.cards, a.draws, a.hands, a.hand_probs,
            a.damage, self._rng, a.gc, rewards, terminated,
        )  # fmt: skip

    def _batch(self, rewards: np.ndarray, terminated: np.ndarray) -> Batch:
        a = self._a
        obs = np.empty((self.num_envs, self.observation_size), np.float32)
        _observe(a.st, a.hand, a.cards, a.draws, a.hands, a.gc, obs, self._mask, self._to_act)
        return Batch(
            observation=obs,
            action_mask=self._mask.copy(),
            player=self._to_act.copy(),
            rewards=rewards,
            terminated=terminated,
        )


# -- whole exchanges with their successors (simplex-gradient) ------------------------------
@njit(cache=True)
def _deal_all(live, st, hand, deck, draws, hands, hand_probs, rng, gc):
    """Start every game; the deals of game ``i`` come from generator ``rng[0]`` in game
    order (one stream for all games: the order a loop over single states draws in)."""
    for i in range(st.shape[0]):
        _new_game(i, st, hand, deck, draws, hands, hand_probs, rng, 0, gc)
        live[i] = st[i, _PHASE] != _OVER


@njit(cache=True)
def _exchange_views(games, st, hand, cards, draws, hands, gc, obs, mask):
    """Both players' views at the start of each listed game's exchange: rows ``2j`` and
    ``2j + 1`` for game ``games[j]`` (player 0, then player 1)."""
    k_kinds = gc[_K]
    own = np.zeros(k_kinds, np.int64)
    opp_seen = np.zeros(k_kinds, np.int64)
    for j in range(games.size):
        i = games[j]
        for p in range(2):
            row = 2 * j + p
            obs[row, :] = 0.0
            _view(i, p, st, hand, cards, draws, hands, gc, obs[row], own, opp_seen)
            for k in range(k_kinds):
                mask[row, k] = 1 if hand[i, p, k] > 0 else 0


@njit(cache=True)
def _exchange_successors(
    games, actions, st, hand, deck, cards, draws, hands, damage, gc, succ, succ_index, known
):  # fmt: skip
    """For each listed game and player and each card in that player's hand: the state
    after the exchange with that card against the opponent's actual one. A successor
    that ends the game gives its final return to the player, rescaled to [0, 1], in
    ``known``; any other its view, the next row of ``succ`` (whose index goes to
    ``succ_index``, -1 otherwise). Rows come in (game, player, card) order. Returns the
    number of ``succ`` rows written."""
    k_kinds = gc[_K]
    own = np.zeros(k_kinds, np.int64)
    opp_seen = np.zeros(k_kinds, np.int64)
    rows = 0
    for j in range(games.size):
        i = games[j]
        for p in range(2):
            ask = 2 * j + p
            succ_index[ask, :] = -1
            known[ask, :] = 0.0
            for card in range(k_kinds):
                if hand[i, p, card] == 0:
                    continue
                c0 = card if p == 0 else actions[2 * j]
                c1 = card if p == 1 else actions[2 * j + 1]
                phase = st[i, _PHASE]
                hp0 = st[i, _HP0]
                hp1 = st[i, _HP1]
                _resolve(i, c0, c1, st, hand, deck, cards, damage)
                if st[i, _PHASE] == _OVER:
                    r0 = _return0(i, st)
                    known[ask, card] = ((r0 if p == 0 else -r0) + 1.0) / 2.0
                else:
                    succ[rows, :] = 0.0
                    _view(i, p, st, hand, cards, draws, hands, gc, succ[rows], own, opp_seen)
                    succ_index[ask, card] = rows
                    rows += 1
                # undo
                hand[i, 0, c0] += 1
                hand[i, 1, c1] += 1
                st[i, _NCARDS] -= 1
                st[i, _HP0] = hp0
                st[i, _HP1] = hp1
                st[i, _PHASE] = phase
                st[i, _PENDING] = -1
    return rows


@njit(cache=True)
def _exchange_apply(games, actions, live, st, hand, deck, cards, draws, hands, hand_probs,
                    damage, rng, gc, returns):  # fmt: skip
    """Play each listed game's exchange with ``actions`` and draw its chance events
    (from ``rng[0]``, in game order); a game that ends records player 0's return."""
    for j in range(games.size):
        i = games[j]
        _resolve(i, actions[2 * j], actions[2 * j + 1], st, hand, deck, cards, damage)
        _advance(i, st, hand, deck, draws, hands, hand_probs, rng, 0, gc)
        if st[i, _PHASE] == _OVER:
            live[i] = False
            returns[i] = _return0(i, st)


class FightingExchanges(BulkDecisions):
    """``num_games`` games of fighting cards played exchange by exchange (numba), with
    every playable card's successor: what simplex-gradient self-play learns from.

    All random numbers come from one PCG64 stream (a ``np.random.Generator``'s own,
    synchronised before and after each call), drawn in the order a loop over single
    :class:`~nashzoo.games.fighting.FightingCardState` objects draws them: deals game
    by game, then per exchange one ``random()`` per action (game by game, player 0
    first), then the games' draws game by game. So a learner that uses this class plays
    the same games as one that steps the rules one state at a time with the same
    generator.

    Args:
        game: the rules.
        num_games: games played at once.

    Raises:
        InvalidParameterError: not a fighting-card game, or ``num_games`` below 1.
    """

    def __init__(self, game: FightingCardGame, num_games: int) -> None:
        _Arrays.check(game)
        n = check_int("num_games", num_games, 1, MAX_NUM_ENVS)
        self.game = game
        self._a = _Arrays(game, n)
        self.num_games = n
        self.live = np.zeros(n, bool)
        self.returns = np.zeros(n)  # player 0's return once a game is over
        self.observation_size = game.information_state_tensor_size
        k = game.num_kinds
        self._succ = np.zeros((2 * n * game.hand_size, self.observation_size), np.float32)
        self._rows = np.zeros((2 * n, k), np.int64)
        self._known = np.zeros((2 * n, k), np.float32)

    def deal(self, rng: np.random.Generator) -> None:
        """Start every game (its deals drawn from ``rng``)."""
        a, row = self._a, self._row(rng)
        _deal_all(self.live, a.st, a.hand, a.deck, a.draws, a.hands, a.hand_probs, row, a.gc)
        self.returns[:] = 0.0
        write_back(rng, row)

    def views(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Both players' tensors, masks, seats and games in each of ``games``:
        ``(2 * len(games), obs)``, ``(2 * len(games), K)`` and two ``(2 * len(games),)``
        (rows: game by game, player 0 first)."""
        a = self._a
        obs = np.empty((2 * games.size, self.observation_size), np.float32)
        mask = np.empty((2 * games.size, self.game.num_kinds), np.int8)
        _exchange_views(games, a.st, a.hand, a.cards, a.draws, a.hands, a.gc, obs, mask)
        return obs, mask, np.tile(np.array([0, 1], np.int64), games.size), np.repeat(games, 2)

    def successors(
        self, games: np.ndarray, mask: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every playable card's successor (see the class docstring; each exchange is
        resolved against the opponent's drawn ``actions``; ``mask`` is :meth:`views`'):
        ``(succ, index, known)``, ``succ`` the successors' tensors (fresh),
        ``index[ask, card]`` the row of each in ``succ`` or -1, ``known[ask, card]`` the
        final return (rescaled to [0, 1]) where the successor ends the game."""
        a = self._a
        asks = 2 * games.size
        rows = _exchange_successors(
            games, actions, a.st, a.hand, a.deck, a.cards, a.draws, a.hands, a.damage, a.gc,
            self._succ, self._rows, self._known,
        )  # fmt: skip
        return self._succ[:rows].copy(), self._rows[:asks].copy(), self._known[:asks].copy()

    def apply(self, games: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> None:
        """Play the exchange of each of ``games`` with ``actions`` (2 per game) and the
        draws after it (from ``rng``)."""
        a, row = self._a, self._row(rng)
        _exchange_apply(
            games, actions, self.live, a.st, a.hand, a.deck, a.cards, a.draws, a.hands,
            a.hand_probs, a.damage, row, a.gc, self.returns,
        )  # fmt: skip
        write_back(rng, row)
