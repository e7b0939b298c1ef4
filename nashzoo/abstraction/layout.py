"""Where each abstract information set of a Hold'em card abstraction lives: the
betting tree's decisions times the acting player's bucket(s), laid out in one array
that the solver's regret and average tables and a solved policy index alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.abstraction.actions import ActionAbstraction, parse_actions
from nashzoo.abstraction.betting import BettingTree, betting_tree
from nashzoo.abstraction.holdem import HoldemBuckets, holdem_buckets
from nashzoo.abstraction.spec import AbstractionSpec, parse_abstraction
from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.game import PokerGame

__all__ = ["HoldemAbstraction", "check_holdem", "holdem_bucket_tables"]


def check_holdem(game: Any) -> PokerGame:
    """``game`` if it is heads-up Texas Hold'em as the bucket tables know it (52 cards,
    two hole cards, boards of 0, 3, 1 and 1 cards), limit or no-limit (whose pot-fraction
    raises and all-in are the action abstraction).

    Raises:
        InvalidParameterError: naming what differs.
    """
    if not isinstance(game, PokerGame) or game.num_players != 2:
        raise InvalidParameterError(
            f"Hold'em card abstractions apply to heads-up games of the poker engine, "
            f"received {type(game).__name__} ({game})."
        )
    d = game.definition
    shape = (d.num_cards, d.num_hole_cards, tuple(d.num_board_cards))
    if shape != (52, 2, (0, 3, 1, 1)):
        raise InvalidParameterError(
            f"The Hold'em bucket tables need 52 cards, 2 hole cards and boards of (0, 3, 1, 1) "
            f"cards; {game.short_name} has {shape[0]} cards, {shape[1]} hole card(s) and "
            f"boards of {shape[2]}."
        )
    return game


def holdem_bucket_tables(
    game: Any, abstraction: str | AbstractionSpec, *, progress: bool = True
) -> tuple[AbstractionSpec, HoldemBuckets]:
    """The parsed ``abstraction`` for Hold'em ``game`` and its bucket tables, loaded (or
    built, once) from the cache: what the abstract solver and the hand-strength columns
    (:mod:`nashzoo.abstraction.features`) both start from.

    Raises:
        InvalidParameterError: not Hold'em, or an abstraction that does not parse, or
            not ``ehs``/``ehs2`` with four counts.
    """
    check_holdem(game)
    spec = (
        abstraction
        if isinstance(abstraction, AbstractionSpec)
        else parse_abstraction(abstraction, game.definition.num_rounds)
    )
    if spec.kind not in ("ehs", "ehs2") or len(spec.counts) != 4:
        raise InvalidParameterError(
            f"Texas Hold'em takes an 'ehs' or 'ehs2' abstraction with four counts "
            f"(e.g. 'ehs2:169,50,50,50'), received {spec}."
        )
    counts = (spec.counts[0], spec.counts[1], spec.counts[2], spec.counts[3])
    return spec, holdem_buckets(spec.kind, counts, progress=progress)


@dataclass(frozen=True, eq=False)
class HoldemAbstraction:
    """A Hold'em game with its card buckets and the layout of its abstract information
    sets over the betting tree.

    Attributes:
        game: the game.
        spec: the abstraction (``ehs`` or ``ehs2`` with four counts).
        buckets: the bucket tables.
        betting: the betting tree.
        width: per round, the keys a decision's set takes (its buckets, or with perfect
            recall the product of every round's so far).
        base: each betting node's first abstract set (-1 at the ends).
        num_infosets: abstract information sets in all.
    """

    game: PokerGame
    spec: AbstractionSpec
    buckets: HoldemBuckets
    betting: BettingTree
    width: np.ndarray
    base: np.ndarray
    num_infosets: int
    actions: ActionAbstraction | None = None

    @classmethod
    def build(
        cls,
        game: PokerGame,
        abstraction: str | AbstractionSpec,
        *,
        actions: str | ActionAbstraction | None = None,
        progress: bool = True,
    ) -> HoldemAbstraction:
        """Parse ``abstraction`` and load (or build, once) its bucket tables; with a
        no-limit action abstraction ``actions`` (:mod:`nashzoo.abstraction.actions`),
        ``game`` must be its abstract game (:meth:`ActionAbstraction.game_for`).

        Raises:
            InvalidParameterError: not Hold'em, or an abstraction that does not parse, or
                not ``ehs``/``ehs2`` with four counts, or an action abstraction that does
                not parse or is not ``game``'s.
        """
        spec, buckets = holdem_bucket_tables(game, abstraction, progress=progress)
        if isinstance(actions, str):
            actions = parse_actions(actions, game.definition.num_rounds)
        tree = betting_tree(game, actions)
        sizes = np.array(buckets.sizes, np.int64)
        width = np.cumprod(sizes) if spec.perfect_recall else sizes
        offsets = np.concatenate([[0], np.cumsum(tree.decisions * width)])
        base = np.full(tree.num_nodes, -1, np.int64)
        decided = tree.player >= 0
        rounds = tree.round[decided]
        base[decided] = offsets[rounds] + tree.slot[decided] * width[rounds]
        return cls(game, spec, buckets, tree, width, base, int(offsets[-1]), actions)

    def memory_bytes(self) -> int:
        """What the solver's regret and average tables take (two float64 per set and
        action)."""
        return 2 * 8 * self.num_infosets * self.game.num_distinct_actions

    def keys_many(self, buckets: np.ndarray) -> np.ndarray:
        """:meth:`keys_of` of every row of ``buckets`` (``(n, 4)``): ``(n, 4)`` keys."""
        buckets = np.asarray(buckets, np.int64)
        if not self.spec.perfect_recall:
            return buckets.copy()
        sizes = np.array(self.buckets.sizes, np.int64)
        out = np.zeros_like(buckets)
        acc = np.zeros(len(buckets), np.int64)
        for r in range(4):
            acc = acc * sizes[r] + buckets[:, r]
            out[:, r] = acc
        return out

    def keys_of(self, buckets: np.ndarray) -> np.ndarray:
        """Per round, the key of a player's set given its bucket of each round."""
        return self.keys_many(np.asarray(buckets, np.int64)[None, :])[0]
