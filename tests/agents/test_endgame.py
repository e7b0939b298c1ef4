"""Last-round re-solving on the real cards (:mod:`nashzoo.agents.cfr.endgame`): the
vectorised solver against the compiled re-solver (:mod:`nashzoo.agents.cfr.subgame`) on
games that compile, its terminal values against brute force over pairs of Hold'em hands,
and the agent that plays it on Limit Hold'em."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN, betting_tree
from nashzoo.abstraction.small import parse_info_state
from nashzoo.agents.cfr import make_solver
from nashzoo.agents.cfr.abstract import AbstractionSolver
from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
from nashzoo.agents.cfr.endgame import (
    UNSAFE,
    Endgame,
    ResolvingAbstractionAgent,
    carried,
    resolve_endgame,
    tabular_hand_probabilities,
)
from nashzoo.agents.cfr.subgame import GADGETS, public_subgames, resolve
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.presets import leduc, limit_holdem, no_limit_holdem, two_board_round_limit
from nashzoo.tree import compile_game

from ..abstraction.playing import check_plays
from ..abstraction.stand_in import use_stand_in_buckets


def _later_rounds(game, iterations):
    """The compiled tree, a CFR+ blueprint after ``iterations``, its hand probabilities,
    and the public subgames that start each later round, each with its :class:`Endgame`
    twin, by round."""
    tree = compile_game(game)
    policy = make_solver("cfr+", tree).iterate(iterations).average_policy()
    bets = betting_tree(game)
    pairs: dict[int, list] = {}
    for subgame in public_subgames(tree):
        _, _, board, text = parse_info_state(game, tree.infoset_keys[subgame.infosets[0]])
        node = bets.node_of_bets(text)
        twin = Endgame.at(bets, [c for part in board for c in part], node)
        pairs.setdefault(int(bets.round[node]), []).append((subgame, twin))
    return tree, policy, tabular_hand_probabilities(policy), pairs


def _deal_at(tree, node):
    """Both players' hole cards on the way to compiled ``node``."""
    actions = []
    while tree.parent[node] >= 0:
        actions.append(int(tree.action[node]))
        node = int(tree.parent[node])
    state = tree.game.new_initial_state()
    for a in reversed(actions):
        state.apply_action(a)
    return state.hole_cards(0), state.hole_cards(1)


@pytest.fixture(scope="module")
def leduc_rounds():
    return _later_rounds(leduc(), 10)


@pytest.fixture(scope="module")
def three_rounds():
    return _later_rounds(two_board_round_limit(), 10)


def _agreement(tree, policy, hands, pairs, gadget, iterations):
    """The largest difference between the compiled re-solve and the vectorised one, over
    ``pairs``' subgames, both players, every information set of the re-solving player
    (each a (node, board, hand) of the vectorised subgame)."""
    worst = 0.0
    for subgame, twin in pairs:
        ranges, blueprint = twin.ranges(hands), twin.blueprint_at(hands)
        for us in (0, 1):
            expected = resolve(policy.probs, subgame, us, iterations=iterations, gadget=gadget)
            found, done = resolve_endgame(twin, us, ranges, blueprint, iterations=iterations,
                                          gadget=gadget)  # fmt: skip
            assert done == iterations
            for i in subgame.infosets[tree.infoset_player[subgame.infosets] == us]:
                _, hole, board, text = parse_info_state(tree.game, tree.infoset_keys[i])
                node = twin.tree.node_of_bets(text)
                flat = [c for part in board for c in part]
                row = found[twin.local(node, flat), twin.hand_index(hole)]
                worst = max(worst, float(np.abs(row - expected[i]).max()))
    return worst


@pytest.mark.parametrize("gadget", GADGETS)
def test_the_vectorised_re_solve_is_the_compiled_one_on_leduc(leduc_rounds, gadget):
    """The same CFR+ on the same gadget game: each (node, hand) of the vectorised solver
    is an information set of the compiled one, and the re-solved strategies agree to
    rounding (Leduc's second round: 4 public subgames, both players)."""
    tree, policy, hands, pairs = leduc_rounds
    assert _agreement(tree, policy, hands, pairs[1][:4], gadget, 50) < 1e-9


