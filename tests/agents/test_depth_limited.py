"""Depth-limited re-solving on the real cards (issue 90: "on earlier streets, solve
depth-limited with the blueprint's continuation values at the leaves"): the subgame of
the round before the last, cut where the last board card is dealt, each cut valued as a
showdown at the stakes a values network gives (:meth:`Endgame.at`'s ``leaves``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN, betting_tree
from nashzoo.agents.cfr import make_solver
from nashzoo.agents.cfr.endgame import (
    _DEAL,
    Endgame,
    ResolvingAbstractionAgent,
    carried,
    resolve_endgame,
    tabular_hand_probabilities,
)
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.game import PokerGame
from nashzoo.games.poker.presets import leduc, limit_holdem, two_board_round_limit
from nashzoo.tree import compile_game

from .test_endgame import holdem_policy  # noqa: F401  (the same stand-in blueprint)

DEAL = _DEAL  # an Endgame node where chance deals


def _round_two_subgames(game, iterations=10):
    """A CFR+ blueprint's hand probabilities and the betting tree, with the second
    round's first decision after each way the first round ends in a call, on every
    board card."""
    policy = make_solver("cfr+", compile_game(game)).iterate(iterations).average_policy()
    bets = betting_tree(game)
    starts = []
    for text in ("cc/", "crc/", "rc/", "rrc/", "crrc/"):
        node = bets.node_of_bets(text)
        for card in range(game.definition.num_cards):
            starts.append((node, [card]))
    return tabular_hand_probabilities(policy), bets, starts


def _brute_best_response(eg, player, ranges, blueprint, stakes):
    """``player``'s counterfactual best-response values in ``eg`` by a walk of its nodes
    with an explicit matrix of pairs of hands at every end: what the kernels compute
    with sorted strengths and card-removal sums. At a cut (an end whose betting node is
    a decision), player 0's payoff is ``stakes(node)``'s first with the better hand and
    its second with the worse; player 1's the negative."""
    other = 1 - player
    hands = eg.hands
    apart = ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    folder = eg.tree.folder[eg.nodes]
    action = eg.tree.action[eg.nodes]
    size = eg.nodes.size
    reach = np.zeros((size, eg.num_hands))
    reach[0] = ranges[other]
    for n in range(size):  # parents first
        fc, nc = eg.first_child[n], eg.num_children[n]
        for c in range(fc, fc + max(nc, 0)):
            if eg.player[n] == DEAL:
                reach[c] = reach[n] * (1 - eg.blocked[eg.deal[c]])
            elif eg.player[n] == other:
                reach[c] = reach[n] * blueprint[n][:, action[c]]
            else:
                reach[c] = reach[n]
    value = np.zeros((size, eg.num_hands))
    for n in range(size - 1, -1, -1):
        fc, nc = eg.first_child[n], eg.num_children[n]
        if nc <= 0:
            contrib = eg.tree.contrib[eg.nodes[n]]
            if eg.tree.player[eg.nodes[n]] >= 0:  # a cut
                win, lose = stakes(int(eg.nodes[n]))
                better, worse = (win, lose) if player == 0 else (-lose, -win)
                strength = eg.strength[eg.board_of[n]]
                diff = np.sign(strength[:, None] - strength[None, :])
                payoff = np.where(diff > 0, better, np.where(diff < 0, worse, 0.0))
                payoff = payoff * (strength[:, None] >= 0) * (strength[None, :] >= 0)
            elif eg.player[n] == FOLDED:
                gain = -contrib[player] if folder[n] == player else contrib[other]
                payoff = np.full(apart.shape, float(gain))
            else:
                strength = eg.strength[eg.board_of[n]]
                diff = np.sign(strength[:, None] - strength[None, :])
                payoff = np.where(
                    diff > 0, contrib[other], np.where(diff < 0, -contrib[player], 0.0)
                )
                payoff = payoff * (strength[:, None] >= 0) * (strength[None, :] >= 0)
            value[n] = eg.node_chance[n] * ((apart * payoff) @ reach[n])
        else:
            kids = value[fc : fc + nc]
            if eg.player[n] == DEAL:
                missed = 1 - eg.blocked[eg.deal[fc : fc + nc]]
                value[n] = (kids * missed).sum(axis=0)
            elif eg.player[n] == player:
                value[n] = kids.max(axis=0)
            else:
                value[n] = kids.sum(axis=0)
    return value[0]


