"""One engine for heads-up limit poker, read from a game definition.

Rules (the ACPC's, as OpenSpiel's ``universal_poker`` plays them): each player posts its
blind, then the deal: ``num_hole_cards`` private cards to player 0, then to player 1, one
card per chance event. Each round first deals its board cards (one chance event per card),
then the betting: the round's first player acts, then turns alternate. A player may *fold*
(only when facing a bet), *call* (check when not facing one) or *raise* by one of the
round's raise sizes over the current bet, at most ``max_raises`` raises per round (the
blinds do not count) and never past ``stack``. A call closes the round once both players
have acted in it. After the last round the best five-card hand of hole and board cards
wins the pot (:mod:`nashzoo.games.poker.hands`); equal hands split it. Payoffs are chips
won or lost.

Actions: ``0`` Fold, ``1`` Call, ``2 + k`` raise by the ``k``-th size of the round (one
raise action when every round has one size). Chance outcomes: the card dealt,
``rank * num_suits + suit`` with suits ``c d h s`` (universal_poker's numbering), uniform
over the cards left.

Information-state string: ``"player=0 hole=AsKd board=Qh7c2d/5s/9h bets=cr/crc/c"``:
the hole cards and each round's board cards sorted high to low (the order in which
cards of one deal arrive tells nothing), betting letters per round separated by ``/``
(``f`` fold, ``c`` call, ``r`` raise; ``r1``, ``r2``, ... name the size when a round
offers several). ``board=`` is left out for games without board cards.

Information-state tensor (``2 + C * (1 + B) + A * sum(max_raises[r] + 2)`` floats, with
``C`` cards, ``B`` rounds that deal board cards and ``A`` actions):

================================  ================================================
index                             meaning
================================  ================================================
``0 .. 1``                        one-hot: observing player
``2 .. C+1``                      the observing player's hole cards
``2 + C*(1+b) + c``               card ``c`` was dealt to the board in the ``b``-th
                                  round that deals board cards
``S + A*(L_r + j) + a``           the ``j``-th action of round ``r`` was ``a``
                                  (``S`` the start of the action section, ``L_r`` the
                                  slots of the earlier rounds)
================================  ================================================

Presets are in :mod:`nashzoo.games.poker.presets`; heads-up Limit Texas Hold'em is
:func:`~nashzoo.games.poker.presets.limit_holdem`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import (
    CHANCE,
    HIDDEN,
    TERMINAL,
    FastPaths,
    Game,
    State,
    card_deal_histories,
)
from nashzoo.games.hidden import Combinations, HiddenWorlds
from nashzoo.games.poker.definition import PokerDefinition
from nashzoo.games.poker.hands import card_name, strength_function
from nashzoo.games.poker.private import hole_features, hole_pieces, view_state, with_hole

__all__ = ["PokerGame", "PokerState", "FOLD", "CALL", "RAISE"]

FOLD: int = 0
CALL: int = 1
RAISE: int = 2
"""The first raise action (``RAISE + k`` raises by the ``k``-th size)."""


class PokerGame(Game):
    """Heads-up limit poker from a :class:`PokerDefinition`.

    Args:
        definition: the game, a :class:`PokerDefinition` or its :meth:`~PokerDefinition.to_dict`.
        name: the ``short_name`` (``"poker"`` unless a preset names it).

    Attributes:
        standard_hands: whether hands are 5 to 7 cards of the 52-card deck, ranked by the
            standard tables (:func:`~nashzoo.games.poker.hands.standard_tables`): what the
            batched env and the check-down values of AIVAT serve.

    Raises:
        InvalidParameterError: ``definition`` is neither.
    """

    game_type = "poker"
    payoff_unit = "chips"

    def __init__(self, definition: PokerDefinition | dict[str, Any], name: str = "poker") -> None:
        if isinstance(definition, dict):
            definition = PokerDefinition.from_dict(definition)
        if not isinstance(definition, PokerDefinition):
            raise InvalidParameterError(
                "PokerGame expects a PokerDefinition (or its to_dict()), received "
                f"{type(definition).__name__}."
            )
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"Parameter `name` expects a string, received {name!r}.")
        d = definition
        self.definition = d
        self.short_name = name
        self.num_players = 2
        self.num_cards = d.num_cards
        self.num_distinct_actions = 2 + d.num_raise_sizes
        self.max_chance_outcomes = d.num_cards
        self.max_chance_nodes = 2 * d.num_hole_cards + sum(d.num_board_cards)
        self.round_slots = tuple(m + 2 for m in d.max_raises)
        self.max_game_length = sum(self.round_slots)
        most = max(d.blinds) + sum(m * max(sizes) for m, sizes in zip(d.max_raises, d.raise_sizes))
        if d.stack is not None:
            most = min(most, d.stack)
        self.min_utility = -float(most)
        self.max_utility = float(most)
        self.big_blind = float(max(d.blinds) or 1)
        self.card_names: tuple[str, ...] = tuple(
            card_name(c, d.num_suits) for c in range(d.num_cards)
        )
        if d.num_raise_sizes == 1:
            self.action_names = ("Fold", "Call", "Raise")
            self.raise_letters: tuple[tuple[str, ...], ...] = tuple(("r",) for _ in d.raise_sizes)
        else:
            raises = tuple(f"Raise #{k + 1}" for k in range(d.num_raise_sizes))
            self.action_names = ("Fold", "Call", *raises)
            self.raise_letters = tuple(tuple(f"r{s}" for s in sizes) for sizes in d.raise_sizes)
        board_rounds = [r for r in range(d.num_rounds) if d.num_board_cards[r]]
        # tensor offset of each round's board block (-1: the round deals no board cards)
        self.board_offset = tuple(
            2 + d.num_cards * (1 + board_rounds.index(r)) if r in board_rounds else -1
            for r in range(d.num_rounds)
        )
        self.actions_offset = 2 + d.num_cards * (1 + len(board_rounds))
        self.round_action_offset = tuple(
            self.actions_offset + self.num_distinct_actions * sum(self.round_slots[:r])
            for r in range(d.num_rounds)
        )
        self.information_state_tensor_size = (
            self.actions_offset + self.num_distinct_actions * self.max_game_length
        )
        self.has_board = bool(board_rounds)
        self._hand_cards = d.num_hole_cards + sum(d.num_board_cards)
        self.rule_agents = (("poker-rules", "nashzoo.agents.scripted:PokerRulesAgent"),)
        self.standard_hands, self.strength = strength_function(
            d.num_ranks, d.num_suits, self._hand_cards
        )
        if self.standard_hands:  # the compiled hand ranking covers these hands
            self.fast_paths = FastPaths(
                lane="nashzoo.games.poker.limit_kernel:LimitLane",
                vector_env="nashzoo.vector.poker_env:PokerVectorEnv",
                decisions="nashzoo.vector.poker_env:PokerDecisions",
            )

    def params(self) -> dict[str, Any]:
        return {"definition": self.definition.to_dict(), "name": self.short_name}

    def __str__(self) -> str:
        """Its name (``limit_holdem``; ``poker`` for a definition of one's own)."""
        return self.short_name

    def hidden_value_features(self, values: Sequence[Any]) -> np.ndarray:
        """Per set of hole cards: the one-hot of each card, its rank and its suit, summed
        (cards are ``rank * num_suits + suit``), and 1 where two cards share a rank."""
        return hole_features(self.definition, values)

    def hidden_value_pieces(self, values: Sequence[Any]) -> np.ndarray | None:
        """The hole cards of each value, in the order the value lists them (``None``
        with one hole card)."""
        return hole_pieces(self.definition.num_hole_cards, values)

    def view_state(self, player: int, info_state: str, public_history: Sequence[int]) -> PokerState:
        """A state with ``player``'s hole cards read from ``info_state`` (``hole=...``),
        the board and the bets from ``public_history``, and the opponent holding the
        lowest cards left (see :mod:`nashzoo.games.hidden`).

        Raises:
            InvalidParameterError: the string or the history is not one of this game's,
                or the two disagree.
        """
        state: PokerState = view_state(self, player, info_state, public_history)  # type: ignore[assignment]
        return state

    def new_initial_state(self) -> PokerState:
        return PokerState(self)

    def count_histories(self) -> int:
        """Histories of the tree, from the betting tree of each round (the cards dealt only
        multiply it; each card is its own chance event)."""
        d = self.definition
        n_cards = d.num_cards

        @functools.cache
        def betting(r: int, dealt: int, raises: int, acted: int, c0: int, c1: int, p: int) -> int:
            contrib = (c0, c1)
            top = max(contrib)
            total = 1
            if contrib[p] < top:
                total += 1  # fold: terminal
            if acted >= 1:  # the call closes the round
                total += 1 if r + 1 == d.num_rounds else round_start(r + 1, dealt, top, top)
            else:
                nxt = (top, c1) if p == 0 else (c0, top)
                total += betting(r, dealt, raises, acted + 1, *nxt, 1 - p)
            if raises < d.max_raises[r]:
                for size in d.raise_sizes[r]:
                    if d.stack is None or top + size <= d.stack:
                        nxt = (top + size, c1) if p == 0 else (c0, top + size)
                        total += betting(r, dealt, raises + 1, acted + 1, *nxt, 1 - p)
            return total

        def round_start(r: int, dealt: int, c0: int, c1: int) -> int:
            k = d.num_board_cards[r]
            below = betting(r, dealt + k, 0, 0, c0, c1, d.first_player[r])
            return card_deal_histories(n_cards - dealt, k, below)

        hole = 2 * d.num_hole_cards
        k0 = d.num_board_cards[0]
        below = betting(0, hole + k0, 0, 0, d.blinds[0], d.blinds[1], d.first_player[0])
        return card_deal_histories(n_cards, hole + k0, below)


def _sorted_names(cards: Sequence[int], names: Sequence[str]) -> str:
    return "".join(names[c] for c in sorted(cards, reverse=True))


class PokerState(State):
    """A history of a :class:`PokerGame`. See :mod:`nashzoo.games.poker.engine`."""

    game: PokerGame

    __slots__ = (
        "game",
        "_cards",
        "_remaining",
        "_hole_idx",
        "_public_idx",
        "_pending",
        "_round",
        "_contrib",
        "_raises",
        "_acted",
        "_player",
        "_folder",
        "_history",
        "_bets",
        "_actions",
        "_heads",
        "_tail",
        "_legal",
    )

    def __init__(self, game: PokerGame) -> None:
        d = game.definition
        self.game = game
        self._cards: list[int] = []  # hole cards of player 0, of player 1, then the board
        self._remaining = list(range(game.num_cards))  # undealt cards, sorted
        # tensor indices, kept as the state moves: each player's hole cards; the board
        # cards and actions (shared)
        self._hole_idx: list[list[int]] = [[0], [1]]
        self._public_idx: list[int] = []
        self._pending = 2 * d.num_hole_cards + d.num_board_cards[0]
        self._round = 0
        self._contrib = list(d.blinds)
        self._raises = 0
        self._acted = 0
        self._player = CHANCE
        self._folder = -1
        self._history: list[int] = []
        self._bets: list[str] = [""]
        self._actions: list[list[int]] = [[]]  # each round's betting actions
        self._heads: list[str | None] = ["player=0 hole=", "player=1 hole="]
        # the public part of the information-state string (None: to be rebuilt)
        self._tail: str | None = self._public_text()
        self._legal: tuple[int, ...] | None = None  # the decision's legal actions, once asked

    # -- the rules --------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._player

    def action_to_string(self, action: int) -> str:
        """As :meth:`State.action_to_string`, with the words a person reads: "Check" for
        a call and "Bet" for a raise where no bet is pending."""
        name = super().action_to_string(action)
        p = self._player
        if p >= 0 and action >= CALL and self._contrib[p] >= max(self._contrib):
            if action == CALL:
                return "Check"
            return name.replace("Raise", "Bet", 1)
        return name

    def legal_actions(self) -> Sequence[int]:
        p = self._player
        if p >= 0:
            if self._legal is not None:
                return self._legal
            d = self.game.definition
            contrib = self._contrib
            top = contrib[1 - p] if contrib[1 - p] > contrib[p] else contrib[p]
            actions = [FOLD, CALL] if contrib[p] < top else [CALL]
            r = self._round
            if self._raises < d.max_raises[r]:
                stack = d.stack
                for k, size in enumerate(d.raise_sizes[r]):
                    if stack is None or top + size <= stack:
                        actions.append(RAISE + k)
            self._legal = tuple(actions)
            return self._legal
        if p == CHANCE:
            return self._remaining.copy()
        return ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def apply_unchecked(self, action: int) -> None:
        self._history.append(action)
        self._legal = None
        p = self._player
        game = self.game
        if p == CHANCE:
            self._deal(action)
            return
        d = game.definition
        r = self._round
        actions = self._actions[r]
        self._public_idx.append(
            game.round_action_offset[r] + game.num_distinct_actions * len(actions) + action
        )
        actions.append(action)
        self._acted += 1
        contrib = self._contrib
        if action == FOLD:
            letter = "f"
            self._folder = p
            self._player = TERMINAL
        elif action == CALL:
            letter = "c"
            contrib[p] = contrib[1 - p] if contrib[1 - p] > contrib[p] else contrib[p]
            if self._acted >= 2:  # the call closes the round
                self._bets[r] += letter
                if self._tail is not None:
                    self._tail = f"{self._tail}{letter}"
                self._next_round()
                return
            self._player = 1 - p
        else:
            k = action - RAISE
            letter = game.raise_letters[r][k]
            top = contrib[1 - p] if contrib[1 - p] > contrib[p] else contrib[p]
            contrib[p] = top + d.raise_sizes[r][k]
            self._raises += 1
            self._player = 1 - p
        self._bets[r] += letter
        if self._tail is not None:
            self._tail = f"{self._tail}{letter}"

    def _next_round(self) -> None:
        d = self.game.definition
        r = self._round + 1
        if r == d.num_rounds:
            self._player = TERMINAL
            return
        self._round = r
        self._raises = 0
        self._acted = 0
        self._bets.append("")
        self._actions.append([])
        if self._tail is not None:
            self._tail = f"{self._tail}/"
        self._pending = d.num_board_cards[r]
        self._player = CHANCE if self._pending else d.first_player[r]

    def _deal(self, card: int, removed: bool = False) -> None:
        game = self.game
        d = game.definition
        self._cards.append(card)
        if not removed:
            self._remaining.remove(card)
        self._pending -= 1
        n = len(self._cards)
        h = d.num_hole_cards
        if n <= 2 * h:
            p = 0 if n <= h else 1
            self._hole_idx[p].append(2 + card)
            self._heads[p] = None
        else:
            self._public_idx.append(game.board_offset[self._round] + card)
            self._tail = None  # the strings are rebuilt when asked for
        if self._pending == 0:
            self._player = d.first_player[self._round]

    def _public_text(self) -> str:
        game = self.game
        d = game.definition
        names = game.card_names
        parts = []
        start = 2 * d.num_hole_cards
        for k in d.num_board_cards:
            if k:
                parts.append(_sorted_names(self._cards[start : start + k], names))
                start += k
        board = " board=" + "/".join(parts) if game.has_board else ""
        return board + " bets=" + "/".join(self._bets)

    def clone(self) -> PokerState:
        new = PokerState.__new__(PokerState)
        new.game = self.game
        new._cards = self._cards.copy()
        new._remaining = self._remaining.copy()
        new._hole_idx = [self._hole_idx[0].copy(), self._hole_idx[1].copy()]
        new._public_idx = self._public_idx.copy()
        new._pending = self._pending
        new._round = self._round
        new._contrib = self._contrib.copy()
        new._raises = self._raises
        new._acted = self._acted
        new._player = self._player
        new._folder = self._folder
        new._history = self._history.copy()
        new._bets = self._bets.copy()
        new._actions = [a.copy() for a in self._actions]
        new._heads = self._heads.copy()
        new._tail = self._tail
        new._legal = self._legal
        return new

    def returns(self) -> list[float]:
        if self._player != TERMINAL:
            return [0.0, 0.0]
        contrib = self._contrib
        if self._folder >= 0:
            loser = self._folder
        else:
            h = self.game.definition.num_hole_cards
            board = self._cards[2 * h :]
            strength = self.game.strength
            s0 = strength(self._cards[:h] + board)
            s1 = strength(self._cards[h : 2 * h] + board)
            if s0 == s1:
                return [0.0, 0.0]
            loser = 1 if s0 > s1 else 0
        won = float(contrib[loser])
        return [won, -won] if loser == 1 else [-won, won]

    def history(self) -> list[int]:
        return self._history.copy()

    def public_history(self) -> list[int]:
        hidden = min(2 * self.game.definition.num_hole_cards, len(self._history))
        return [HIDDEN] * hidden + self._history[hidden:]

    def information_state_string_unchecked(self, player: int) -> str:
        tail = self._tail
        if tail is None:
            tail = self._tail = self._public_text()
        head = self._heads[player]
        if head is None:
            h = self.game.definition.num_hole_cards
            cards = self._cards[player * h : (player + 1) * h]
            head = self._heads[player] = f"player={player} hole=" + _sorted_names(
                cards, self.game.card_names
            )
        return head + tail

    def information_state_indices(self, player: int) -> list[int]:
        return self._hole_idx[player] + self._public_idx

    def advance_chance(self, uniform: Callable[[], float]) -> None:
        """Deal until a player is to move or the game is over: each card is the
        ``floor(u * n)``-th of the ``n`` cards left (sorted), ``u = uniform()``.

        The same distribution as the generic :meth:`State.advance_chance` (every card left
        equally likely) without building the outcome list; the vector env deals alike, so
        its episodes equal this engine's for the same draws.
        """
        while self._player == CHANCE:
            remaining = self._remaining
            card = remaining.pop(int(uniform() * len(remaining)))
            self._history.append(card)
            self._deal(card, removed=True)

    # -- hidden information ----------------------------------------------------------------
    def private_information(self, player: int) -> tuple[int, ...]:
        """``player``'s hole cards, sorted."""
        return tuple(sorted(self.hole_cards(player)))

    def returns_over(self, player: int, values: Sequence[Any]) -> np.ndarray:
        """``player``'s return at this terminal state had its opponent held each set of
        hole cards in ``values``: the same for all after a fold, else a showdown each."""
        if self._player != TERMINAL:
            raise InvalidParameterError("returns_over needs a terminal state.")
        p = int(player)
        if self._folder >= 0:
            return np.full(len(values), self.returns()[p])
        h = self.game.definition.num_hole_cards
        board = self._cards[2 * h :]
        strength = self.game.strength
        mine = strength(self._cards[p * h : (p + 1) * h] + board)
        won = float(self._contrib[1 - p])
        lost = -float(self._contrib[p])
        out = np.empty(len(values))
        for k, value in enumerate(values):
            theirs = strength(list(value) + board)
            out[k] = won if mine > theirs else (lost if mine < theirs else 0.0)
        return out

    def information_state_indices_as(self, player: int, value: Any) -> list[int]:
        """``player``'s tensor indices had it held the hole cards ``value``."""
        return [int(player)] + [2 + int(c) for c in value] + self._public_idx

    def information_state_string_as(self, player: int, value: Any) -> str:
        """``player``'s information-state string had it held the hole cards ``value``."""
        tail = self._tail
        if tail is None:
            tail = self._tail = self._public_text()
        names = _sorted_names(value, self.game.card_names)
        return f"player={int(player)} hole={names}{tail}"

    def hidden_worlds(self, player: int) -> HiddenWorlds:
        """The opponent's possible hole cards: every set of cards neither in ``player``'s
        hand nor on the board, equally likely (every deal order is)."""
        self.check_player(player)
        h = self.game.definition.num_hole_cards
        if len(self._cards) < 2 * h:
            raise InvalidParameterError(
                "hidden_worlds needs both players' hole cards dealt; "
                f"{len(self._cards)} of {2 * h} are."
            )
        p = int(player)
        opp = 1 - p
        seen = set(self._cards[p * h : (p + 1) * h]) | set(self._cards[2 * h :])
        free = [c for c in range(self.game.num_cards) if c not in seen]
        values = Combinations(free, h)
        snapshot = self.clone()  # the state may move on; the worlds stay
        return HiddenWorlds(p, values, None, lambda v: snapshot._with_hole(opp, v))  # type: ignore[arg-type]

    def _with_hole(self, player: int, cards: Sequence[int]) -> PokerState:
        """A copy in which ``player`` holds ``cards`` (neither in the other hand nor on
        the board: the caller's promise)."""
        new: PokerState
        new, changed = with_hole(self, player, cards)
        if changed:
            new._hole_idx[player] = [player] + [2 + c for c in cards]
            new._heads[player] = None
        return new

    # -- read-outs -------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The betting round (0-based)."""
        return self._round

    def hole_cards(self, player: int) -> tuple[int, ...]:
        """The private cards of ``player`` dealt so far (judges and tests only: an agent
        reads its own cards from its information state)."""
        self.check_player(player)
        h = self.game.definition.num_hole_cards
        return tuple(self._cards[player * h : (player + 1) * h])

    def board_cards(self) -> tuple[int, ...]:
        """The public cards dealt so far, in the order dealt."""
        return tuple(self._cards[2 * self.game.definition.num_hole_cards :])

    def pot_contributions(self) -> tuple[int, int]:
        """Chips each player has put in so far."""
        return (self._contrib[0], self._contrib[1])

    def betting(self) -> str:
        """Betting letters per round joined by ``/`` (``f`` fold, ``c`` call, ``r`` raise)."""
        return "/".join(self._bets)

    def __str__(self) -> str:
        names = self.game.card_names
        h = self.game.definition.num_hole_cards
        holes = [
            " ".join(names[c] for c in self._cards[p * h : (p + 1) * h]) or "-" for p in (0, 1)
        ]
        board = " ".join(names[c] for c in self.board_cards()) or "-"
        return (
            f"hole: {holes[0]} | {holes[1]} | board: {board} | bets: {self.betting()} | "
            f"pot: {self._contrib[0]}+{self._contrib[1]}"
        )
