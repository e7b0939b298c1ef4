"""The betting tree of a heads-up poker game: every sequence of bets, without the cards.

The bets a player may make never depend on the cards (in limit poker, and in no-limit
poker whose raises are a few pot fractions and all-in), so the public sequences of
actions form one tree whatever is dealt. A card abstraction's information
set is a node of this tree (a decision) with the acting player's card bucket; a solver
that samples the deals (:mod:`nashzoo.agents.cfr.abstract`) walks this tree, and an
abstraction agent finds its node by replaying the actions of its information state.

Nodes are numbered breadth first from the root (player ``first_player[0]`` to act after
the blinds). A decision node lists its children in action order; a call that closes a
round leads to the next round's first decision (the board cards are dealt in between,
off the tree); a fold, the call that closes the last round, and a call that leaves no
one able to bet (all-in) end the hand.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nashzoo.abstraction.actions import ActionAbstraction
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame, PokerState
from nashzoo.tree.jit import ReadOnlyTables

__all__ = ["BettingTree", "betting_tree", "betting_subtree", "deal_any", "FOLDED", "SHOWDOWN"]

FOLDED = -2
"""``BettingTree.player`` of a node where a player folded (``folder`` says who)."""
SHOWDOWN = -3
"""``BettingTree.player`` of a node where the last round's call leads to a showdown."""


@dataclass(frozen=True, eq=False)
class BettingTree(ReadOnlyTables):
    """The betting tree as arrays (read-only).

    Attributes:
        player: the player to act, or :data:`FOLDED` / :data:`SHOWDOWN` at the ends.
        round: the betting round of each node (of the ending action at the ends).
        first_child, num_children: a decision's children, contiguous, in action order.
        action: the action leading to each node (-1 at the root).
        parent: each node's parent (-1 at the root).
        contrib: ``(nodes, 2)`` chips each player has put in.
        folder: who folded, at :data:`FOLDED` nodes (-1 elsewhere).
        slot: each decision's number among its round's decisions (-1 elsewhere).
        decisions: how many decisions each round has.
        legal_mask: ``(nodes, actions)`` legal actions at each decision.
    """

    game: PokerGame
    player: np.ndarray
    round: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    action: np.ndarray
    parent: np.ndarray
    contrib: np.ndarray
    folder: np.ndarray
    slot: np.ndarray
    decisions: np.ndarray
    legal_mask: np.ndarray

    @property
    def num_nodes(self) -> int:
        """Nodes, ends included."""
        return int(self.player.size)

    def node_of(self, actions: list[list[int]] | list[int]) -> int:
        """The node reached by betting ``actions`` from the root (a flat list, or one list
        per round).

        Raises:
            InvalidParameterError: an action that is not legal where it is made.
        """
        flat: list[int] = []
        for item in actions:
            flat.extend(item if isinstance(item, list) else [int(item)])
        node = 0
        for a in flat:
            node = self.child(node, a, flat)
        return node

    def child(self, node: int, a: int, actions: list[int] | None = None) -> int:
        """The child of ``node`` by action ``a``, checked (``actions``: the sequence it is
        part of, for the message).

        Raises:
            InvalidParameterError: ``a`` is not legal at ``node``.
        """
        if (
            self.player[node] < 0
            or not 0 <= a < self.legal_mask.shape[1]
            or not self.legal_mask[node, a]
        ):
            raise InvalidParameterError(
                f"Betting {list(actions or [a])} is not a sequence of {self.game.short_name}: "
                f"action {a} is not legal at node {node}."
            )
        first = int(self.first_child[node])
        children = self.action[first : first + int(self.num_children[node])]
        return first + int(np.flatnonzero(children == a)[0])

    def node_of_bets(self, bets: str) -> int:
        """The node reached by the betting of an information-state string (``"cr/rc/"``;
        no-limit raises name their raise-to total, ``"r300c/r600"``).

        Raises:
            InvalidParameterError: a letter or a raise that is not legal where it is made.
        """
        node = 0
        for token in re.findall(r"[fc]|r\d*|[^/]", bets):
            p = int(self.player[node])
            first = int(self.first_child[node]) if p >= 0 else 0
            kids = range(first, first + int(self.num_children[node])) if p >= 0 else range(0)
            if token in ("f", "c"):
                found = [k for k in kids if self.action[k] == (FOLD if token == "f" else CALL)]
            elif token.startswith("r") and (self.game.limit or len(token) == 1):
                found = [k for k in kids if self.action[k] == RAISE]
            elif token.startswith("r"):  # no-limit: the raise to this total
                found = [k for k in kids if self.action[k] >= RAISE
                         and self.contrib[k, p] == int(token[1:])]  # fmt: skip
            else:
                found = []
            if not found:
                raise InvalidParameterError(
                    f"The bets {bets!r} are not a sequence of {self.game.short_name}: "
                    f"{token!r} is not legal at betting node {node}."
                )
            node = found[0]
        return node