@pytest.mark.parametrize("gadget", GADGETS)
def test_re_solving_from_an_earlier_round_deals_the_later_cards_as_the_compiled_tree(
    three_rounds, gadget
):
    """From the second round of a game with two board rounds, the subgame holds the
    third round once for each card chance can deal, each hand's own card masked out: the
    same CFR+ on the same gadget game as the compiled re-solver, whose subgame is that
    round's histories and all below them. Without a gadget, two iterations agree to
    rounding at every information set of both rounds. Past that (and with a gadget from
    the second iteration) the two part where regret matching meets an exact tie: the
    compiled tree's sums over histories leave a residue (measured: a regret of 8.7e-19
    where the hands' sums give 0, so one plays a pure action where the other mixes
    uniformly), and the gadget game has many solutions. What is unique agrees: after
    1,000 iterations both solves reach the same gadget objective within 0.1% of the
    largest blueprint value (measured: 1.2e-4 at most) (without a gadget, the
    opponent's best response with its range; the re-solve gadget's, its best choice
    between following and terminating summed over its hands; max-margin's, the
    smallest margin)."""
    tree, policy, hands, pairs = three_rounds
    # the first round closes 5 ways (c c, c r c, c r r c, r c, r r c), and 6 cards can
    # be the first board card
    assert len(pairs[1]) == 30
    twin = pairs[1][0][1]
    # a deal below each of the 4 ends of the second round that go on (c c, c r c, c r r
    # c, r c, r r c, less... all 5 go on), one copy of the third round per card left
    assert (twin.player == -4).sum() == 5 and twin.deal.max() + 1 == 5
    assert twin.num_hands == 5 and twin.boards[0] == twin.board and len(twin.boards) == 6
    assert Endgame.count_nodes(twin.tree, twin.root, 1) == twin.nodes.size
    if gadget == "none":
        assert _agreement(tree, policy, hands, pairs[1][::7], gadget, 2) < 1e-12
    for subgame, twin in pairs[1][::10]:
        ranges, blueprint = twin.ranges(hands), twin.blueprint_at(hands)
        for us in (0, 1):
            cbv = twin.best_response_values(1 - us, ranges, blueprint)
            expected = resolve(policy.probs, subgame, us, iterations=1000, gadget=gadget)
            found, _ = resolve_endgame(twin, us, ranges, blueprint, iterations=1000,
                                       gadget=gadget)  # fmt: skip
            views, theirs = subgame.counterfactual_best_responses(expected, 1 - us)
            compiled = np.zeros(twin.num_hands)
            for r, root in enumerate(subgame.roots):
                compiled[twin.hand_index(_deal_at(tree, root)[1 - us])] = theirs[views[r]]
            mine = twin.best_response_values(1 - us, ranges, found)
            objectives = [_gadget_objective(gadget, cbv, br, ranges[1 - us])
                          for br in (mine, compiled)]  # fmt: skip
            assert objectives[0] == pytest.approx(objectives[1], abs=1e-3 * np.abs(cbv).max())


def _gadget_objective(gadget, cbv, br, opponent_range):
    """What the opponent gets in the gadget game against a re-solve whose best responses
    are ``br`` (its counterfactual values per hand): unique however the game is solved."""
    if gadget == "none":
        return float(opponent_range @ br)
    if gadget == "resolve":
        return float(np.maximum(cbv, br).sum())
    return float((cbv - br).min())


