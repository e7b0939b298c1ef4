"""Heads-up no-limit poker from an ACPC ``nolimit`` game definition.

Betting follows the ACPC rules (as OpenSpiel's ``universal_poker`` plays them). Each
player posts its blind and has a stack: the most it can put in over the hand. A player
may *fold* when it has not matched the largest bet (and is not all-in), *call* (check
when nothing is owed; a call for more than the stack puts the player all-in) or *raise
to* a total between the minimum raise-to and its stack. The minimum raise-to starts at
twice the big blind; a raise to ``r`` over a bet of ``m`` makes it at least
``r + (r - m)`` (the next raise adds at least as much); a new round resets it to the bet
plus the big blind. A player whose stack is below the minimum may still go all-in if that
raises the bet. A player who is all-in no longer acts; when at most one player can act,
the betting ends and the remaining board cards are dealt. After a fold the other player
wins what the folder put in; at a showdown the better hand wins what the opponent put in,
up to what it put in itself (what a short all-in cannot match is returned).

**Actions** (the game's action abstraction: which raise-to sizes a player may pick):
``0`` Fold, ``1`` Check/Call, then one raise per pot fraction ``f`` in ``raises``
(raise to ``m + f * (pot after calling)``, rounded half away from zero as
``universal_poker`` rounds; in heads-up the pot after calling is ``2 m``), then
All-In. A fraction's raise is legal when it is at least the minimum raise-to and below
the stack (at the stack it is the all-in action). The default ``raises = (0.5, 1.0)``
gives PettingZoo's ``texas_holdem_no_limit`` actions: Fold, Check & Call, Raise Half Pot,
Raise Full Pot, All-In. Every raise-to is also available as :meth:`NoLimitPokerState.raise_to`
for code that needs sizes outside the abstraction.

Chance: ``num_hole_cards`` cards to player 0, then to player 1, then each round's board
cards, one card per event, ``rank * num_suits + suit`` (``universal_poker``'s numbering),
uniform over the cards left.

Information-state string: ``"player=0 hole=AsKd board=Qh7c2d/5s/9h bets=r200c/cr400c/c"``
(the ACPC betting notation: ``r`` followed by the raise-to total). Information-state
tensor: ``2 + C * (1 + B) + A * L`` floats (``C`` cards, ``B`` rounds that deal board
cards, ``A`` actions, ``L`` = ``max_game_length``): the observing player, its hole
cards, each board round's cards, then one one-hot slot per betting action in order.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.games.poker.definition import MAX_POT
from nashzoo.games.poker.hands import card_name, hand_value, standard_tables

__all__ = [
    "NoLimitDefinition",
    "NoLimitPokerGame",
    "NoLimitPokerState",
    "NO_LIMIT_HOLDEM_GAMEDEF",
    "PETTINGZOO_RAISES",
    "no_limit_holdem",
]

FOLD, CALL = 0, 1
PETTINGZOO_RAISES = (0.5, 1.0)
"""Half pot and full pot: with Fold, Check & Call and All-In, PettingZoo's five actions."""

