"""Information-set MCTS (issue 12): views and worlds, the oracle tables, MT-ISMCTS, and the
spec's experiments T1-T4 on Kuhn poker (``docs/explanation/nash-ismcts.md``, "The checks").

Kuhn facts used below (Kuhn 1950; the reference figures of that page): in the
equilibrium family with alpha = 1/6 every information set is reached; player 2 holding
the J after a check bets with 1/3 and is indifferent (both actions are worth -1 chip),
believing player 1 holds the Q with 2/3 and the K with 1/3; player 1 holding the Q facing
a bet is indifferent between calling and folding (-1 chip), believing player 2 holds the J
with 1/4.
Exploitability figures are in chips.
"""

import numpy as np
import pytest

from nashzoo.agents.ismcts import CompiledSearch, ISMCTSAgent, SearchConfig, SearchTables
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.exploitability import exploitability
from nashzoo.eval.matches import head_to_head
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.games.kuhn import kuhn_equilibrium
from nashzoo.games.worlds import consistent_histories
from nashzoo.tree import TabularPolicy, compile_game, nash_conv_array
from nashzoo.tree.views import views_of
from tests.conftest import traced_sample

KUHN = KuhnPokerGame()
J_AFTER_CHECK = "player=1 card=J history=p"
Q_FACING_BET = "player=0 card=Q history=pb"


@pytest.fixture(scope="module")
def kuhn():
    tree = compile_game(KUHN)
    eq = TabularPolicy.from_table(tree, kuhn_equilibrium(1 / 6)).probs
    return tree, eq, SearchTables.oracle(tree, eq)


def chips_exploitability(tree, probs):
    return nash_conv_array(tree, probs) / 2


def search_many(tables, config, infoset, seeds=20):
    """Mean visit shares, mean move distribution and the per-seed move distributions."""
    search = CompiledSearch(tables, config)
    results = [search.run(infoset, seed) for seed in range(seeds)]
    shares = np.mean([r.visit_shares for r in results], axis=0)
    return shares, [r.policy for r in results]


def e_I(tree, eq, infoset, policies):
    """The spec's e_I(n): the exploitability (chips) of the equilibrium with only this
    information set replaced by the search's move distribution, averaged over seeds."""
    values = []
    for row in policies:
        probs = eq.copy()
        probs[infoset] = row
        values.append(chips_exploitability(tree, probs))
    return float(np.mean(values))


# -- views, worlds and tables -----------------------------------------------------------
@pytest.mark.parametrize(
    "game", [KUHN, KuhnPokerGame(5), LeducHoldemGame(), rock_paper_scissors()], ids=repr
)
def test_the_worlds_of_every_information_set_are_its_consistent_histories(game):
    tree = compile_game(game)
    views = views_of(tree)
    histories = {0: ()}
    for n in range(1, tree.num_nodes):
        histories[n] = histories[int(tree.parent[n])] + (int(tree.action[n]),)
    # every information set checked, a tenth traced (Leduc: 21 s traced, 3 s plain)
    for i, key in traced_sample(enumerate(tree.infoset_keys), every=10):
        p = int(tree.infoset_player[i])
        public = tree.infoset_public_history[i][: tree.infoset_history_length[i]]
        expected = consistent_histories(game, p, key, public, player_to_move=True)
        nodes = views.worlds_of(i)
        assert sorted(histories[int(n)] for n in nodes) == sorted(w.history for w in expected)
        assert list(views.node_position[nodes]) == list(range(nodes.size))
        # one world id per history, allowed by the view's mask, distinct within the set
        worlds = views.node_world[p, nodes]
        assert len(set(worlds.tolist())) == nodes.size
        assert views.view_world_mask[views.infoset_view[i], worlds].all()
        assert views.view_keys[views.infoset_view[i]] == key