def betting_tree(game: PokerGame, actions: ActionAbstraction | None = None) -> BettingTree:
    """The betting tree of ``game``, a heads-up game of the poker engine, limit or
    no-limit (whose raises are the game's pot fractions and all-in: an action
    abstraction), with a no-limit game's raises pruned round by round to those
    ``actions`` keeps (fold, call and all-in stay). The last few are cached: shared,
    read-only.

    Raises:
        InvalidParameterError: not such a game, or ``actions`` keeps a raise the game
            does not make, or has another count of rounds.
    """
    if not isinstance(game, PokerGame) or game.num_players != 2:
        raise InvalidParameterError(
            f"A betting tree needs a heads-up game of the poker engine (PokerGame), "
            f"received {type(game).__name__} ({game})."
        )
    if actions is not None and actions.game_for(game) != game:
        raise InvalidParameterError(
            f"The action abstraction {actions} keeps raises of {list(actions.fractions)} "
            f"pots; {game} makes {list(game.raises)}."
        )
    return _betting_tree(game, actions)


def deal_any(state: PokerState) -> None:
    """Deal the first cards left until a player is to act or the hand is over: the
    engine's betting does not depend on the cards."""
    while state.current_player() == CHANCE:
        state.apply_unchecked(state.legal_actions()[0])


@functools.lru_cache(maxsize=8)
def _betting_tree(game: PokerGame, actions: ActionAbstraction | None) -> BettingTree:
    """Every sequence of bets, found by playing the engine's own rules on one deal (so
    the tree follows whatever the rules allow: limit caps, no-limit sizes, all-ins that
    end the betting before the last round)."""
    first = game.new_initial_state()
    deal_any(first)

    def keep(state: PokerState, a: int) -> bool:  # the raises this round keeps (and all-in)
        return (actions is None or a < RAISE or a == game.all_in
                or actions.keeps(game.raises[a - RAISE], state.round))  # fmt: skip

    return _grow(first, keep)


def betting_subtree(state: PokerState, keep: Callable[[PokerState, int], bool]) -> BettingTree:
    """The betting tree below ``state`` (a decision of a heads-up game of the poker
    engine; its chips in are the root's), with the actions ``keep(state, action)``
    allows of those the rules allow: a subgame's tree from the real bets so far.

    Raises:
        InvalidParameterError: not a decision of such a game.
    """
    if not isinstance(state, PokerState) or state.game.num_players != 2 or state.is_terminal():
        raise InvalidParameterError(
            f"A betting subtree grows from a decision of a heads-up game of the poker engine, "
            f"received {type(state).__name__}."
        )
    first = state.clone()
    deal_any(first)
    return _grow(first, keep)


def _grow(first: PokerState, keep: Callable[[PokerState, int], bool]) -> BettingTree:
    """The tree of every sequence of bets from ``first`` that ``keep`` allows."""
    game = first.game
    num_actions = game.num_distinct_actions
    player: list[int] = []
    rnd: list[int] = []
    action: list[int] = []
    parent: list[int] = []
    contrib: list[tuple[int, ...]] = []
    folder: list[int] = []
    children: list[list[int]] = []
    legal: list[list[int]] = []

    def add(state: PokerState, r: int, a: int, up: int, f: int) -> int:
        if state.is_terminal():
            player.append(FOLDED if f >= 0 else SHOWDOWN)
        else:
            player.append(state.current_player())
            r = state.round
        rnd.append(r)
        action.append(a)
        parent.append(up)
        contrib.append(state.pot_contributions())
        folder.append(f)
        children.append([])
        legal.append([])
        return len(player) - 1

    stack = [(add(first, first.round, -1, -1, -1), first)]
    while stack:  # depth first; numbered breadth first below
        node, state = stack.pop()
        p, r = player[node], rnd[node]
        moves = [int(a) for a in state.legal_actions() if keep(state, int(a))]
        legal[node] = moves
        for a in moves:
            child = state.clone()
            child.apply_unchecked(a)
            deal_any(child)
            kid = add(child, r, a, node, p if a == FOLD else -1)
            children[node].append(kid)
            if not child.is_terminal():
                stack.append((kid, child))
    n = len(player)
    # renumber so that each decision's children are contiguous
    order: list[int] = [0]
    first_child = np.full(n, -1, np.int64)
    num_children = np.zeros(n, np.int64)
    new_id = {0: 0}
    k = 0
    while k < len(order):
        old = order[k]
        kids = children[old]
        if kids:
            first_child[k] = len(order)
            num_children[k] = len(kids)
            for kid in kids:
                new_id[kid] = len(order)
                order.append(kid)
        k += 1
    old_of = np.array(order, np.int64)
    players = np.array(player, np.int64)[old_of]
    rounds = np.array(rnd, np.int64)[old_of]
    mask = np.zeros((n, num_actions), np.int8)
    for new, old in enumerate(order):
        mask[new, legal[old]] = 1
    slot = np.full(n, -1, np.int64)
    decisions = np.zeros(game.definition.num_rounds, np.int64)
    for node in range(n):
        if players[node] >= 0:
            slot[node] = decisions[rounds[node]]
            decisions[rounds[node]] += 1
    tree = BettingTree(
        game=game,
        player=players,
        round=rounds,
        first_child=first_child,
        num_children=num_children,
        action=np.array(action, np.int64)[old_of],
        parent=np.array([new_id[parent[o]] if parent[o] >= 0 else -1 for o in order], np.int64),
        contrib=np.array(contrib, np.int64)[old_of],
        folder=np.array(folder, np.int64)[old_of],
        slot=slot,
        decisions=decisions,
        legal_mask=mask,
    )
    return tree