def test_ranges_and_best_responses_are_the_compiled_trees(three_rounds):
    """Bayes' rule along the betting, checked against brute force: every root history of
    every last-round subgame of the three-round game has chance's reach and each
    player's own reach that :meth:`Endgame.ranges` gives its hand; and the
    counterfactual best-response values are the compiled tree's at each root view."""
    tree, policy, hands, pairs = three_rounds
    # a round closes 5 ways with at most two raises (cc, crc, crrc, rc, rrc): 5 x 5
    # betting histories reach the last round, on 6 x 5 ordered boards
    assert len(pairs[2]) == 750
    for subgame, twin in [*pairs[2][::37], *pairs[1][::5]]:
        ranges = twin.ranges(hands)
        compiled = subgame.ranges(policy.probs)
        for r, root in enumerate(subgame.roots):
            h0, h1 = _deal_at(tree, root)
            i0, i1 = twin.hand_index(h0), twin.hand_index(h1)
            assert compiled[r, 0] == pytest.approx(twin.chance, rel=1e-12)
            assert compiled[r, 1] == pytest.approx(ranges[0, i0], rel=1e-12, abs=1e-300)
            assert compiled[r, 2] == pytest.approx(ranges[1, i1], rel=1e-12, abs=1e-300)
        blueprint = twin.blueprint_at(hands)
        for player in (0, 1):
            views, values = subgame.counterfactual_best_responses(policy.probs, player)
            mine = twin.best_response_values(player, ranges, blueprint)
            for r, root in enumerate(subgame.roots):
                hole = _deal_at(tree, root)[player]
                assert mine[twin.hand_index(hole)] == pytest.approx(values[views[r]], abs=1e-12)


def _pairwise(twin, player, weight, node):
    """Brute force over pairs of hands: ``player``'s chips at terminal ``node`` for each
    of its hands against the other's ``weight``."""
    t = twin.tree
    hands = twin.hands
    apart = ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    contrib = t.contrib[node]
    if t.player[node] == FOLDED:
        gain = -contrib[player] if t.folder[node] == player else contrib[1 - player]
        payoff = np.full(apart.shape, float(gain))
    else:
        strength = twin.strength[twin.board_of[twin.local(node)]]
        diff = np.sign(strength[:, None] - strength[None, :])
        payoff = np.where(diff > 0, contrib[1 - player], np.where(diff < 0, -contrib[player], 0))
    return (apart * payoff) @ weight


def test_hold_em_river_values_are_the_sums_over_pairs_of_hands(monkeypatch):
    """On a Limit Hold'em river (1,081 hands a player, two cards each), the best-response
    values from sorted strengths and card-removal sums equal a brute-force walk of the
    river's betting with a 1,081 x 1,081 pair matrix (random ranges and blueprint)."""
    game = limit_holdem()
    tree = betting_tree(game)
    node = tree.node_of_bets("rc/cc/cc/")
    board = [51, 46, 30, 12, 4]  # As Kh 9h 5c 3c
    twin = Endgame.at(tree, board, node)
    assert twin.num_hands == 1081 and twin.root == node
    rng = np.random.default_rng(0)
    ranges = rng.random((2, 1081))
    blueprint = np.zeros((twin.nodes.size, 1081, game.num_distinct_actions))
    for k, n in enumerate(twin.nodes):
        if tree.player[n] >= 0:
            raw = rng.random((1081, game.num_distinct_actions)) * tree.legal_mask[n]
            blueprint[k] = raw / raw.sum(axis=1, keepdims=True)
    for player in (0, 1):
        other = 1 - player
        reach = {int(twin.nodes[0]): ranges[other]}
        value = {}
        for n in twin.nodes:  # parents first: the other's reach through its blueprint
            if tree.player[n] >= 0:
                first = int(tree.first_child[n])
                for c in range(first, first + int(tree.num_children[n])):
                    step = blueprint[twin.local(n)][:, tree.action[c]]
                    reach[c] = reach[int(n)] * (step if tree.player[n] == other else 1.0)
        for n in twin.nodes[::-1]:
            n = int(n)
            if tree.player[n] < 0:
                value[n] = twin.chance * _pairwise(twin, player, reach[n], n)
            else:
                first = int(tree.first_child[n])
                kids = np.array([value[c] for c in range(first, first + int(tree.num_children[n]))])
                value[n] = kids.max(axis=0) if tree.player[n] == player else kids.sum(axis=0)
        found = twin.best_response_values(player, ranges, blueprint)
        np.testing.assert_allclose(found, value[node], rtol=1e-9, atol=1e-15)


@pytest.fixture
def holdem_policy(monkeypatch):
    use_stand_in_buckets(monkeypatch)
    game = limit_holdem()
    return (
        AbstractionSolver(game, "ehs2:169,4,3,3", seed=0, progress=False)
        .iterate(20000)
        .average_policy()
    )


