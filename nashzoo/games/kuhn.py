"""Kuhn poker, its N-card variants and its N-player form.

Rules (Kuhn 1950; OpenSpiel's ``kuhn_poker``): a deck of ``deck_size`` cards of distinct
rank; each of ``players`` players antes 1 chip and is dealt one private card. Player 0 acts
first and the turn goes round in seat order; each player may *pass* (check, or fold when
facing a bet) or *bet* 1 chip (bet, or call when facing a bet). Before any bet, the
betting ends when every player has passed; after the first bet, every other player acts
once more (call or fold) and the betting ends when the turn comes back to the bettor.
The highest card among the players who did not fold wins the pot. With two players the
betting ends after ``pp``, ``bp``, ``bb``, ``pbp`` or ``pbb``. ``players=3`` with a 4-card
deck is OpenSpiel's 3-player Kuhn poker (``kuhn_poker(players=3)``).

``deck_size=3`` is classic Kuhn poker (cards J, Q, K; value -1/18 for player 0).
``deck_size=8`` is the *8-card poker* of Oliehoek's thesis (2005), where player 0 is the
"gambler" and player 1 the "dealer" (value -1/16 for the gambler). Cards are named
J, Q, K for three cards and ``1 .. N`` otherwise.

Actions: ``0`` = Pass, ``1`` = Bet. Chance outcomes: the card dealt (to player 0, then 1,
and so on, uniform over the cards left).

Information-state tensor (``P + N + 2 (2P - 1)`` floats for ``P`` players and ``N``
cards, as OpenSpiel's; ``2 + N + 6`` with two players):

==================  ===========================================
index               meaning
==================  ===========================================
``0 .. P-1``        one-hot: observing player
``P .. P+N-1``      one-hot: the observing player's card
``P+N + 2k + a``    action ``a`` was the ``k``-th betting action
==================  ===========================================

Information-state string: ``"player=0 card=J history=pb"``.
"""

from __future__ import annotations

from typing import Any

from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.validation import check_int

__all__ = [
    "KuhnPokerGame",
    "KuhnPokerState",
    "PASS",
    "BET",
    "MAX_DECK_SIZE",
    "kuhn_equilibrium",
]

MAX_DECK_SIZE: int = 100
"""Largest deck (a 100-card Kuhn tree has about 89,000 histories)."""

PASS: int = 0
BET: int = 1
_ACTION_LETTERS = "pb"
_ACTION_NAMES = ("Pass", "Bet")


MAX_PLAYERS: int = 10
"""Most players of N-player Kuhn poker (OpenSpiel allows 2 to 10)."""


class KuhnPokerGame(Game):
    """Kuhn poker with a ``deck_size``-card deck and ``players`` players.

    Args:
        deck_size: number of cards, ``players + 1`` to :data:`MAX_DECK_SIZE` (3 = classic
            Kuhn, 8 = 8-card poker); default ``players + 1``.
        players: 2 to :data:`MAX_PLAYERS` (OpenSpiel's ``players=``).

    Raises:
        InvalidParameterError: ``players`` or ``deck_size`` is not an integer in its
            range (a deck needs a card more than there are players).
    """

    short_name = "kuhn_poker"
    game_type = "kuhn_poker"
    payoff_unit = "chips"

    def __init__(self, deck_size: int | None = None, players: int = 2) -> None:
        self.num_players = check_int("players", players, 2, MAX_PLAYERS)
        low = self.num_players + 1
        self.deck_size = check_int(
            "deck_size", low if deck_size is None else deck_size, low, MAX_DECK_SIZE
        )
        n = self.num_players
        self.num_distinct_actions = 2
        self.max_chance_outcomes = self.deck_size
        self.max_chance_nodes = n
        self.max_game_length = 2 * n - 1
        self.min_utility = -2.0
        self.max_utility = 2.0 * (n - 1)
        self.big_blind = 1.0
        self.card_names: tuple[str, ...] = (
            ("J", "Q", "K")
            if self.deck_size == 3
            else tuple(str(i + 1) for i in range(self.deck_size))
        )
        self.information_state_tensor_size = n + self.deck_size + 2 * (2 * n - 1)
        self.action_names = _ACTION_NAMES
        self._uniform = [1.0 / (self.deck_size - k) for k in range(n)]

    def params(self) -> dict[str, Any]:
        if self.num_players == 2:  # the two-player spec, as before the player count
            return {"deck_size": self.deck_size}
        return {"deck_size": self.deck_size, "players": self.num_players}

    def new_initial_state(self) -> KuhnPokerState:
        return KuhnPokerState(self)

    def count_histories(self) -> int:
        """The partial deals, then every betting history per full deal: with two players
        ``1 + N + 9 N (N - 1)`` (9 betting histories: '', p, b, pp, pb, bp, bb, pbp, pbb;
        58 for N = 3)."""
        deals, total = 1, 1
        for k in range(self.num_players):
            deals *= self.deck_size - k
            total += deals if k < self.num_players - 1 else 0
        return total + deals * _betting_histories(self.num_players)


def _betting_histories(players: int) -> int:
    """How many betting histories (the empty one included) ``players`` players have."""
    count = 0
    stack: list[tuple[int, int, int]] = [(0, 0, -1)]  # (actions, next player, first bettor)
    while stack:
        acted, player, bettor = stack.pop()
        count += 1
        if (bettor < 0 and acted == players) or (bettor >= 0 and player == bettor):
            continue
        nxt = (player + 1) % players
        stack.append((acted + 1, nxt, bettor))  # pass
        stack.append((acted + 1, nxt, player if bettor < 0 else bettor))  # bet
    return count


