"""Scripted (rule-based) agents: baselines that know the rules but do not learn.

:class:`FightingHeuristicAgent` plays the fighting card game greedily: it reads its hand and
the opponent's face-up discards from the information-state tensor, assumes the opponent's
next card is drawn uniformly from the cards of its deck not yet seen, and plays the card
with the best expected damage difference of this one exchange. It knows the beats-relation
and the ranks, ignores hit points and the future, and is deterministic (ties: lowest kind):
the kind of opponent a learning agent should beat.

:class:`PokerRulesAgent` plays any game of the poker engine (Limit Hold'em above all) by
a fixed rule of thumb on the cards it holds: raise strong hands, call middling ones, fold
weak ones when facing a bet (check otherwise). Also deterministic.

:class:`LiarsDiceRulesAgent` plays Liar's Dice by the expected count: its own dice that
match a face (the wild face included) plus the other dice times the chance that one
matches; it calls liar when the standing bid's quantity is above that count, and
otherwise makes the lowest bid whose quantity the count covers. Deterministic.

:class:`GoofspielRulesAgent` bids the card that matches the point card's rank (the next
higher card it holds when that one is gone, its lowest when none is higher).
Deterministic.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.fighting import FightingCardGame, card_damage
from nashzoo.games.goofspiel import GoofspielGame
from nashzoo.games.info import load_declared
from nashzoo.games.liars_dice import LiarsDiceGame
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame
from nashzoo.games.poker.hands import hand_value

__all__ = [
    "FightingHeuristicAgent",
    "PokerRulesAgent",
    "LiarsDiceRulesAgent",
    "GoofspielRulesAgent",
    "baselines",
]


class _RuleAgent:
    """What every rule-based agent here shares: it plays one game type (another is
    refused by name), it is deterministic (nothing to reset) and, as a
    :class:`~nashzoo.agents.PolicyAgent`, states one-hot probabilities on the action
    :meth:`act` picks."""

    game: Any
    name: str
    plays: ClassVar[type]
    """The game type it plays."""
    plays_text: ClassVar[str] = ""
    """How its refusal names that type (default: the class name)."""

    def __init__(self, game: Any, *, name: str) -> None:
        if not isinstance(game, self.plays):
            raise InvalidParameterError(
                f"{type(self).__name__} plays {self.plays_text or self.plays.__name__}, "
                f"received {type(game).__name__}."
            )
        self.game = game
        self.name = name

    def _legal(self, observation: Observation) -> np.ndarray:
        """The legal actions of ``observation``'s mask.

        Raises:
            IllegalActionError: there is none.
        """
        legal = np.flatnonzero(action_mask_of(observation))
        if legal.size == 0:
            raise IllegalActionError(
                f"{type(self).__name__} was asked to act with no legal action."
            )
        return legal

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game})"

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        raise NotImplementedError

    def reset(self, *, seed: int | None = None) -> None:
        """Nothing to reset (deterministic)."""

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """One-hot on :meth:`act`'s choice."""
        probs = np.zeros(self.game.num_distinct_actions)
        probs[self.act(observation, info)] = 1.0
        return probs


class FightingHeuristicAgent(_RuleAgent):
    """Greedy one-exchange expected-damage play in :class:`~nashzoo.games.FightingCardGame`.

    A :class:`~nashzoo.agents.PolicyAgent` (its probabilities are one-hot).

    Args:
        game: the game the agent plays (its deck and tensor layout).
        name: display name.
    """

    plays = FightingCardGame

    def __init__(self, game: FightingCardGame, *, name: str = "heuristic") -> None:
        super().__init__(game, name=name)
        k = game.num_kinds
        kinds = [game.kind(c) for c in range(k)]
        # net[a, b]: damage card a deals minus damage it takes from card b
        self._net = np.array(
            [
                [
                    card_damage(*kinds[a], *kinds[b]) - card_damage(*kinds[b], *kinds[a])
                    for b in range(k)
                ]
                for a in range(k)
            ],
            dtype=np.float64,
        )

    def _scores(self, observation: Observation) -> np.ndarray:
        g = self.game
        tensor = np.asarray(observation["observation"], dtype=np.float64)
        k, c = g.num_kinds, g.copies
        start = g.tensor_layout.opponent_discards
        seen = tensor[start : start + k * c].reshape(k, c).sum(axis=1)
        left = np.clip(c - seen, 0.0, None)
        if left.sum() <= 0:
            left = np.ones(k)
        return self._net @ (left / left.sum())

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """The legal card with the best expected one-exchange damage difference."""
        mask = action_mask_of(observation).astype(bool)
        if not mask.any():
            raise IllegalActionError("The action mask has no legal action to choose from.")
        scores = np.where(mask, self._scores(observation), -np.inf)
        return int(np.argmax(scores))