def _a_river(policy):
    """A Limit Hold'em river subgame of ``policy``'s tree (a board, the bets ``rc/cc/cc/``):
    the subgame, the player to act, the ranges and the blueprint there under ``policy``,
    and the opponent's best-response values against that blueprint."""
    tree = policy.abstraction.betting
    agent = ResolvingAbstractionAgent(policy, policy.game, iterations=1, seconds=None)
    hands = agent._hands()
    twin = Endgame.at(tree, [51, 46, 30, 12, 4], tree.node_of_bets("rc/cc/cc/"))
    ranges, blueprint = twin.ranges(hands), twin.blueprint_at(hands)
    us = int(tree.player[twin.root])
    return twin, us, ranges, blueprint, twin.best_response_values(1 - us, ranges, blueprint)


def test_a_safe_re_solve_on_the_river_gives_no_hand_more_than_against_the_blueprint(holdem_policy):
    """The gadget's promise, on Hold'em's real river: after re-solving, the opponent's
    best response gains with no hand more than it gained against the blueprint (its
    counterfactual best-response value), up to the solve's own error; without a gadget
    (its blueprint range held fixed) the guarantee is gone."""
    twin, us, ranges, blueprint, before = _a_river(holdem_policy)
    scale = np.abs(before).max()
    excess = {}
    for gadget in GADGETS:
        solved, _ = resolve_endgame(twin, us, ranges, blueprint, iterations=2000,
                                       gadget=gadget)  # fmt: skip
        after = twin.best_response_values(1 - us, ranges, solved)
        excess[gadget] = float((after - before).max() / scale)
    # measured: re-solve gadget -0.0001, max-margin -0.007, none +0.027 of the largest value
    assert excess["resolve"] < 0.002 and excess["maxmargin"] < 0.002, excess
    assert excess["none"] > 0.02, excess  # unsafe: some hand gains ten times the error


def test_linear_cfr_re_solves_reach_the_same_safe_value_as_cfr_plus(holdem_policy, tmp_path):
    """``solver="lcfr"`` (Linear CFR: every regret kept t / (t + 1) after iteration t)
    on Hold'em's real river: its first iteration is CFR+'s (nothing discounted yet), the
    next ones are not, and after 2,000 iterations it keeps the max-margin gadget's
    promise and reaches the gadget game's value, which is unique however the game is
    solved, as CFR+ does."""
    twin, us, ranges, blueprint, before = _a_river(holdem_policy)
    scale = np.abs(before).max()
    game = holdem_policy.game

    def solve(solver, iterations):
        return resolve_endgame(twin, us, ranges, blueprint, iterations=iterations,
                               solver=solver)[0]  # fmt: skip

    np.testing.assert_array_equal(solve("lcfr", 1), solve("cfr+", 1))
    assert np.abs(solve("lcfr", 5) - solve("cfr+", 5)).max() > 1e-3
    objective = {}
    for solver in ("cfr+", "lcfr"):
        after = twin.best_response_values(1 - us, ranges, solve(solver, 2000))
        assert (after - before).max() < 0.002 * scale, solver
        objective[solver] = _gadget_objective("maxmargin", before, after, ranges[1 - us])
    assert objective["lcfr"] == pytest.approx(objective["cfr+"], abs=1e-3 * scale)
    # the agent and its spec
    path = holdem_policy.save(tmp_path / "lhe.npz")
    lcfr = build_agent(f"resolve:lcfr:turn:2s+{path}", game)
    assert isinstance(lcfr, ResolvingAbstractionAgent) and lcfr.solver == "lcfr"
    assert lcfr.name == "resolve:lcfr:turn:2s+lhe" and lcfr.streets == 2
    assert build_agent(f"resolve:2s+{path}", game).solver == "cfr+"
    with pytest.raises(InvalidParameterError, match="solver"):
        ResolvingAbstractionAgent(holdem_policy, game, solver="dcfr")
    with pytest.raises(InvalidParameterError, match="lcfr is a setting of a card abstraction"):
        build_agent("resolve:lcfr:20+cfr+:10", leduc())


