"""Subgame re-solving on compiled trees (issue 90, item 2: verified exactly).

References: Kuhn poker's value is -1/18 for player 0 (Kuhn 1950); the counterfactual
best-response values a gadget keeps sum, at the root, to the compiled best response's
value (the same quantity, computed by :mod:`nashzoo.tree.best_response`); Burch, Johanson
& Bowling (AAAI 2014) and Brown & Sandholm (NeurIPS 2017): re-solving with a gadget is no
more exploitable than the blueprint, while re-solving against the blueprint's ranges held
fixed can be (the textbook case: a near-equilibrium blueprint).
"""

import numpy as np
import pytest

from nashzoo.agents.cfr import make_solver
from nashzoo.agents.cfr.subgame import (
    GADGETS,
    ResolvingAgent,
    Subgame,
    continuations,
    public_subgames,
    resolve,
    resolve_all,
)
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.exploitability import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.games.base import CHANCE
from nashzoo.tree import TabularPolicy, compile_game, nash_conv_array
from nashzoo.tree.best_response import best_response_value, policy_values

KUHN = compile_game(KuhnPokerGame())
LEDUC = compile_game(LeducHoldemGame())


def _random_profile(tree, seed):
    probs = np.random.default_rng(seed).random(tree.legal_mask.shape) * tree.legal_mask
    return probs / probs.sum(axis=1, keepdims=True)


def _cfr_plus(tree, iterations):
    return make_solver("cfr+", tree).iterate(iterations).average_policy().probs


def _exploitability(tree, probs):
    return nash_conv_array(tree, probs) / 2


def test_leducs_public_subgames_are_its_second_rounds():
    # Leduc's second round starts after one of 5 first-round betting lines that do not
    # fold (cc, brc, bc... : 5 in all) and one of 6 board cards: 30 public subgames, each
    # rooted at the 20 deals of two private cards from the 5 cards left
    subgames = public_subgames(LEDUC)
    assert len(subgames) == 30
    assert all(s.roots.size == 20 for s in subgames)
    # together with the first round's nodes they make up the tree, without overlap
    nodes = np.concatenate([s.nodes for s in subgames])
    assert np.unique(nodes).size == nodes.size
    assert public_subgames(KUHN) == []  # one round: nothing to re-solve later


def test_the_gadgets_values_are_the_compiled_best_response_on_the_whole_game():
    # Kuhn's public subgame at player 0's first decision is the whole game after the
    # deal: the opponent's counterfactual best-response values there sum to the value
    # of the compiled best response against the same profile
    whole = Subgame.at(KUHN, 0)
    assert whole.roots.size == 6 and whole.nodes.size == KUHN.num_nodes - 4
    probs = _random_profile(KUHN, 0)
    for p in range(2):
        _, values = whole.counterfactual_best_responses(probs, p)
        assert values.size == 3  # one per private card of p
        assert values.sum() == pytest.approx(best_response_value(KUHN, probs, p), abs=1e-12)


def test_re_solving_the_whole_game_solves_it():
    # with the opponent's (chance-only) range held fixed, re-solving the whole of Kuhn
    # for both players is solving Kuhn: measured exploitability 4e-5 after 3,000
    # iterations, value -0.05556 (Kuhn's -1/18)
    whole = Subgame.at(KUHN, 0)
    probs = _random_profile(KUHN, 1)
    for p in range(2):
        probs = resolve(probs, whole, p, iterations=3000, gadget="none")
    assert _exploitability(KUHN, probs) < 1e-3
    assert policy_values(KUHN, probs)[0] == pytest.approx(-1 / 18, abs=1e-3)


def test_the_ranges_at_a_subgames_roots_follow_the_history():
    """Each root's chance reach and each player's own reach against a brute-force walk of
    the rules from the start of the game along the root's history."""
    game = LEDUC.game
    probs = _random_profile(LEDUC, 2)
    subgame = public_subgames(LEDUC)[7]
    ranges = subgame.ranges(probs)
    for r, node in enumerate(subgame.roots):
        path = []
        n = int(node)
        while LEDUC.parent[n] >= 0:
            path.append(int(LEDUC.action[n]))
            n = int(LEDUC.parent[n])
        state = game.new_initial_state()
        reach = np.ones(3)
        for a in reversed(path):
            p = state.current_player()
            if p == CHANCE:
                reach[0] *= dict(state.chance_outcomes())[a]
            else:
                row = LEDUC.infoset_index[state.information_state_string(p)]
                reach[1 + p] *= probs[row, a]
            state.apply_action(a)
        np.testing.assert_allclose(ranges[r], reach, rtol=1e-12)