def test_kuhn_world_ids_are_the_opponents_card():
    views = views_of(compile_game(KUHN))
    assert views.world_keys == ((), (0,), (1,), (2,))  # (), J, Q, K
    assert views.num_views == 26  # 12 information sets, 12 waiting views, 2 before any card


def test_oracle_tables_match_kuhns_equilibrium_by_hand(kuhn):
    tree, eq, oracle = kuhn
    views = oracle.views
    i = tree.infoset_index[J_AFTER_CHECK]
    v = views.infoset_view[i]
    assert oracle.belief[v, 1:] == pytest.approx([0, 2 / 3, 1 / 3])  # Q 2/3, K 1/3
    assert oracle.view_value[v] == pytest.approx(-0.5)  # -1 chip, scaled by 2
    assert oracle.child_value[i] == pytest.approx([-0.5, -0.5])  # indifferent
    after_bet = views.view_keys.index("player=1 card=J history=pb")
    # after the bet: against the Q (calls with 1/2) -0.25, against the K (calls) -1
    assert oracle.world_value[after_bet, 2:] == pytest.approx([-0.25, -1.0])
    q = tree.infoset_index[Q_FACING_BET]
    assert oracle.belief[views.infoset_view[q], 1:] == pytest.approx([1 / 4, 0, 3 / 4])
    assert oracle.child_value[q] == pytest.approx([-0.5, -0.5])
    root = views.view_keys.index("player=0 card=? history=")
    assert oracle.view_value[root] == pytest.approx(-1 / 18 / 2)  # the game value


def test_tables_refuse_what_is_not_a_belief(kuhn):
    tree, eq, oracle = kuhn
    with pytest.raises(InvalidParameterError, match="belief"):
        oracle.with_belief(0, np.full(oracle.views.num_worlds, 0.5))
    with pytest.raises(InvalidParameterError, match="shape"):
        SearchTables.oracle(tree, eq[:3])


# -- MT-ISMCTS ----------------------------------------------------------------------------
def test_mt_ismcts_plays_the_dominant_actions_and_beats_random():
    agent = build_agent("mt-ismcts:1000", KUHN)
    policy = TabularPolicy.from_agent(agent, KUHN)
    assert policy.action_probabilities("player=1 card=K history=b")[1] > 0.95  # K calls
    assert policy.action_probabilities("player=0 card=K history=pb")[1] > 0.95
    assert policy.action_probabilities("player=0 card=J history=pb")[0] > 0.9  # J folds
    result = head_to_head(KUHN, agent, RandomAgent(), exact=True)
    assert result.mean > 0.15  # measured +0.24 chips per game


def test_mt_ismcts_search_operator_exploitability_on_kuhn():
    # Searched separately at every information set with 1,000 simulations: 0.129 chips
    # measured; OpenSpiel's single-tree ISMCTS with random rollouts measures 0.159 here.
    # Any search whose policy turns pure is at least 1/6 exploitable; uniform play is 0.458.
    value = exploitability(build_agent("mt-ismcts:1000", KUHN), KUHN).exploitability
    assert 0.05 < value < 0.2


def model_belief(search, key, player):
    """``player``'s belief over the worlds of information set ``key`` with the statistics
    the last search left (the kernel's own function)."""
    from nashzoo.agents.ismcts import kernel

    tree = search.tree
    i = tree.infoset_index[key]
    out = np.zeros(search._branch)
    k = kernel._belief(
        search._game, search._knowledge, search._stats, search.params(), i, player, out
    )
    return out[:k]


def test_the_opponent_model_does_not_point_at_the_searchers_own_card():
    # Player 1 holds the K. Player 2's spawned trees weigh player 1's possible cards (Q, K
    # when player 2 holds the J) by how player 1's trees chose the bet; only the tree of
    # the real card (the root tree, 2,000 simulations) exists, so weighing by it alone
    # put the K at .59 after a bet and .36 after a check (issue 33's fidelity review).
    # A decision is weighed only where every world's tree exists: here, none is.
    tree = compile_game(KUHN)
    search = CompiledSearch(
        SearchTables.uninformed(tree), SearchConfig(variant="mt", simulations=2000, belief="model")
    )
    search.run(tree.infoset_index["player=0 card=K history="], 0)
    for key in ("player=1 card=J history=b", "player=1 card=J history=p"):
        assert model_belief(search, key, 1) == pytest.approx([0.5, 0.5], abs=1e-12), key


