"""Liar's Dice (OpenSpiel's ``liars_dice``).

Rules: each of ``players`` players rolls ``dice`` dice of ``faces`` faces in secret
(player 0's first, one chance event a die); each sees only its own, sorted. Player 0
opens, and the turn goes round: a player either *bids* a quantity and a face ("there are
at least 2 fours among all the dice"), strictly higher than the last bid in the bid
order, or, once some bid stands, calls *liar*. Then the dice are shown: the highest face
is wild and matches every face. If at least the bid's quantity of dice match its face,
the bidder wins and the caller loses, otherwise the other way round: the winner scores
+1, the loser -1, everyone else 0.

The bid order (``bidding_rule``) is OpenSpiel's: ``"reset-face"`` ranks quantity first
(1-1 < 1-2 < ... < 1-6 < 2-1 ...), ``"reset-quantity"`` face first (1-1 < 2-1 < ... <
1-2 ...). With ``T = players * dice`` dice in all, the actions are the bids ``0 ..
T * faces - 1`` in that order and ``T * faces`` = liar; under ``"reset-face"`` bid ``b``
is quantity ``b // faces + 1`` of face ``b % faces + 1``. Chance outcome ``k`` rolls face
``k + 1``.

Information-state tensor (OpenSpiel's layout): a one-hot of the player (``players``), a
one-hot of each of its dice (``dice * faces``), and one bit for each bid made and for
liar (``T * faces + 1``). Information-state string: ``"P0 6 1-2 1-3"`` (OpenSpiel's,
with the player in front, as in its imperfect-recall variant, so that two players'
strings never coincide): the player, its sorted dice, the bids so far.

``dice=1, faces=6`` (the default) has 294,883 histories and 24,576 information sets,
and compiles. Heads-up, the rules list the opponent's possible dice themselves
(:meth:`LiarsDiceState.hidden_worlds`, :meth:`LiarsDiceGame.view_state`), so the search
agents play sizes no tree walk reaches (two dice of six faces and more).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, cast

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.games.hidden import HiddenWorlds, view_from_history
from nashzoo.validation import check_choice, check_int

__all__ = ["LiarsDiceGame", "LiarsDiceState", "BIDDING_RULES", "MAX_PLAYERS"]

BIDDING_RULES = ("reset-face", "reset-quantity")
"""OpenSpiel's bid orders."""

MAX_PLAYERS = 6
"""Most players (OpenSpiel registers two; the rules take any number round the table)."""


