"""The betting tree of a heads-up poker game, limit or no-limit, against the engine's own
rules."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN, betting_tree
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.games.poker import presets
from nashzoo.games.poker.game import PokerGame


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
        # heads-up no-limit Hold'em with half-pot, pot and all-in raises (ACPC's stacks of
        # 200 big blinds): 117,552 (counted on one deal; that no deal changes the count is
        # the next test's)
        (presets.no_limit_holdem(), [368, 3896, 22336, 90952]),
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
    with pytest.raises(InvalidParameterError, match="heads-up game of the poker engine"):
        betting_tree(object())
    with pytest.raises(InvalidParameterError, match="heads-up game of the poker engine"):
        betting_tree(presets.limit_holdem_table(3))


def test_no_limit_betting_does_not_depend_on_the_cards():
    """No-limit Leduc (antes of 1, stacks of 12, half-pot, pot and all-in raises): the
    betting sequences of the whole game, every deal walked, are the tree's nodes."""
    d = dataclasses.replace(
        presets.leduc().definition, betting="nolimit", stacks=(12, 12), raise_sizes=(),
        max_raises=(),
    )  # fmt: skip
    game = PokerGame(d, raises=(0.5, 1.0), name="no_limit_leduc")
    seen = set()

    def walk(state, bets):
        seen.add(tuple(bets))
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            walk(child, bets if state.current_player() == CHANCE else [*bets, a])

    walk(game.new_initial_state(), [])
    tree = betting_tree(game)
    assert tree.num_nodes == len(seen) == 441
    assert seen == {tuple(_path(tree, n)) for n in range(tree.num_nodes)}


@pytest.mark.parametrize("game", [presets.limit_holdem(), presets.no_limit_holdem()])
def test_information_state_bets_name_their_node(game):
    """At every decision of random hands the bets of the engine's string (no-limit raises
    by their raise-to totals: ``"r300c/r600"``) lead to the node of the actions played."""
    tree = betting_tree(game)
    rng = np.random.default_rng(0)
    for _ in range(200):
        state = game.new_initial_state()
        actions = []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(int(rng.choice(state.legal_actions())))
                continue
            bets = state.information_state_string(state.current_player()).split("bets=")[1]
            node = tree.node_of(actions)
            assert tree.node_of_bets(bets) == node
            a = int(rng.choice(state.legal_actions()))
            state.apply_action(a)
            actions.append(a)
    with pytest.raises(InvalidParameterError, match="'c' is not legal"):
        tree.node_of_bets("fc")  # nothing after a fold
    if not game.limit:  # a raise to a total no action makes
        with pytest.raises(InvalidParameterError, match="'r7' is not legal"):
            tree.node_of_bets("r7")