def test_the_opponent_model_weighs_decisions_whose_trees_all_exist():
    # Player 1 holds the Q: the root tree spawns player 2's trees for both of player 2's
    # possible cards (J and K), so player 1's belief after player 2's bet is Bayes with
    # their counts, and the search differs from the table belief's.
    tree = compile_game(KUHN)
    tables = SearchTables.uninformed(tree)
    i = tree.infoset_index["player=0 card=Q history="]
    table = CompiledSearch(tables, SearchConfig(variant="mt", simulations=2000)).run(i, 0)
    search = CompiledSearch(tables, SearchConfig(variant="mt", simulations=2000, belief="model"))
    model = search.run(i, 0)
    assert table.simulations == model.simulations == 2000
    assert not np.array_equal(table.visits, model.visits)
    belief = model_belief(search, "player=0 card=Q history=pb", 0)
    assert belief.sum() == pytest.approx(1.0) and abs(belief[0] - 0.5) > 0.01, belief


# -- T1-T4 (T5 is in test_ismcts_interval.py) ----------------------------------------------
K_AT_THE_ROOT = "player=0 card=K history="


def per_seed_distances(tables, config, infoset, seeds=20):
    """Total-variation distance of each seed's visit shares from P (the equilibrium's
    row, in the oracle tables)."""
    search = CompiledSearch(tables, config)
    eq_row = tables.prior[infoset]
    return np.array(
        [
            0.5 * np.abs(search.run(infoset, seed).visit_shares - eq_row).sum()
            for seed in range(seeds)
        ]
    )


@pytest.mark.parametrize("key", [J_AFTER_CHECK, K_AT_THE_ROOT])
def test_t1_given_the_equilibrium_nash_ismcts_stays_there_seed_by_seed(kuhn, key):
    # T1, measured per seed (a mean over seeds would hide each search's own distance).
    # Both cases have children that are not terminal (an opponent decision follows each
    # action), so the SAMPLE nodes' estimates and the spawned opponent trees are in play.
    # Nash-ISMCTS (eps 0.2) meets the spec's 0.02 on every seed at 10,000 simulations
    # (measured max .012 after a check with the J, .014 with the K at the root) and comes
    # within 0.045 at 1,000 (max .034 / .038: a search's visit shares carry the sampling
    # noise of its value estimates).
    tree, eq, oracle = kuhn
    i = tree.infoset_index[key]
    nash = {
        n: per_seed_distances(
            oracle, SearchConfig(variant="nash", simulations=n, c_puct=4, eps=0.2), i
        )
        for n in (1000, 10000)
    }
    assert nash[1000].max() <= 0.045, nash[1000]
    assert nash[10000].max() <= 0.02, nash[10000]


def test_t1_a_ismcts_given_the_equilibrium_drifts_from_it_as_it_searches_longer(kuhn):
    # The same check fails for A-ISMCTS, and it is the design's reason for the
    # epsilon-mechanism: with the K at the root the per-seed distance grows from a
    # median of .008 at 1,000 simulations to .043 at 10,000 (max .114); after a check
    # with the J it is .031 and .017 (max .074 / .070). The spec's 0.02 holds for
    # neither per seed.
    tree, eq, oracle = kuhn
    i = tree.infoset_index[K_AT_THE_ROOT]
    a = {
        n: per_seed_distances(oracle, SearchConfig(variant="a", simulations=n, c_puct=4), i)
        for n in (1000, 10000)
    }
    assert np.median(a[1000]) <= 0.02, a[1000]
    assert np.median(a[10000]) > 0.02 and a[10000].max() > 0.05, a[10000]
    assert np.median(a[10000]) > 2 * np.median(a[1000])


