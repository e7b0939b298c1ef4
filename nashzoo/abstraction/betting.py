"""The betting tree of a limit poker game: every sequence of bets, without the cards.

In limit poker the bets a player may make never depend on the cards, so the public
sequences of actions form one tree whatever is dealt. A card abstraction's information
set is a node of this tree (a decision) with the acting player's card bucket; a solver
that samples the deals (:mod:`nashzoo.agents.cfr.abstract`) walks this tree, and an
abstraction agent finds its node by replaying the actions of its information state.

Nodes are numbered breadth first from the root (player ``first_player[0]`` to act after
the blinds). A decision node lists its children in action order; a call that closes a
round leads to the next round's first decision (the board cards are dealt in between,
off the tree); a fold, and the call that closes the last round, end the hand.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame
from nashzoo.tree.jit import ReadOnlyTables

__all__ = ["BettingTree", "betting_tree", "FOLDED", "SHOWDOWN"]

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
            if self.player[node] < 0 or not self.legal_mask[node, int(a)]:
                raise InvalidParameterError(
                    f"Betting {list(flat)} is not a sequence of {self.game.short_name}: action "
                    f"{a} is not legal at node {node}."
                )
            first = int(self.first_child[node])
            children = self.action[first : first + int(self.num_children[node])]
            node = first + int(np.flatnonzero(children == a)[0])
        return node


def betting_tree(game: PokerGame) -> BettingTree:
    """The betting tree of ``game``, a heads-up limit game of the poker engine (the last
    few are cached: shared, read-only).

    Raises:
        InvalidParameterError: not such a game, or one where a player can go all-in
            before the last round (the tree plays every round's betting).
    """
    if not isinstance(game, PokerGame) or not game.limit or game.num_players != 2:
        raise InvalidParameterError(
            f"A betting tree needs a heads-up limit game of the poker engine (PokerGame), "
            f"received {type(game).__name__} ({game})."
        )
    d = game.definition
    if d.num_rounds > 1 and min(d.stacks) < d.limit_most:
        raise InvalidParameterError(
            f"{game}: a player can go all-in before the last round (stacks {list(d.stacks)}, "
            f"bets up to {d.limit_most}); the betting tree plays every round's betting."
        )
    return _betting_tree(game)


@functools.lru_cache(maxsize=8)
def _betting_tree(game: PokerGame) -> BettingTree:
    d = game.definition
    num_actions = game.num_distinct_actions
    player: list[int] = []
    rnd: list[int] = []
    action: list[int] = []
    parent: list[int] = []
    contrib: list[tuple[int, int]] = []
    folder: list[int] = []
    children: list[list[int]] = []
    legal: list[list[int]] = []

    def add(p: int, r: int, a: int, up: int, c: tuple[int, int], f: int) -> int:
        player.append(p)
        rnd.append(r)
        action.append(a)
        parent.append(up)
        contrib.append(c)
        folder.append(f)
        children.append([])
        legal.append([])
        return len(player) - 1

    # (node, round, raises, acted) of decisions still to expand, depth first
    root = add(d.first_player[0], 0, -1, -1, (d.blinds[0], d.blinds[1]), -1)
    stack = [(root, 0, 0, 0)]
    while stack:
        node, r, raises, acted = stack.pop()
        p = player[node]
        c = contrib[node]
        top = max(c)
        moves = []
        if c[p] < top:
            moves.append(FOLD)
        moves.append(CALL)
        cap = d.stacks[p]
        if raises < d.max_raises[r] and cap > top:  # the engine's rule: the smallest size
            for k, size in enumerate(d.raise_sizes[r]):  # may go all-in when short
                if k == 0 or top + size <= cap:
                    moves.append(RAISE + k)
        legal[node] = moves
        later = []
        for a in moves:
            if a == FOLD:
                child = add(FOLDED, r, a, node, c, p)
            elif a == CALL:
                called = (top, c[1]) if p == 0 else (c[0], top)
                if acted >= 1 and r + 1 == d.num_rounds:
                    child = add(SHOWDOWN, r, a, node, called, -1)
                elif acted >= 1:  # the call closes the round
                    child = add(d.first_player[r + 1], r + 1, a, node, called, -1)
                    later.append((child, r + 1, 0, 0))
                else:
                    child = add(1 - p, r, a, node, called, -1)
                    later.append((child, r, raises, acted + 1))
            else:
                to = min(top + d.raise_sizes[r][a - RAISE], d.stacks[p])
                raised = (to, c[1]) if p == 0 else (c[0], to)
                child = add(1 - p, r, a, node, raised, -1)
                later.append((child, r, raises + 1, acted + 1))
            children[node].append(child)
        stack.extend(reversed(later))
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
    decisions = np.zeros(d.num_rounds, np.int64)
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
