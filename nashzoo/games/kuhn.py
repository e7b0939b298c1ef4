"""Kuhn poker and its N-card variants.

Rules (Kuhn 1950; OpenSpiel's ``kuhn_poker``): a deck of ``deck_size`` cards of distinct
rank; each of two players antes 1 chip and is dealt one private card. Player 0 acts first;
each player may *pass* (check, or fold when facing a bet) or *bet* 1 chip (bet, or call when
facing a bet). The betting ends after ``pp``, ``bp``, ``bb``, ``pbp`` or ``pbb``; a pass
after a bet folds, otherwise the higher card wins the pot.

``deck_size=3`` is classic Kuhn poker (cards J, Q, K; value -1/18 for player 0).
``deck_size=8`` is the *8-card poker* of Oliehoek's thesis (2005), where player 0 is the
"gambler" and player 1 the "dealer" (value -1/16 for the gambler). Cards are named
J, Q, K for three cards and ``1 .. N`` otherwise.

Actions: ``0`` = Pass, ``1`` = Bet. Chance outcomes: the card dealt (first to player 0,
then to player 1, uniform over the cards left).

Information-state tensor (``2 + N + 6`` floats, as OpenSpiel's):

=================  ===========================================
index              meaning
=================  ===========================================
``0 .. 1``         one-hot: observing player
``2 .. N+1``       one-hot: the observing player's card
``N+2 + 2k + a``   action ``a`` was the ``k``-th betting action
=================  ===========================================

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


class KuhnPokerGame(Game):
    """Kuhn poker with a ``deck_size``-card deck.

    Args:
        deck_size: number of cards, 3 to :data:`MAX_DECK_SIZE` (3 = classic Kuhn, 8 =
            8-card poker).

    Raises:
        InvalidParameterError: ``deck_size`` is not an integer in that range.
    """

    short_name = "kuhn_poker"
    game_type = "kuhn_poker"

    def __init__(self, deck_size: int = 3) -> None:
        self.deck_size = check_int("deck_size", deck_size, 3, MAX_DECK_SIZE)
        self.num_players = 2
        self.num_distinct_actions = 2
        self.max_chance_outcomes = self.deck_size
        self.max_chance_nodes = 2
        self.max_game_length = 3
        self.min_utility = -2.0
        self.max_utility = 2.0
        self.big_blind = 1.0
        self.card_names: tuple[str, ...] = (
            ("J", "Q", "K")
            if self.deck_size == 3
            else tuple(str(i + 1) for i in range(self.deck_size))
        )
        self.information_state_tensor_size = 2 + self.deck_size + 6
        self.action_names = _ACTION_NAMES
        self._uniform = [1.0 / self.deck_size, 1.0 / (self.deck_size - 1)]

    def params(self) -> dict[str, Any]:
        return {"deck_size": self.deck_size}

    def new_initial_state(self) -> KuhnPokerState:
        return KuhnPokerState(self)

    def count_histories(self) -> int:
        """``1 + N + 9 N (N - 1)``: the root, the first deal, and 9 betting histories
        ('', p, b, pp, pb, bp, bb, pbp, pbb) per pair of cards (58 for N = 3)."""
        n = self.deck_size
        return 1 + n + 9 * n * (n - 1)


class KuhnPokerState(State):
    """A Kuhn poker history. See :mod:`nashzoo.games.kuhn` for the rules."""

    game: KuhnPokerGame

    __slots__ = ("game", "_cards", "_actions", "_player", "_letters")

    def __init__(self, game: KuhnPokerGame) -> None:
        self.game = game
        self._cards: list[int] = []
        self._actions: list[int] = []
        self._letters = ""
        self._player = CHANCE

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
        if self._player == CHANCE:
            self._cards.append(action)
            if len(self._cards) == 2:
                self._player = 0
            return
        self._actions.append(action)
        self._letters += _ACTION_LETTERS[action]
        n = len(self._actions)
        if n == 3 or (n == 2 and self._letters != "pb"):
            self._player = TERMINAL
        else:
            self._player = 1 - self._player

    def clone(self) -> KuhnPokerState:
        new = KuhnPokerState.__new__(KuhnPokerState)
        new.game = self.game
        new._cards = self._cards.copy()
        new._actions = self._actions.copy()
        new._letters = self._letters
        new._player = self._player
        return new

    def returns(self) -> list[float]:
        if self._player != TERMINAL:
            return [0.0, 0.0]
        contrib = [1.0, 1.0]
        for i, a in enumerate(self._actions):
            if a == BET:
                contrib[i % 2] += 1.0
        if self._actions[-1] == PASS and BET in self._actions:
            loser = (len(self._actions) - 1) % 2  # the player who folded
        else:
            loser = 0 if self._cards[0] < self._cards[1] else 1
        won = contrib[loser]
        return [won, -won] if loser == 1 else [-won, won]

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
        idx = [player]
        if len(self._cards) > player:
            idx.append(2 + self._cards[player])
        base = 2 + self.game.deck_size
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
