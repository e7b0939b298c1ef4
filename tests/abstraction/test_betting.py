"""The betting tree of a limit poker game against the engine's own rules."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN, betting_tree
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.games.poker import presets


def _path(tree, node):
    actions = []
    while tree.parent[node] >= 0:
        actions.append(int(tree.action[node]))
        node = int(tree.parent[node])
    return actions[::-1]


@pytest.mark.parametrize(
    "game, decisions",
    [
        (presets.kuhn(), [4]),
        (presets.leduc(), [6, 30]),
        # heads-up Limit Hold'em: 6,378 betting sequences at which a player acts
        (presets.limit_holdem(), [8, 70, 630, 5670]),
    ],
)
def test_every_node_is_the_engines(game, decisions):
    """Replaying each node's actions on the engine (cards dealt in order) reaches a state
    with the same player to act and legal actions, or the same end: a fold costs the
    folder its chips, a showdown is played for equal chips."""
    tree = betting_tree(game)
    assert tree.decisions.tolist() == decisions
    nodes = (
        range(tree.num_nodes)
        if tree.num_nodes < 2000
        else np.random.default_rng(0).choice(tree.num_nodes, 2000, replace=False)
    )
    for node in nodes:
        state = game.new_initial_state()
        deck = iter(range(game.num_cards))
        for a in _path(tree, int(node)):
            while state.current_player() == CHANCE:
                state.apply_action(next(deck))
            state.apply_action(a)
        while state.current_player() == CHANCE:
            state.apply_action(next(deck))
        p = int(tree.player[node])
        if p >= 0:
            assert state.current_player() == p
            assert list(state.legal_actions()) == np.flatnonzero(tree.legal_mask[node]).tolist()
        else:
            assert state.current_player() == TERMINAL
            returns = state.returns()
            if p == FOLDED:
                f = int(tree.folder[node])
                assert returns[f] == -tree.contrib[node, f]
            else:
                assert p == SHOWDOWN and tree.contrib[node, 0] == tree.contrib[node, 1]
                assert abs(returns[0]) in (0, tree.contrib[node, 0])


def test_node_of_follows_actions_and_refuses_illegal_ones():
    game = presets.limit_holdem()
    tree = betting_tree(game)
    node = tree.node_of([[2, 1], [1]])  # preflop raise, call; on the flop a check
    assert tree.round[node] == 1 and tree.player[node] == 1
    assert node == tree.node_of([2, 1, 1])
    with pytest.raises(InvalidParameterError, match="not legal"):
        tree.node_of([0, 0])  # a fold ends the hand
    with pytest.raises(InvalidParameterError, match="heads-up limit game of the poker engine"):
        betting_tree(object())
