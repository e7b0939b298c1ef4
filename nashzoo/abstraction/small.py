"""Card abstractions of poker games small enough to compile (Leduc and its kin): the
real tree with its information sets merged.

Every information set of a poker-engine game is a player's cards (hole cards and the
board so far) with the betting. The abstraction maps the cards to a bucket per round and
keeps the betting; information sets with the same key become one abstract set. The
compiled tree is the real one, node for node; only its information-set ids change
(:func:`abstract_tree`), so every tabular solver runs on it unchanged, and the solved
abstract policy plays the real game row for row (:meth:`AbstractTree.expand`), where its
exploitability is exact.

Buckets are computed by enumeration: for each round, every hole-and-board combination's
E[HS] or E[HS^2] over the cards to come (HS against every opponent holding), split into
groups of equal probability. With perfect recall (a set keeps every earlier round's
bucket) the abstract game keeps perfect recall, which the full-traversal solvers (CFR,
CFR+, ...) rely on for their average policy; an imperfect-recall abstraction here runs
with the sampling solvers only.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.abstraction.buckets import equal_weight_buckets
from nashzoo.abstraction.spec import AbstractionSpec, parse_abstraction
from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.game import PokerGame
from nashzoo.tree.compile import GameTree, compile_game

__all__ = ["AbstractTree", "abstract_tree", "card_key", "parse_info_state"]

MAX_ENUMERATION = 2_000_000
"""The most hand evaluations the enumerated buckets may take (Hold'em takes the sweep of
:mod:`nashzoo.abstraction.holdem` instead)."""


def parse_info_state(
    game: PokerGame, text: str
) -> tuple[int, tuple[int, ...], list[tuple[int, ...]], str]:
    """``(player, hole cards, board cards of each round dealt so far, betting)`` of a
    poker-engine information-state string (``"player=0 hole=AsKd board=Qh7c2d/5s
    bets=cr/c"``).

    Raises:
        InvalidParameterError: not such a string of ``game``.
    """
    names = {name: card for card, name in enumerate(game.card_names)}
    fields = dict(part.split("=", 1) for part in str(text).split(" ") if "=" in part)
    try:
        player = int(fields["player"])
        hole = _cards(fields["hole"], names)
        bets = fields["bets"]
        board: list[tuple[int, ...]] = []
        if game.has_board:
            board = [_cards(seg, names) for seg in fields.get("board", "").split("/")]
    except (KeyError, ValueError) as exc:
        raise InvalidParameterError(
            f"{text!r} is not an information-state string of {game.short_name} "
            f"('player=P hole=... [board=...] bets=...'): {exc}"
        ) from None
    return player, hole, board, bets


def _engine_twin(game: Any) -> tuple[PokerGame, Callable[[str], Any]]:
    """The poker-engine game with ``game``'s cards and rounds (the game itself for a
    poker-engine game; for the hand-written Leduc Hold'em, the engine's Leduc with the
    same parameters, whose cards are numbered alike) and a reader of ``game``'s
    information-state strings (``(player, hole, board by round, bets)``).

    Raises:
        InvalidParameterError: neither kind of game.
    """
    from nashzoo.games.leduc import LeducHoldemGame
    from nashzoo.games.poker import presets

    if isinstance(game, PokerGame):
        return game, lambda text: parse_info_state(game, text)
    if isinstance(game, LeducHoldemGame):
        if game.num_players != 2:
            raise InvalidParameterError(
                f"Card abstractions are for two-player games; {game} has "
                f"{game.num_players} players."
            )
        p = game.params()
        if p["ante"] != 1 or p["num_rounds"] != 2:
            raise InvalidParameterError(
                f"Card abstractions of the hand-written Leduc need ante 1 and 2 rounds (the "
                f"engine's Leduc), received ante {p['ante']} and {p['num_rounds']} rounds."
            )
        twin = presets.leduc(
            p["num_ranks"], p["num_suits"], p["max_raises"], tuple(p["raise_sizes"])
        )
        names = {name: card for card, name in enumerate(game.card_names)}

        def read(text: str) -> Any:
            fields = dict(part.split("=", 1) for part in str(text).split(" ") if "=" in part)
            try:
                hole = _cards(fields["card"], names)
                public = fields.get("public", "-")
                board = [_cards("" if public == "-" else public, names)]
                return int(fields["player"]), hole, board, fields["bets"]
            except (KeyError, ValueError) as exc:
                raise InvalidParameterError(
                    f"{text!r} is not an information-state string of Leduc Hold'em: {exc}"
                ) from None

        return twin, read
    raise InvalidParameterError(
        f"Card abstractions apply to poker games (the poker engine's, or Leduc Hold'em), "
        f"received {type(game).__name__}."
    )


def _cards(text: str, names: dict[str, int]) -> tuple[int, ...]:
    out = []
    for i in range(0, len(text), 2):
        if text[i : i + 2] not in names:
            raise ValueError(f"unknown card {text[i : i + 2]!r}")
        out.append(names[text[i : i + 2]])
    return tuple(out)


def _per_round_board(
    game: PokerGame, board: list[tuple[int, ...]], r: int
) -> list[tuple[int, ...]]:
    """The board cards each round up to ``r`` dealt (empty for rounds dealing none)."""
    d = game.definition
    segments = iter(board)
    out = []
    for q in range(r + 1):
        out.append(tuple(next(segments, ())) if d.num_board_cards[q] else ())
    return out


# -- buckets by enumeration --------------------------------------------------------------
class _Enumerated:
    """E[HS] and E[HS^2] of every (hole, board so far) combination of a small game, and
    the buckets of equal probability they give."""

    def __init__(self, game: PokerGame, spec: AbstractionSpec) -> None:
        d = game.definition
        self.game = game
        self.spec = spec
        deck = range(d.num_cards)
        h = d.num_hole_cards
        rounds = d.num_rounds
        combos = []  # per round: list of (hole, board-by-round)
        cost = 0
        for r in range(rounds):
            per: list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = []
            for hole in itertools.combinations(deck, h):
                for boards in self._deals(set(hole), range(r + 1)):
                    per.append((hole, boards))
            combos.append(per)
            cost += len(per)
        full = combos[-1]
        opp = max(
            1, len(list(itertools.combinations(range(d.num_cards - h - sum(d.num_board_cards)), h)))
        )
        if cost * opp > MAX_ENUMERATION:
            raise InvalidParameterError(
                f"Enumerated buckets of {game.short_name} would take about {cost * opp:,} hand "
                f"evaluations (limit {MAX_ENUMERATION:,}); Texas Hold'em has its own tables "
                "(nashzoo.abstraction.holdem)."
            )
        strength = game.strength
        hs: dict[Any, float] = {}
        for hole, boards in full:
            board = [c for part in boards for c in part]
            used = set(hole) | set(board)
            own = strength(list(hole) + board)
            wins = total = 0.0
            for other in itertools.combinations([c for c in deck if c not in used], h):
                theirs = strength(list(other) + board)
                wins += 1.0 if own > theirs else 0.5 if own == theirs else 0.0
                total += 1.0
            hs[(hole, boards)] = wins / total
        self.value: list[dict[Any, tuple[float, float]]] = []
        for r in range(rounds):
            table = {}
            for hole, boards in combos[r]:
                finals = [
                    hs[(hole, boards + rest)]
                    for rest in self._deals(
                        set(hole) | {c for part in boards for c in part}, range(r + 1, rounds)
                    )
                ]
                arr = np.array(finals)
                table[(hole, boards)] = (float(arr.mean()), float((arr**2).mean()))
            self.value.append(table)
        self.bucket: list[dict[Any, int]] = []
        col = 1 if spec.kind == "ehs2" else 0
        for r in range(rounds):
            keys = list(self.value[r])
            # rounded so that suit-isomorphic combinations, whose sums ran in another
            # order, compare equal and share a bucket
            values = np.round([self.value[r][k][col] for k in keys], 12)
            buckets = equal_weight_buckets(values, np.ones(len(keys)), spec.counts[r])
            self.bucket.append(dict(zip(keys, buckets.tolist())))

    def _deals(self, used: set[int], rounds: range) -> list[tuple[tuple[int, ...], ...]]:
        """Every way ``rounds`` can deal their board cards (a sorted tuple per round)
        avoiding the cards in ``used``."""
        d = self.game.definition
        out: list[tuple[tuple[int, ...], ...]] = [()]
        for q in rounds:
            nxt = []
            for dealt in out:
                taken = used | {c for part in dealt for c in part}
                free = [c for c in range(d.num_cards) if c not in taken]
                for part in itertools.combinations(free, d.num_board_cards[q]):
                    nxt.append((*dealt, tuple(part)))
            out = nxt
        return out


def _iso_key(game: PokerGame, hole: tuple[int, ...], boards: Sequence[tuple[int, ...]]) -> Hashable:
    """The smallest renaming of the suits of (hole, board by round): one key per
    suit-isomorphic class."""
    ns = game.definition.num_suits
    best = None
    for perm in itertools.permutations(range(ns)):

        def rename(cards: tuple[int, ...], perm: tuple[int, ...] = perm) -> tuple[int, ...]:
            return tuple(sorted((c // ns) * ns + perm[c % ns] for c in cards))

        key = (rename(hole), tuple(rename(part) for part in boards))
        if best is None or key < best:
            best = key
    return best


def card_key(
    game: PokerGame, spec: AbstractionSpec, enumerated: _Enumerated | None = None
) -> Callable[[tuple[int, ...], list[tuple[int, ...]], int], Hashable]:
    """A function from (hole, board by round, round) to the cards' part of an abstract
    information set's key."""

    def key(hole: tuple[int, ...], boards: list[tuple[int, ...]], r: int) -> Hashable:
        hole = tuple(sorted(hole))
        boards = [tuple(sorted(part)) for part in boards]
        if spec.kind == "identity":
            return (hole, tuple(boards))
        if spec.kind == "iso":
            return _iso_key(game, hole, boards)
        assert enumerated is not None
        rounds = range(r + 1) if spec.perfect_recall else (r,)
        return tuple(enumerated.bucket[q][(hole, tuple(boards[: q + 1]))] for q in rounds)

    return key