@pytest.mark.parametrize("gadget", ["maxmargin", "resolve"])
def test_safe_re_solving_lowers_a_weak_blueprints_exact_exploitability_on_leduc(gadget):
    # measured (1,000 iterations per subgame, every second-round subgame, both players):
    # CFR+ after 10 iterations 0.610 -> maxmargin 0.454, resolve 0.477; after 30
    # 0.082 -> 0.053, 0.063; after 100 0.0134 -> 0.0088, 0.0109
    for blueprint_iterations in (10, 30, 100):
        blueprint = _cfr_plus(LEDUC, blueprint_iterations)
        before = _exploitability(LEDUC, blueprint)
        after = _exploitability(LEDUC, resolve_all(blueprint, LEDUC, gadget=gadget))
        assert after < 0.9 * before, (blueprint_iterations, before, after)


def test_unsafe_re_solving_raises_a_near_equilibriums_exploitability_and_safe_does_not():
    # the textbook case: CFR+ after 1,000 iterations is 0.0003 chips from equilibrium;
    # re-solved against its ranges held fixed it rises to 0.096 (the opponent changes
    # its range into the subgame), re-solved with either gadget it stays at 0.0004
    blueprint = _cfr_plus(LEDUC, 1000)
    before = _exploitability(LEDUC, blueprint)
    assert before < 1e-3
    unsafe = _exploitability(LEDUC, resolve_all(blueprint, LEDUC, gadget="none"))
    assert unsafe > 0.05
    for gadget in ("maxmargin", "resolve"):
        safe = _exploitability(LEDUC, resolve_all(blueprint, LEDUC, gadget=gadget))
        assert safe < before + 1e-3, (gadget, before, safe)


def test_a_depth_limited_subgame_ends_at_the_next_deal_with_the_blueprints_values():
    """Depth-limited solving (Brown, Sandholm & Amos 2018) from Leduc's first decision:
    the subgame is cut at the board card's deal (150 leaves: 5 first-round lines that go
    on times 30 deals of two private cards), where the opponent picks one of 4
    continuations at its view (30 views: the line and its card). With the opponent on the
    blueprint's continuation at every leaf, the cut game's value at every root is the
    whole subgame's under the blueprint, exactly; a biased continuation moves it."""
    from nashzoo.agents.cfr.subgame import _depth_limited, _fixed_values, _local_roots, _local_tree

    root = Subgame.at(LEDUC, 0)
    local, roots = _local_tree(root), _local_roots(root)
    probs = _random_profile(LEDUC, 5)
    rows = local.legal_mask.shape[0]
    full = np.empty(local.player.size)
    _fixed_values(local, probs[root.infosets], full)
    for us in (0, 1):
        cut = _depth_limited(root, local, probs, us, 1, 5.0)
        leaves = np.flatnonzero(cut.infoset >= rows)
        assert leaves.size == 150 and cut.legal_mask.shape == (rows + 30, 4)
        assert np.all(cut.player[leaves] == 1 - us) and np.all(cut.num_children[leaves] == 4)
        for k in range(4):
            sigma = np.zeros(cut.legal_mask.shape)
            sigma[:rows, :3] = probs[root.infosets]
            sigma[rows:, k] = 1.0
            values = np.empty(cut.player.size)
            _fixed_values(cut, sigma, values)
            gap = np.abs(values[roots] - full[roots]).max()
            assert gap < 1e-12 if k == 0 else gap > 0.01, (us, k, gap)
    # the biased continuations: one action's probability times the bias, renormalised
    biased = continuations(probs[:2], LEDUC.legal_mask[:2], 5.0)
    assert len(biased) == 4
    expected = probs[:2] * [5.0, 1.0, 1.0] * LEDUC.legal_mask[:2]
    np.testing.assert_allclose(biased[1], expected / expected.sum(axis=1, keepdims=True))
    assert len(continuations(probs, LEDUC.legal_mask, None)) == 1
    # no deal below the limit: the depth-limited re-solve is the whole one
    np.testing.assert_array_equal(
        resolve(probs, root, 0, iterations=20, depth=2), resolve(probs, root, 0, iterations=20)
    )


