"""Poker of any ACPC game definition: limit and no-limit betting, two to ten players.

Betting follows the ACPC rules (as OpenSpiel's ``universal_poker`` plays them). Each
player posts its blind and has a stack: the most it can put in over the hand (limit
definitions without one have no cap worth the name: 2**31 - 1 chips, as ACPC's). A player
may *fold* when it has not matched the largest bet (and is not all-in), *call* (check
when nothing is owed; a call for more than the stack puts the player all-in) or *raise*.
In limit games a raise adds the round's raise size (all-in if the stack is shorter), at
most ``max_raises`` per round. In no-limit games a raise goes to any total between the
minimum raise-to and the stack: the minimum starts at twice the big blind, a raise to
``r`` over a bet of ``m`` makes it at least ``r + (r - m)`` (the next raise adds at least
as much) and a new round resets it to the bet plus the big blind; a player whose stack is
below the minimum may still go all-in if that raises the bet. Turns go round the players
who have neither folded nor gone all-in, from the round's first player; a round ends
when every one of them has called the last raise (or checked); when at most one of them
is left the betting ends and the rest of the board is dealt. One player left wins what
the others put in; at a showdown the pots are split by hand strength, side pots for
players all-in short (ACPC's ``valueOfState``).

**Actions.** Limit: ``0`` Fold, ``1`` Check/Call, ``2`` Raise. No-limit (an action
abstraction: which raise-to sizes a player may pick): ``0`` Fold, ``1`` Check/Call,
then one raise per pot fraction ``f`` in ``raises`` (raise to the bet plus ``f`` times
the pot after calling, rounded half away from zero as ``universal_poker`` rounds), then
All-In. A fraction's raise is legal when it is at least the minimum raise-to and below
the stack (at the stack it is the all-in action). The default ``raises = (0.5, 1.0)``
gives PettingZoo's ``texas_holdem_no_limit`` actions: Fold, Check & Call, Raise Half Pot,
Raise Full Pot, All-In. :meth:`PokerState.raise_to` tells the chips of a raise.

Chance: ``num_hole_cards`` cards to player 0, then to player 1, and so on, then each
round's board cards, one card per event, ``rank * num_suits + suit``
(``universal_poker``'s numbering), uniform over the cards left.

Information-state string: ``"player=0 hole=AsKd board=Qh7c2d/5s/9h bets=r200c/cr400c/c"``
(the ACPC betting notation; no-limit raises carry their raise-to total). Information-state
tensor: ``P + C * (1 + B) + A * L`` floats (``P`` players, ``C`` cards, ``B`` rounds that
deal board cards, ``A`` actions, ``L`` = ``max_game_length``): the observing player, its
hole cards, each board round's cards, then one one-hot slot per betting action in order.

Heads-up limit definitions lay out the tensor's actions round by round (each round a
block of ``max_raises + 2`` slots), so that a round's slots do not shift with the earlier
rounds' betting; the others in the order played. With a choice of raise sizes
(:mod:`~nashzoo.games.poker.definition`'s extension) the limit actions are Fold,
Check/Call, then ``Raise #k`` per size, and the betting notation names a raise by the
chips it adds (``r1``, ``r2``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import (
    CHANCE,
    COUNTED_DEALS,
    HIDDEN,
    TERMINAL,
    FastPaths,
    Game,
    State,
    card_deal_histories,
    memoised_histories,
)
from nashzoo.games.hidden import Combinations, HiddenPieces, HiddenWorlds
from nashzoo.games.poker.definition import PokerDefinition
from nashzoo.games.poker.hands import card_name, strength_function
from nashzoo.games.poker.private import hole_features, hole_pieces, view_state, with_hole

__all__ = ["PokerGame", "PokerState", "PETTINGZOO_RAISES", "FOLD", "CALL", "RAISE"]

FOLD: int = 0
CALL: int = 1
RAISE: int = 2
"""The first raise action (a limit game's smallest raise size; a no-limit game's first
pot fraction)."""
PETTINGZOO_RAISES = (0.5, 1.0)
"""Half pot and full pot: with Fold, Check & Call and All-In, PettingZoo's five actions."""

MAX_POT_FRACTION = 1e6
"""The largest pot fraction a no-limit raise may be (past it every raise is all in)."""


def _as_float(value: float) -> float:
    """``value`` as a float; NaN (refused by every bound) where it has none (``10**400``)."""
    try:
        return float(value)
    except OverflowError:
        return math.nan


def _short(value: object) -> str:
    """``repr(value)``, at most 200 characters (a 400-digit int shortened)."""
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:197]}..."


