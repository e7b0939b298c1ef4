"""The Leduc Hold'em family.

Rules (Southey et al. 2005; OpenSpiel's ``leduc_poker``): a deck of ``num_ranks`` ranks
times ``num_suits`` suits. Each of ``players`` players (2 by default) antes ``ante`` chips
and receives one private card; then ``num_rounds`` betting rounds follow, with one public
card dealt before every round after the first. In every round player 0 (or the next
player who has not folded) acts first, then turns go round the players still in; a
player may *fold* (only when facing a bet), *call* (check when not facing a bet) or
*raise* by ``raise_sizes[round]`` chips over the current stake, at most ``max_raises``
raises per round. A round ends when every player still in has checked, or has called the
last raise; the hand ends when one player is left. At the showdown the hand with more
public cards of its rank wins (a pair beats a high card), then the higher private rank;
equal hands split the pot. With ``players=N`` the deck defaults to ``N + 1`` ranks of two
suits: OpenSpiel's ``leduc_poker(players=N)``.

Oliehoek's thesis games are parameterisations too: :func:`two_round_six_card_poker`
(matches the thesis' tree) and :func:`four_bet_eight_card_poker` (the closest this family
can express; see its docstring for where it differs).

Defaults are standard Leduc Hold'em: cards J, Q, K in suits s and h (6 cards), 2 rounds,
raises of 2 then 4 chips, at most 2 raises per round, ante 1. Game value for player 0:
-0.0856 chips; 9457 histories, 936 information sets (OpenSpiel).

Actions: ``0`` = Fold, ``1`` = Call, ``2`` = Raise. Card ids: ``rank * num_suits + suit``
(rank 0 is the lowest). Chance outcomes: the card dealt, uniform over the cards left.

Information-state tensor (``P + C * num_rounds + 2 * L * num_rounds`` floats with ``P``
players, ``C = num_ranks * num_suits`` cards and ``L = P + max_raises * (P - 1)`` the
longest round; 30 for standard Leduc, the OpenSpiel layout):

===================================  ==================================================
index                                meaning
===================================  ==================================================
``0 .. P-1``                         one-hot: observing player
``P .. P+C-1``                       one-hot: the observing player's private card
``P + C*(1+k) ..``                   one-hot: the ``k``-th public card (``k < rounds-1``)
``P + C*R + 2*(L*r + j) + {0, 1}``   ``j``-th action of round ``r``: call = (1, 0),
                                     raise = (0, 1), fold = (1, 1)
===================================  ==================================================

Information-state string: ``"player=0 card=Js public=Qh bets=rc/r"`` (rounds separated
by ``/``; ``f`` fold, ``c`` call, ``r`` raise).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import (
    CHANCE,
    COUNTED_DEALS,
    HIDDEN,
    TERMINAL,
    Game,
    State,
    memoised_histories,
)
from nashzoo.validation import check_int

__all__ = [
    "LeducHoldemGame",
    "LeducHoldemState",
    "FOLD",
    "CALL",
    "RAISE",
    "two_round_six_card_poker",
    "four_bet_eight_card_poker",
]

FOLD: int = 0
CALL: int = 1
RAISE: int = 2
_LETTERS = "fcr"
_ACTION_NAMES = ("Fold", "Call", "Raise")
_RANK_CHARS = "23456789TJQKA"
_SUIT_CHARS = "shdc"


class LeducHoldemGame(Game):
    """A parameterised Leduc Hold'em.

    Args:
        num_ranks: ranks in the deck, 1 to 30 (3: J, Q, K; above 13 ranks are named by
            number, e.g. the 60-card Leduc of Heinrich et al. 2015 has 30 ranks, 2 suits).
        num_suits: suits per rank, 1 to 4.
        max_raises: raises allowed per betting round, 0 to 10.
        raise_sizes: chips added by a raise in each round; ``None`` means 2 in the first
            round and 4 in every later one. Its length must equal ``num_rounds``.
        ante: chips each player puts in before the deal, at least 1.
        num_rounds: betting rounds, 1 to 6; a public card is dealt before each after the
            first.
        players: 2 to 10 (OpenSpiel's ``players=``); ``num_ranks`` defaults to
            ``players + 1``.

    Raises:
        InvalidParameterError: a parameter is out of range, or the deck is too small for
            the private cards and ``num_rounds - 1`` public cards.
    """

    short_name = "leduc_holdem"
    game_type = "leduc_holdem"
    payoff_unit = "chips"

    def __init__(
        self,
        num_ranks: int | None = None,
        num_suits: int = 2,
        max_raises: int = 2,
        raise_sizes: Sequence[int] | None = None,
        ante: int = 1,
        num_rounds: int = 2,
        players: int = 2,
    ) -> None:
        n = self.num_players = check_int("players", players, 2, 10)
        num_ranks = n + 1 if num_ranks is None else num_ranks
        self.num_ranks = check_int("num_ranks", num_ranks, 1, 30)
        self.num_suits = check_int("num_suits", num_suits, 1, 4)
        self.max_raises = check_int("max_raises", max_raises, 0, 10)
        self.ante = check_int("ante", ante, 1)
        self.num_rounds = check_int("num_rounds", num_rounds, 1, 6)
        if raise_sizes is None:
            raise_sizes = (2,) + (4,) * (self.num_rounds - 1)
        if isinstance(raise_sizes, (str, bytes)) or not isinstance(
            raise_sizes, (list, tuple, range, np.ndarray)
        ):
            raise InvalidParameterError(
                f"Parameter `raise_sizes` expects a sequence of {self.num_rounds} integers "
                f"(one per round), received {raise_sizes!r}."
            )
        if len(raise_sizes) != self.num_rounds:
            raise InvalidParameterError(
                f"Parameter `raise_sizes` needs one size per round: expected "
                f"{self.num_rounds} values, received {len(raise_sizes)} ({list(raise_sizes)!r})."
            )
        self.raise_sizes = tuple(check_int("raise_sizes[]", r, 1) for r in raise_sizes)
        self.num_cards = self.num_ranks * self.num_suits
        needed = n + self.num_rounds - 1
        if self.num_cards < needed:
            raise InvalidParameterError(
                f"The deck has {self.num_cards} cards (num_ranks={self.num_ranks} x "
                f"num_suits={self.num_suits}) but {n} players and {self.num_rounds} rounds "
                f"need {needed}: raise num_ranks or num_suits, or lower num_rounds."
            )
        self.num_distinct_actions = 3
        self.max_chance_outcomes = self.num_cards
        self.max_chance_nodes = n + self.num_rounds - 1
        self.round_length = n + self.max_raises * (n - 1)
        self.max_game_length = self.num_rounds * self.round_length
        max_contrib = self.ante + self.max_raises * sum(self.raise_sizes)
        self.min_utility = -float(max_contrib)
        self.max_utility = float((n - 1) * max_contrib)
        self.big_blind = float(self.ante)
        if self.num_ranks > 13:  # beyond a real deck: ranks are numbered 1..num_ranks
            ranks: Sequence[str] = [str(r + 1) for r in range(self.num_ranks)]
        elif self.num_ranks == 13:
            ranks = _RANK_CHARS
        else:
            ranks = _RANK_CHARS[12 - self.num_ranks : 12]
        self.card_names: tuple[str, ...] = tuple(
            ranks[c // self.num_suits] + _SUIT_CHARS[c % self.num_suits]
            for c in range(self.num_cards)
        )
        self._actions_offset = n + self.num_cards * self.num_rounds
        self.information_state_tensor_size = (
            self._actions_offset + 2 * self.round_length * self.num_rounds
        )
        self.action_names = _ACTION_NAMES

    def params(self) -> dict[str, Any]:
        params = {
            "num_ranks": self.num_ranks,
            "num_suits": self.num_suits,
            "max_raises": self.max_raises,
            "raise_sizes": list(self.raise_sizes),
            "ante": self.ante,
            "num_rounds": self.num_rounds,
        }
        if self.num_players != 2:  # the two-player spec, as before the player count
            params["players"] = self.num_players
        return params

    def new_initial_state(self) -> LeducHoldemState:
        return LeducHoldemState(self)

    def _private_deals(self) -> int:
        """Ways to deal every player's private card (seven players or more: past any
        tree that compiles, known at once)."""
        return math.perm(self.num_cards, self.num_players)

    def count_histories(self) -> int | None:
        """Histories of the tree, counted round by round: the betting tree of a round
        does not depend on the cards, so deals only multiply it (9,457 for standard
        Leduc; 1,831,601 with three players, as OpenSpiel's ``leduc_poker(players=3)``).
        ``None`` when the private cards alone can be dealt more than 50 million ways
        (seven players and more: counting their betting took from 3 s at eight players
        to over 8 minutes at ten, and nothing that large compiles)."""
        if self.num_players != 2:
            if self._private_deals() > COUNTED_DEALS:
                return None
            known = self.__dict__.get("_count")
            if known is None:
                known = self.__dict__["_count"] = self._count_n_player_histories()
            return int(known)
        cards, rounds, cap = self.num_cards, self.num_rounds, self.max_raises

        @functools.cache
        def betting(r: int, dealt: int, raises: int, facing: bool, first: bool) -> int:
            # this decision node, a fold, a call (check) and a raise below it
            total = 1 + (1 if facing else 0)
            if first:
                total += betting(r, dealt, raises, False, False)
            elif r + 1 == rounds:
                total += 1  # the call ends the game
            else:  # the call ends the round: a chance node dealing the next public card
                total += 1 + (cards - dealt) * betting(r + 1, dealt + 1, 0, False, True)
            if raises < cap:
                total += betting(r, dealt, raises + 1, True, False)
            return total

        return 1 + cards + cards * (cards - 1) * betting(0, 2, 0, False, True)

    def _count_n_player_histories(self) -> int:
        """:meth:`count_histories` for any number of players: the betting tree memoised
        on what the betting depends on, each chance node weighted by the cards left."""
        n, cards = self.num_players, self.num_cards
        cache: dict[tuple[Any, ...], int] = {}

        def below(state: Any) -> int:
            if state._player == TERMINAL:
                return 1
            if state._player == CHANCE:  # a public card: every card left, alike
                left = cards - len(state._private) - len(state._public)
                child = state.clone()
                child.apply_unchecked(child.legal_actions()[0])
                return 1 + left * below(child)
            key = (
                state._round, tuple(state._contrib), state._raises, state._checks,
                tuple(state._folded), state._player,
            )  # fmt: skip
            return memoised_histories(state, key, cache, below)

        root = self.new_initial_state()
        total, ways = 1, 1
        for k in range(n):  # the private deals: a chance node per card, every card alike
            ways *= cards - k
            root.apply_unchecked(k)
            total += ways if k < n - 1 else 0
        return total + ways * below(root)


class LeducHoldemState(State):
    """A Leduc Hold'em history. See :mod:`nashzoo.games.leduc` for the rules."""

    game: LeducHoldemGame

    __slots__ = (
        "game",
        "_private",
        "_public",
        "_round",
        "_bets",
        "_contrib",
        "_raises",
        "_checks",
        "_folded",
        "_left",
        "_player",
        "_folder",
        "_history",
        "_heads",
        "_tail",
    )

    def __init__(self, game: LeducHoldemGame) -> None:
        n = game.num_players
        self.game = game
        self._private: list[int] = []
        self._public: list[int] = []
        self._round = 0
        self._bets: list[str] = [""]  # letters of each round's actions
        self._contrib = [game.ante] * n
        self._raises = 0
        self._checks = 0  # calls (checks) since the round's start or its last raise
        self._folded = [False] * n
        self._left = n  # players who have not folded
        self._player = CHANCE
        self._folder = -1  # the last player to fold
        self._history: list[int] = []
        # information-state string = _heads[player] + _tail, kept up to date by _apply
        self._heads = [f"player={p} card=?" for p in range(n)]
        self._tail = " public=- bets="

    def current_player(self) -> int:
        return self._player

    def action_to_string(self, action: int) -> str:
        """As :meth:`State.action_to_string`, with the words a person reads: "Check" and
        "Bet" where no bet is pending (the same actions as "Call" and "Raise")."""
        p = self._player
        if p >= 0 and action in (CALL, RAISE) and self._contrib[p] >= max(self._contrib):
            return "Check" if action == CALL else "Bet"
        return super().action_to_string(action)

    def legal_actions(self) -> Sequence[int]:
        p = self._player
        if p >= 0:
            facing = self._contrib[p] < max(self._contrib)
            if self._raises < self.game.max_raises:
                return (FOLD, CALL, RAISE) if facing else (CALL, RAISE)
            return (FOLD, CALL) if facing else (CALL,)
        if p == CHANCE:
            dealt = self._private + self._public
            return [c for c in range(self.game.num_cards) if c not in dealt]
        return ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def _next_in(self, after: int) -> int:
        """The first player after ``after`` (cyclically) who has not folded."""
        n = self.game.num_players
        q = (after + 1) % n
        while self._folded[q]:
            q = (q + 1) % n
        return q

    def apply_unchecked(self, action: int) -> None:
        self._history.append(action)
        p = self._player
        game = self.game
        if p == CHANCE:
            names = game.card_names
            dealt = len(self._private)
            if dealt < game.num_players:
                self._heads[dealt] = f"player={dealt} card={names[action]}"
                self._private.append(action)
                if dealt + 1 == game.num_players:
                    self._player = 0
            else:
                self._public.append(action)
                self._player = self._next_in(game.num_players - 1)
                public = ",".join(names[c] for c in self._public)
                self._tail = f" public={public} bets={'/'.join(self._bets)}"
            return
        letter = _LETTERS[action]
        self._bets[self._round] += letter
        self._tail += letter
        contrib = self._contrib
        if action == FOLD:
            self._folder = p
            self._folded[p] = True
            self._left -= 1
            if self._left == 1:
                self._player = TERMINAL
                return
        elif action == RAISE:
            contrib[p] = max(contrib) + game.raise_sizes[self._round]
            self._raises += 1
            self._checks = 0
            self._player = self._next_in(p)
            return
        else:  # CALL
            contrib[p] = max(contrib)
            self._checks += 1
        # a round ends when every player still in has checked, or has called the raise
        if self._checks == (self._left if self._raises == 0 else self._left - 1):
            if self._round + 1 == game.num_rounds:
                self._player = TERMINAL
            else:
                self._round += 1
                self._bets.append("")
                self._tail += "/"
                self._raises = 0
                self._checks = 0
                self._player = CHANCE
        else:
            self._player = self._next_in(p)

    def clone(self) -> LeducHoldemState:
        new = LeducHoldemState.__new__(LeducHoldemState)
        new.game = self.game
        new._private = self._private.copy()
        new._public = self._public.copy()
        new._round = self._round
        new._bets = self._bets.copy()
        new._contrib = self._contrib.copy()
        new._raises = self._raises
        new._checks = self._checks
        new._folded = self._folded.copy()
        new._left = self._left
        new._player = self._player
        new._folder = self._folder
        new._history = self._history.copy()
        new._heads = self._heads.copy()
        new._tail = self._tail
        return new

    def hand_strength(self, player: int) -> tuple[int, int]:
        """``(public cards matching the private rank, private rank)``; larger is better."""
        ns = self.game.num_suits
        rank = self._private[player] // ns
        return (sum(1 for c in self._public if c // ns == rank), rank)

    def returns(self) -> list[float]:
        n = self.game.num_players
        if self._player != TERMINAL:
            return [0.0] * n
        contrib = self._contrib
        if n == 2:  # the hot path of two-player matches and solvers
            if self._folder >= 0:
                loser = self._folder
            else:
                s0, s1 = self.hand_strength(0), self.hand_strength(1)
                if s0 == s1:
                    return [0.0, 0.0]
                loser = 1 if s0 > s1 else 0
            won = float(contrib[loser])
            return [won, -won] if loser == 1 else [-won, won]
        live = [q for q in range(n) if not self._folded[q]]
        if len(live) > 1:
            best = max(self.hand_strength(q) for q in live)
            live = [q for q in live if self.hand_strength(q) == best]
        share = sum(contrib) / len(live)
        return [(share if q in live else 0.0) - contrib[q] for q in range(n)]

    def history(self) -> list[int]:
        return self._history.copy()

    def public_history(self) -> list[int]:
        hidden = min(self.game.num_players, len(self._history))
        return [HIDDEN] * hidden + self._history[hidden:]

    def betting(self) -> str:
        """Betting letters per round joined by ``/`` (``f`` fold, ``c`` call, ``r`` raise)."""
        return "/".join(self._bets)

    def pot_contributions(self) -> tuple[int, ...]:
        """Chips each player has put in so far."""
        return tuple(self._contrib)

    def information_state_string_unchecked(self, player: int) -> str:
        return self._heads[player] + self._tail

    def information_state_indices(self, player: int) -> list[int]:
        game = self.game
        nc = game.num_cards
        n = game.num_players
        idx = [player]
        if len(self._private) > player:
            idx.append(n + self._private[player])
        for k, c in enumerate(self._public):
            idx.append(n + nc * (1 + k) + c)
        base = game._actions_offset
        length = game.round_length
        for r, bets in enumerate(self._bets):
            for j, letter in enumerate(bets):
                pos = base + 2 * (length * r + j)
                if letter == "c":
                    idx.append(pos)
                elif letter == "r":
                    idx.append(pos + 1)
                else:
                    idx.extend((pos, pos + 1))
        return idx

    def __str__(self) -> str:
        names = self.game.card_names
        priv = " ".join(names[c] for c in self._private) or "-"
        pub = " ".join(names[c] for c in self._public) or "-"
        return (
            f"private: {priv} | public: {pub} | bets: {'/'.join(self._bets)} | "
            f"pot: {'+'.join(str(c) for c in self._contrib)}"
        )


def two_round_six_card_poker() -> LeducHoldemGame:
    """Oliehoek's "2-round 6-card poker" (thesis 2005, chapter 7) as a Leduc parameterisation.

    Six cards (J, Q, K in two suits), ante 1, one private card each, a betting round, one
    public card, a final betting round; bets and raises of 1 coin, at most 3 per round, so
    a player puts at most 3 coins in per round. Our tree: 18,277 histories, 864
    information sets and 2,161 sequences per player; the thesis reports "over 18,000
    nodes" and 2,162 sequences per player (it counts one sequence more per player; the
    trees agree in size otherwise).
    """
    return LeducHoldemGame(
        num_ranks=3, num_suits=2, max_raises=3, raise_sizes=(1, 1), ante=1, num_rounds=2
    )


def four_bet_eight_card_poker() -> LeducHoldemGame:
    """The closest parameterisation of Oliehoek's "4-bet 8-card poker" in this family.

    The thesis game has 8 cards and bets of up to 4 coins where a single raise may be 1 or
    2 coins ("nearly 4,000 nodes and 274 sequences per player"). This family has one raise
    size per round, so it cannot express the choice between a 1- and a 2-coin raise; the
    closest game here raises 1 coin at a time, up to 4 raises (8 cards of one suit, one
    round): 1,521 histories, 40 information sets and 105 sequences per player. The
    poker engine plays the thesis game itself: :func:`nashzoo.games.poker.four_bet_eight_card`.
    """
    return LeducHoldemGame(
        num_ranks=8, num_suits=1, max_raises=4, raise_sizes=(1,), ante=1, num_rounds=1
    )