class LiarsDiceGame(Game):
    """Liar's Dice (see the module).

    Args:
        dice: dice per player (OpenSpiel's ``numdice``), at least 1.
        faces: faces per die (OpenSpiel's ``dice_sides``), at least 2; the highest is
            wild.
        players: 2 to :data:`MAX_PLAYERS`.
        bidding_rule: ``"reset-face"`` (OpenSpiel's default) or ``"reset-quantity"``.

    Raises:
        InvalidParameterError: a parameter out of its range (named, with what was
            received).
    """

    short_name = "liars_dice"
    game_type = "liars_dice"
    payoff_unit = "points"

    def __init__(
        self, dice: int = 1, faces: int = 6, players: int = 2, bidding_rule: str = "reset-face"
    ) -> None:
        self.dice = check_int("dice", dice, 1, 10)
        self.faces = check_int("faces", faces, 2, 20)
        self.num_players = check_int("players", players, 2, MAX_PLAYERS)
        self.bidding_rule = check_choice("bidding_rule", bidding_rule, BIDDING_RULES)
        self.total_dice = self.dice * self.num_players
        self.liar = self.total_dice * self.faces
        self.num_distinct_actions = self.liar + 1
        self.max_chance_outcomes = self.faces
        self.max_chance_nodes = self.total_dice
        self.max_game_length = self.liar + 1
        self.min_utility = -1.0
        self.max_utility = 1.0
        self.information_state_tensor_size = (
            self.num_players + self.dice * self.faces + self.liar + 1
        )
        self.action_names = (*(self.bid_name(b) for b in range(self.liar)), "Liar")
        self.rule_agents = (("dice-rules", "nashzoo.agents.scripted:LiarsDiceRulesAgent"),)

    def params(self) -> dict[str, Any]:
        return {
            "dice": self.dice,
            "faces": self.faces,
            "players": self.num_players,
            "bidding_rule": self.bidding_rule,
        }

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def bid(self, action: int) -> tuple[int, int]:
        """``(quantity, face)`` of bid ``action`` (faces counted from 1)."""
        if self.bidding_rule == "reset-face":
            return action // self.faces + 1, action % self.faces + 1
        return action % self.total_dice + 1, action // self.total_dice + 1

    def matches(self, dice: Iterable[int], face: int) -> int:
        """How many of ``dice`` (faces from 1) count for a bid on ``face``: that face or
        the wild highest one."""
        return sum(f == face or f == self.faces for f in dice)

    def bid_name(self, action: int) -> str:
        """``"2-4"`` (two fours), or ``"Liar"``."""
        if action == self.liar:
            return "Liar"
        quantity, face = self.bid(action)
        return f"{quantity}-{face}"

    def count_histories(self) -> int:
        """The partial rolls, then every bid sequence per full roll: the bids are any
        subset of the ``B = T * faces`` bids taken in increasing order (``2^B``), and each
        non-empty one may end with liar (``2^B - 1``); ``1 + 6 + 36 * 8,191 = 294,883``
        for one die of six faces each."""
        rolls: int = sum(self.faces**k for k in range(self.total_dice))
        full: int = self.faces**self.total_dice
        return rolls + full * ((1 << (self.liar + 1)) - 1)

    def _private_deals(self) -> int:
        return int(self.faces**self.total_dice)

    # -- hidden information (heads-up: the opponent's dice) ----------------------------------
    def dice_values(self) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
        """Every sorted roll of one player's dice and its chance probability (the number of
        orders it is rolled in over ``faces ** dice``)."""
        rolls = tuple(itertools.combinations_with_replacement(range(1, self.faces + 1), self.dice))
        orders = [
            math.factorial(self.dice) / math.prod(math.factorial(roll.count(f)) for f in set(roll))
            for roll in rolls
        ]
        return rolls, np.asarray(orders) / self.faces**self.dice

    def hidden_value_features(
        self, values: Sequence[Hashable], public: Hashable = None
    ) -> np.ndarray:
        """Per value (a player's sorted dice): the count of each face, then the count that
        matches each face (the face or the wild highest face), both divided by ``dice``;
        then, at ``public`` = the standing bid ``(quantity, face)``, the dice that match
        its face over its quantity (0 before any bid)."""
        f = self.faces
        out = np.zeros((len(values), 2 * f + 1), dtype=np.float32)
        for row, value in enumerate(values):
            for face in _dice(value):
                out[row, face - 1] += 1.0
        out[:, f : 2 * f] = out[:, :f] + out[:, f - 1 : f]
        out[:, 2 * f - 1] = out[:, f - 1]  # the wild face matches itself once
        if public is not None:
            quantity, face = _dice(public)
            out[:, 2 * f] = out[:, f + face - 1] / quantity
        out[:, : 2 * f] /= self.dice
        return out

    def hidden_value_public(self, state: State) -> tuple[int, int] | None:
        """The standing bid ``(quantity, face)`` (``None`` before the first), which
        :meth:`hidden_value_features` meets each world's dice with."""
        bids = state._bids  # type: ignore[attr-defined]
        live = [b for b in bids if b != self.liar]
        return self.bid(live[-1]) if live else None

    def hidden_value_pieces(self, values: Sequence[Hashable]) -> np.ndarray | None:
        """Each value's dice one by one (``None`` with one die: a value is one piece)."""
        if self.dice < 2:
            return None
        return np.asarray(values, dtype=np.int64).reshape(len(values), self.dice)

    def view_state(
        self, player: int, info_state: str, public_history: Sequence[int]
    ) -> LiarsDiceState:
        """A state with ``player``'s dice read from ``info_state`` (``"P0 36 1-2"``), the
        bids from ``public_history``, and every other player's dice all ones.

        Raises:
            InvalidParameterError: the string or the history is not one of this game's,
                or the two disagree.
        """
        p = check_int("player", player, 0, self.num_players - 1)
        head = str(info_state).split(" ")
        dice = _parse_dice(head[1] if len(head) > 1 else "", self.dice, self.faces)
        public = [int(a) for a in public_history]
        if (
            head[0] != f"P{p}"
            or dice is None
            or public[: self.total_dice] != [HIDDEN] * min(len(public), self.total_dice)
        ):
            raise InvalidParameterError(
                f"info_state must be player {p}'s information-state string of {self} "
                f"('P{p} <its {self.dice} dice> <bids>') with a public history that starts "
                f"with {self.total_dice} hidden rolls; received {info_state!r} and {public}."
            )
        rolls = [dice[k - p * self.dice] - 1 if k // self.dice == p else 0
                 for k in range(self.total_dice)]  # fmt: skip
        state: LiarsDiceState = view_from_history(
            self, rolls + public[self.total_dice :], p, info_state, public
        )
        return state