@dataclass(frozen=True, eq=False)
class AbstractTree:
    """A game's compiled tree under a card abstraction.

    Attributes:
        tree: the real tree with abstract information sets (what the solvers run on).
        real: the real tree.
        spec: the abstraction.
        to_abstract: each real information set's abstract set.
    """

    tree: GameTree
    real: GameTree
    spec: AbstractionSpec
    to_abstract: np.ndarray

    @property
    def num_infosets(self) -> int:
        """Abstract information sets."""
        return self.tree.num_infosets

    def expand(self, probs: np.ndarray) -> np.ndarray:
        """A policy over the abstract sets as a policy of the real game (row by row)."""
        return np.asarray(probs)[self.to_abstract]

    def real_policy(self, policy: Any) -> Any:
        """An abstract :class:`~nashzoo.tree.TabularPolicy` as the real game's (its
        metadata names the abstraction)."""
        from nashzoo.tree.policy import TabularPolicy

        meta = {**policy.metadata, "abstraction": str(self.spec)}
        return TabularPolicy(self.real, self.expand(policy.probs), metadata=meta)

    def exploitability(self, probs: np.ndarray) -> float:
        """Exact exploitability in the real game of a policy over the abstract sets."""
        from nashzoo.tree.best_response import nash_conv_array

        real = self.real.normalize_rows(self.expand(probs))
        return float(nash_conv_array(self.real, real)) / self.real.num_players