def test_a_depth_limited_subgame_equals_the_whole_one_where_the_last_round_has_no_bets():
    """On the three-round game with no raise allowed in its last round, that round is
    checked through: its value to player 0 is the check-down's, the other's chips
    holding the better hand and its own lost with the worse. A depth-limited subgame
    whose leaves give exactly those stakes is then the whole subgame less the checks:
    the same best-response values for every hand of both players, and the same CFR+
    re-solve (max-margin) at every second-round decision, to rounding."""
    base = two_board_round_limit()
    game = PokerGame(replace(base.definition, max_raises=(2, 2, 0)), name="no_last_bets")
    hands, bets, starts = _round_two_subgames(game)

    def check_down(n):
        return float(bets.contrib[n, 1]), -float(bets.contrib[n, 0])

    compared = 0
    for node, board in starts[::4]:
        whole = Endgame.at(bets, board, node)
        cut = Endgame.at(bets, board, node, leaves=check_down)
        assert cut.depth_limited and not whole.depth_limited
        assert cut.nodes.size == Endgame.count_nodes(bets, node, 1, depth_limited=True)
        # each card of a deal: the last round's first decision, a check, two checks in
        # the whole subgame; one leaf in the cut one
        assert whole.nodes.size - cut.nodes.size == 2 * cut.num_children[cut.player == DEAL].sum()
        ranges = whole.ranges(hands)
        np.testing.assert_array_equal(ranges, cut.ranges(hands))
        plans = (whole.blueprint_at(hands), cut.blueprint_at(hands))
        for player in (0, 1):
            np.testing.assert_allclose(
                cut.best_response_values(player, ranges, plans[1]),
                whole.best_response_values(player, ranges, plans[0]),
                rtol=1e-12,
                atol=1e-15,
            )
            us = 1 - player
            a, _ = resolve_endgame(whole, us, ranges, plans[0], iterations=100)
            b, _ = resolve_endgame(cut, us, ranges, plans[1], iterations=100)
            for j in np.flatnonzero(cut.player == us):
                row = whole.local(int(cut.nodes[j]), list(cut.board))
                np.testing.assert_allclose(b[j], a[row], atol=1e-12)
                compared += 1
    assert compared > 20


def test_leaf_stakes_are_valued_as_the_showdown_formula_says_for_both_players():
    """Stakes that are not a check-down (player 0 wins 3 + 1.5 x its stake with the better
    hand and loses half its stake with the worse: a blueprint that bets its winners):
    the kernels' best-response values equal a brute-force walk over pairs of hands, for
    both players, with player 1's stakes the negatives the other way round."""
    hands, bets, starts = _round_two_subgames(two_board_round_limit())

    def stakes(n):
        s = float(bets.contrib[n, 0])
        return 3.0 + 1.5 * s, -0.5 * s

    rng = np.random.default_rng(0)
    for node, board in starts[1::7]:
        cut = Endgame.at(bets, board, node, leaves=stakes)
        leaf = np.flatnonzero((cut.player == SHOWDOWN) & (cut.num_children == 0))
        leaf = [j for j in leaf if cut.tree.player[cut.nodes[j]] >= 0]  # the cut ones
        assert leaf
        for j in leaf:
            s = float(bets.contrib[cut.nodes[j], 0])
            np.testing.assert_allclose(cut.contrib[j], [0.5 * s, 3.0 + 1.5 * s])
        ranges = rng.random((2, cut.num_hands))
        plan = rng.random((cut.nodes.size, cut.num_hands, bets.game.num_distinct_actions))
        plan *= bets.legal_mask[cut.nodes][:, None, :] * (cut.player >= 0)[:, None, None]
        plan /= np.maximum(plan.sum(axis=2, keepdims=True), 1e-300)
        for player in (0, 1):
            np.testing.assert_allclose(
                cut.best_response_values(player, ranges, plan),
                _brute_best_response(cut, player, ranges, plan, stakes),
                rtol=1e-10,
                atol=1e-14,
            )


def test_depth_limited_subgames_are_refused_where_cards_would_be_left_to_come():
    """A cut stands for the rest of the hand on the whole board: it is refused from any
    round but the one before the last (Leduc's last round, which deals nothing more;
    Limit Hold'em's flop, with the turn and river to come)."""
    leduc_bets = betting_tree(leduc())
    with pytest.raises(InvalidParameterError, match="depth-limited subgame stops"):
        Endgame.at(leduc_bets, [3], leduc_bets.node_of_bets("cc/"), leaves=lambda n: (1.0, -1.0))
    first = Endgame.at(leduc_bets, [], leduc_bets.node_of_bets(""), leaves=lambda n: (1.0, -1.0))
    assert first.depth_limited and (first.player == DEAL).sum() > 0
    holdem = betting_tree(limit_holdem())
    with pytest.raises(InvalidParameterError, match="received a decision of round 1"):
        Endgame.at(holdem, [51, 46, 30], holdem.node_of_bets("rc/"), leaves=lambda n: (1, -1))
    # the turn's: its betting, with a deal of 48 leaves where it ends in a call
    node = holdem.node_of_bets("rc/cc/")

    def turn_nodes(n):
        if holdem.player[n] < 0 or holdem.round[n] != 2:
            return 1  # an end, or the river's first decision (a deal in the subgame)
        first = int(holdem.first_child[n])
        return 1 + sum(turn_nodes(c) for c in range(first, first + holdem.num_children[n]))

    calls = sum(
        1 for n in range(holdem.num_nodes) if holdem.round[n] == 3 and holdem.parent[n] >= 0
        and holdem.round[holdem.parent[n]] == 2 and _below(holdem, n, node)
    )  # fmt: skip
    size = Endgame.count_nodes(holdem, node, 4, depth_limited=True)
    assert size == turn_nodes(node) + 48 * calls < Endgame.count_nodes(holdem, node, 4) == 11691
    cut = Endgame.at(holdem, [51, 46, 30, 12], node, leaves=lambda n: (1.0, -1.0))
    assert cut.nodes.size == size and (cut.player == DEAL).sum() == calls