NO_LIMIT_HOLDEM_GAMEDEF = """\
GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
"""The ACPC's heads-up no-limit Texas Hold'em (``holdem.nolimit.2p.reverse_blinds.game``):
stacks of 20,000 chips (200 big blinds), player 0 the big blind (100), player 1 the small
blind (50) and first to act before the flop."""


@dataclasses.dataclass(frozen=True)
class NoLimitDefinition:
    """A heads-up no-limit poker game (the fields of an ACPC ``nolimit`` definition).

    Attributes:
        num_rounds: betting rounds, 1 to 6.
        blinds: chips each player posts before the deal (player 0 first).
        stacks: the most each player can put in over the hand; above its blind.
        first_player: per round, the player who acts first (0-based).
        num_board_cards: per round, public cards dealt before that round's betting.
        num_suits, num_ranks, num_hole_cards: the deck and the private cards.

    Raises:
        InvalidParameterError: a field of the wrong type or out of range (named), a stack
            not above its blind, or a deck too small for the cards dealt.
    """

    num_rounds: int
    blinds: tuple[int, int]
    stacks: tuple[int, int]
    first_player: tuple[int, ...]
    num_board_cards: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int

    def __post_init__(self) -> None:
        def whole(name: str, value: Any, lo: int, hi: int | None = None) -> int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidParameterError(
                    f"No-limit definition field `{name}` expects an integer, received {value!r}."
                )
            if value < lo or (hi is not None and value > hi):
                span = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
                raise InvalidParameterError(
                    f"No-limit definition field `{name}` must be {span}, received {value}."
                )
            return value

        def listed(
            name: str, values: Any, n: int, lo: int, hi: int | None = None
        ) -> tuple[int, ...]:
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise InvalidParameterError(
                    f"No-limit definition field `{name}` expects {n} integers, received {values!r}."
                )
            if len(values) != n:
                raise InvalidParameterError(
                    f"No-limit definition field `{name}` needs {n} values, received "
                    f"{len(values)}: {list(values)!r}."
                )
            return tuple(whole(f"{name}[{i}]", v, lo, hi) for i, v in enumerate(values))

        rounds = whole("num_rounds", self.num_rounds, 1, 6)
        whole("num_suits", self.num_suits, 1, 4)
        whole("num_ranks", self.num_ranks, 1, 13)
        whole("num_hole_cards", self.num_hole_cards, 1, 3)
        blinds = listed("blinds", self.blinds, 2, 0)
        stacks = listed("stacks", self.stacks, 2, 1)
        if max(blinds) < 1:
            raise InvalidParameterError(
                f"No-limit definition field `blinds` needs a blind of at least one chip (the "
                f"minimum raise is the big blind), received {list(blinds)}."
            )
        for p in (0, 1):
            if stacks[p] <= blinds[p]:
                raise InvalidParameterError(
                    f"No-limit definition field `stacks[{p}]` ({stacks[p]}) must exceed player "
                    f"{p}'s blind ({blinds[p]}): a player all-in from its blind never acts."
                )
        if 2 * max(stacks) > MAX_POT:
            raise InvalidParameterError(
                f"No-limit definition field `stacks` too large: {list(stacks)}; a pot must stay "
                f"at or below 2**53 chips so that every payoff is exact."
            )
        first = listed("first_player", self.first_player, rounds, 0, 1)
        board = listed("num_board_cards", self.num_board_cards, rounds, 0, 5)
        deck = self.num_suits * self.num_ranks
        needed = 2 * self.num_hole_cards + sum(board)
        if needed > deck:
            raise InvalidParameterError(
                f"The deck has {deck} cards (num_ranks={self.num_ranks} x num_suits="
                f"{self.num_suits}) but the game deals {needed}."
            )
        if self.num_hole_cards + sum(board) > 7:
            raise InvalidParameterError(
                "A player's hand is its hole cards and the board, and hands of more than 7 "
                f"cards are not ranked; this definition gives each player "
                f"{self.num_hole_cards + sum(board)}."
            )
        object.__setattr__(self, "blinds", blinds)
        object.__setattr__(self, "stacks", stacks)
        object.__setattr__(self, "first_player", first)
        object.__setattr__(self, "num_board_cards", board)

    @property
    def num_cards(self) -> int:
        """Cards in the deck."""
        return self.num_ranks * self.num_suits

    @property
    def big_blind(self) -> int:
        """The largest blind."""
        return max(self.blinds)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able fields (what :meth:`from_dict` reads back)."""
        out = dataclasses.asdict(self)
        for key in ("blinds", "stacks", "first_player", "num_board_cards"):
            out[key] = list(out[key])
        return out

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> NoLimitDefinition:
        """Build from :meth:`to_dict` output.

        Raises:
            InvalidParameterError: unknown or missing fields, or bad values.
        """
        if not isinstance(fields, dict):
            raise InvalidParameterError(
                f"A no-limit definition is a dict of fields, received {type(fields).__name__}."
            )
        names = {f.name for f in dataclasses.fields(cls)}
        unknown, missing = sorted(set(fields) - names), sorted(names - set(fields))
        if unknown or missing:
            raise InvalidParameterError(
                f"No-limit definition fields: unknown {unknown}, missing {missing}; the fields "
                f"are {sorted(names)}."
            )
        return cls(**fields)

    def universal_poker_params(self, betting_abstraction: str = "fullgame") -> dict[str, Any]:
        """OpenSpiel's ``universal_poker`` parameters for this definition."""

        def join(values: Sequence[int]) -> str:
            return " ".join(str(v) for v in values)

        return {
            "betting": "nolimit",
            "numPlayers": 2,
            "numRounds": self.num_rounds,
            "blind": join(self.blinds),
            "stack": join(self.stacks),
            "firstPlayer": join([p + 1 for p in self.first_player]),
            "numSuits": self.num_suits,
            "numRanks": self.num_ranks,
            "numHoleCards": self.num_hole_cards,
            "numBoardCards": join(self.num_board_cards),
            "bettingAbstraction": betting_abstraction,
        }