def test_several_continuations_keep_a_depth_limited_re_solve_from_the_blueprint_only_trap():
    """Depth-limited re-solving of Leduc's first round (1,000 CFR+ iterations, max-margin)
    on CFR+ blueprints: with the blueprint as the only continuation the re-solve assumes
    the opponent keeps playing it and is exploited (measured exploitability: blueprint
    after 100 iterations 0.0134, depth-limited on the blueprint's values 0.1203); with
    the 4 continuations 0.0226. It does not beat these blueprints, which have no
    abstraction to repair (after 30 iterations: 0.0818, 0.1448, 0.1242); the benchmark
    (``subgame_solving.py``) measures the rest."""
    root = Subgame.at(LEDUC, 0)
    blueprint = _cfr_plus(LEDUC, 100)
    found = {}
    for bias in (None, 5.0):
        mine = [resolve(blueprint, root, p, depth=1, bias=bias) for p in (0, 1)]
        solved = np.where((LEDUC.infoset_player == 0)[:, None], mine[0], mine[1])
        found[bias] = _exploitability(LEDUC, solved)
    assert found[5.0] < 0.5 * found[None], found


def test_the_re_solving_agent_plays_the_re_solved_profile_and_solves_only_what_it_reaches():
    agent = build_agent("resolve:300+cfr+:10", LEDUC.game)
    assert isinstance(agent, ResolvingAgent) and agent.name == "resolve:300+cfr+:10"
    assert not agent._solved.any()
    expected = resolve_all(_cfr_plus(LEDUC, 10), LEDUC, iterations=300)
    # asking at every information set solves every subgame, outer ones first
    played = TabularPolicy.from_agent(agent, LEDUC).probs
    np.testing.assert_allclose(played, expected, atol=1e-12)
    assert agent._solved.all()
    value = exploitability(agent, LEDUC.game).exploitability
    assert value == pytest.approx(_exploitability(LEDUC, expected), abs=1e-9)
    assert value < exploitability(build_agent("cfr+:10", LEDUC.game), LEDUC.game).exploitability


def test_bad_settings_and_profiles_are_refused():
    subgame = public_subgames(LEDUC)[0]
    probs = _random_profile(LEDUC, 3)
    with pytest.raises(InvalidParameterError, match=r"array of action probabilities.*\(3, 3\)"):
        resolve(np.ones((3, 3)), subgame, 0)
    with pytest.raises(InvalidParameterError, match="player"):
        resolve(probs, subgame, 2)
    with pytest.raises(InvalidParameterError, match="iterations"):
        resolve(probs, subgame, 0, iterations=0)
    with pytest.raises(InvalidParameterError, match="gadget.*'none', 'resolve', 'maxmargin'"):
        resolve(probs, subgame, 0, gadget="reach")
    with pytest.raises(InvalidParameterError, match="depth"):
        resolve(probs, subgame, 0, depth=0)
    with pytest.raises(InvalidParameterError, match="bias"):
        resolve_all(probs, LEDUC, bias=0.5)
    assert GADGETS == ("none", "resolve", "maxmargin")
    with pytest.raises(InvalidParameterError, match="infoset"):
        Subgame.at(LEDUC, LEDUC.num_infosets)
    with pytest.raises(InvalidParameterError, match=r"resolve:\[lcfr:\]\[STREET:\]BUDGET\+SPEC"):
        build_agent("resolve:cfr+:10", LEDUC.game)
    with pytest.raises(InvalidParameterError, match=r"resolve:\[lcfr:\]\[STREET:\]BUDGET\+SPEC"):
        build_agent("resolve:0+cfr+:10", LEDUC.game)
    with pytest.raises(InvalidParameterError, match="states its probabilities.*_ActsOnly"):
        build_agent("resolve:10+tests.agents.test_subgame:acts_only", LEDUC.game)


class _ActsOnly:
    """An agent that plays but does not state its probabilities."""

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])


def acts_only(game):
    return _ActsOnly()