class KuhnPokerState(State):
    """A Kuhn poker history. See :mod:`nashzoo.games.kuhn` for the rules."""

    game: KuhnPokerGame

    __slots__ = ("game", "_cards", "_actions", "_player", "_letters", "_bettor")

    def __init__(self, game: KuhnPokerGame) -> None:
        self.game = game
        self._cards: list[int] = []
        self._actions: list[int] = []
        self._letters = ""
        self._player = CHANCE
        self._bettor = -1  # the first player who bet, -1 before any bet

    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> tuple[int, ...] | list[int]:
        if self._player >= 0:
            return (PASS, BET)
        if self._player == CHANCE:
            return [c for c in range(self.game.deck_size) if c not in self._cards]
        return ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        self.check_chance()
        p = self.game._uniform[len(self._cards)]
        return [(c, p) for c in range(self.game.deck_size) if c not in self._cards]

    def apply_unchecked(self, action: int) -> None:
        players = self.game.num_players
        if self._player == CHANCE:
            self._cards.append(action)
            if len(self._cards) == players:
                self._player = 0
            return
        if action == BET and self._bettor < 0:
            self._bettor = self._player
        self._actions.append(action)
        self._letters += _ACTION_LETTERS[action]
        nxt = (self._player + 1) % players
        everyone_passed = self._bettor < 0 and len(self._actions) == players
        self._player = TERMINAL if everyone_passed or nxt == self._bettor else nxt

    def clone(self) -> KuhnPokerState:
        new = KuhnPokerState.__new__(KuhnPokerState)
        new.game = self.game
        new._cards = self._cards.copy()
        new._actions = self._actions.copy()
        new._letters = self._letters
        new._player = self._player
        new._bettor = self._bettor
        return new

    def returns(self) -> list[float]:
        players = self.game.num_players
        if self._player != TERMINAL:
            return [0.0] * players
        contrib = [1.0] * players
        for i, a in enumerate(self._actions):
            if a == BET:
                contrib[i % players] += 1.0
        # before a bet everyone is in; after it, those who bet or called
        if self._bettor < 0:
            live = list(range(players))
        else:
            live = [p for p in range(players) if contrib[p] > 1.0]
        winner = max(live, key=lambda p: self._cards[p])
        out = [-c for c in contrib]
        out[winner] += sum(contrib)
        return out

    def history(self) -> list[int]:
        return self._cards + self._actions

    def public_history(self) -> list[int]:
        return [HIDDEN] * len(self._cards) + self._actions

    def betting(self) -> str:
        """The betting so far as letters, ``p`` = pass and ``b`` = bet (e.g. ``"pb"``)."""
        return self._letters

    def cards(self) -> tuple[int, ...]:
        """Cards dealt so far (player 0's first)."""
        return tuple(self._cards)

    def information_state_string_unchecked(self, player: int) -> str:
        card = self.game.card_names[self._cards[player]] if len(self._cards) > player else "?"
        return f"player={player} card={card} history={self._letters}"

    def information_state_indices(self, player: int) -> list[int]:
        players = self.game.num_players
        idx = [player]
        if len(self._cards) > player:
            idx.append(players + self._cards[player])
        base = players + self.game.deck_size
        for k, a in enumerate(self._actions):
            idx.append(base + 2 * k + a)
        return idx

    def __str__(self) -> str:
        names = self.game.card_names
        cards = " ".join(names[c] for c in self._cards) or "-"
        return f"cards: {cards} | betting: {self._letters or '-'}"


def kuhn_equilibrium(alpha: float = 1 / 6) -> dict[str, list[float]]:
    """A Nash equilibrium of classic (3-card) Kuhn poker, as ``{information-state string:
    [P(pass), P(bet)]}``.

    The family of Kuhn (1950): player 0 bets the J with probability ``alpha`` in
    [0, 1/3], bets the K with ``3 alpha``, always checks the Q, and after check-bet calls
    with the Q at ``alpha + 1/3``; player 1 bets the J after a check at 1/3, calls a bet
    with the Q at 1/3, and plays the rest purely. With ``alpha`` strictly inside the range
    every information set is reached (the search experiments use ``alpha = 1/6``). Value
    for player 0: -1/18.

    Raises:
        InvalidParameterError: ``alpha`` is not a number in [0, 1/3].
    """
    from nashzoo.errors import InvalidParameterError

    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1 / 3:
        raise InvalidParameterError(f"alpha must be a number in [0, 1/3], received {alpha!r}.")
    bet = {  # P(bet or call) per (player, card, history)
        (0, "J", ""): alpha,
        (0, "Q", ""): 0.0,
        (0, "K", ""): 3 * alpha,
        (0, "J", "pb"): 0.0,
        (0, "Q", "pb"): alpha + 1 / 3,
        (0, "K", "pb"): 1.0,
        (1, "J", "b"): 0.0,
        (1, "Q", "b"): 1 / 3,
        (1, "K", "b"): 1.0,
        (1, "J", "p"): 1 / 3,
        (1, "Q", "p"): 0.0,
        (1, "K", "p"): 1.0,
    }
    return {f"player={p} card={c} history={h}": [1.0 - b, b] for (p, c, h), b in bet.items()}