def abstract_tree(game: Any, abstraction: str | AbstractionSpec) -> AbstractTree:
    """``game`` compiled, its information sets merged by ``abstraction``.

    Args:
        game: a poker-engine game small enough to compile, or the hand-written Leduc
            Hold'em (``nashzoo/leduc_holdem-v0``).
        abstraction: its text (:mod:`nashzoo.abstraction.spec`) or parsed form.

    Raises:
        InvalidParameterError: not such a game, an abstraction that does not parse or
            does not fit the game's rounds.
        GameTooLargeError: the game does not compile.
    """
    twin, read = _engine_twin(game)
    rounds = twin.definition.num_rounds
    spec = (
        abstraction
        if isinstance(abstraction, AbstractionSpec)
        else parse_abstraction(abstraction, rounds)
    )
    if spec.counts and len(spec.counts) != rounds:
        raise InvalidParameterError(
            f"{spec} gives {len(spec.counts)} bucket counts; {game.short_name} has {rounds} rounds."
        )
    real = compile_game(game)
    enumerated = _Enumerated(twin, spec) if spec.kind in ("ehs", "ehs2") else None
    key_of = card_key(twin, spec, enumerated)
    ids: dict[Any, int] = {}
    to_abstract = np.empty(real.num_infosets, np.int64)
    for i, text in enumerate(real.infoset_keys):
        player, hole, board, bets = read(text)
        r = bets.count("/")
        key = (player, key_of(hole, _per_round_board(twin, board, r), r), bets)
        to_abstract[i] = ids.setdefault(key, len(ids))
    first = np.zeros(len(ids), np.int64)
    seen = np.zeros(len(ids), bool)
    for i, a in enumerate(to_abstract):
        if not seen[a]:
            seen[a] = True
            first[a] = i
    keys = tuple(
        f"player={k[0]} cards={k[1]} bets={k[2]}" for k in sorted(ids, key=ids.__getitem__)
    )
    node_infoset = real.infoset.copy()
    decided = node_infoset >= 0
    node_infoset[decided] = to_abstract[node_infoset[decided]]
    tree = dataclasses.replace(
        real,
        infoset=node_infoset,
        infoset_keys=keys,
        infoset_index={k: i for i, k in enumerate(keys)},
        infoset_player=real.infoset_player[first],
        legal_mask=real.legal_mask[first],
        infoset_tensor=real.infoset_tensor[first],
        infoset_depth=real.infoset_depth[first],
        infoset_node=real.infoset_node[first],
        infoset_public_history=real.infoset_public_history[first],
        infoset_history_length=real.infoset_history_length[first],
    )
    return AbstractTree(tree, real, spec, to_abstract)
