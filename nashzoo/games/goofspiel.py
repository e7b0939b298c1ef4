"""Goofspiel (OpenSpiel's ``goofspiel``).

Rules: every player holds the cards ``1 .. num_cards``; a deck of point cards of the
same values is turned up one at a time, in random order (``points_order="random"``, a
chance event each) or in ``"descending"`` or ``"ascending"`` order. For each point card
the players bid one card of their hand at the same time; the highest bid wins the point
card's value, a tie among the highest bids discards it, and the bid cards are gone. With
one card left each, the last point card and the last bids play themselves (OpenSpiel's
tree has no decision there). At the end, by ``returns_type``: ``"win_loss"`` (the most
points: +1 shared among the winners, -1 shared among the others, 0 all round when all
tie), ``"point_difference"`` (points minus the players' mean) or ``"total_points"``
(points; not zero-sum).

Simultaneous bids are played in turn, player 0 first, each hidden from the players after
it until the round is complete (as OpenSpiel's ``convert_to_turn_based`` plays them); the
parallel API gives all players their move at once. With ``imp_info`` (the default here;
OpenSpiel's default is ``False``) the others' bids stay hidden and only who won each
round is seen; without it every player sees every hand (and so every bid once the round
is over).

Actions: card ``k`` (``0 .. num_cards - 1``) bids value ``k + 1``. Chance outcome ``k``
turns up the point card of value ``k + 1``.

Information-state string: OpenSpiel's (a tie shows as -3, its "invalid player"), with
the player's own bid once it has made it in the round under way, and then how many
players have bid in it (public, played in turn). Without ``imp_info`` OpenSpiel's string
names no player and forgets the order of the bids (the hands show which cards went, not
when): nashzoo's names the player first and lists every finished round's bids last, so
that it has perfect recall; the tensor adds them too. Information-state tensor:
a one-hot of the observing player, then OpenSpiel's (with ``imp_info``: point totals,
one-hot rows from the observing player round the table; its hand; the winner of each
round; the point cards; its own bids. Without it: the point totals, the point cards and
every hand). OpenSpiel's tensor has no seat, so at a round's start every player's was
the same, and a policy reading tensors could not tell the seats apart.

``num_cards=4`` with random point cards and hidden bids has 26,773 histories and 3,608
information sets (OpenSpiel's turn-based conversion of its game has the same), and
compiles in half a second; ``num_cards=5`` has 3,346,656 and 236,450 (about 80 s to
compile). Heads-up, the rules list the opponent's bid sequences consistent with what a
player has seen (:meth:`GoofspielState.hidden_worlds`, :meth:`GoofspielGame.view_state`),
so the search agents play the full 13-card game, which no tree walk reaches.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np

from nashzoo.errors import InvalidParameterError, NashzooError
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.games.hidden import HiddenWorlds, checked_view
from nashzoo.validation import check_bool, check_choice, check_int

__all__ = [
    "BidSequences",
    "GoofspielGame",
    "GoofspielState",
    "POINTS_ORDERS",
    "RETURNS_TYPES",
    "MAX_PLAYERS",
]

POINTS_ORDERS = ("random", "descending", "ascending")
"""The orders the point cards come in."""

RETURNS_TYPES = ("win_loss", "point_difference", "total_points")
"""What the players receive at the end."""

MAX_PLAYERS = 10
"""Most players (OpenSpiel's bound)."""


class GoofspielGame(Game):
    """Goofspiel (see the module).

    Args:
        num_cards: cards per hand and point cards, 2 to 20.
        points_order: one of :data:`POINTS_ORDERS`.
        imp_info: the others' bids hidden (only who won each round is seen).
        returns_type: one of :data:`RETURNS_TYPES`.
        players: 2 to :data:`MAX_PLAYERS`.

    Raises:
        InvalidParameterError: a parameter out of its range (named, with what was
            received).
    """

    short_name = "goofspiel"
    game_type = "goofspiel"
    payoff_unit = "points"
    simultaneous = True

    def __init__(
        self,
        num_cards: int = 13,
        points_order: str = "random",
        imp_info: bool = True,
        returns_type: str = "win_loss",
        players: int = 2,
    ) -> None:
        self.num_cards = n = check_int("num_cards", num_cards, 2, 20)
        self.num_players = check_int("players", players, 2, MAX_PLAYERS)
        self.points_order = check_choice("points_order", points_order, POINTS_ORDERS)
        self.returns_type = check_choice("returns_type", returns_type, RETURNS_TYPES)
        self.imp_info = check_bool("imp_info", imp_info)
        total = n * (n + 1) // 2
        self.zero_sum = returns_type != "total_points"
        self.num_distinct_actions = n
        self.max_chance_outcomes = n if points_order == "random" else 0
        self.max_chance_nodes = n if points_order == "random" else 0
        self.max_game_length = n * self.num_players
        if returns_type == "win_loss":
            self.min_utility, self.max_utility = -1.0, 1.0
        elif returns_type == "point_difference":
            self.min_utility = -float(total // self.num_players)
            self.max_utility = (self.num_players - 1) * total / self.num_players
        else:
            self.min_utility, self.max_utility = 0.0, float(total)
        self.point_slots = total + 1
        p = self.num_players
        # the tensor, part by part: the seat, then OpenSpiel's layout (and, with the bids
        # shown, every bid made: OpenSpiel's forgets their order)
        parts = [("seat", p), ("point_totals", p * self.point_slots)]
        if imp_info:
            parts += [("hand", n), ("winners", n * p), ("point_cards", n * n), ("own_bids", n * n)]
        else:
            parts += [("point_cards", n * n), ("hands", p * n), ("bids", n * p * n)]
        self.tensor_offsets: dict[str, int] = {}
        """Where each part of the information-state tensor starts, by name."""
        start = 0
        for name, width in parts:
            self.tensor_offsets[name] = start
            start += width
        self.information_state_tensor_size = start
        self.action_names = tuple(f"Bid {k + 1}" for k in range(n))
        self.rule_agents = (("goofspiel-rules", "nashzoo.agents.scripted:GoofspielRulesAgent"),)

    def params(self) -> dict[str, Any]:
        return {
            "num_cards": self.num_cards,
            "points_order": self.points_order,
            "imp_info": self.imp_info,
            "returns_type": self.returns_type,
            "players": self.num_players,
        }

    def new_initial_state(self) -> GoofspielState:
        return GoofspielState(self)

    def count_histories(self) -> int:
        """Round by round from the last (which plays itself: one terminal history): a
        round with ``k`` cards left is the point card's chance node (random order) over
        the players' bids, each of the ``k`` cards, in turn: ``S(1) = 1``, ``B(k)`` =
        ``1 + k (1 + k (... S(k - 1)))`` (one level a player), ``S(k) = 1 + k B(k)``
        (random order) or ``B(k)``; 418 for three cards, 26,773 for four."""
        total = 1
        for k in range(2, self.num_cards + 1):
            for _ in range(self.num_players):
                total = 1 + k * total
            if self.points_order == "random":
                total = 1 + k * total
        return total

    # -- hidden information (heads-up: the opponent's bids) ---------------------------------
    def hidden_value_features(
        self, values: Sequence[Hashable], public: Hashable = None
    ) -> np.ndarray:
        """Per value (the opponent's bids so far, :meth:`GoofspielState.hidden_worlds`):
        a one-hot of the cards it holds after them, then of its bid in the round under
        way (a last entry for none). ``public`` is the number of finished rounds (a value
        longer than that ends with the bid under way)."""
        n = self.num_cards
        out = np.zeros((len(values), 2 * n + 1), dtype=np.float32)
        out[:, :n] = 1.0
        finished = int(cast(int, public or 0))
        for row, value in enumerate(values):
            bids = _bids(value)
            out[row, list(bids)] = 0.0
            out[row, n + (bids[finished] if len(bids) > finished else n)] = 1.0
        return out

    def hidden_value_public(self, state: State) -> int:
        """How many rounds are finished (what :meth:`hidden_value_features` needs to tell
        a bid under way from the finished ones)."""
        return len(cast(GoofspielState, state)._bids)

    def hidden_value_pieces(self, values: Sequence[Hashable]) -> np.ndarray | None:
        """Each value's bids one by one (``None`` where a value has fewer than two)."""
        if not values or len(_bids(values[0])) < 2:
            return None
        return np.asarray(values, dtype=np.int64)

    def view_state(
        self, player: int, info_state: str, public_history: Sequence[int]
    ) -> GoofspielState:
        """Heads-up: a state with ``player``'s bids read from ``info_state`` (hidden bids;
        shown bids come with the public history), the point cards from
        ``public_history``, and the opponent's bids the first sequence consistent with
        who won each round.

        Raises:
            InvalidParameterError: three or more players, or the string or the history is
                not one of this game's, or the two disagree.
        """
        p = check_int("player", player, 0, self.num_players - 1)
        if self.num_players != 2:
            raise InvalidParameterError(
                f"view_state is heads-up; {self} has {self.num_players} players."
            )
        public = [int(a) for a in public_history]
        own, wins, hand = _read_string(self, p, str(info_state))
        theirs: tuple[int, ...] = ()
        if self.imp_info:  # one sequence of the opponent's bids that fits who won
            fits = BidSequences(self.num_cards, own, wins, p, pending=len(wins) < self.num_cards)
            theirs = fits[0] if len(fits) else ()

        def hidden_bid(state: GoofspielState) -> int:
            """The bid of the player to move, which the public history hides."""
            r, mover = len(state._bids), state._player
            if mover == p:  # its own: from the string
                return (
                    own[r] if self.imp_info else next(c for c in state._hands[p] if c not in hand)
                )
            return theirs[r] if self.imp_info else state._hands[mover][0]  # the opponent's

        try:
            state = self.new_initial_state()
            for event in public:
                hidden = state._player != CHANCE and event == HIDDEN
                state.apply_action(hidden_bid(state) if hidden else event)
            if p == 1 and state._player == 0:  # a view where it is to move: 0 has bid
                state.apply_action(hidden_bid(state))
        except (NashzooError, IndexError, StopIteration) as error:
            raise InvalidParameterError(
                f"public_history {public} and info_state {info_state!r} are not a view of "
                f"player {p} in {self}: {error!r}"
            ) from None
        checked: GoofspielState = checked_view(state, p, info_state, public)
        return checked


def _bids(value: Hashable) -> tuple[int, ...]:
    """A hidden value (a player's bids, in order) as the tuple it is."""
    return cast("tuple[int, ...]", value)


def _read_string(
    game: GoofspielGame, player: int, text: str
) -> tuple[list[int], list[int], list[int]]:
    """From ``player``'s information-state string: its own bids (with hidden bids; shown
    ones are in the public history), the winner of each finished round (-1 a tie) and its
    hand (cards from 0).

    Raises:
        InvalidParameterError: the string is not one of ``player``'s in ``game``.
    """
    fields = {}
    for line in text.split("\n"):
        name, _, rest = line.partition(":")
        fields[name] = rest
    try:
        hand = [int(x) - 1 for x in fields[f"P{player} hand"].split()]
        wins = [int(x) for x in fields["Win sequence"].split()]
        if game.imp_info:
            own = [int(x) for x in fields[f"P{player} action sequence"].split()]
        elif text.startswith(f"Player {player}\n"):
            own = []
        else:
            raise ValueError(text)
    except (KeyError, ValueError):
        raise InvalidParameterError(
            f"info_state must be player {player}'s information-state string of {game}, "
            f"received {text!r}."
        ) from None
    return own, [w if w >= 0 else -1 for w in wins], hand


class BidSequences(Sequence[tuple[int, ...]]):
    """The opponent's bid sequences consistent with what a player saw, in increasing
    order, counted and indexed without listing them (13 cards: millions mid-game).

    For each finished round ``r`` the opponent's bid is the card shown (``shown``) or any
    card left that beat, lost to or tied the player's own bid ``mine[r]`` as ``winners[r]``
    says; then, with ``pending``, one more card left (its bid in the round under way,
    unseen). ``count(r, used)``, the completions from round ``r`` with the cards ``used``
    (a bit mask) gone, is a dynamic programme over the subsets of cards, so the length,
    an item and an item's rank each cost a pass over the rounds.
    """

    __slots__ = ("num_cards", "rounds", "pending", "_options", "_counts")

    def __init__(
        self,
        num_cards: int,
        mine: Sequence[int],
        winners: Sequence[int],
        player: int,
        *,
        pending: bool,
        shown: Sequence[int] | None = None,
    ) -> None:
        self.num_cards = int(num_cards)
        self.rounds = len(winners)
        self.pending = bool(pending)
        cards = range(self.num_cards)
        options: list[tuple[int, ...]] = []  # the cards each round's outcome allows
        for r, w in enumerate(winners):
            m = mine[r]
            if shown is not None:
                options.append((shown[r],))
            elif w == player:  # it lost
                options.append(tuple(c for c in cards if c < m))
            elif w < 0:
                options.append((m,))
            else:
                options.append(tuple(c for c in cards if c > m))
        self._options = tuple(options)
        self._counts = _completions(self.num_cards, self._options, self.pending)

    def _count(self, r: int, used: int) -> int:
        if isinstance(self._counts, list):  # the arrays over every subset of cards
            return int(self._counts[r][used])
        if r == self.rounds:
            return self.num_cards - self.rounds if self.pending else 1
        key = (r, used)
        found = self._counts.get(key)
        if found is None:
            found = sum(
                self._count(r + 1, used | 1 << c) for c in self._options[r] if not used >> c & 1
            )
            self._counts[key] = found
        return found

    def __len__(self) -> int:
        return self._count(0, 0)

    def __getitem__(self, index: int) -> tuple[int, ...]:  # type: ignore[override]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"bid sequence {index} of {size}")
        out, used = [], 0
        for r in range(self.rounds):
            for c in self._options[r]:
                if used >> c & 1:
                    continue
                n = self._count(r + 1, used | 1 << c)
                if index < n:
                    out.append(c)
                    used |= 1 << c
                    break
                index -= n
        if self.pending:
            out.append([c for c in range(self.num_cards) if not used >> c & 1][index])
        return tuple(out)

    def rank(self, value: Sequence[int]) -> int | None:
        """The position of ``value`` (``None`` where it is not one of them)."""
        value = tuple(value)
        if len(value) != self.rounds + self.pending:
            return None
        index, used = 0, 0
        for r in range(self.rounds):
            if value[r] not in self._options[r] or used >> value[r] & 1:
                return None
            for c in self._options[r]:
                if c == value[r]:
                    break
                if not used >> c & 1:
                    index += self._count(r + 1, used | 1 << c)
            used |= 1 << value[r]
        if self.pending:
            left = [c for c in range(self.num_cards) if not used >> c & 1]
            if value[-1] not in left:
                return None
            index += left.index(value[-1])
        return index


ARRAY_CARDS = 14
"""Up to this many cards :class:`BidSequences` counts over arrays of every subset of
cards (2 ** cards entries a round, in numpy); above it, a memo of the subsets reached."""


@functools.lru_cache(maxsize=1024)
def _completions(
    num_cards: int, options: tuple[tuple[int, ...], ...], pending: bool
) -> list[np.ndarray] | dict[tuple[int, int], int]:
    """``count[r][used]``: the completions of the bid sequences from round ``r`` with the
    cards ``used`` (a bit mask) gone, for every subset at once, last round first (about a
    millisecond for 13 cards; shared by the views with the same constraints). Above
    :data:`ARRAY_CARDS` cards an empty memo for :meth:`BidSequences._count` to fill."""
    if num_cards > ARRAY_CARDS:
        return {}
    masks = np.arange(1 << num_cards, dtype=np.int64)
    popcount = np.zeros_like(masks)
    for c in range(num_cards):
        popcount += masks >> c & 1
    count = num_cards - popcount if pending else np.ones_like(masks)
    out = [count]
    for allowed in reversed(options):
        before = np.zeros_like(masks)
        for c in allowed:
            free = masks[(masks >> c & 1) == 0]
            before[free] += count[free | 1 << c]
        count = before
        out.append(count)
    return out[::-1]


class GoofspielState(State):
    """A Goofspiel history (see :mod:`nashzoo.games.goofspiel`)."""

    game: GoofspielGame

    __slots__ = (
        "game", "_events", "_public", "_points", "_bids", "_round", "_winners", "_hands",
        "_player", "_scores", "_known",
    )  # fmt: skip

    def __init__(self, game: GoofspielGame) -> None:
        self.game = game
        n = game.num_cards
        self._events: list[int] = []  # the history: point cards dealt by chance, bids
        self._public: list[int] = []  # the same as every player sees it
        self._points: list[int] = []  # point card indices turned up
        self._bids: list[list[int]] = []  # each finished round's bids, by player
        self._round: list[int] = []  # this round's bids so far
        self._winners: list[int] = []  # each finished round's winner, -1 for a tie
        self._hands = [list(range(n)) for _ in range(game.num_players)]
        self._scores = [0] * game.num_players  # each player's points so far
        # each player's tensor indices of the finished rounds and the point cards shown
        self._known: list[list[int]] = [[] for _ in range(game.num_players)]
        self._player = CHANCE
        self._next_point()

    # -- the rules ------------------------------------------------------------------------------
    def _next_point(self) -> None:
        """Turn up the next point card (a chance event for random order) and let the
        players bid; with one card left each, play the last round at once."""
        g, done = self.game, len(self._points)
        if g.points_order == "random":
            self._player = CHANCE
            if done == g.num_cards - 1:  # one point card left: it turns up by itself
                self._show_point(next(iter(set(range(g.num_cards)) - set(self._points))))
                self._finish_round([hand[0] for hand in self._hands])
            return
        self._show_point(done if g.points_order == "ascending" else g.num_cards - 1 - done)
        if done == g.num_cards - 1:
            self._finish_round([hand[0] for hand in self._hands])
        else:
            self._player = 0

    def _finish_round(self, bids: list[int]) -> None:
        top = max(bids)
        winner = bids.index(top) if bids.count(top) == 1 else -1
        self._winners.append(winner)
        self._record_round(bids, winner)
        if winner >= 0:
            self._scores[winner] += self._points[-1] + 1
        self._bids.append(bids)
        for hand, bid in zip(self._hands, bids):
            hand.remove(bid)
        if not self.game.imp_info:  # the hands show the bids now
            self._public += self._round
        self._round = []
        if len(self._bids) == self.game.num_cards:
            self._player = TERMINAL
        else:
            self._next_point()

    def _show_point(self, card: int) -> None:
        """Turn up point card ``card``: every player's tensor shows it in its row."""
        g = self.game
        self._points.append(card)
        index = g.tensor_offsets["point_cards"] + (len(self._points) - 1) * g.num_cards + card
        for known in self._known:
            known.append(index)

    def _record_round(self, bids: list[int], winner: int) -> None:
        """The finished round's tensor indices for every player: the winner and its own
        bid (hidden bids), or every bid (shown)."""
        g = self.game
        r, n, p_count, at = len(self._bids), g.num_cards, g.num_players, g.tensor_offsets
        for q, known in enumerate(self._known):
            if g.imp_info:
                if winner >= 0:
                    known.append(at["winners"] + r * p_count + winner)
                known.append(at["own_bids"] + r * n + bids[q])
            else:
                known.extend(at["bids"] + (r * p_count + k) * n + b for k, b in enumerate(bids))

    def points(self) -> list[int]:
        """Each player's points so far."""
        return list(self._scores)

    # -- the State API --------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> tuple[int, ...] | list[int]:
        if self._player == CHANCE:
            return [c for c in range(self.game.num_cards) if c not in self._points]
        if self._player == TERMINAL:
            return ()
        return list(self._hands[self._player])

    def pending_legal_actions(self, player: int) -> list[int]:
        """``player``'s cards while the round under way waits for its bid (every player
        not yet bid sees its options, for the parallel API)."""
        if self._player >= 0 and player >= len(self._round):
            return list(self._hands[player])
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        self.check_chance()
        left = self.legal_actions()
        return [(c, 1.0 / len(left)) for c in left]

    def apply_unchecked(self, action: int) -> None:
        self._events.append(action)
        if self._player == CHANCE:
            self._show_point(action)
            self._public.append(action)
            self._player = 0
            return
        if self.game.imp_info:  # shown bids join the public history when the round ends
            self._public.append(HIDDEN)
        self._round.append(action)
        if len(self._round) < self.game.num_players:
            self._player += 1
        else:
            self._finish_round(self._round)

    def clone(self) -> GoofspielState:
        new = GoofspielState.__new__(GoofspielState)
        new.game = self.game
        new._events = self._events.copy()
        new._public = self._public.copy()
        new._points = self._points.copy()
        new._bids = [b.copy() for b in self._bids]
        new._round = self._round.copy()
        new._winners = self._winners.copy()
        new._hands = [h.copy() for h in self._hands]
        new._player = self._player
        new._scores = self._scores.copy()
        new._known = [k.copy() for k in self._known]
        return new

    def returns(self) -> list[float]:
        g = self.game
        if self._player != TERMINAL:
            return [0.0] * g.num_players
        points = self.points()
        if g.returns_type == "total_points":
            return [float(x) for x in points]
        if g.returns_type == "point_difference":
            mean = sum(points) / g.num_players
            return [x - mean for x in points]
        best = max(points)
        winners = [p for p, x in enumerate(points) if x == best]
        if len(winners) == g.num_players:
            return [0.0] * g.num_players
        losers = g.num_players - len(winners)
        return [1.0 / len(winners) if p in winners else -1.0 / losers for p in range(g.num_players)]

    def history(self) -> list[int]:
        return list(self._events)

    def public_history(self) -> list[int]:
        """The point cards turned up by chance and the bids: with ``imp_info`` each bid as
        :data:`HIDDEN` when it is made; without, every finished round's bids, added when
        the round ends (the round under way's are left out until then, so that each
        history's public history extends its prefix's, as a tree walk needs)."""
        return list(self._public)

    def information_state_string_unchecked(self, player: int) -> str:
        g = self.game
        points = " ".join(str(x) for x in self.points())
        cards = " ".join(str(c + 1) for c in self._points)
        wins = " ".join(str(w if w >= 0 else -3) for w in self._winners)  # a tie: -3, as OpenSpiel
        if g.imp_info:
            hand = "".join(f"{c + 1} " for c in self._hand_seen(player, player))
            mine = "".join(f"{bids[player]} " for bids in self._own_bids(player))
            text = (
                f"P{player} hand: {hand}\nP{player} action sequence: {mine}\n"
                f"Point card sequence: {cards} \nWin sequence: {wins} \nPoints: {points} \n"
                f"Terminal?: {int(self._player == TERMINAL)}\n"
            )
        else:
            hands = "".join(
                f"P{q} hand: " + "".join(f"{c + 1} " for c in self._hand_seen(player, q)) + "\n"
                for q in range(g.num_players)
            )
            bids = " | ".join(" ".join(str(b) for b in round_) for round_ in self._bids)
            text = (
                f"Player {player}\nPoint card sequence: {cards} \n{hands}"
                f"Win sequence: {wins} \nPoints: {points} \nBids: {bids}\n"
            )
        if player < len(self._round):  # it has bid this round: how many have, so far
            text += f"Bids this round: {len(self._round)}\n"
        return text.replace("sequence:  \n", "sequence: \n")

    def _hand_seen(self, viewer: int, player: int) -> list[int]:
        """``player``'s hand as ``viewer`` knows it: its own as it is (a bid made this
        round gone from it), another's as the round under way began (its bid hidden)."""
        hand = self._hands[player]  # the cards bid go at the end of the round
        if viewer == player and player < len(self._round):
            return [c for c in hand if c != self._round[player]]
        return list(hand)

    def _own_bids(self, player: int) -> list[list[int]]:
        """The rounds' bids ``player`` knows its own of: every finished round's, and the
        round under way's where it has bid."""
        if player < len(self._round):
            return [*self._bids, self._round]
        return self._bids

    def private_information(self, player: int) -> Hashable | None:
        """``player``'s bids so far, in order (the round under way's once it has bid)."""
        return tuple(bids[player] for bids in self._own_bids(int(player)))

    def hidden_worlds(self, player: int) -> HiddenWorlds | None:
        """Heads-up: the opponent's bid sequences consistent with what ``player`` has
        seen (who won each round against its own bid; with the bids shown, the bids
        themselves), then its bid in the round under way where it has made it; all
        equally likely (the point cards are public, the opponent's choices count 1).
        ``None`` with three or more players."""
        self.check_player(player)
        if self.game.num_players != 2:
            return None
        p = int(player)
        other = 1 - p
        shown = None if self.game.imp_info else [b[other] for b in self._bids]
        values = BidSequences(
            self.game.num_cards, [b[p] for b in self._bids], self._winners, p,
            pending=other < len(self._round), shown=shown,
        )  # fmt: skip
        snapshot = self.clone()  # the state may move on; the worlds stay
        return HiddenWorlds(p, values, None, lambda v: snapshot._with_bids(other, _bids(v)))

    def _with_bids(self, player: int, bids: Sequence[int]) -> GoofspielState:
        """The same game replayed with ``player``'s bids ``bids`` (in order)."""
        new = self.game.new_initial_state()
        mine = iter(bids)
        for event in self._events:
            new.apply_unchecked(next(mine) if new._player == player else event)
        return new

    def information_state_string_as(self, player: int, value: Hashable) -> str:
        """``player``'s information-state string had it bid ``value``."""
        self.check_player(player)
        return self._with_bids(int(player), _bids(value)).information_state_string(player)

    def information_state_indices_as(self, player: int, value: Hashable) -> list[int]:
        """``player``'s tensor indices had it bid ``value``."""
        return self._with_bids(int(player), _bids(value)).information_state_indices(player)

    def returns_over(self, player: int, values: Sequence[Hashable]) -> np.ndarray:
        """At a terminal state: ``player``'s return had its opponent bid each of
        ``values``; the same for all (who won each round decides the points, and every
        consistent sequence agrees on that).

        Raises:
            InvalidParameterError: not terminal.
        """
        if self._player != TERMINAL:
            raise InvalidParameterError("returns_over needs a terminal state.")
        return np.full(len(values), self.returns()[int(player)])

    def information_state_indices(self, player: int) -> list[int]:
        g = self.game
        n, p_count, slots = g.num_cards, g.num_players, g.point_slots
        scores = self._scores
        idx = [player]
        at = g.tensor_offsets["point_totals"]
        idx.extend(at + k * slots + scores[(player + k) % p_count] for k in range(p_count))
        idx.extend(self._known[player])  # the point cards and the finished rounds
        if g.imp_info:
            idx.extend(g.tensor_offsets["hand"] + c for c in self._hand_seen(player, player))
            if player < len(self._round):  # its own bid in the round under way
                idx.append(g.tensor_offsets["own_bids"] + len(self._bids) * n + self._round[player])
            return idx
        for k in range(p_count):
            q = (player + k) % p_count
            idx.extend(g.tensor_offsets["hands"] + k * n + c for c in self._hand_seen(player, q))
        return idx

    def __str__(self) -> str:
        cards = " ".join(str(c + 1) for c in self._points)
        rounds = " | ".join(" ".join(str(b + 1) for b in bids) for bids in self._bids)
        return f"points {cards or '-'} | bids {rounds or '-'} | score {self.points()}"