def test_t1_children_that_are_terminal_leave_nothing_to_estimate(kuhn):
    # Why T1 does not use Q facing a bet: both children end the game, their values are
    # exact and equal, so PUCT reproduces the prior exactly on every seed (distance 0),
    # whatever the search's estimates do.
    tree, eq, oracle = kuhn
    i = tree.infoset_index[Q_FACING_BET]
    distances = per_seed_distances(
        oracle, SearchConfig(variant="a", simulations=1000, c_puct=4), i, 5
    )
    assert distances.max() < 1e-12


def _perturbed(oracle, tree):
    """The spec's T2 perturbation: 1/15 of probability moved from K to Q in player 2's
    belief holding the J after a check (L1 size 0.133): Q(bet) gains 0.05."""
    i = tree.infoset_index[J_AFTER_CHECK]
    view = oracle.views.infoset_view[i]
    row = oracle.belief[view].copy()
    row[2] += 1 / 15
    row[3] -= 1 / 15
    return i, oracle.with_belief(view, row)


def test_t2_a_perturbed_belief_makes_a_ismcts_collapse(kuhn):
    tree, eq, oracle = kuhn
    i, perturbed = _perturbed(oracle, tree)
    bet, errors = {}, {}
    for n in (100, 1000, 10000):
        shares, policies = search_many(
            perturbed, SearchConfig(variant="a", simulations=n, c_puct=1), i
        )
        bet[n], errors[n] = shares[1], e_I(tree, eq, i, policies)
    # measured: bet share .39 / .58 / .87, e_I .022 / .047 / .090 chips (the spec: about
    # .46 / .68 / .88 and .02 / .06 / .09)
    assert bet[100] < bet[1000] < bet[10000] and bet[10000] > 0.75, bet
    assert errors[100] < errors[1000] < errors[10000] and errors[10000] > 0.06, errors


def test_t3_nash_ismcts_keeps_the_equilibrium_under_the_same_perturbation(kuhn):
    tree, eq, oracle = kuhn
    i, perturbed = _perturbed(oracle, tree)
    errors = {}
    for n in (100, 1000, 10000):
        config = SearchConfig(variant="nash", simulations=n, c_puct=1, eps=0.2)
        shares, policies = search_many(perturbed, config, i)
        assert abs(shares[1] - 1 / 3) < 0.05, (n, shares)  # measured .36 / .33 / .34
        errors[n] = e_I(tree, eq, i, policies)
    assert errors[10000] <= errors[100] and errors[10000] < 0.005, errors


def test_t4_eps_zero_is_a_ismcts_move_for_move(kuhn):
    tree, eq, oracle = kuhn
    for tables in (oracle, _perturbed(oracle, tree)[1]):
        for i in range(tree.num_infosets):
            a = CompiledSearch(tables, SearchConfig(variant="a", simulations=300, c_puct=1)).run(
                i, 7
            )
            n0 = CompiledSearch(
                tables, SearchConfig(variant="nash", simulations=300, c_puct=1, eps=0)
            )
            b = n0.run(i, 7)
            assert np.array_equal(a.visits, b.visits) and np.array_equal(a.policy, b.policy)
    # and the comparison can fail: a positive eps searches differently
    i, perturbed = _perturbed(oracle, tree)
    a = CompiledSearch(perturbed, SearchConfig(variant="a", simulations=3000, c_puct=1)).run(i, 7)
    b = CompiledSearch(
        perturbed, SearchConfig(variant="nash", simulations=3000, c_puct=1, eps=0.2)
    ).run(i, 7)
    assert not np.array_equal(a.visits, b.visits)