class NoLimitPokerGame(Game):
    """Heads-up no-limit poker from a :class:`NoLimitDefinition`, with an action
    abstraction (see the module).

    Args:
        definition: the game, a :class:`NoLimitDefinition` or its ``to_dict()``.
        raises: pot fractions of the raise actions, increasing (default half pot and
            pot: PettingZoo's five actions).
        name: the ``short_name``.

    Raises:
        InvalidParameterError: a bad definition, or fractions that are not positive,
            increasing numbers.
    """

    game_type = "nolimit_poker"

    def __init__(
        self,
        definition: NoLimitDefinition | dict[str, Any],
        raises: Sequence[float] = PETTINGZOO_RAISES,
        name: str = "nolimit_poker",
    ) -> None:
        if isinstance(definition, dict):
            definition = NoLimitDefinition.from_dict(definition)
        if not isinstance(definition, NoLimitDefinition):
            raise InvalidParameterError(
                "NoLimitPokerGame expects a NoLimitDefinition (or its to_dict()), received "
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
                or not math.isfinite(f)
                or f <= 0
            ):
                raise InvalidParameterError(
                    f"Parameter `raises` expects positive pot fractions, received {list(raises)!r}."
                )
            fractions.append(float(f))
        if fractions != sorted(set(fractions)):
            raise InvalidParameterError(
                f"Parameter `raises` expects increasing pot fractions, received {fractions}."
            )
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"Parameter `name` expects a string, received {name!r}.")
        d = definition
        self.definition = d
        self.raises = tuple(fractions)
        self.short_name = name
        self.num_players = 2
        self.num_cards = d.num_cards
        self.all_in = 2 + len(fractions)
        self.num_distinct_actions = 3 + len(fractions)
        self.max_chance_outcomes = d.num_cards
        self.max_chance_nodes = 2 * d.num_hole_cards + sum(d.num_board_cards)
        self.max_game_length = _most_actions(d, self.raises)
        most = float(min(d.stacks))
        self.min_utility, self.max_utility = -most, most
        self.big_blind = float(d.big_blind)
        self.card_names = tuple(card_name(c, d.num_suits) for c in range(d.num_cards))
        self.action_names = (
            "Fold",
            "Check/Call",
            *(_fraction_name(f) for f in fractions),
            "All-In",
        )
        board_rounds = [r for r in range(d.num_rounds) if d.num_board_cards[r]]
        self.board_offset = tuple(
            2 + d.num_cards * (1 + board_rounds.index(r)) if r in board_rounds else -1
            for r in range(d.num_rounds)
        )
        self.actions_offset = 2 + d.num_cards * (1 + len(board_rounds))
        self.information_state_tensor_size = (
            self.actions_offset + self.num_distinct_actions * self.max_game_length
        )
        hand_cards = d.num_hole_cards + sum(d.num_board_cards)
        self.standard_hands = d.num_cards == 52 and 5 <= hand_cards <= 7
        self.strength: Callable[[Sequence[int]], Any]
        if self.standard_hands:
            self.strength = standard_tables().strength
        else:
            self.strength = functools.partial(
                hand_value, num_ranks=d.num_ranks, num_suits=d.num_suits
            )

    def params(self) -> dict[str, Any]:
        return {
            "definition": self.definition.to_dict(),
            "raises": list(self.raises),
            "name": self.short_name,
        }

    def new_initial_state(self) -> NoLimitPokerState:
        return NoLimitPokerState(self)

    def count_histories(self) -> int:
        """Histories of the tree: the betting tree (memoised on what the betting depends
        on) times the ways to deal the cards (computed once per game)."""
        known = self.__dict__.get("_count")
        if known is not None:
            return int(known)
        d = self.definition
        cache: dict[tuple[Any, ...], int] = {}

        def deals(remaining: int, k: int, below: int) -> int:
            total = below
            for i in range(k):
                total = 1 + (remaining - (k - 1 - i)) * total
            return total

        def below(state: NoLimitPokerState) -> int:
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
                return deals(d.num_cards - dealt, k, below(probe))
            key = state._betting_key()
            if key not in cache:
                total = 1
                for action in state.legal_actions():
                    child = state.clone()
                    child.apply_unchecked(action)
                    total += below(child)
                cache[key] = total
            return cache[key]

        root = self.new_initial_state()
        k = root._pending
        probe = root.clone()
        for _ in range(k):
            probe._deal(probe._remaining[0])
        self.__dict__["_count"] = count = deals(d.num_cards, k, below(probe))
        return count


