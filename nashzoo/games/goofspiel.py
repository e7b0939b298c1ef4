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
compile).
"""

from __future__ import annotations

from typing import Any

from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.validation import check_bool, check_choice, check_int

__all__ = ["GoofspielGame", "GoofspielState", "POINTS_ORDERS", "RETURNS_TYPES", "MAX_PLAYERS"]

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
        if not self.game.imp_info and self._round:  # the hands show the bids now
            self._public[-len(self._round) :] = self._round
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
        """The point cards turned up by chance, and the bids as :data:`HIDDEN`: all of
        them with ``imp_info``, else those of the round under way (a finished round's
        bids show in the hands)."""
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