def test_the_re_solving_agent_plays_its_solve_on_the_river_and_the_blueprint_before(
    holdem_policy, tmp_path, caplog
):
    game = holdem_policy.game
    path = holdem_policy.save(tmp_path / "lhe.npz")
    agent = build_agent(f"resolve:50+{path}", game)
    assert isinstance(agent, ResolvingAbstractionAgent)
    assert agent.name == "resolve:50+lhe" and agent.iterations == 50 and agent.seconds is None
    plain = AbstractionAgent(agent.policy, game)  # the file's (stored as float32)
    river = "player=0 hole=KhKd board=As9h3c/Qd/5c bets=rc/cc/cc/"
    flop = "player=0 hole=KhKd board=As9h3c bets=rc/"
    mask = np.array([0, 1, 1], np.int8)
    obs = {"observation": None, "action_mask": mask}
    np.testing.assert_array_equal(
        agent.action_probabilities(obs, {"info_state": flop}),
        plain.action_probabilities(obs, {"info_state": flop}),
    )
    assert agent.resolves == 0
    played = agent.action_probabilities(obs, {"info_state": river})
    assert agent.resolves == 1 and agent.resolve_iterations == [50]
    tree = agent.policy.abstraction.betting
    twin = Endgame.at(tree, [51, 30, 4, 41, 12], tree.node_of_bets("rc/cc/cc/"))
    hands = agent._hands()
    solved, _ = resolve_endgame(twin, 0, twin.ranges(hands), twin.blueprint_at(hands),
                                   iterations=50)  # fmt: skip
    np.testing.assert_allclose(played, solved[0, twin.hand_index([46, 45])], atol=1e-12)
    # the whole range at once, from the same solve (LBR asks so)
    many = agent._many(river, twin.hands[:5])
    np.testing.assert_allclose(many, solved[0, :5], atol=1e-12)
    assert agent.resolves == 1
    assert check_plays(agent, game, hands=6, seed=3) > 0
    # over the memory cap: the blueprint, said once per subgame
    small = ResolvingAbstractionAgent(agent.policy, game, max_memory=1000)
    with caplog.at_level(logging.WARNING):
        got = small.action_probabilities(obs, {"info_state": river})
    np.testing.assert_array_equal(got, plain.action_probabilities(obs, {"info_state": river}))
    assert small.fallbacks == 1 and "over max_memory" in caplog.text


def test_bad_budgets_and_arrays_are_refused(holdem_policy, tmp_path):
    game = holdem_policy.game
    path = holdem_policy.save(tmp_path / "lhe.npz")
    for spec in (f"resolve:0+{path}", f"resolve:0s+{path}", f"resolve:-1s+{path}", "resolve:1s"):
        with pytest.raises(InvalidParameterError, match=r"resolve:\[lcfr:\]\[STREET:\]BUDGET"):
            build_agent(spec, game)
    with pytest.raises(InvalidParameterError, match="seconds > 0"):
        ResolvingAbstractionAgent(holdem_policy, game, seconds=0)
    with pytest.raises(InvalidParameterError, match="iterations"):
        ResolvingAbstractionAgent(holdem_policy, game, iterations=0)
    with pytest.raises(InvalidParameterError, match="gadget"):
        ResolvingAbstractionAgent(holdem_policy, game, gadget="reach")
    with pytest.raises(InvalidParameterError, match="a card abstraction's blueprint"):
        build_agent("resolve:1s+random", game)
    tree = holdem_policy.abstraction.betting
    river = tree.node_of_bets("rc/cc/cc/")
    with pytest.raises(InvalidParameterError, match="Round 1's board is 3 distinct cards"):
        Endgame.at(tree, [51, 46, 30, 12, 4], tree.node_of_bets("rc/"))
    with pytest.raises(InvalidParameterError, match="node 0 is an end|starts from a decision"):
        Endgame.at(tree, [51, 46, 30, 12, 4], tree.node_of_bets("rc/cc/cc/cc"))
    with pytest.raises(InvalidParameterError, match="over max_nodes=1,000"):
        Endgame.at(tree, [51, 46, 30, 12], tree.node_of_bets("rc/cc/"), max_nodes=1000)
    with pytest.raises(InvalidParameterError, match="streets"):
        ResolvingAbstractionAgent(holdem_policy, game, streets=4)
    with pytest.raises(InvalidParameterError, match="5 distinct cards"):
        Endgame.at(tree, [51, 51, 30, 12, 4], river)
    twin = Endgame.at(tree, [51, 46, 30, 12, 4], river)
    with pytest.raises(InvalidParameterError, match="not a hand of this subgame"):
        twin.hand_index([51, 0])
    with pytest.raises(InvalidParameterError, match=r"ranges of shape \(2, 1081\)"):
        resolve_endgame(twin, 0, np.ones((2, 10)), np.ones((1, 1, 1)))


