"""Every player's view of every history, and the worlds behind each view, as arrays.

A search agent (information-set MCTS) reasons from one player's knowledge: at each node
of the game tree, player ``p`` knows its *view*, its perfect-recall information-state
string there (also where ``p`` is not to move), and does not know the *world*: the
others' private information. :class:`ViewTable` numbers both:

* ``node_view[p, n]``: the view id of player ``p`` at node ``n`` (-1 at terminal
  nodes and at nodes whose event ``p`` does not see, such as the deal of the opponent's
  card: the view is the children's). Views where ``p`` is to move are exactly ``p``'s
  information sets (``infoset_view``); the others are the places where ``p`` waits
  (after its own action, at chance events). ``view_tensor`` is ``p``'s
  information-state tensor there, the input of the search's networks.
* ``node_world[p, n]``: the id of what ``p`` does not know at ``n``: the values of the
  history entries that differ between the histories of ``p``'s view (in Kuhn poker and
  Leduc the opponent's card, in a matrix game the first mover's hidden action). One
  numbering serves every view of every player, so a network head of size
  ``num_worlds`` (masked by ``view_world_mask``) is a belief over them.
* ``infoset_nodes[infoset_node_start[i]:infoset_node_start[i + 1]]``: the histories of
  information set ``i`` (its worlds), and ``node_position`` each node's place among them.

Everything is computed from the tree and the rules' information-state strings; nothing
here peeks at a state a player could not know about, it only names the alternatives.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from nashzoo.games.base import TERMINAL, State
from nashzoo.tree.compile import GameTree
from nashzoo.tree.jit import ReadOnlyTables

__all__ = ["ViewTable", "views_of"]


@dataclass(frozen=True, eq=False)
class ViewTable(ReadOnlyTables):
    """Per-player views and worlds of a compiled game (read-only arrays; see the module
    docstring).

    Attributes:
        tree: the compiled game.
        view_keys: the information-state string of each view.
        view_player: whose view (player 0's views first).
        view_tensor: ``(num_views, tensor_size)`` information-state tensors.
        view_infoset: the information set of the view when its player is to move there,
            else -1; ``infoset_view`` is the inverse map.
        view_world_mask: ``(num_views, num_worlds)`` the world ids possible in each view.
        node_view, node_world: ``(num_players, num_nodes)``, -1 at terminal nodes and
            at nodes whose event the player does not see.
        world_keys: the tuple of hidden history entries each world id stands for (one
            numbering for all players).
        infoset_node_start, infoset_nodes, node_position: the histories of each
            information set (CSR layout) and each decision node's index among them (-1
            at other nodes).
        chance_reach: product of the chance probabilities on the path to each node.
        action_slot: ``(num_infosets, num_actions)`` the index of each legal action
            among the set's children (-1 for illegal actions).
    """

    tree: GameTree
    view_keys: tuple[str, ...]
    view_player: np.ndarray
    view_tensor: np.ndarray
    view_infoset: np.ndarray
    infoset_view: np.ndarray
    view_world_mask: np.ndarray
    node_view: np.ndarray
    node_world: np.ndarray
    world_keys: tuple[tuple[int, ...], ...]
    infoset_node_start: np.ndarray
    infoset_nodes: np.ndarray
    node_position: np.ndarray
    chance_reach: np.ndarray
    action_slot: np.ndarray

    @property
    def num_views(self) -> int:
        return len(self.view_keys)

    @property
    def num_worlds(self) -> int:
        """Size of the world-id space."""
        return int(self.view_world_mask.shape[1])

    @property
    def max_worlds_per_infoset(self) -> int:
        """The most histories any information set has."""
        return int(np.diff(self.infoset_node_start).max(initial=1))

    def worlds_of(self, infoset: int) -> np.ndarray:
        """The node ids of information set ``infoset``'s histories."""
        return self.infoset_nodes[
            self.infoset_node_start[infoset] : self.infoset_node_start[infoset + 1]
        ]


def _unobserved(tree: GameTree, strings: list[str], n: int) -> bool:
    """Whether the player whose ``strings`` these are sees nothing of what happens at
    ``n`` (a card dealt to another player, a hidden move): every child is a non-terminal
    node with the same information-state string. Such a node is not a place the player
    waits at; its view is its children's."""
    fc, nc = int(tree.first_child[n]), int(tree.num_children[n])
    return all(tree.player[c] != TERMINAL and strings[c] == strings[n] for c in range(fc, fc + nc))


def views_of(tree: GameTree) -> ViewTable:
    """The :class:`ViewTable` of ``tree`` (cached per tree)."""
    return _views_cached(tree)