def test_oracle_searches_are_far_less_exploitable_than_mt_ismcts(kuhn):
    tree, eq, oracle = kuhn
    for variant in ("a", "nash"):
        agent = ISMCTSAgent(KUHN, oracle, SearchConfig(variant=variant, simulations=1000))
        assert exploitability(agent, KUHN).exploitability < 0.03  # measured ~0.01-0.02


# -- the agent ------------------------------------------------------------------------------
def test_a_search_agent_cannot_read_hidden_information():
    # The agent is given only what the env gives a player; searching from every history of
    # an information set (different hidden cards, same inputs) gives the same answer.
    from nashzoo.envs.aec import GameEnv

    game = LeducHoldemGame()
    agent = build_agent("mt-ismcts:200", game)
    env = GameEnv(game, info_strings=True)
    answers: dict[str, np.ndarray] = {}
    checked = 0
    for seed in range(40):
        env.reset(seed=seed)
        for _name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            probs = agent.action_probabilities(obs, info)
            key = info["info_state"]
            if key in answers:
                assert np.array_equal(answers[key], probs)
                checked += 1
            answers[key] = probs
            env.step(int(np.argmax(obs["action_mask"])))
    assert checked > 20


def test_searches_are_seeded_and_simulations_are_a_setting():
    game = KUHN
    a = build_agent("mt-ismcts:500", game)
    b = build_agent("mt-ismcts:500", game)
    assert np.array_equal(
        TabularPolicy.from_agent(a, game).probs, TabularPolicy.from_agent(b, game).probs
    )
    a.simulations = 50
    assert a.config.simulations == 50 and a.name == "mt-ismcts:50"
    obs, info = compile_game(game).agent_inputs(0)
    a.action_probabilities(obs, info)
    assert a.last_result.simulations == 50
    with pytest.raises(InvalidParameterError, match="simulations"):
        a.simulations = 0
    assert a.simulations == 50
    a.reset(seed=3)
    first = [a.act(obs, info) for _ in range(20)]
    a.reset(seed=3)
    assert [a.act(obs, info) for _ in range(20)] == first


def test_read_only_tables_search_with_the_same_compiled_kernel(kuhn):
    # Tables that arrive through Ray's object store are read-only; numba types a read-only
    # array apart from a writeable one, so passing them on compiled the whole search again
    # in every Ray worker. The search's inputs have one type whatever the tables' flags.
    import numba

    tree, _, tables = kuhn
    frozen = {}
    for name in ("prior", "child_value", "view_value", "belief", "world_value"):
        frozen[name] = getattr(tables, name).copy()
        frozen[name].setflags(write=False)
    locked = SearchTables(tables.views, **frozen)
    config = SearchConfig(variant="nash", simulations=200)
    plain, ro = CompiledSearch(tables, config), CompiledSearch(locked, config)
    assert numba.typeof(ro._knowledge) == numba.typeof(plain._knowledge)
    i = tree.infoset_index[Q_FACING_BET]
    assert np.array_equal(plain.run(i, 1).visits, ro.run(i, 1).visits)


def test_a_time_budget_replaces_the_simulation_count(ticking_clock):
    import nashzoo.agents.ismcts.compiled as compiled_module

    ticking_clock(compiled_module)
    agent = ISMCTSAgent(KUHN, config=SearchConfig(variant="mt", time_budget=0.02))
    obs, info = compile_game(KUHN).agent_inputs(1)
    agent.act(obs, info)
    result = agent.last_result
    # The search runs in chunks of 64 and reads the clock after each: the start reads
    # 10 ms, the first chunk 20 ms, the second 30 ms, the budget's end.
    assert result.simulations == 128 and result.seconds == pytest.approx(0.03)
    assert agent.name == "mt-ismcts:0.02s"