@pytest.fixture
def hunl_policy(monkeypatch):
    """A no-limit blueprint whose action abstraction keeps half pot and pot before the
    turn and only pot on the turn and river (stand-in buckets)."""
    use_stand_in_buckets(monkeypatch)
    game = no_limit_holdem()
    solver = AbstractionSolver(game, "ehs2:169,4,3,3", seed=0, progress=False,
                               actions="0.5,1/0.5,1/1/1")  # fmt: skip
    return solver.iterate(3000).average_policy()


def _to_river(game, tokens, cards=(0, 1, 2, 3, 51, 46, 30, 41, 12)):
    """A state of ``game`` after the hole cards ``cards[:4]``, the board ``cards[4:]``
    and the betting ``tokens`` (``"c"``, ``"f"`` or a raise's pot fraction), dealt as
    the rounds come."""
    state = game.new_initial_state()
    deck = iter(cards)
    for token in tokens:
        while state.is_chance_node():
            state.apply_action(next(deck))
        if token in ("c", "f"):
            state.apply_action(1 if token == "c" else 0)
        else:
            state.apply_action(2 + game.raises.index(token))
    while state.is_chance_node():
        state.apply_action(next(deck))
    return state


def test_a_no_limit_river_re_solve_grows_from_the_real_bets(hunl_policy):
    """On the river of a no-limit game, the subgame grows from the real chips in: with
    bets the abstraction makes, it is the abstraction's own river subtree and the
    re-solve plays as the re-solve on the blueprint's tree does; a real bet the river's
    abstraction does not make (half pot) joins the subgame as an action of its own."""
    game = no_limit_holdem()
    agent = ResolvingAbstractionAgent(hunl_policy, game, iterations=40, seconds=None, seed=0)
    assert agent.translating  # the actions prune the tree: the real bets are read onto it
    on_tree = _to_river(game, ["c", "c", "c", "c", "c", "c", 1.0])  # a pot bet on the river
    p = on_tree.current_player()
    text = on_tree.information_state_string(p)
    mask = on_tree.legal_actions_mask()
    played = agent.action_probabilities({"observation": None, "action_mask": mask},
                                        {"info_state": text})  # fmt: skip
    assert agent.resolves == 1
    ((key, (subgame, _)),) = agent._solved.items()
    assert key[0] == "real" and key[3] == frozenset()
    tree = hunl_policy.abstraction.betting
    root = agent._read("/".join(on_tree.betting().split("/")[:3]) + "/", None)[0]
    assert subgame.tree.num_nodes == Endgame.at(tree, subgame.board, root).nodes.size
    # the same subgame re-solved on the blueprint's tree, played as the plain agent plays
    _, hole, board, bets = parse_info_state(game, text)
    node, spent = agent._read(bets, p)
    abstract = ResolvingAbstractionAgent._at(agent, hole, [c for part in board for c in part], node)
    np.testing.assert_allclose(played, agent._played(abstract, node, spent, p, mask), atol=1e-9)
    # a half-pot river bet: off the river's abstraction, added to the subgame
    off_tree = _to_river(game, ["c", "c", "c", "c", "c", "c", 0.5])
    p = off_tree.current_player()
    mask = off_tree.legal_actions_mask()
    probs = agent.action_probabilities(
        {"observation": None, "action_mask": mask},
        {"info_state": off_tree.information_state_string(p)},
    )
    assert probs.sum() == pytest.approx(1.0) and np.all(probs[mask == 0] == 0)
    key, (subgame, strategy) = list(agent._solved.items())[-1]
    assert key[3] == frozenset({0.5}) and strategy is not None
    sub = subgame.tree
    root_raises = [int(sub.contrib[k, sub.player[0]]) for k in range(
        int(sub.first_child[0]), int(sub.first_child[0] + sub.num_children[0]))
        if sub.action[k] >= 2]  # fmt: skip
    # the real half-pot bet's total is among the root's raises
    assert int(off_tree.betting().split("/")[-1][1:]) in root_raises, root_raises
    assert check_plays(agent, game, hands=8, seed=5) > 0