def _below(tree, n, top):
    """Whether betting node ``n`` lies below ``top``."""
    while n >= 0:
        if n == top:
            return True
        n = int(tree.parent[n])
    return False


def test_the_agent_re_solves_the_turn_depth_limited_with_a_values_file(holdem_policy, tmp_path):  # noqa: F811
    """``resolve:turn:BUDGET+bp.npz+bp.values.pt``: the turn's subgame is cut at the river
    cards (a few hundred nodes), each cut valued by the network's stakes at the river's
    first decision, and solved exactly over the river cards (no sampling); the river is
    solved again from its own start, its ranges following the turn's solve and, at the
    river's first decision (a leaf of the turn's subgame, not a decision of it), the
    blueprint. Values that do not fit the settings are refused."""
    torch = pytest.importorskip("torch")
    from nashzoo.agents.ismcts.blueprint_values import (
        BlueprintValuesConfig,
        train_blueprint_values,
    )

    torch.set_num_threads(1)
    game = holdem_policy.game
    path = holdem_policy.save(tmp_path / "lhe.npz")
    blueprint = build_agent(str(path), game)
    values = train_blueprint_values(
        game, blueprint, BlueprintValuesConfig(hands=300, epochs=2, seed=0)
    )
    values_path = values.save(tmp_path / "lhe.values.pt")
    agent = build_agent(f"resolve:turn:300+{path}+{values_path}", game)
    assert isinstance(agent, ResolvingAbstractionAgent)
    assert agent.name == "resolve:turn:300+lhe+lhe.values" and agent.values is not None
    tree = agent.policy.abstraction.betting
    mask = np.array([0, 1, 1], np.int8)
    obs = {"observation": None, "action_mask": mask}
    agent.action_probabilities(
        obs, {"info_state": "player=0 hole=KhKd board=As9h3c/Qd bets=rc/cc/"}
    )
    assert agent.resolves == 1 and agent.resolve_iterations == [300] and agent.unsafe == 0
    ((turn, strategy),) = agent._solved.values()
    assert turn.depth_limited and turn.nodes.size < 600 and turn.num_hands == 1128
    river_root = tree.node_of_bets("rc/cc/cc/")
    win, lose = values.outcome_values(tree.contrib[river_root], 3, int(tree.player[river_root]))
    board = [51, 30, 4, 41, 12]
    j = turn.local(river_root, board)
    assert turn.player[j] == SHOWDOWN
    np.testing.assert_allclose(turn.contrib[j], [-lose, win])
    assert agent._sampling(turn, ("k",))["sample_deals"] is False
    river_text = "player=0 hole=KhKd board=As9h3c/Qd/5c bets=rc/cc/cc/"
    agent.action_probabilities(obs, {"info_state": river_text})
    assert agent.resolves == 2 and agent.resolve_rounds == [2, 3]
    river = Endgame.at(tree, board, river_root)
    hands = carried(turn, strategy, agent._hands())
    at_root = river.blueprint_at(hands)[0]
    plain = river.blueprint_at(agent._hands())[0]
    kings = river.hand_index([46, 45])
    np.testing.assert_allclose(at_root[kings], plain[kings])  # the blueprint's, not zeros
    # refusals
    with pytest.raises(InvalidParameterError, match="need streets=2"):
        ResolvingAbstractionAgent(agent.policy, game, values=values)
    with pytest.raises(InvalidParameterError, match="continual=True"):
        ResolvingAbstractionAgent(agent.policy, game, streets=2, continual=False, values=values)
    with pytest.raises(InvalidParameterError, match="a BlueprintValues"):
        ResolvingAbstractionAgent(agent.policy, game, streets=2, values=3)
    with pytest.raises(InvalidParameterError, match="serves a card abstraction's blueprint"):
        build_agent(f"resolve:turn:20+poker-rules+{values_path}", game)
    with pytest.raises(InvalidParameterError, match="spent is the chips"):
        values.outcome_values([1, 2, 3], 3, 0)
    with pytest.raises(InvalidParameterError, match="to_act"):
        values.outcome_values([10, 10], 3, 2)