class PokerRulesAgent(_RuleAgent):
    """A rule-of-thumb player for the poker engine's games
    (:class:`~nashzoo.games.poker.PokerGame`), limit and no-limit.

    It reads its hole cards and the board from the information-state tensor (at a table
    of any size, 2 to 10 seats). Before the
    board: raise a pair or two cards of the top five ranks, call with one such card,
    otherwise fold to a bet (check when free). With a board: raise two pair or better
    that uses a hole card, call a pair that uses one, otherwise fold to a bet (check when
    free). In no-limit games "raise" is the smallest raise the abstraction offers short of
    all-in (all-in when it is the only raise left). A :class:`~nashzoo.agents.PolicyAgent`
    with one-hot probabilities.

    Args:
        game: the poker game (its deck and tensor layout).
        name: display name.

    Raises:
        InvalidParameterError: ``game`` is not a game of the poker engine.
    """

    plays = PokerGame
    plays_text = "games of the poker engine (PokerGame)"

    def __init__(self, game: PokerGame, *, name: str = "poker-rules") -> None:
        super().__init__(game, name=name)
        d = game.definition
        self._high = d.num_ranks - 5  # the top five ranks (T J Q K A in a full deck)

    def _choice(self, observation: Observation) -> int:
        game, d = self.game, self.game.definition
        tensor = np.asarray(observation["observation"])
        legal = self._legal(observation)
        c, n = game.num_cards, game.num_players  # the tensor: seat one-hot, hole, boards
        hole = np.flatnonzero(tensor[n : n + c]).tolist()
        board = np.flatnonzero(tensor[n + c : game.actions_offset].reshape(-1, c).sum(0)).tolist()
        ranks = [card // d.num_suits for card in hole]
        if not board:
            strong = len(set(ranks)) < len(ranks) or min(ranks) >= self._high
            middling = max(ranks) >= self._high
        else:
            mine = hand_value(hole + board, d.num_ranks, d.num_suits)
            shared = hand_value(board, d.num_ranks, d.num_suits)
            improves = mine[0] > shared[0]
            strong = improves and mine[0] >= 2
            middling = improves and mine[0] >= 1
        raises = legal[legal >= RAISE]
        if strong and raises.size:
            return int(raises[0])  # limit: the raise; no-limit: the smallest on offer
        if strong or middling or FOLD not in legal:
            return CALL
        return FOLD

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """The rule's action."""
        return self._choice(observation)

    def __repr__(self) -> str:
        return f"PokerRulesAgent({self.game.short_name!r})"


class LiarsDiceRulesAgent(_RuleAgent):
    """Expected-count play in :class:`~nashzoo.games.LiarsDiceGame` (see the module).

    From the information-state tensor it reads its dice and the standing bid (the highest
    bid made). A face's expected count is its own matching dice (that face or the wild
    highest one) plus ``1 / faces`` (the wild face) or ``2 / faces`` (any other) for each
    die it cannot see. Facing a bid whose quantity is above its face's expected count, it
    calls liar; otherwise it makes the lowest legal bid whose quantity is at most its
    face's expected count, rounded down (liar when there is none, or the lowest bid at
    the first move). A :class:`~nashzoo.agents.PolicyAgent` with one-hot probabilities.

    Args:
        game: the Liar's Dice game (its dice, faces and tensor layout).
        name: display name.

    Raises:
        InvalidParameterError: ``game`` is not Liar's Dice.
    """

    plays = LiarsDiceGame

    def __init__(self, game: LiarsDiceGame, *, name: str = "dice-rules") -> None:
        super().__init__(game, name=name)
        faces = game.faces
        # the chance that a die it cannot see matches each face (the wild one only itself)
        self._chance = np.array([2.0 / faces] * (faces - 1) + [1.0 / faces])
        bids = [game.bid(b) for b in range(game.liar)]
        self._quantity = np.array([q for q, _ in bids])
        self._face = np.array([f - 1 for _, f in bids])

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Liar or the lowest bid its expected count covers."""
        g = self.game
        tensor = np.asarray(observation["observation"])
        legal = self._legal(observation)
        n, faces = g.num_players, g.faces
        dice = tensor[n : n + g.dice * faces].reshape(g.dice, faces).sum(axis=0)
        mine = dice + dice[-1] * (np.arange(faces) < faces - 1)  # the wild face matches all
        expected = mine + (g.total_dice - g.dice) * self._chance
        made = np.flatnonzero(tensor[n + g.dice * faces : n + g.dice * faces + g.liar])
        if made.size and self._quantity[made[-1]] > expected[self._face[made[-1]]]:
            return int(g.liar)
        bids = legal[legal < g.liar]
        covered = bids[self._quantity[bids] <= np.floor(expected[self._face[bids]])]
        if covered.size:
            return int(covered[0])
        return int(g.liar) if made.size else int(bids[0])


class GoofspielRulesAgent(_RuleAgent):
    """Bid the prize's rank in :class:`~nashzoo.games.GoofspielGame`: the card of the
    point card's value, else the next higher card held, else the lowest. It reads the
    point card and its hand from the information-state tensor. A
    :class:`~nashzoo.agents.PolicyAgent` with one-hot probabilities.

    Args:
        game: the Goofspiel game (its cards and tensor layout).
        name: display name.

    Raises:
        InvalidParameterError: ``game`` is not Goofspiel.
    """

    plays = GoofspielGame

    def __init__(self, game: GoofspielGame, *, name: str = "goofspiel-rules") -> None:
        super().__init__(game, name=name)
        self._points = game.tensor_offsets["point_cards"]  # one row a round

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """The bid matching the point card's rank, or the next higher, or the lowest."""
        n = self.game.num_cards
        tensor = np.asarray(observation["observation"])
        legal = self._legal(observation)
        rows = tensor[self._points : self._points + n * n].reshape(n, n)
        shown = np.flatnonzero(rows.any(axis=1))
        prize = int(np.argmax(rows[shown[-1]])) if shown.size else 0
        higher = legal[legal >= prize]
        return int(higher[0]) if higher.size else int(legal[0])


def baselines(game: Any) -> dict[str, Any]:
    """The fixed opponents a learner's curve is measured against on a game too big for
    exact exploitability: ``random``, and the rule-based agents the game declares
    (``Game.rule_agents``: ``poker-rules`` on the poker engine's games, ``heuristic`` on
    the fighting game) where it has two players."""
    from nashzoo.agents.random_agent import RandomAgent

    out: dict[str, Any] = {"random": RandomAgent(seed=0)}
    if game.num_players == 2:  # the game's own rule-based agents (Game.rule_agents)
        for name, path in game.rule_agents:
            out[name] = load_declared(path)(game)
    return out