def test_re_solving_from_the_turn_then_the_river_carries_the_turns_solve(holdem_policy, tmp_path):
    """``resolve:turn:...`` on Limit Hold'em: the turn's first decision solves the subgame
    from the turn to the end of the hand, with a copy of the river's betting for each of
    the 48 cards off the turn's board (11,691 nodes, 1,128 hands: up to 1.8 GiB). At the river
    (continual re-solving) the river's subgame is solved again, its ranges following
    what the turn's solve played and its gadget's values the opponent's best responses
    to the turn's solve on that card, so the opponent gains with no hand more than
    against the turn's solve, up to the solve's error. Without ``continual`` the river is
    played from the turn's solve."""
    game = holdem_policy.game
    path = holdem_policy.save(tmp_path / "lhe.npz")
    agent = build_agent(f"resolve:turn:2+{path}", game)
    assert isinstance(agent, ResolvingAbstractionAgent)
    assert agent.name == "resolve:turn:2+lhe" and agent.streets == 2 and agent.continual
    tree = agent.policy.abstraction.betting
    assert Endgame.count_nodes(tree, tree.node_of_bets("rc/cc/"), 4) == 11691
    mask = np.array([0, 1, 1], np.int8)
    obs = {"observation": None, "action_mask": mask}
    turn_text = "player=0 hole=KhKd board=As9h3c/Qd bets=rc/cc/"
    played = agent.action_probabilities(obs, {"info_state": turn_text})
    assert agent.resolves == 1 and agent.resolve_iterations == [2]
    unsafe_on_the_turn = agent.unsafe
    ((turn, strategy),) = agent._solved.values()
    assert turn.nodes.size == 11691 and turn.num_hands == 1128
    kings = turn.hand_index([46, 45])
    np.testing.assert_allclose(played, strategy[0, kings], atol=1e-12)
    river_text = "player=0 hole=KhKd board=As9h3c/Qd/5c bets=rc/cc/cc/"
    board, river_node = [51, 30, 4, 41, 12], tree.node_of_bets("rc/cc/cc/")
    played = agent.action_probabilities(obs, {"info_state": river_text})
    assert agent.resolves == 2 and agent.resolve_rounds == [2, 3]  # the river, solved again
    river = Endgame.at(tree, board, river_node)
    hands = carried(turn, strategy, agent._hands())
    ranges, before = river.ranges(hands), river.blueprint_at(hands)
    # the ranges follow the turn's solve: our range of kings is what it played with them
    np.testing.assert_allclose(before[0][river.hand_index([46, 45])],
                               strategy[turn.local(river_node, board), kings])  # fmt: skip
    # two iterations (the spec's budget) leave a strategy that gives some opponent hand
    # more than the turn's solve did: the agent plays the turn's solve there instead
    gain = river.best_response_values(1, ranges, before)
    expected, _ = resolve_endgame(river, 0, ranges, before, iterations=2)
    excess = river.best_response_values(1, ranges, expected) - gain
    assert excess.max() > UNSAFE * np.abs(gain).max()
    assert agent.unsafe == unsafe_on_the_turn + 1
    np.testing.assert_allclose(played, before[0, river.hand_index([46, 45])], atol=1e-12)
    # 2,000 iterations keep the promise: safe against the turn's solve
    solved, _ = resolve_endgame(river, 0, ranges, before, iterations=2000)
    excess = river.best_response_values(1, ranges, solved) - gain
    assert excess.max() < 0.002 * np.abs(gain).max()
    again = ResolvingAbstractionAgent(agent.policy, game, streets=2, iterations=2000,
                                      seconds=None)  # fmt: skip
    again._solved.update({k: v for k, v in agent._solved.items() if k[1] != river_node})
    played = again.action_probabilities(obs, {"info_state": river_text})
    assert again.resolves == 1 and again.unsafe == 0
    np.testing.assert_allclose(played, solved[0, river.hand_index([46, 45])], atol=1e-12)
    # not continual: the river from the turn's solve
    whole = ResolvingAbstractionAgent(agent.policy, game, streets=2, continual=False)
    whole._solved.update(agent._solved)  # the same turn's solve, not solved again
    played = whole.action_probabilities(obs, {"info_state": river_text})
    assert whole.resolves == 0
    row = turn.local(river_node, board)
    np.testing.assert_allclose(played, strategy[row, kings], atol=1e-12)
    with pytest.raises(InvalidParameterError, match="STREET 'preflop'"):
        build_agent(f"resolve:preflop:2+{path}", game)
    with pytest.raises(InvalidParameterError, match="STREET is a setting of a card abstraction"):
        build_agent("resolve:turn:20+cfr+:10", leduc())


