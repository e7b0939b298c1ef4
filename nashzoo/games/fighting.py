"""Fighting cards: a two-player card game of simultaneous exchanges, hidden hands and
hit points (our own rules, in the spirit of the fighting-game card games).

.. rubric:: Rules

Each player has their own deck of ``4 * ranks * copies`` cards: every card has a *type*
(Attack, Throw, Block, Dodge) and a *rank* ``1 .. ranks``, ``copies`` of each. A low rank
is fast, a high rank is strong. Both players start with ``hit_points``. Chance shuffles
each deck and deals each player a private hand of ``hand_size`` cards.

Every exchange both players choose a card from their hand at the same time (played as
player 0 then player 1, with player 0's card hidden from player 1, like the matrix games).
Both cards are revealed and resolved; the damage below is dealt; the two cards go face up
to their owners' discard piles, so both players know them from then on.

===========================  =======================================================
cards                        result
===========================  =======================================================
Attack r  vs  Throw s        the throw is interrupted: the attacker deals ``2r``
Attack r  vs  Attack s       the faster (lower rank) hits for its rank; equal ranks
                             trade: both take ``r``
Throw r   vs  Throw s        the faster throw lands for its rank; equal ranks: nothing
Throw s   vs  Block          the throw deals ``s``
Throw s   vs  Dodge          the dodger is caught mid-air: ``s + 1``
Block     vs  Attack r       the block parries and reflects ``r`` to the attacker
Dodge d   vs  Attack r       the dodger evades and counters for ``d + 1``
Block/Dodge vs Block/Dodge   nothing
===========================  =======================================================

After an exchange the game ends if a player has 0 hit points or less, or if the decks are
empty (every exchange empties them by one card each, so both run out together); otherwise
each player draws one card (player 0, then player 1; each sees only their own draw).
A game therefore has at most ``deck_size - hand_size + 1`` exchanges. At the end the
player with more hit points wins: payoff +1 / -1, and 0 for equal hit points.

.. rubric:: Why no card type is dominated

The beats-relation is a cycle (Attack > Throw > Block, Dodge > Attack) and every type has a
reason to be played that no other type gives: Attack is the only answer to a throw;
Throw is the only card that beats Block and Dodge; Block and Dodge both stop an attack,
Block losing less to a throw (``s`` against ``s + 1``) and Dodge winning more against a
light attack (``d + 1`` against ``r``). Type by type this is a non-degenerate RPS, but a
symmetric zero-sum game with an even number of options generically has an equilibrium of
odd support, so with one rank (4 cards) some type must drop out of the equilibrium. With
the default three ranks the one-exchange stage game (:meth:`FightingCardGame.stage_game`,
payoff = damage dealt minus damage taken) has equilibria that all play every type:
the smallest weight any equilibrium puts on a type (an LP over the set of equilibria,
:func:`nashzoo.tree.lp.min_group_weights` with the card types as groups) is 3/13, 4/13,
2/13 and 4/13 for Attack, Throw, Block and Dodge (``tests/games/test_fighting.py``
checks it).

.. rubric:: Presets

* :func:`fighting_cards_tiny` (1 rank: 4-card decks, hands of 3, 3 hit points; two
  exchanges): 2,229 histories.
* :func:`fighting_cards_small` (1 rank, hands of 2, 3 hit points; three exchanges):
  18,915 histories, 1,100 information sets; CFR+ solves it in seconds.
* the default (3 ranks: 12-card decks, hands of 3, 10 hit points; up to ten exchanges):
  far too large to compile (two ranks already exceed 5 million histories); the
  simplex-gradient agent is made for it.

Actions: card kind ``type * ranks + (rank - 1)`` (type 0 Attack, 1 Throw, 2 Block,
3 Dodge), named ``"A1"``, ``"T2"``, ... Legal actions: the kinds in the player's hand.

Chance: the first two chance events deal player 0's and player 1's whole hand at once
(outcome = index of the hand in :attr:`FightingCardGame.hands`, probability by the
multivariate hypergeometric law); each draw is one event whose outcome is the card kind
(probability = copies left / cards left).

Information-state tensor (binary; ``K = 4 * ranks`` kinds, ``c = copies``, ``H =
hand_size``, ``P = hit_points``, ``N`` = most exchanges):

=======================================  ===========================================
index (in order)                         meaning
=======================================  ===========================================
``2``                                    one-hot: observing player
``K * c``                                own hand: per kind, ``min(count, j+1)``
                                         thermometer (bit ``j`` set if count > j)
``K * c``                                own discards, thermometer per kind
``K * c``                                the opponent's discards (known cards)
``H + 1``                                one-hot: the opponent's hand size
``P``, ``P``                             own, then the opponent's hit points
                                         (thermometer, clipped at 0)
``K * c``                                the hand first dealt, thermometer per kind
``N * 3K``                               exchange ``n``: own card, the opponent's card
                                         (once revealed), own draw (one-hot each)
=======================================  ===========================================

Information-state string: ``"player=0 hp=10/10 deal=A1,T2,B3 | A1vT2+D1 | B3v?"``
(``+`` own draw, ``?`` the opponent's card not yet revealed).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, FastPaths, Game, State
from nashzoo.games.hidden import HiddenWorlds
from nashzoo.games.matrix import MatrixGame
from nashzoo.validation import check_int

__all__ = [
    "FightingCardGame",
    "FightingCardState",
    "FightingTensorLayout",
    "TYPES",
    "ATTACK",
    "THROW",
    "BLOCK",
    "DODGE",
    "fighting_cards_tiny",
    "fighting_cards_small",
    "PRESETS",
]

ATTACK, THROW, BLOCK, DODGE = 0, 1, 2, 3
TYPES: tuple[str, ...] = ("Attack", "Throw", "Block", "Dodge")
_LETTERS = "ATBD"

# phases of a state
_DEAL0, _DEAL1, _ACT0, _ACT1, _DRAW0, _DRAW1, _OVER = range(7)


def card_damage(type_a: int, rank_a: int, type_b: int, rank_b: int) -> int:
    """Damage the card ``(type_a, rank_a)`` deals to the player of ``(type_b, rank_b)``
    when they meet (the table in the module docstring, read from one side)."""
    if type_a == ATTACK:
        if type_b == THROW:
            return 2 * rank_a
        if type_b == ATTACK:
            return rank_a if rank_a <= rank_b else 0
        return 0
    if type_a == THROW:
        if type_b == THROW:
            return rank_a if rank_a < rank_b else 0
        if type_b == BLOCK:
            return rank_a
        if type_b == DODGE:
            return rank_a + 1
        return 0
    if type_b == ATTACK:
        return rank_b if type_a == BLOCK else rank_a + 1
    return 0


class FightingTensorLayout(NamedTuple):
    """The offsets of the information-state tensor's blocks (the table in the module
    docstring), for code that reads or builds the tensor from its parts."""

    hand: int
    own_discards: int
    opponent_discards: int
    opponent_hand_size: int
    hit_points: int
    deal: int
    exchanges: int


class FightingCardGame(Game):
    """Fighting cards (rules in the module docstring).

    Args:
        ranks: ranks per card type, 1 to 5.
        copies: copies of each (type, rank) card in a deck, 1 to 3; a deck holds
            ``deck_size = 4 * ranks * copies`` cards.
        hand_size: cards in hand, 1 to ``deck_size``.
        hit_points: starting hit points of both players, 1 to 50.

    Raises:
        InvalidParameterError: a parameter is out of range.
    """

    short_name = "fighting_cards"
    game_type = "fighting_cards"
    payoff_unit = "points"  # a game is won (+1), lost (-1) or drawn (0)
    simultaneous = True

    def __init__(
        self, ranks: int = 3, copies: int = 1, hand_size: int = 3, hit_points: int = 10
    ) -> None:
        self.ranks = check_int("ranks", ranks, 1, 5)
        self.copies = check_int("copies", copies, 1, 3)
        self.num_kinds = 4 * self.ranks
        self.deck_size = self.num_kinds * self.copies
        self.hand_size = check_int("hand_size", hand_size, 1, self.deck_size)
        self.hit_points = check_int("hit_points", hit_points, 1, 50)
        self.num_exchanges = self.deck_size - self.hand_size + 1
        self.kind_names = tuple(
            f"{_LETTERS[t]}{r}" for t in range(4) for r in range(1, self.ranks + 1)
        )
        self.action_names = self.kind_names
        table = np.zeros((self.num_kinds, self.num_kinds), dtype=np.int64)
        for a, b in itertools.product(range(self.num_kinds), repeat=2):
            table[a, b] = card_damage(*self.kind(a), *self.kind(b))
        table.setflags(write=False)
        self.damage_table = table
        """``damage_table[a, b]``: damage card kind ``a`` deals to the player of ``b``."""
        self.hands, self.hand_probs = _hands(self.num_kinds, self.copies, self.hand_size)
        self.num_players = 2
        self.num_distinct_actions = self.num_kinds
        self.max_chance_outcomes = max(len(self.hands), self.num_kinds)
        self.max_chance_nodes = 2 + 2 * (self.num_exchanges - 1)
        self.max_game_length = 2 * self.num_exchanges
        self.min_utility, self.max_utility = -1.0, 1.0
        k, c = self.num_kinds, self.copies
        self._off_hand = 2
        self._off_own = self._off_hand + k * c
        self._off_opp = self._off_own + k * c
        self._off_opp_hand = self._off_opp + k * c
        self._off_hp = self._off_opp_hand + self.hand_size + 1
        self._off_deal = self._off_hp + 2 * self.hit_points
        self._off_rounds = self._off_deal + k * c
        self.information_state_tensor_size = self._off_rounds + 3 * k * self.num_exchanges
        # batched play where the tree is too large to compile (the default preset)
        self.rule_agents = (("heuristic", "nashzoo.agents.scripted:FightingHeuristicAgent"),)
        self.fast_paths = FastPaths(
            large_vector_env="nashzoo.vector.fighting_env:FightingVectorEnv",
            decisions="nashzoo.vector.fighting_env:FightingExchanges",
        )
        self.tensor_layout = FightingTensorLayout(
            self._off_hand,
            self._off_own,
            self._off_opp,
            self._off_opp_hand,
            self._off_hp,
            self._off_deal,
            self._off_rounds,
        )
        """Where each block of the information-state tensor starts (module docstring)."""

    def information_state_summary_columns(self) -> np.ndarray:
        """Every block before the exchanges (observer, hand, both discard piles, the
        opponent's hand size, both hit points, the hand dealt): what the player holds
        and knows now; the ordered exchanges are left out (own draws follow from hand,
        deal and discards)."""
        return np.arange(self.tensor_layout.exchanges)

    def histories_lower_bound(self) -> int:
        """The histories up to the first exchange (the deals, both cards) and, where no
        first exchange can end the game, the two draws after it: every deal is a
        history, every distinct card in a hand a move, every card kind left in a deck a
        draw (the default preset: 39,833,421, far over what compiles; the tiny preset
        501 of its 2,229)."""
        hands = np.asarray(self.hands, np.int64)
        kinds = (hands > 0).sum(axis=1)  # distinct cards to play
        left = (self.copies - hands > 0).sum(axis=1)  # distinct cards to draw
        h, k = len(hands), int(kinds.sum())
        total = 1 + h + h * h + h * k + k * k
        if self.hit_points > int(self.damage_table.max()) and self.num_exchanges > 1:
            total += int((kinds * left).sum()) * int((kinds * (1 + left)).sum())
        return total

    def kind(self, card: int) -> tuple[int, int]:
        """``(type, rank)`` of card kind ``card``."""
        return card // self.ranks, card % self.ranks + 1

    def params(self) -> dict[str, Any]:
        return {
            "ranks": self.ranks,
            "copies": self.copies,
            "hand_size": self.hand_size,
            "hit_points": self.hit_points,
        }

    def __str__(self) -> str:
        """A preset's name where the parameters are a preset's (``fighting_cards_small``),
        else the short name and the parameters that differ from the defaults."""
        for name, make in PRESETS.items():
            if make().params() == self.params():
                return name
        return super().__str__()

    def stage_game(self) -> MatrixGame:
        """One exchange with every card kind available to both players, as a matrix game
        whose payoff is the damage dealt minus the damage taken."""
        t = self.damage_table.astype(np.float64)
        return MatrixGame(
            t - t.T, row_action_names=self.kind_names, name=f"{self.short_name}_stage"
        )

    @property
    def card_types(self) -> np.ndarray:
        """Type of every card kind (0 Attack, 1 Throw, 2 Block, 3 Dodge)."""
        return np.arange(self.num_kinds) // self.ranks

    def new_initial_state(self) -> FightingCardState:
        return FightingCardState(self)

    def hidden_value_features(self, values: Sequence[Any], public: Any = None) -> np.ndarray:
        """Per private value (a hand's counts per card kind, and the card chosen but not
        yet revealed or -1): the counts divided by ``copies``, then a one-hot of the
        chosen card with a last entry for none."""
        k = self.num_kinds
        out = np.zeros((len(values), 2 * k + 1), dtype=np.float32)
        for row, (hand, pending) in enumerate(values):
            out[row, :k] = hand
            out[row, k + (pending if pending >= 0 else k)] = 1.0
        out[:, :k] /= self.copies
        return out

    def hidden_value_pieces(self, values: Sequence[Any]) -> np.ndarray | None:
        """Each hand's cards one by one (kinds in increasing order, one entry per copy),
        then the chosen but unrevealed card (-1 for none); ``None`` for hands of
        different sizes."""
        rows = [
            [kind for kind, n in enumerate(hand) for _ in range(int(n))] + [int(pending)]
            for hand, pending in values
        ]
        if not rows or len({len(row) for row in rows}) != 1:
            return None
        return np.asarray(rows, dtype=np.int64)

    def view_state(
        self, player: int, info_state: str, public_history: Sequence[int]
    ) -> FightingCardState:
        """A state consistent with ``player``'s view (:mod:`nashzoo.games.fighting_hidden`)."""
        from nashzoo.games.fighting_hidden import view_state

        return view_state(self, check_int("player", player, 0, 1), info_state, public_history)


@functools.lru_cache(maxsize=32)
def _hands(kinds: int, copies: int, size: int) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Every hand (count per kind) of ``size`` cards from a full deck, and its probability."""
    hands = [
        h for h in itertools.product(range(min(copies, size) + 1), repeat=kinds) if sum(h) == size
    ]
    hands.sort(reverse=True)
    total = math.comb(kinds * copies, size)
    probs = np.array([math.prod(math.comb(copies, n) for n in h) / total for h in hands])
    return tuple(hands), probs


class FightingCardState(State):
    """A history of :class:`FightingCardGame`."""

    game: FightingCardGame

    __slots__ = (
        "game",
        "_phase",
        "_hands",
        "_decks",
        "_hp",
        "_deal",
        "_cards",
        "_draws",
        "_pending",
        "_history",
    )

    def __init__(self, game: FightingCardGame) -> None:
        self.game = game
        self._phase = _DEAL0
        self._hands = [[0] * game.num_kinds, [0] * game.num_kinds]
        self._decks = [[game.copies] * game.num_kinds, [game.copies] * game.num_kinds]
        self._hp = [game.hit_points, game.hit_points]
        self._deal: list[int] = []  # hand index dealt to each player
        self._cards: list[tuple[int, int]] = []  # revealed exchanges (card0, card1)
        self._draws: list[list[int]] = [[], []]
        self._pending = -1  # player 0's hidden card in the current exchange
        self._history: list[int] = []

    # -- rules ---------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self._phase
        if phase == _ACT0:
            return 0
        if phase == _ACT1:
            return 1
        return TERMINAL if phase == _OVER else CHANCE

    def legal_actions(self) -> Sequence[int]:
        phase = self._phase
        if phase in (_ACT0, _ACT1):
            hand = self._hands[phase - _ACT0]
            return [k for k, n in enumerate(hand) if n]
        if phase in (_DEAL0, _DEAL1):
            return range(len(self.game.hands))
        if phase in (_DRAW0, _DRAW1):
            deck = self._decks[phase - _DRAW0]
            return [k for k, n in enumerate(deck) if n]
        return []

    def pending_legal_actions(self, player: int) -> Sequence[int]:
        if self._phase == _ACT0 or (self._phase == _ACT1 and player == 1):
            return [k for k, n in enumerate(self._hands[player]) if n]
        return ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        self.check_chance()
        phase = self._phase
        if phase in (_DEAL0, _DEAL1):
            return [(i, float(p)) for i, p in enumerate(self.game.hand_probs)]
        deck = self._decks[phase - _DRAW0]
        total = sum(deck)
        return [(k, n / total) for k, n in enumerate(deck) if n]

    def apply_unchecked(self, action: int) -> None:
        self._history.append(action)
        phase = self._phase
        if phase in (_DEAL0, _DEAL1):
            p = phase - _DEAL0
            hand = self.game.hands[action]
            self._deal.append(action)
            self._hands[p] = list(hand)
            self._decks[p] = [d - h for d, h in zip(self._decks[p], hand)]
            self._phase = phase + 1
        elif phase == _ACT0:
            self._pending = action
            self._hands[0][action] -= 1
            self._phase = _ACT1
        elif phase == _ACT1:
            self._hands[1][action] -= 1
            self._resolve(self._pending, action)
        else:  # a draw
            p = phase - _DRAW0
            self._decks[p][action] -= 1
            self._hands[p][action] += 1
            self._draws[p].append(action)
            self._phase = _DRAW1 if phase == _DRAW0 else _ACT0

    def _resolve(self, card0: int, card1: int) -> None:
        table = self.game.damage_table
        self._hp[1] -= int(table[card0, card1])
        self._hp[0] -= int(table[card1, card0])
        self._cards.append((card0, card1))
        self._pending = -1
        if min(self._hp) <= 0 or not any(self._decks[0]):
            self._phase = _OVER
        else:
            self._phase = _DRAW0

    def clone(self) -> FightingCardState:
        new = FightingCardState.__new__(FightingCardState)
        new.game = self.game
        new._phase = self._phase
        new._hands = [self._hands[0].copy(), self._hands[1].copy()]
        new._decks = [self._decks[0].copy(), self._decks[1].copy()]
        new._hp = self._hp.copy()
        new._deal = self._deal.copy()
        new._cards = self._cards.copy()
        new._draws = [self._draws[0].copy(), self._draws[1].copy()]
        new._pending = self._pending
        new._history = self._history.copy()
        return new

    def returns(self) -> list[float]:
        if self._phase != _OVER:
            return [0.0, 0.0]
        diff = self._hp[0] - self._hp[1]
        win = 1.0 if diff > 0 else -1.0 if diff < 0 else 0.0
        return [win, -win]

    def history(self) -> list[int]:
        return self._history.copy()

    def public_history(self) -> list[int]:
        # deals and draws are private; an exchange becomes public when it is revealed
        # (player 0's card, hidden while player 1 chooses, is left out until then)
        public = [HIDDEN] * len(self._deal)
        for n, (c0, c1) in enumerate(self._cards):
            public += [c0, c1]
            public += [HIDDEN for draws in self._draws if len(draws) > n]
        return public

    # -- hidden information ---------------------------------------------------------------
    def private_information(self, player: int) -> tuple[tuple[int, ...], int]:
        """``player``'s hand and, for player 0 while player 1 chooses, its chosen card
        (else -1)."""
        self.check_player(player)
        p = int(player)
        pending = self._pending if p == 0 and self._phase == _ACT1 else -1
        return tuple(self._hands[p]), pending

    def hidden_worlds(self, player: int) -> HiddenWorlds:
        """The opponent's possible hands with their chance weights
        (:mod:`nashzoo.games.fighting_hidden`)."""
        from nashzoo.games.fighting_hidden import hidden_worlds

        self.check_player(player)
        return hidden_worlds(self, int(player))

    # -- what a player sees --------------------------------------------------------------
    @property
    def hit_points(self) -> tuple[int, int]:
        """Both players' hit points (public)."""
        return self._hp[0], self._hp[1]

    def hand(self, player: int) -> tuple[int, ...]:
        """Count per card kind in ``player``'s hand (private to that player)."""
        self.check_player(player)
        return tuple(self._hands[int(player)])

    def _own_card(self, player: int, n: int) -> int:
        """Player's card in exchange ``n`` as the player knows it (-1 if not played)."""
        if n < len(self._cards):
            return self._cards[n][player]
        if player == 0 and self._phase == _ACT1 and n == len(self._cards):
            return self._pending
        return -1

    def information_state_string_unchecked(self, player: int) -> str:
        g = self.game
        names = g.kind_names
        opp = 1 - player
        parts = [f"player={player} hp={self._hp[player]}/{self._hp[opp]}"]
        if len(self._deal) > player:
            dealt = g.hands[self._deal[player]]
            parts[0] += " deal=" + ",".join(names[k] for k, n in enumerate(dealt) for _ in range(n))
        draws = self._draws[player]
        rounds = []
        for n in range(len(self._cards) + 1):
            mine = self._own_card(player, n)
            if mine < 0:
                break
            text = names[mine] + "v"
            text += names[self._cards[n][opp]] if n < len(self._cards) else "?"
            if n < len(draws):
                text += "+" + names[draws[n]]
            rounds.append(text)
        return " | ".join(parts + rounds)

    def information_state_indices(self, player: int) -> list[int]:
        g = self.game
        c, k = g.copies, g.num_kinds
        opp = 1 - player
        cards = self._cards
        draws = self._draws[player]
        idx = [player]
        own_played = [0] * k
        opp_played = [0] * k
        base = g._off_rounds
        for n, pair in enumerate(cards):  # the revealed exchanges, then the draw after
            mine, theirs = pair[player], pair[opp]
            own_played[mine] += 1
            opp_played[theirs] += 1
            idx.append(base + mine)
            idx.append(base + k + theirs)
            if n < len(draws):
                idx.append(base + 2 * k + draws[n])
            base += 3 * k
        if player == 0 and self._phase == _ACT1:  # player 0's own card, not yet revealed
            own_played[self._pending] += 1
            idx.append(base + self._pending)
            if len(cards) < len(draws):
                idx.append(base + 2 * k + draws[len(cards)])
        counted: list[tuple[int, Sequence[int]]] = [
            (g._off_hand, self._hands[player]),
            (g._off_own, own_played),
            (g._off_opp, opp_played),
        ]
        if len(self._deal) > player:
            counted.append((g._off_deal, g.hands[self._deal[player]]))
        for off, counts in counted:  # thermometers: bit j of a kind set when count > j
            for a, n in enumerate(counts):
                if n == 1:
                    idx.append(off + a * c)
                elif n:
                    idx.extend(range(off + a * c, off + a * c + n))
        opp_hand = sum(self._hands[opp]) + (1 if opp == 0 and self._phase == _ACT1 else 0)
        idx.append(g._off_opp_hand + min(opp_hand, g.hand_size))
        for side, hp in enumerate((self._hp[player], self._hp[opp])):
            start = g._off_hp + side * g.hit_points
            idx.extend(range(start, start + max(0, min(hp, g.hit_points))))
        return idx

    def __str__(self) -> str:
        names = self.game.kind_names
        hands = [",".join(names[k] for k, n in enumerate(h) for _ in range(n)) for h in self._hands]
        done = " ".join(f"{names[a]}v{names[b]}" for a, b in self._cards)
        return f"hp {self._hp[0]}/{self._hp[1]} hands [{hands[0]}] [{hands[1]}] played {done}"


def fighting_cards_tiny() -> FightingCardGame:
    """1 rank (4-card decks: A1 T1 B1 D1), hands of 3, 3 hit points: at most two
    exchanges; 2,229 histories, 104 information sets."""
    return FightingCardGame(ranks=1, copies=1, hand_size=3, hit_points=3)


def fighting_cards_small() -> FightingCardGame:
    """1 rank (4-card decks), hands of 2, 3 hit points: at most three exchanges; 18,915
    histories, 1,100 information sets (CFR+ solves it in seconds)."""
    return FightingCardGame(ranks=1, copies=1, hand_size=2, hit_points=3)


PRESETS = {
    "fighting_cards_tiny": fighting_cards_tiny,
    "fighting_cards_small": fighting_cards_small,
    "fighting_cards": FightingCardGame,
}
"""Env presets by name (``nashzoo/<name>-v0``)."""