@functools.lru_cache(maxsize=16)
def _views_cached(tree: GameTree) -> ViewTable:
    game = tree.game
    n_players = game.num_players
    n_nodes = tree.num_nodes
    histories: list[tuple[int, ...]] = [()] * n_nodes
    strings: list[list[str]] = [[""] * n_nodes for _ in range(n_players)]
    tensors: dict[tuple[int, str], np.ndarray] = {}

    # One depth-first walk of the rules, following the tree's child order.
    stack: list[tuple[int, State]] = [(0, game.new_initial_state())]
    while stack:
        n, state = stack.pop()
        if tree.player[n] == TERMINAL:
            continue
        for p in range(n_players):
            key = state.information_state_string_unchecked(p)
            strings[p][n] = key
            if (p, key) not in tensors:
                tensors[(p, key)] = state.information_state_tensor(p)
        fc, nc = int(tree.first_child[n]), int(tree.num_children[n])
        for c in range(fc, fc + nc):
            child = state.clone()
            child.apply_unchecked(int(tree.action[c]))
            histories[c] = histories[n] + (int(tree.action[c]),)
            stack.append((c, child))

    view_id: dict[tuple[int, str], int] = {}
    view_keys: list[str] = []
    view_player: list[int] = []
    node_view = np.full((n_players, n_nodes), -1, dtype=np.int32)
    members: list[list[int]] = []
    for p in range(n_players):
        for n in range(n_nodes):
            if tree.player[n] == TERMINAL or _unobserved(tree, strings[p], n):
                continue
            key = strings[p][n]
            v = view_id.get((p, key))
            if v is None:
                v = view_id[(p, key)] = len(view_keys)
                view_keys.append(key)
                view_player.append(p)
                members.append([])
            node_view[p, n] = v
            members[v].append(n)

    # A world is the tuple of history entries that differ among the view's histories.
    node_world_key: list[dict[int, tuple[int, ...]]] = [{} for _ in range(n_players)]
    for v, nodes in enumerate(members):
        p = view_player[v]
        length = max(len(histories[n]) for n in nodes)
        padded = [histories[n] + (-1,) * (length - len(histories[n])) for n in nodes]
        hidden = [i for i in range(length) if len({h[i] for h in padded}) > 1]
        for n, h in zip(nodes, padded):
            node_world_key[p][n] = tuple(h[i] for i in hidden)
    world_keys = tuple(sorted({k for keys in node_world_key for k in keys.values()}))
    index = {k: i for i, k in enumerate(world_keys)}
    node_world = np.full((n_players, n_nodes), -1, dtype=np.int32)
    mask = np.zeros((len(view_keys), max(1, len(world_keys))), dtype=bool)
    for p in range(n_players):
        for n, hidden_key in node_world_key[p].items():
            w = index[hidden_key]
            node_world[p, n] = w
            mask[node_view[p, n], w] = True

    view_infoset = np.full(len(view_keys), -1, dtype=np.int32)
    infoset_view = np.full(tree.num_infosets, -1, dtype=np.int32)
    for i, key in enumerate(tree.infoset_keys):
        v = view_id[(int(tree.infoset_player[i]), key)]
        view_infoset[v] = i
        infoset_view[i] = v

    decision = np.flatnonzero(tree.infoset >= 0)
    order = decision[np.argsort(tree.infoset[decision], kind="stable")]
    counts = np.bincount(tree.infoset[decision], minlength=tree.num_infosets)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    position = np.full(n_nodes, -1, dtype=np.int32)
    for i in range(tree.num_infosets):
        position[order[start[i] : start[i + 1]]] = np.arange(counts[i], dtype=np.int32)

    chance_reach = np.ones(n_nodes)
    for n in range(1, n_nodes):  # parents precede children
        chance_reach[n] = chance_reach[tree.parent[n]] * tree.chance_prob[n]

    action_slot = np.full(tree.legal_mask.shape, -1, dtype=np.int32)
    for i in range(tree.num_infosets):
        legal = np.flatnonzero(tree.legal_mask[i])
        action_slot[i, legal] = np.arange(legal.size, dtype=np.int32)

    tensor_size = game.information_state_tensor_size
    view_tensor = (
        np.stack([tensors[(view_player[v], k)] for v, k in enumerate(view_keys)])
        if view_keys
        else np.zeros((0, tensor_size), np.float32)
    )
    arrays = dict(
        view_player=np.asarray(view_player, dtype=np.int8),
        view_tensor=view_tensor,
        view_infoset=view_infoset,
        infoset_view=infoset_view,
        view_world_mask=mask,
        node_view=node_view,
        node_world=node_world,
        infoset_node_start=start,
        infoset_nodes=order.astype(np.int32),
        node_position=position,
        chance_reach=chance_reach,
        action_slot=action_slot,
    )
    return ViewTable(tree=tree, view_keys=tuple(view_keys), world_keys=world_keys, **arrays)