class PokerGame(Game):
    """Poker from a :class:`PokerDefinition` (see the module).

    Args:
        definition: the game, a :class:`PokerDefinition` or its ``to_dict()``.
        raises: no-limit only: pot fractions of the raise actions, increasing (default
            half pot and pot: PettingZoo's five actions).
        name: the ``short_name``.

    Raises:
        InvalidParameterError: a bad definition, or fractions that are not positive,
            increasing numbers.
    """

    game_type = "acpc_poker"
    payoff_unit = "chips"

    def __init__(
        self,
        definition: PokerDefinition | dict[str, Any],
        raises: Sequence[float] = PETTINGZOO_RAISES,
        name: str = "acpc_poker",
    ) -> None:
        if isinstance(definition, dict):
            definition = PokerDefinition.from_dict(definition)
        if not isinstance(definition, PokerDefinition):
            raise InvalidParameterError(
                "PokerGame expects a PokerDefinition (or its to_dict()), received "
                f"{type(definition).__name__}."
            )
        if isinstance(raises, (str, bytes)) or not isinstance(raises, Sequence):
            raise InvalidParameterError(
                f"Parameter `raises` expects pot fractions such as (0.5, 1.0), received {raises!r}."
            )
        fractions = []
        for f in raises:
            if (
                isinstance(f, bool)
                or not isinstance(f, (int, float))
                or not 0 < _as_float(f) <= MAX_POT_FRACTION
            ):
                raise InvalidParameterError(
                    f"Parameter `raises` expects pot fractions above 0 and at most "
                    f"{MAX_POT_FRACTION:g}, received {_short(list(raises))}."
                )
            fractions.append(float(f))
        if fractions != sorted(set(fractions)):
            raise InvalidParameterError(
                f"Parameter `raises` expects increasing pot fractions, received {fractions}."
            )
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"Parameter `name` expects a string, received {name!r}.")
        d = definition
        n = d.num_players
        self.definition = d
        self.limit = d.betting == "limit"
        self.raises = () if self.limit else tuple(fractions)
        self.short_name = name
        self.num_players = n
        self.private_cards = n * d.num_hole_cards  # every player's hole cards
        self.num_cards = d.num_cards
        if self.limit:
            k = d.num_raise_sizes
            self.all_in = 1 + k  # the last raise (the smallest goes all-in when short)
            self.num_distinct_actions = 2 + k
            raise_names = ("Raise",) if k == 1 else tuple(f"Raise #{j + 1}" for j in range(k))
            self.action_names = ("Fold", "Check/Call", *raise_names)
            most = min(max(d.stacks), d.limit_most)
            raises_bound = sum(d.max_raises)
        else:
            self.all_in = 2 + len(self.raises)
            self.num_distinct_actions = 3 + len(self.raises)
            self.action_names = (
                "Fold",
                "Check/Call",
                *(_fraction_name(f) for f in self.raises),
                "All-In",
            )
            most = max(d.stacks) if n > 2 else min(d.stacks)
            raises_bound = _most_raises(d, self.raises)
        self.max_chance_outcomes = d.num_cards
        self.max_chance_nodes = self.private_cards + sum(d.num_board_cards)
        # each round opens with at most n - 1 checks before a raise (n without one) and
        # each raise is answered by at most n - 1 calls or folds
        if n == 2:
            self.max_game_length = 2 * d.num_rounds + raises_bound
        else:
            self.max_game_length = n * d.num_rounds + n * raises_bound
        self.min_utility, self.max_utility = -float(most), float((n - 1) * most)
        self.big_blind = float(d.big_blind)
        self.big_blind_chips = max(d.big_blind, 1)  # the least a no-limit raise adds
        self.card_names = tuple(card_name(c, d.num_suits) for c in range(d.num_cards))
        board_rounds = [r for r in range(d.num_rounds) if d.num_board_cards[r]]
        self.board_offset = tuple(
            n + d.num_cards * (1 + board_rounds.index(r)) if r in board_rounds else -1
            for r in range(d.num_rounds)
        )
        self.actions_offset = n + d.num_cards * (1 + len(board_rounds))
        # heads-up limit: each round's actions in a block of its own (at most its raises
        # plus a check and a call), so a round's slots do not shift with the earlier
        # rounds' betting; otherwise actions take slots in the order played
        self.slot_start: tuple[int, ...] | None = None
        self.round_slots: tuple[int, ...] | None = None  # each round's block of slots
        if self.limit and n == 2:
            self.round_slots = tuple(m + 2 for m in d.max_raises)
            ends = np.cumsum([0, *self.round_slots])
            self.slot_start = tuple(int(e) for e in ends[:-1])
        self.has_board = bool(board_rounds)
        # the public part of every information-state string before any board card or bet
        self.empty_tail = (" board=" + "/" * (len(board_rounds) - 1) if board_rounds else "") + (
            " bets="
        )
        # per card in the order dealt: its board round's tensor offset, -1 for hole cards
        self.card_slot = (-1,) * self.private_cards + tuple(
            self.board_offset[r] for r in range(d.num_rounds) for _ in range(d.num_board_cards[r])
        )
        # per round: the seat before the round's first player (where the search for the
        # first player to act starts)
        self.before_first = tuple((f - 1) % n for f in d.first_player)
        self.information_state_tensor_size = (
            self.actions_offset + self.num_distinct_actions * self.max_game_length
        )
        self.rule_agents = (("poker-rules", "nashzoo.agents.scripted:PokerRulesAgent"),)
        self.standard_hands, self.strength = strength_function(
            d.num_ranks, d.num_suits, d.num_hole_cards + sum(d.num_board_cards)
        )
        # the compiled hand ranking covers these hands (and the compiled rules one raise
        # size a round)
        if self.standard_hands and d.num_raise_sizes <= 1:
            self.fast_paths = FastPaths(
                lane="nashzoo.games.poker.kernel:PokerLane",
                vector_env="nashzoo.vector.poker_env:PokerVectorEnv",
                decisions="nashzoo.vector.poker_env:PokerDecisions" if n == 2 else None,
            )

    def params(self) -> dict[str, Any]:
        return {
            "definition": self.definition.to_dict(),
            "raises": list(self.raises),
            "name": self.short_name,
        }

    def __str__(self) -> str:
        """The registered name and its players (``limit_holdem(players=3)``,
        ``no_limit_holdem``); a definition of one's own is its ``name``."""
        found = re.fullmatch(r"(limit_holdem|no_limit_holdem)_(\d+)p", self.short_name)
        if found:
            return f"{found.group(1)}(players={found.group(2)})"
        return self.short_name

    def new_initial_state(self) -> PokerState:
        return PokerState(self)

    # -- hidden information (a search over the rules; heads-up) ------------------------------
    def hidden_value_features(self, values: Sequence[Any], public: Any = None) -> np.ndarray:
        """Per set of hole cards: the one-hot of each card, its rank and its suit, summed,
        1 where two cards share a rank, and how the cards meet the board ``public``
        (:func:`~nashzoo.games.poker.private.hole_features`)."""
        return hole_features(self.definition, values, public)

    def hidden_value_features_rows(self, rows: Sequence[tuple[Sequence[Any], Any]]) -> np.ndarray:
        """:meth:`hidden_value_features` of many views' hole cards, each at its own board,
        in one pass (the boards padded with -1 to the longest)."""
        longest = max((len(board) for _, board in rows), default=0)
        boards = np.full((len(rows), longest), -1, dtype=np.int64)
        for r, (_, board) in enumerate(rows):
            boards[r, : len(board)] = board
        values = (
            np.concatenate([np.asarray(v, dtype=np.int64).reshape(len(v), -1) for v, _ in rows])
            if rows
            else np.zeros((0, self.definition.num_hole_cards), dtype=np.int64)
        )
        group = np.repeat(np.arange(len(rows)), [len(v) for v, _ in rows])
        return hole_features(self.definition, values, boards, group)

    def hidden_value_public(self, state: State) -> tuple[int, ...]:
        """The board (what :meth:`hidden_value_features` reads besides the hole cards)."""
        return tuple(state.board_cards())  # type: ignore[attr-defined]

    def action_groups(self, actions: Sequence[int]) -> list[list[int]] | None:
        """No-limit, where two or more raises are legal: fold, check/call, then every raise
        size (the pot fractions and All-In) in one group, so that a search first decides
        whether to raise and then by how much (P-splitting). ``None`` otherwise (a limit
        game has one raise)."""
        raises = [k for k, a in enumerate(actions) if a >= 2]
        if self.limit or len(raises) < 2:
            return None
        return [[k] for k, a in enumerate(actions) if a < 2] + [raises]

    def hidden_value_pieces(self, values: Sequence[Any]) -> np.ndarray | None:
        """The hole cards of each value, one by one (``None`` with one hole card)."""
        return hole_pieces(self.definition.num_hole_cards, values)

    def hidden_piece_features(self, prefixes: np.ndarray, public: Any = None) -> np.ndarray:
        """The features of the first hole cards of a set (:func:`hole_features` of the
        cards drawn so far: one-hots, ranks, suits and how they meet the board ``public``)."""
        cards = np.asarray(prefixes, dtype=np.int64)
        if cards.ndim != 2 or not 1 <= cards.shape[1] <= self.definition.num_hole_cards:
            raise InvalidParameterError(
                f"hidden_piece_features needs (n, 1..{self.definition.num_hole_cards}) hole "
                f"cards, received shape {cards.shape}."
            )
        return hole_features(self.definition, cards, public)

    def view_state(self, player: int, info_state: str, public_history: Sequence[int]) -> PokerState:
        """A state with ``player``'s hole cards read from ``info_state``, the board and the
        bets from ``public_history``, and every other player holding the lowest cards left
        (:func:`~nashzoo.games.poker.private.view_state`).

        Raises:
            InvalidParameterError: the string or the history is not one of this game's,
                or the two disagree.
        """
        state: PokerState = view_state(self, player, info_state, public_history)  # type: ignore[assignment]
        return state

    def _private_deals(self) -> int:
        """Ways to deal every player's hole cards (a table of three or more with a full
        deck: far past any tree that compiles, known at once)."""
        d = self.definition
        return math.perm(d.num_cards, self.private_cards)

    def count_histories(self) -> int | None:
        """Histories of the tree: the betting tree (memoised on what the betting depends
        on) times the ways to deal the cards (computed once per game); ``None`` when the
        hole cards alone can be dealt more than 50 million ways (counting the betting of
        a large ring game would take minutes, and nothing that large compiles)."""
        known = self.__dict__.get("_count")
        if known is not None:
            return int(known)
        if self._private_deals() > COUNTED_DEALS:
            return None
        d = self.definition
        cache: dict[tuple[Any, ...], int] = {}

        def below(state: Any) -> int:
            """Histories from a state where a player acts or the game is over (cards
            already dealt for this round)."""
            if state._player == TERMINAL:
                return 1
            if state._player == CHANCE:  # the next round's (or the run-out's) cards
                dealt = len(state._cards)
                k = state._pending
                probe = state.clone()
                for _ in range(k):
                    probe._deal(probe._remaining[0])
                return card_deal_histories(d.num_cards - dealt, k, below(probe))
            return memoised_histories(state, state._betting_key(), cache, below)

        root = self.new_initial_state()
        k = root._pending
        probe = root.clone()
        for _ in range(k):
            probe._deal(probe._remaining[0])
        self.__dict__["_count"] = count = card_deal_histories(d.num_cards, k, below(probe))
        return count