def _dice(value: Hashable) -> tuple[int, ...]:
    """A hidden value (a player's sorted dice) as the tuple it is."""
    return cast("tuple[int, ...]", value)


def _parse_dice(text: str, dice: int, faces: int) -> tuple[int, ...] | None:
    """``dice`` sorted faces in ``1..faces`` written one after another in ``text``
    (``"1011"`` is 10, 11 with 12 faces), or ``None`` where none read so."""
    if not dice:
        return () if not text else None
    if not text.isdigit():
        return None
    for width in (1, 2):
        face = int(text[:width]) if len(text) >= width and text[0] != "0" else 0
        rest = _parse_dice(text[width:], dice - 1, faces) if 1 <= face <= faces else None
        if rest is not None and (not rest or rest[0] >= face):
            return (face, *rest)
    return None


class LiarsDiceState(State):
    """A Liar's Dice history (see :mod:`nashzoo.games.liars_dice`)."""

    game: LiarsDiceGame

    __slots__ = ("game", "_rolls", "_bids", "_player", "_sorted", "_text")

    def __init__(self, game: LiarsDiceGame) -> None:
        self.game = game
        self._rolls: list[int] = []  # faces - 1, in the order rolled
        self._bids: list[int] = []  # actions, liar included
        self._player = CHANCE
        self._sorted: list[tuple[int, ...]] = []  # each player's dice (faces), once rolled
        self._text: list[str] = []  # each player's information-state string, once rolled

    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> tuple[int, ...] | list[int]:
        if self._player == CHANCE:
            return list(range(self.game.faces))
        if self._player == TERMINAL:
            return ()
        start = self._bids[-1] + 1 if self._bids else 0
        return [*range(start, self.game.liar), *([self.game.liar] if self._bids else [])]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        self.check_chance()
        p = 1.0 / self.game.faces
        return [(k, p) for k in range(self.game.faces)]

    def apply_unchecked(self, action: int) -> None:
        g = self.game
        if self._player == CHANCE:
            self._rolls.append(action)
            if len(self._rolls) == g.total_dice:
                d = g.dice
                self._sorted = [
                    tuple(sorted(f + 1 for f in self._rolls[p * d : (p + 1) * d]))
                    for p in range(g.num_players)
                ]
                self._text = [self._string_with(p, dice) for p, dice in enumerate(self._sorted)]
                self._player = 0
            return
        self._bids.append(action)
        name = " " + g.action_names[action]
        self._text = [text + name for text in self._text]
        self._player = TERMINAL if action == g.liar else (self._player + 1) % g.num_players

    def clone(self) -> LiarsDiceState:
        new = LiarsDiceState.__new__(LiarsDiceState)
        new.game = self.game
        new._rolls = self._rolls.copy()
        new._bids = self._bids.copy()
        new._player = self._player
        new._sorted = self._sorted
        new._text = self._text
        return new

    def returns(self) -> list[float]:
        g = self.game
        out = [0.0] * g.num_players
        if self._player != TERMINAL:
            return out
        caller = (len(self._bids) - 1) % g.num_players
        bidder = (len(self._bids) - 2) % g.num_players
        quantity, face = g.bid(self._bids[-2])
        matches = g.matches((r + 1 for r in self._rolls), face)
        winner, loser = (bidder, caller) if matches >= quantity else (caller, bidder)
        out[winner], out[loser] = 1.0, -1.0
        return out

    def history(self) -> list[int]:
        return self._rolls + self._bids

    def public_history(self) -> list[int]:
        return [HIDDEN] * len(self._rolls) + self._bids

    def dice_of(self, player: int) -> tuple[int, ...]:
        """``player``'s dice (faces from 1), sorted once every die is rolled."""
        if self._sorted:
            return self._sorted[player]
        d = self.game.dice
        return tuple(f + 1 for f in self._rolls[player * d : (player + 1) * d])

    def private_information(self, player: int) -> Hashable | None:
        return self.dice_of(player)

    def hidden_worlds(self, player: int) -> HiddenWorlds | None:
        """Heads-up: the opponent's possible dice (every sorted roll, weighted by the
        orders it is rolled in; its bids count 1, as in the tree walk). ``None`` with
        three or more players (the worlds are then joint over several opponents).

        Raises:
            InvalidParameterError: the dice are not all rolled yet.
        """
        self.check_player(player)
        if self.game.num_players != 2:
            return None
        if not self._sorted:
            raise InvalidParameterError(
                f"hidden_worlds needs every die rolled; {len(self._rolls)} of "
                f"{self.game.total_dice} are."
            )
        values, weights = self.game.dice_values()
        snapshot = self.clone()  # the state may move on; the worlds stay
        other = 1 - int(player)
        return HiddenWorlds(
            int(player), values, weights, lambda v: snapshot._with_dice(other, _dice(v))
        )

    def _with_dice(self, player: int, dice: Sequence[int]) -> LiarsDiceState:
        """A copy in which ``player`` rolled ``dice`` (sorted faces)."""
        g = self.game
        new = self.clone()
        start = player * g.dice
        new._rolls = [*self._rolls[:start], *(f - 1 for f in dice), *self._rolls[start + g.dice :]]
        new._sorted = [*self._sorted]
        new._sorted[player] = tuple(dice)
        new._text = [*self._text]
        new._text[player] = self._string_with(player, dice)
        return new

    def _string_with(self, player: int, dice: Sequence[int]) -> str:
        """``player``'s information-state string had it rolled ``dice``."""
        bids = "".join(" " + self.game.action_names[b] for b in self._bids)
        return f"P{player} " + "".join(map(str, dice)) + bids

    def information_state_string_as(self, player: int, value: Hashable) -> str:
        """``player``'s information-state string had it rolled ``value``."""
        self.check_player(player)
        return self._string_with(int(player), _dice(value))

    def information_state_indices_as(self, player: int, value: Hashable) -> list[int]:
        """``player``'s tensor indices had it rolled ``value``."""
        g = self.game
        base = g.num_players + g.dice * g.faces
        dice = [g.num_players + k * g.faces + f - 1 for k, f in enumerate(_dice(value))]
        return [int(player), *dice, *(base + b for b in self._bids)]

    def information_state_indices(self, player: int) -> list[int]:
        return self.information_state_indices_as(player, self.dice_of(player))

    def returns_over(self, player: int, values: Sequence[Hashable]) -> np.ndarray:
        """Heads-up, at a terminal state: ``player``'s return had its opponent rolled
        each of ``values``.

        Raises:
            InvalidParameterError: not terminal, or three or more players.
        """
        g = self.game
        if self._player != TERMINAL or g.num_players != 2:
            raise InvalidParameterError(
                "returns_over needs a terminal state of a two-player game; this one is "
                f"{'not terminal' if self._player != TERMINAL else f'{g.num_players}-player'}."
            )
        p = int(player)
        caller = (len(self._bids) - 1) % 2
        quantity, face = g.bid(self._bids[-2])
        own = g.matches(self._sorted[p], face)
        out = np.empty(len(values))
        for k, dice in enumerate(values):
            matches = own + g.matches(_dice(dice), face)
            bidder_wins = matches >= quantity
            out[k] = 1.0 if bidder_wins == (p != caller) else -1.0
        return out

    def information_state_string_unchecked(self, player: int) -> str:
        if self._text:
            return self._text[player]
        return self._string_with(player, self.dice_of(player))  # no bid before every roll

    def __str__(self) -> str:
        dice = " ".join("".join(map(str, self.dice_of(p))) for p in range(self.game.num_players))
        bids = " ".join(self.game.bid_name(b) for b in self._bids)
        return f"{dice} | {bids or '-'}"