def test_sampled_deals_are_seeded_and_reach_a_safe_re_solve(three_rounds):
    """Public chance sampling (``sample_deals``): each iteration walks one card of each
    deal, the deal's value scaled up to an unbiased estimate. On the three-round game's
    second round (5 cards a deal), the same seed gives the same strategy and another
    seed another; after 10,000 iterations the max-margin objective is positive at every
    subgame tried, so no opponent hand gains more than against the blueprint, and within
    0.05 of the largest value of the exact solve's (measured: 0.04 at most below it)."""
    _, _, hands, pairs = three_rounds
    for _, twin in pairs[1][::10]:
        ranges, blueprint = twin.ranges(hands), twin.blueprint_at(hands)
        for us in (0, 1):
            cbv = twin.best_response_values(1 - us, ranges, blueprint)
            scale = np.abs(cbv).max()
            exact, _ = resolve_endgame(twin, us, ranges, blueprint, iterations=2000)
            sampled, _ = resolve_endgame(
                twin, us, ranges, blueprint, iterations=10_000, sample_deals=True, seed=1
            )
            objective = [
                _gadget_objective("maxmargin", cbv, twin.best_response_values(1 - us, ranges, s),
                                  ranges[1 - us]) / scale
                for s in (exact, sampled)
            ]  # fmt: skip
            assert objective[1] > 0 and objective[1] > objective[0] - 0.05, objective
    again, _ = resolve_endgame(twin, 1, ranges, blueprint, iterations=50, sample_deals=True, seed=1)
    other, _ = resolve_endgame(twin, 1, ranges, blueprint, iterations=50, sample_deals=True, seed=2)
    first, _ = resolve_endgame(twin, 1, ranges, blueprint, iterations=50, sample_deals=True, seed=1)
    np.testing.assert_array_equal(again, first)
    assert not np.array_equal(again, other)
    with pytest.raises(InvalidParameterError, match="seed"):
        resolve_endgame(twin, 1, ranges, blueprint, sample_deals=True, seed=-1)


def test_hold_em_showdown_ranks_are_the_engines_order():
    """On the 52-card deck a subgame ranks its showdown hands in one compiled batch
    (:func:`nashzoo.vector.hands.strengths`): the same order, ties included, as the
    engine's own ``strength`` of each seven cards, hand by hand (a turn's subgame: 48
    river boards, 1,081 hands each)."""
    game = limit_holdem()
    tree = betting_tree(game)
    cut = Endgame.at(tree, [51, 46, 30, 12], tree.node_of_bets("rc/cc/"),
                     leaves=lambda n: (1.0, -1.0))  # fmt: skip
    assert cut.strength.shape == (48, 1128)
    for row in (0, 17, 47):
        full = next(b for b, r in _showdown_boards(cut).items() if r == row)
        ranked = cut.strength[row]
        apart = np.flatnonzero(ranked >= 0)
        assert apart.size == 1081 and not np.isin(cut.hands[ranked < 0], full).all(axis=1).any()
        engine = np.array([game.strength([*map(int, cut.hands[h]), *full]) for h in apart])
        assert (np.sign(engine[:, None] - engine[None, :])
                == np.sign(ranked[apart][:, None] - ranked[apart][None, :])).all()  # fmt: skip


def _showdown_boards(eg):
    """Each showdown board of ``eg`` and its row of ``strength``."""
    return {eg.boards[eg.node_board[j]]: int(eg.board_of[j])
            for j in np.flatnonzero(eg.player == SHOWDOWN)}  # fmt: skip