def _fraction_name(f: float) -> str:
    named = {0.5: "Raise Half Pot", 1.0: "Raise Full Pot"}
    return named.get(f, f"Raise {f:g} Pot")


def _raise_to(max_spent: int, fraction: float) -> int:
    """``max_spent + fraction * 2 * max_spent`` rounded half away from zero (heads-up: the
    pot after calling is twice the bet)."""
    exact = max_spent + fraction * 2 * max_spent
    return math.floor(exact + 0.5)


def _most_actions(d: NoLimitDefinition, fractions: tuple[float, ...]) -> int:
    """An upper bound on betting actions in one hand: each round opens with at most one
    check and closes with at most one call (or a fold), and every raise lifts the bet to
    at least ``max(bet + big blind, the smallest fraction's raise-to)`` until a stack is
    reached (the all-in)."""
    stack, bb = max(d.stacks), d.big_blind
    smallest = min(fractions) if fractions else None
    raises, bet = 0, bb
    while bet < stack:
        raises += 1
        if smallest is None:
            break  # only all-in raises
        bet = max(bet + bb, _raise_to(bet, smallest))
    return 2 * d.num_rounds + raises


class NoLimitPokerState(State):
    """A history of a :class:`NoLimitPokerGame` (see :mod:`nashzoo.games.poker.nolimit`)."""

    game: NoLimitPokerGame

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
        "_folder",
        "_finished",
        "_history",
        "_bets",
        "_moves",
        "_stacks",
        "_legal",
    )

    def __init__(self, game: NoLimitPokerGame) -> None:
        d = game.definition
        self.game = game
        self._cards: list[int] = []
        self._remaining = list(range(game.num_cards))
        self._pending = 2 * d.num_hole_cards + d.num_board_cards[0]
        self._round = 0
        self._spent = list(d.blinds)
        self._max_spent = max(d.blinds)
        self._min_raise_to = 2 * self._max_spent
        # this round's betting: (player, "c" or "r") in order (what ends a round)
        self._round_actions: list[tuple[int, str]] = []
        self._player = CHANCE
        self._folder = -1
        self._finished = False  # the betting is over (cards may still be dealt)
        self._history: list[int] = []
        self._bets: list[str] = [""]
        self._moves: list[int] = []  # betting actions, for the tensor
        self._stacks = d.stacks
        self._legal: tuple[int, ...] | None = None  # the decision's legal actions, once asked

    # -- the betting rules -------------------------------------------------------------------
    def _all_in(self, p: int) -> bool:
        return self._spent[p] >= self._stacks[p]

    def _acting(self) -> int:
        """Players neither folded nor all-in."""
        spent, stacks, folder = self._spent, self._stacks, self._folder
        return (folder != 0 and spent[0] < stacks[0]) + (folder != 1 and spent[1] < stacks[1])

    def _next_to_act(self, after: int) -> int:
        """The next player after ``after`` who can act (ACPC: skip folded and all-in)."""
        n = after
        for _ in range(2):
            n = 1 - n
            if n != self._folder and not self._all_in(n):
                return n
        return after

    def raise_range(self) -> tuple[int, int] | None:
        """``(smallest, largest)`` raise-to totals the player to move may choose, or
        ``None`` when it may not raise (the ACPC's ``raiseIsValid``)."""
        p = self._player
        if p < 0 or self._acting() <= 1:
            return None
        stack = self.game.definition.stacks[p]
        low = self._min_raise_to
        if low > stack:
            if self._max_spent >= stack:
                return None
            low = stack
        return low, stack

    def raise_to(self, action: int) -> int:
        """The raise-to total of raise ``action`` (a fraction's or All-In's) here.

        Raises:
            InvalidParameterError: not a raise action of this game, or no player to move.
        """
        game = self.game
        if self._player < 0 or not 2 <= int(action) <= game.all_in:
            raise InvalidParameterError(
                f"raise_to takes a raise action (2..{game.all_in}) at a decision, received "
                f"{action!r} at {'a chance node' if self._player == CHANCE else 'the end'}."
            )
        if action == game.all_in:
            return game.definition.stacks[self._player]
        return _raise_to(self._max_spent, game.raises[action - 2])

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
        actions = [CALL]
        if self._spent[p] < self._max_spent and not self._all_in(p):
            actions.insert(0, FOLD)
        span = self.raise_range()
        if span is not None:
            low, high = span
            for k, f in enumerate(self.game.raises):
                size = _raise_to(self._max_spent, f)
                if low <= size < high:
                    actions.append(2 + k)
            actions.append(self.game.all_in)
        self._legal = tuple(actions)
        return self._legal

    def action_to_string(self, action: int) -> str:
        """The action with its chips: ``"Raise Full Pot (to 300)"``, ``"Check"`` where nothing
        is owed."""
        p = self._player
        if p < 0:
            return super().action_to_string(action)
        if action == CALL:
            return "Check" if self._spent[p] >= self._max_spent else "Call"
        if action == FOLD:
            return "Fold"
        name = (
            self.game.action_names[action] if 0 <= action < self.game.num_distinct_actions else "?"
        )
        return f"{name} (to {self.raise_to(action)})" if 2 <= action <= self.game.all_in else name

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def apply_unchecked(self, action: int) -> None:
        self._history.append(action)
        self._legal = None
        p = self._player
        if p == CHANCE:
            self._deal(action)
            return
        self._moves.append(action)
        d = self.game.definition
        if action == FOLD:
            self._folder = p
            self._bets[self._round] += "f"
            self._player = TERMINAL
            self._finished = True
            return
        if action == CALL:
            self._spent[p] = min(self._max_spent, d.stacks[p])
            self._round_actions.append((p, "c"))
            self._bets[self._round] += "c"
        else:
            size = self.raise_to(action)
            if 2 * size - self._max_spent > self._min_raise_to:
                self._min_raise_to = 2 * size - self._max_spent
            self._max_spent = size
            self._spent[p] = size
            self._round_actions.append((p, "r"))
            self._bets[self._round] += f"r{size}"
        if self._called() >= self._acting():
            self._end_round()
        else:
            self._player = self._next_to_act(p)

    def _called(self) -> int:
        """Players who have matched the current bet this round and can still act (the
        ACPC's ``numCalled``)."""
        n = 0
        for p, kind in reversed(self._round_actions):
            if not self._all_in(p):
                n += 1
            if kind == "r":
                break
        return n

    def _end_round(self) -> None:
        d = self.game.definition
        if self._acting() > 1 and self._round + 1 < d.num_rounds:
            self._round += 1
            self._min_raise_to = self._max_spent + max(d.big_blind, 1)
            self._round_actions = []
            self._bets.append("")
            self._pending = d.num_board_cards[self._round]
            self._player = CHANCE if self._pending else d.first_player[self._round]
            if self._player >= 0:
                self._player = self._next_to_act(1 - self._player)
            return
        self._finished = True
        # the betting is over: deal what is left of the board, then the showdown
        self._pending = sum(d.num_board_cards) - (len(self._cards) - 2 * d.num_hole_cards)
        while self._round + 1 < d.num_rounds:
            self._round += 1
            self._bets.append("")
        self._player = CHANCE if self._pending else TERMINAL

    def advance_chance(self, uniform: Callable[[], float]) -> None:
        """Deal until a player is to move or the game is over: each card the
        ``floor(u * n)``-th of the ``n`` cards left (sorted), the same distribution as
        :meth:`State.advance_chance` without building the outcome list."""
        while self._player == CHANCE:
            remaining = self._remaining
            card = remaining[int(uniform() * len(remaining))]
            self._history.append(card)
            self._deal(card)

    def _deal(self, card: int) -> None:
        self._cards.append(card)
        self._remaining.remove(card)
        self._pending -= 1
        if self._pending:
            return
        if self._finished:
            self._player = TERMINAL
        else:
            first = self.game.definition.first_player[self._round]
            self._player = self._next_to_act(1 - first)

    def _betting_key(self) -> tuple[Any, ...]:
        """What the rest of the betting depends on (for counting histories)."""
        return (
            self._round, tuple(self._spent), self._max_spent, self._min_raise_to,
            tuple(self._round_actions[-2:]), self._player, len(self._cards),
        )  # fmt: skip

    def clone(self) -> NoLimitPokerState:
        new = NoLimitPokerState.__new__(NoLimitPokerState)
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
        new._folder = self._folder
        new._finished = self._finished
        new._history = self._history.copy()
        new._bets = self._bets.copy()
        new._moves = self._moves.copy()
        new._stacks = self._stacks
        new._legal = None
        return new

    def returns(self) -> list[float]:
        if self._player != TERMINAL:
            return [0.0, 0.0]
        spent = self._spent
        if self._folder >= 0:
            loser = self._folder
            won = float(spent[loser])
        else:
            h = self.game.definition.num_hole_cards
            board = self._cards[2 * h :]
            s0 = self.game.strength(self._cards[:h] + board)
            s1 = self.game.strength(self._cards[h : 2 * h] + board)
            if s0 == s1:
                return [0.0, 0.0]
            loser = 1 if s0 > s1 else 0
            won = float(min(spent))
        return [won, -won] if loser == 1 else [-won, won]

    def history(self) -> list[int]:
        return self._history.copy()

    def public_history(self) -> list[int]:
        hidden = min(2 * self.game.definition.num_hole_cards, len(self._history))
        return [HIDDEN] * hidden + self._history[hidden:]

    def information_state_string_unchecked(self, player: int) -> str:
        d = self.game.definition
        names = self.game.card_names
        h = d.num_hole_cards
        hole = "".join(
            names[c] for c in sorted(self._cards[player * h : (player + 1) * h], reverse=True)
        )
        text = f"player={player} hole={hole}"
        if any(d.num_board_cards):
            parts, start = [], 2 * h
            for k in d.num_board_cards:
                if k:
                    cards = self._cards[start : start + k]
                    parts.append("".join(names[c] for c in sorted(cards, reverse=True)))
                    start += k
            text += " board=" + "/".join(parts)
        return text + " bets=" + "/".join(self._bets)

    def information_state_indices(self, player: int) -> list[int]:
        game = self.game
        d = game.definition
        h = d.num_hole_cards
        out = [player] + [2 + c for c in self._cards[player * h : (player + 1) * h]]
        start = 2 * h
        for r, k in enumerate(d.num_board_cards):
            for c in self._cards[start : start + k]:
                out.append(game.board_offset[r] + c)
            start += k
        a = game.num_distinct_actions
        out.extend(game.actions_offset + a * i + m for i, m in enumerate(self._moves))
        return out

    # -- read-outs ---------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The betting round (0-based)."""
        return self._round

    def pot_contributions(self) -> tuple[int, int]:
        """Chips each player has put in so far."""
        return (self._spent[0], self._spent[1])

    def hole_cards(self, player: int) -> tuple[int, ...]:
        """The private cards of ``player`` dealt so far (judges and tests only)."""
        self.check_player(player)
        h = self.game.definition.num_hole_cards
        return tuple(self._cards[player * h : (player + 1) * h])

    def board_cards(self) -> tuple[int, ...]:
        """The public cards dealt so far, in the order dealt."""
        return tuple(self._cards[2 * self.game.definition.num_hole_cards :])

    def betting(self) -> str:
        """The ACPC betting string: rounds joined by ``/``, ``r`` + raise-to totals."""
        return "/".join(self._bets)

    def private_information(self, player: int) -> tuple[int, ...]:
        """``player``'s hole cards, sorted."""
        return tuple(sorted(self.hole_cards(player)))

    def __str__(self) -> str:
        names = self.game.card_names
        h = self.game.definition.num_hole_cards
        holes = [
            " ".join(names[c] for c in self._cards[p * h : (p + 1) * h]) or "-" for p in (0, 1)
        ]
        board = " ".join(names[c] for c in self.board_cards()) or "-"
        return (
            f"hole: {holes[0]} | {holes[1]} | board: {board} | bets: {self.betting()} | "
            f"pot: {self._spent[0]}+{self._spent[1]}"
        )


def no_limit_holdem(
    raises: Sequence[float] = PETTINGZOO_RAISES, stack: int | None = None
) -> NoLimitPokerGame:
    """Heads-up no-limit Texas Hold'em: the ACPC definition
    (:data:`NO_LIMIT_HOLDEM_GAMEDEF`: blinds 100/50, stacks of 20,000) with the raise
    actions ``raises`` (pot fractions; default PettingZoo's half pot and pot) and, when
    given, another ``stack`` for both players."""
    from nashzoo.games.poker.definition import parse_nolimit_gamedef

    d = parse_nolimit_gamedef(NO_LIMIT_HOLDEM_GAMEDEF)
    if stack is not None:
        d = dataclasses.replace(d, stacks=(stack, stack))
    return NoLimitPokerGame(d, raises=raises, name="no_limit_holdem")