@pytest.mark.parametrize(
    "field, value",
    [
        ("variant", "po"),
        ("simulations", 0),
        ("eps", -0.1),
        ("c_puct", float("nan")),
        ("time_budget", 0),
        ("belief", "exact"),
        ("final_policy", "best"),
        ("spawn_cap", 99),
    ],
)
def test_bad_settings_are_refused_by_name(field, value):
    with pytest.raises(InvalidParameterError, match=field):
        SearchConfig(**{field: value})


def test_bad_specs_are_refused():
    with pytest.raises(InvalidParameterError, match="SIMULATIONS"):
        build_agent("mt-ismcts:many", KUHN)
    with pytest.raises(InvalidParameterError, match="SIMULATIONS"):
        build_agent("nash-ismcts-oracle:0", KUHN)


def test_a_saved_search_agent_loads_through_the_specs(tmp_path, kuhn):
    pytest.importorskip("torch")
    tree, eq, oracle = kuhn
    agent = ISMCTSAgent(KUHN, oracle, SearchConfig(variant="nash", simulations=400, eps=0.1))
    path = agent.save(tmp_path / "oracle.pt")
    loaded = build_agent(str(path), KUHN)
    assert isinstance(loaded, ISMCTSAgent) and loaded.name == "oracle"
    assert loaded.config == agent.config
    assert np.array_equal(
        TabularPolicy.from_agent(agent, KUHN).probs, TabularPolicy.from_agent(loaded, KUHN).probs
    )
    from nashzoo.errors import PolicyFileError

    with pytest.raises(PolicyFileError, match="not for"):
        ISMCTSAgent.load(path, LeducHoldemGame())
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(PolicyFileError):
        build_agent(str(tmp_path / "junk.pt"), KUHN)


def test_search_agents_play_a_supervised_tournament_under_a_move_time_limit(tmp_path):
    from nashzoo.agents.specs import AgentSpec
    from nashzoo.eval.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(
        game="nashzoo/kuhn_poker-v0",
        agents=(
            ("mt", AgentSpec("mt-ismcts:200")),
            ("oracle", AgentSpec("nash-ismcts-oracle:200")),
            ("random", AgentSpec("random")),
        ),
        deals=40,
        block_size=20,
        move_time_limit=5.0,
    )
    result = run_tournament(config, tmp_path / "t.sqlite", workers=1, bootstrap=0)
    assert result.complete and result.crosstable.forfeits == ()
    names = list(result.crosstable.names)
    oracle, random = names.index("oracle"), names.index("random")
    assert result.crosstable.mean[oracle, random] > 0
    assert result.exploitability["oracle"] < 0.05


def test_the_completed_q_target_improves_p_by_the_measured_values():
    """Gumbel MuZero's completed-Q target (Danihelka et al. 2022), worked by hand:
    softmax(log P + (50 + max N) * Q), an unvisited action at the mixed value
    (V + N * E_{P | visited}[Q]) / (1 + N)."""
    from nashzoo.agents.ismcts.config import improved_policy

    prior = np.array([0.25, 0.25, 0.5])
    visits = np.array([2.0, 0.0, 0.0])
    q = np.array([0.1, np.nan, np.nan])
    target = improved_policy(prior, visits, q, q, 0.05)
    mixed = (0.05 + 2 * 0.1) / 3  # the unvisited actions' value
    logits = np.log(prior) + 52 * np.array([0.1, mixed, mixed])
    np.testing.assert_allclose(target, np.exp(logits) / np.exp(logits).sum())
    # visited both ways: the better action takes the mass whatever the visits say
    even = improved_policy(
        np.array([0.5, 0.5]), np.array([3.0, 5.0]), *[np.array([0.2, -0.2])] * 2, 0.0
    )
    assert even[0] > 0.999
    # no measured difference: P itself
    flat = improved_policy(np.array([0.3, 0.7]), np.array([4.0, 4.0]), *[np.zeros(2)] * 2, 0.0)
    np.testing.assert_allclose(flat, [0.3, 0.7])