def _fraction_name(f: float) -> str:
    named = {0.5: "Raise Half Pot", 1.0: "Raise Full Pot"}
    return named.get(f, f"Raise {f:g} Pot")


def _pot_raise_to(max_spent: int, pot_after_call: int, fraction: float) -> int:
    """``max_spent + fraction * pot_after_call`` rounded half away from zero
    (``universal_poker``'s ``PotSize``)."""
    return math.floor(max_spent + fraction * pot_after_call + 0.5)


def _most_raises(d: PokerDefinition, fractions: tuple[float, ...]) -> int:
    """An upper bound on no-limit raises in one hand: every raise lifts the bet to at
    least ``max(bet + big blind, the smallest fraction's raise-to)`` (the pot after a
    call is at least twice the bet) until a stack is reached (the all-in)."""
    stack, bb = max(d.stacks), d.big_blind
    smallest = min(fractions) if fractions else None
    raises, bet = 0, bb
    while bet < stack:
        raises += 1
        if smallest is None:
            break  # only all-in raises
        bet = max(bet + bb, _pot_raise_to(bet, 2 * bet, smallest))
    return raises


class PokerState(State):
    """A history of a :class:`PokerGame` (see :mod:`nashzoo.games.poker.game`)."""

    game: PokerGame

    __slots__ = (
        "game",
        "_cards",
        "_remaining",
        "_pending",
        "_round",
        "_spent",
        "_max_spent",
        "_min_raise_to",
        "_round_actions",
        "_player",
        "_folded",
        "_finished",
        "_history",
        "_bets",
        "_called",
        "_stacks",
        "_legal",
        "_live",
        "_public_idx",
        "_slot",
        "_raises",
        "_heads",
        "_tail",
    )

    def __init__(self, game: PokerGame) -> None:
        d = game.definition
        self.game = game
        self._cards: list[int] = []
        self._remaining = list(range(game.num_cards))
        self._pending = game.private_cards + d.num_board_cards[0]
        self._round = 0
        self._spent = list(d.blinds)
        self._max_spent = max(d.blinds)
        self._min_raise_to = 2 * self._max_spent
        # this round's betting: (player, "c" or "r") in order (what ends a round)
        self._round_actions: list[tuple[int, str]] = []
        self._player = CHANCE
        self._folded = [False] * d.num_players
        self._finished = False  # the betting is over (cards may still be dealt)
        self._history: list[int] = []
        self._bets: list[str] = [""]
        # players who matched the bet since the last raise and can still act (the ACPC's
        # numCalled: one who called or raised does not act again before the next raise)
        self._called = 0
        self._stacks = d.stacks
        self._legal: tuple[int, ...] | None = None  # the decision's legal actions, once asked
        self._live = d.num_players  # players neither folded nor all-in
        self._public_idx: list[int] = []  # tensor indices of the board and the bets
        self._slot = 0  # the tensor slot of the next betting action
        self._raises = 0  # raises this round
        # the information-state string in two cached parts: each player's "player=P
        # hole=..." and the public " board=... bets=..." (None: to be built again)
        self._heads: list[str | None] = [None] * d.num_players
        self._tail: str | None = game.empty_tail

    # -- the betting rules -------------------------------------------------------------------
    def _acting(self) -> int:
        """Players neither folded nor all-in (kept as actions are applied)."""
        return self._live

    def _next_to_act(self, after: int) -> int:
        """The next player after ``after`` who can act (ACPC: skip folded and all-in)."""
        spent, stacks, folded = self._spent, self._stacks, self._folded
        n = len(spent)
        if n == 2:
            q = 1 - after
            return q if not folded[q] and spent[q] < stacks[q] else after
        q = after
        for _ in range(n):
            q = q + 1 if q + 1 < n else 0
            if not folded[q] and spent[q] < stacks[q]:
                return q
        return after

    def raise_range(self) -> tuple[int, int] | None:
        """``(smallest, largest)`` raise-to totals the player to move may choose, or
        ``None`` when it may not raise (the ACPC's ``raiseIsValid``; in a limit game the
        one raise's total, twice)."""
        p = self._player
        if p < 0 or self._acting() <= 1:
            return None
        game, d = self.game, self.game.definition
        if game.limit:  # the rule is legal_actions' (the hot path of every search)
            if RAISE not in self.legal_actions():
                return None
            size = self.raise_to(RAISE)
            return size, size
        stack = d.stacks[p]
        low = self._min_raise_to
        if low > stack:
            if self._max_spent >= stack:
                return None
            low = stack
        return low, stack

    def raise_to(self, action: int) -> int:
        """The raise-to total of raise ``action`` (a fraction's, All-In's, or a limit
        game's raise) here.

        Raises:
            InvalidParameterError: not a raise action of this game, or no player to move.
        """
        game = self.game
        p = self._player
        if p < 0 or not 2 <= int(action) <= game.all_in:
            raise InvalidParameterError(
                f"raise_to takes a raise action (2..{game.all_in}) at a decision, received "
                f"{action!r} at {'a chance node' if p == CHANCE else 'the end'}."
            )
        return self._raise_total(p, int(action))

    def _raise_total(self, p: int, action: int) -> int:
        """:meth:`raise_to` of player ``p``'s raise ``action``, unchecked."""
        game = self.game
        stack: int = self._stacks[p]
        if game.limit:
            size: int = self._max_spent + game.definition.raise_sizes[self._round][action - 2]
            return size if size < stack else stack
        if action == game.all_in:
            return stack
        pot_after_call = sum(self._spent) + self._max_spent - self._spent[p]
        return _pot_raise_to(self._max_spent, pot_after_call, game.raises[action - 2])

    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> Sequence[int]:
        p = self._player
        if p == CHANCE:
            return self._remaining.copy()
        if p < 0:
            return ()
        if self._legal is not None:
            return self._legal
        top, stack, mine = self._max_spent, self._stacks[p], self._spent[p]
        actions = [FOLD, CALL] if mine < top and mine < stack else [CALL]
        game = self.game
        if game.limit:  # the limit raise rule, which raise_range reads here
            d = game.definition
            # the ACPC's raiseIsValid: someone to raise against, raises left this round,
            # and chips past the bet (a stack at or below it can only call all in)
            if self._live > 1 and self._raises < d.max_raises[self._round] and stack > top:
                sizes = d.raise_sizes[self._round]
                actions.append(RAISE)  # the smallest size (all-in when short)
                for j in range(1, len(sizes)):  # larger ones that fit
                    if top + sizes[j] <= stack:
                        actions.append(RAISE + j)
        else:
            span = self.raise_range()
            if span is not None:
                low, high = span
                for k in range(len(game.raises)):
                    if low <= self.raise_to(2 + k) < high:
                        actions.append(2 + k)
                actions.append(game.all_in)
        self._legal = tuple(actions)
        return self._legal

    def action_to_string(self, action: int) -> str:
        """The action with its chips: ``"Raise Full Pot (to 300)"``; ``"Check"`` and
        ``"Bet Full Pot (to 200)"`` where nothing is owed."""
        p = self._player
        if p < 0:
            return super().action_to_string(action)
        owed = self._spent[p] < self._max_spent
        if action == CALL:
            return "Call" if owed else "Check"
        if action == FOLD:
            return "Fold"
        if 2 <= action <= self.game.all_in:
            name = self.game.action_names[action]
            if not owed:  # nothing to call: a raise is a bet ("Bet Half Pot (to 200)")
                name = name.replace("Raise", "Bet", 1)
            return f"{name} (to {self.raise_to(action)})"
        return super().action_to_string(action)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def apply_unchecked(self, action: int) -> None:
        self._history.append(action)
        self._legal = None
        p = self._player
        if p == CHANCE:
            self._deal(action)
            return
        game = self.game
        self._public_idx.append(
            game.actions_offset + game.num_distinct_actions * self._slot + action
        )
        self._slot += 1
        stack = self._stacks[p]
        if action == FOLD:
            self._folded[p] = True
            self._live -= 1
            letters = "f"
        elif action == CALL:
            self._spent[p] = called = self._max_spent if self._max_spent < stack else stack
            self._round_actions.append((p, "c"))
            letters = "c"
            if called >= stack:
                self._live -= 1
            else:
                self._called += 1
        else:
            size = self._raise_total(p, action)
            if not game.limit:  # the ACPC notation: the raise-to total
                letters = f"r{size}"
            else:  # with several sizes, the chips it adds
                letters = "r" if game.all_in == RAISE else f"r{size - self._max_spent}"
            if 2 * size - self._max_spent > self._min_raise_to:
                self._min_raise_to = 2 * size - self._max_spent
            self._max_spent = size
            self._spent[p] = size
            self._round_actions.append((p, "r"))
            self._raises += 1
            if size >= stack:
                self._live -= 1
                self._called = 0
            else:
                self._called = 1
        self._bets[self._round] += letters
        if self._tail is not None:  # the cached string's bets too
            self._tail += letters
        if action == FOLD and sum(self._folded) + 1 >= game.num_players:
            self._player = TERMINAL  # one player left: no showdown
            self._finished = True
        elif self._called >= self._live:
            self._end_round()
        else:
            self._player = self._next_to_act(p)

    def _end_round(self) -> None:
        d = self.game.definition
        if self._acting() > 1 and self._round + 1 < d.num_rounds:
            self._round += 1
            if self.game.slot_start is not None:
                self._slot = self.game.slot_start[self._round]
            self._min_raise_to = self._max_spent + self.game.big_blind_chips
            self._round_actions = []
            self._raises = 0
            self._called = 0
            self._bets.append("")
            if self._tail is not None:  # the cached string's bets: a new round
                self._tail += "/"
            self._pending = d.num_board_cards[self._round]
            if self._pending:
                self._player = CHANCE
            else:
                self._player = self._next_to_act(self.game.before_first[self._round])
            return
        self._finished = True
        # the betting is over: deal what is left of the board, then the showdown
        self._pending = self.game.max_chance_nodes - len(self._cards)
        while self._round + 1 < d.num_rounds:
            self._round += 1
            self._bets.append("")
        self._tail = None
        self._player = CHANCE if self._pending else TERMINAL

    def advance_chance(self, uniform: Callable[[], float]) -> None:
        """Deal until a player is to move or the game is over: each card the
        ``floor(u * n)``-th of the ``n`` cards left (sorted), the same distribution as
        :meth:`State.advance_chance` without building the outcome list."""
        remaining = self._remaining
        while self._player == CHANCE:
            card = remaining.pop(int(uniform() * len(remaining)))
            self._history.append(card)
            self._place(card)

    def _deal(self, card: int) -> None:
        self._remaining.remove(card)
        self._place(card)

    def _place(self, card: int) -> None:
        """Give out ``card`` (already taken from the deck): a hole card, or a board card
        at its round's tensor offset; once every card owed is out, the round's first
        player acts, or the game is over."""
        cards = self._cards
        cards.append(card)
        slot = self.game.card_slot[len(cards) - 1]
        if slot >= 0:
            self._public_idx.append(slot + card)
            self._tail = None
        self._pending -= 1
        if self._pending:
            return
        if self._finished:
            self._player = TERMINAL
        else:
            self._player = self._next_to_act(self.game.before_first[self._round])

    def _betting_key(self) -> tuple[Any, ...]:
        """What the rest of the betting depends on (for counting histories)."""
        since_raise: list[tuple[int, str]] = []
        for entry in reversed(self._round_actions):
            since_raise.append(entry)
            if entry[1] == "r":
                break
        return (
            self._round, tuple(self._spent), self._max_spent, self._min_raise_to,
            tuple(since_raise), self._raises, self._player,
            tuple(self._folded), len(self._cards),
        )  # fmt: skip

    def clone(self) -> PokerState:
        new = PokerState.__new__(PokerState)
        new.game = self.game
        new._cards = self._cards.copy()
        new._remaining = self._remaining.copy()
        new._pending = self._pending
        new._round = self._round
        new._spent = self._spent.copy()
        new._max_spent = self._max_spent
        new._min_raise_to = self._min_raise_to
        new._round_actions = self._round_actions.copy()
        new._player = self._player
        new._folded = self._folded.copy()
        new._finished = self._finished
        new._history = self._history.copy()
        new._bets = self._bets.copy()
        new._called = self._called
        new._stacks = self._stacks
        new._legal = None
        new._live = self._live
        new._public_idx = self._public_idx.copy()
        new._slot = self._slot
        new._raises = self._raises
        new._heads = self._heads.copy()
        new._tail = self._tail
        return new

    def returns(self) -> list[float]:
        n = self.game.num_players
        if self._player != TERMINAL:
            return [0.0] * n
        spent, folded = self._spent, self._folded
        if n == 2 and (folded[0] or folded[1]):  # heads-up fold: the folder's chips change hands
            won = float(spent[0] if folded[0] else spent[1])
            return [-won, won] if folded[0] else [won, -won]
        if n == 2:  # heads-up showdown: the smaller stake
            h = self.game.definition.num_hole_cards
            board = self._cards[2 * h :]
            s0 = self.game.strength(self._cards[:h] + board)
            s1 = self.game.strength(self._cards[h : 2 * h] + board)
            stake = float(min(spent))  # what a call could match; the rest goes back
            return [0.0, 0.0] if s0 == s1 else ([stake, -stake] if s0 > s1 else [-stake, stake])
        live = [p for p in range(n) if not folded[p]]
        if len(live) == 1:  # everyone else folded: the last player takes their chips
            winner = live[0]
            out = [-float(spent[p]) for p in range(n)]
            out[winner] = float(sum(spent) - spent[winner])
            return out
        h = self.game.definition.num_hole_cards
        board = self._cards[n * h :]
        rank = {p: self.game.strength(self._cards[p * h : (p + 1) * h] + board) for p in live}
        # side pots, smallest stake first (ACPC's valueOfState): each layer is shared by
        # the best live hands that reached it; a folded player's chips lose every layer
        out = [0.0] * n
        stakes = [float(s) for s in spent]
        while True:
            inside = [p for p in range(n) if stakes[p] > 0]
            if len(inside) < 2:
                for p in inside:  # nobody matched the rest: it goes back
                    stakes[p] = 0.0
                break
            size = min(stakes[p] for p in inside)
            contenders = [p for p in inside if not folded[p]]
            best = max(rank[p] for p in contenders)
            winners = [p for p in contenders if rank[p] == best]
            pot = size * len(inside)
            for p in inside:
                out[p] -= size
                stakes[p] -= size
            for p in winners:
                out[p] += pot / len(winners)
        return out

    def history(self) -> list[int]:
        return self._history.copy()

    def public_history(self) -> list[int]:
        hidden = min(self.game.private_cards, len(self._history))
        return [HIDDEN] * hidden + self._history[hidden:]

    def information_state_string_unchecked(self, player: int) -> str:
        head = self._heads[player]
        if head is None:
            h = self.game.definition.num_hole_cards
            head = self._head(player, self._cards[player * h : (player + 1) * h])
            if len(self._cards) >= (player + 1) * h:  # every hole card dealt: it stays
                self._heads[player] = head
        return head + (self._tail or self._public_text())

    def _head(self, player: int, hole: Sequence[int]) -> str:
        """``"player=P hole=..."`` with the hole cards ``hole`` (sorted high to low)."""
        names = self.game.card_names
        return f"player={player} hole={''.join(names[c] for c in sorted(hole, reverse=True))}"

    def _public_text(self) -> str:
        """``" board=... bets=..."``: each board round's cards, high to low, and the bets;
        kept in ``_tail`` until a board card or a new round (the bets append to it)."""
        d = self.game.definition
        text = ""
        if self.game.has_board:
            names = self.game.card_names
            parts, start = [], self.game.private_cards
            for k in d.num_board_cards:
                if k:
                    cards = self._cards[start : start + k]
                    parts.append("".join(names[c] for c in sorted(cards, reverse=True)))
                    start += k
            text = " board=" + "/".join(parts)
        self._tail = text = text + " bets=" + "/".join(self._bets)
        return text

    def _string_with(self, player: int, hole: Sequence[int]) -> str:
        """``player``'s information-state string with the hole cards ``hole``."""
        return self._head(player, hole) + (self._tail or self._public_text())

    def information_state_indices(self, player: int) -> list[int]:
        d = self.game.definition
        n, h = d.num_players, d.num_hole_cards
        hole = [n + c for c in self._cards[player * h : (player + 1) * h]]
        return [player, *hole, *self._public_idx]

    # -- read-outs ---------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The betting round (0-based)."""
        return self._round

    def pot_contributions(self) -> tuple[int, ...]:
        """Chips each player has put in so far."""
        return tuple(self._spent)

    def hole_cards(self, player: int) -> tuple[int, ...]:
        """The private cards of ``player`` dealt so far (judges and tests only)."""
        self.check_player(player)
        h = self.game.definition.num_hole_cards
        return tuple(self._cards[player * h : (player + 1) * h])

    def board_cards(self) -> tuple[int, ...]:
        """The public cards dealt so far, in the order dealt."""
        return tuple(self._cards[self.game.private_cards :])

    def betting(self) -> str:
        """The ACPC betting string: rounds joined by ``/``."""
        return "/".join(self._bets)

    def private_information(self, player: int) -> tuple[int, ...]:
        """``player``'s hole cards, sorted."""
        return tuple(sorted(self.hole_cards(player)))

    # -- hidden information (heads-up: the one opponent's hole cards) ------------------------
    def hidden_worlds(self, player: int) -> HiddenWorlds | None:
        """Heads-up: the opponent's possible hole cards, every set of cards neither in
        ``player``'s hand nor on the board, equally likely (every deal order is). ``None``
        at a table of three or more (the worlds are then joint over several opponents).

        Raises:
            InvalidParameterError: the hole cards are not all dealt yet.
        """
        self.check_player(player)
        d = self.game.definition
        if d.num_players != 2:
            return None
        h = d.num_hole_cards
        if len(self._cards) < 2 * h:
            raise InvalidParameterError(
                "hidden_worlds needs both players' hole cards dealt; "
                f"{len(self._cards)} of {2 * h} are."
            )
        p = int(player)
        seen = set(self._cards[p * h : (p + 1) * h]) | set(self._cards[2 * h :])
        free = [c for c in range(self.game.num_cards) if c not in seen]
        snapshot = self.clone()  # the state may move on; the worlds stay
        return HiddenWorlds(
            p,
            Combinations(free, h),
            None,
            lambda v: snapshot._with_hole(1 - p, v),  # type: ignore[arg-type]
        )

    def hidden_pieces(self, player: int) -> HiddenPieces | None:
        """Heads-up: the opponent's hole cards drawn lowest first, each card's options the
        cards neither in ``player``'s hand, nor on the board, nor drawn, and above the
        last card drawn, each weighted by the number of sets that continue with it (every
        deal order is equally likely): no list of the sets. ``None`` at a table of three
        or more.

        Raises:
            InvalidParameterError: the hole cards are not all dealt yet.
        """
        worlds = self.hidden_worlds(player)  # checks; lists nothing (Combinations)
        if worlds is None:
            return None
        h = self.game.definition.num_hole_cards
        free = np.asarray(worlds.values.items, dtype=np.int64)  # type: ignore[attr-defined]
        snapshot = self.clone()
        p = int(player)

        def options(prefix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
            above = free[free > prefix[-1]] if prefix else free
            rest = h - len(prefix) - 1  # cards still to come after this one
            higher = np.arange(above.size - 1, -1, -1)  # cards above each option
            if rest <= 1:  # Hold'em's two hole cards: 1 way to end, or one per card above
                counts = (higher if rest else np.ones(above.size)).astype(np.float64)
            else:
                counts = np.array([math.comb(int(n), rest) for n in higher], dtype=np.float64)
            keep = counts > 0
            return above[keep], counts[keep] / counts[keep].sum()

        def pieces_of(state: State) -> tuple[int, ...]:
            return tuple(state.private_information(1 - p))  # type: ignore[arg-type]

        def table(listed: HiddenWorlds) -> np.ndarray:
            found = hole_pieces(h, listed.values)
            return np.asarray(listed.values).reshape(-1, 1) if found is None else found

        return HiddenPieces(
            p,
            h,
            options,
            lambda pieces: snapshot._with_hole(1 - p, pieces),
            pieces_of,
            tuple,
            lambda: worlds,
            table,
        )

    def _with_hole(self, player: int, cards: Sequence[int]) -> PokerState:
        """A copy in which ``player`` holds ``cards`` (in no other hand and not on the
        board: the caller's promise)."""
        new: PokerState = with_hole(self, player, cards)[0]
        new._heads[player] = None  # its string's hole cards
        return new

    def information_state_indices_as(self, player: int, value: Any) -> list[int]:
        """``player``'s tensor indices had it held the hole cards ``value``."""
        n = self.game.num_players
        return [int(player)] + [n + int(c) for c in value] + self._public_idx

    def information_state_string_as(self, player: int, value: Any) -> str:
        """``player``'s information-state string had it held the hole cards ``value``."""
        self.check_player(player)
        return self._string_with(int(player), value)

    def returns_over(self, player: int, values: Sequence[Any]) -> np.ndarray:
        """Heads-up, at a terminal state: ``player``'s return had its opponent held each
        set of hole cards in ``values``: the same for all after a fold, else a showdown
        each for the smaller stake (the rest goes back, as :meth:`returns` splits it).

        Raises:
            InvalidParameterError: not terminal, or a table of three or more.
        """
        if self._player != TERMINAL:
            raise InvalidParameterError("returns_over needs a terminal state.")
        if self.game.num_players != 2:
            raise InvalidParameterError("returns_over is heads-up only (one opponent).")
        p = int(player)
        if any(self._folded):
            return np.full(len(values), self.returns()[p])
        h = self.game.definition.num_hole_cards
        board = self._cards[2 * h :]
        strength = self.game.strength
        mine = strength(self._cards[p * h : (p + 1) * h] + board)
        stake = float(min(self._spent))
        out = np.empty(len(values))
        for k, value in enumerate(values):
            theirs = strength(list(value) + board)
            out[k] = stake if mine > theirs else (-stake if mine < theirs else 0.0)
        return out

    def __str__(self) -> str:
        names = self.game.card_names
        d = self.game.definition
        h = d.num_hole_cards
        holes = [
            " ".join(names[c] for c in self._cards[p * h : (p + 1) * h]) or "-"
            for p in range(d.num_players)
        ]
        board = " ".join(names[c] for c in self.board_cards()) or "-"
        return (
            f"hole: {' | '.join(holes)} | board: {board} | bets: {self.betting()} | "
            f"pot: {'+'.join(str(s) for s in self._spent)}"
        )
