"""Local best response on Leduc, where exact exploitability is known: LBR is a lower bound
(within its CI) and ranks the agents as the exact values do."""

import numpy as np
import pytest

from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.eval import exploitability
from nashzoo.eval.lbr import local_best_response
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game
from tests.conftest import coverage_paused

LEDUC = LeducHoldemGame()


def fixed(tree, action):
    """Plays ``action`` where legal, else calls (action 1)."""
    probs = np.zeros(tree.legal_mask.shape)
    legal = tree.legal_mask.astype(bool)
    probs[legal[:, action], action] = 1.0
    probs[~legal[:, action], 1] = 1.0
    return TabularPolicy(tree, probs)


def agents():
    tree = compile_game(LEDUC)
    out = {
        "random": RandomAgent(seed=0),
        "always-call": TabularPolicyAgent(fixed(tree, 1), name="always-call"),
        "always-raise": TabularPolicyAgent(fixed(tree, 2), name="always-raise"),
    }
    solver = CFRPlusSolver(LEDUC)
    for iterations in (10, 300):
        solver.iterate(iterations - solver.iteration)
        out[f"cfr+{iterations}"] = TabularPolicyAgent(solver.average_policy(), name="cfr+")
    try:
        import torch
    except ImportError:
        return tree, out
    torch.set_num_threads(1)
    from nashzoo.agents.nfsp import NFSP, NFSPConfig

    out["nfsp"] = NFSP(LEDUC, NFSPConfig(seed=0)).train(steps=20_000).agent(seed=0)
    try:
        from sb3_contrib import MaskablePPO

        from nashzoo.agents.sb3 import SB3Agent
        from nashzoo.wrappers.sb3_vec import SB3VecEnv
    except ImportError:
        return tree, out
    env = SB3VecEnv("nashzoo/leduc_holdem-v0", 16, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, gamma=1.0, seed=0, device="cpu")
    out["sb3"] = SB3Agent(model.learn(4096), seed=0, name="sb3")
    return tree, out


def test_lbr_is_a_lower_bound_and_ranks_agents_like_the_exact_best_response(untraced):
    tree, zoo = agents()
    exact, lbr = {}, {}
    for name, agent in zoo.items():
        exact[name] = exploitability(agent, tree).exploitability
        lbr[name] = local_best_response(LEDUC, agent, hands=3000, seed=1)
        # a legal strategy never wins more than the best response (up to sampling error)
        assert lbr[name].ci95[0] <= exact[name], (name, lbr[name], exact[name])
    # uniform random's exploitability: NashConv 4.7472 / 2 (OpenSpiel's Leduc)
    assert exact["random"] == pytest.approx(4.7472 / 2, abs=1e-4)
    # Every pair that the exact values set apart by more than 0.3 chips is ordered alike
    # by LBR (random and always-raise are 0.007 apart: no sampled measure orders them),
    # except uniform random: measured 2026-11-24, LBR wins 1.77 from it (0.74 of the
    # exact 2.37, a known weakness of LBR's check/call continuation against a loose
    # player), less than from NFSP (2.07 of 2.21) and SB3 (1.85 of 2.04).
    table = {n: (round(exact[n], 3), round(lbr[n].value, 3)) for n in zoo}
    for a in zoo:
        for b in zoo:
            if exact[a] > exact[b] + 0.3 and "random" not in (a, b):
                assert lbr[a].value > lbr[b].value, (a, b, table)
    assert lbr["random"].value > lbr["always-call"].value > lbr["cfr+10"].value, table
    # always-call, a simple policy, is bounded tightly (measured: 0.96 of the exact value)
    assert lbr["always-call"].value > 0.8 * exact["always-call"], table


def test_rollouts_estimate_the_exact_values():
    agent = RandomAgent(seed=0)
    local_best_response(LEDUC, agent, hands=6, seed=2, rollouts=40)  # traced: its lines
    with coverage_paused():  # the statistics (14 s traced, 5 s plain)
        exact_values = local_best_response(LEDUC, agent, hands=300, seed=2)
        sampled = local_best_response(LEDUC, agent, hands=300, seed=2, rollouts=40)
    assert sampled.method == "lbr (40 rollouts)" and exact_values.method == "lbr (exact values)"
    assert abs(sampled.value - exact_values.value) < 4 * max(sampled.stderr, exact_values.stderr)


def test_same_seed_same_result_and_errors(monkeypatch):
    agent = RandomAgent(seed=0)
    a = local_best_response(KuhnPokerGame(), agent, hands=40, seed=3)
    b = local_best_response(KuhnPokerGame(), agent, hands=40, seed=3)
    assert a.winnings == b.winnings and len(a.winnings) == 40
    with monkeypatch.context() as m:  # a memo cleared every few states: the same hands
        m.setattr("nashzoo.eval.lbr._Policy.max_memo", 3)
        c = local_best_response(KuhnPokerGame(), agent, hands=40, seed=3)
    assert c.winnings == a.winnings
    with pytest.raises(InvalidParameterError, match="PolicyAgent"):
        local_best_response(LEDUC, object(), hands=10)
    with pytest.raises(InvalidParameterError, match="actions"):
        local_best_response(LEDUC, agent, hands=10, actions=[7])
    with pytest.raises(InvalidParameterError, match="hands"):
        local_best_response(LEDUC, agent, hands=0)


def test_cli_bounds_a_limit_holdem_agent_and_plots_the_bound(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from nashzoo.cli import main

    plot = tmp_path / "bound.png"
    args = ["exploitability", "poker-rules", "--game", "limit_holdem", "--hands", "6"]
    assert main([*args, "--rollouts", "3", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "too large for an exact best response" in out
    assert "lbr (3 rollouts)" in out and "mbb/hand" in out and plot.stat().st_size > 1000
    assert main(["exploitability", "random", "--game", "kuhn_poker"]) == 0
    assert "exploitability  0.458333 chips" in capsys.readouterr().out  # exact, 11/24


def test_exact_values_are_refused_where_the_game_does_not_compile(capsys):
    """Exact action values enumerate the rest of the hand at every LBR decision: on Limit
    Hold'em (about 2e19 histories) they would never end, so they are refused at once,
    naming the way out (rollouts); games that are not poker are refused whatever the
    values (issue 87: LBR's valuation is poker's), naming the learned best response;
    the CLI, where the user did not choose, samples them; a game under the compile
    limit (Leduc, 9,457 histories) keeps them."""
    from nashzoo.cli import main
    from nashzoo.envs.registration import make_game

    agent = RandomAgent(seed=0)
    with pytest.raises(GameTooLargeError, match="rollouts=k"):
        local_best_response(make_game("limit_holdem"), agent, hands=2)
    # a game that is not poker has no bets to value: the learned best response measures it
    for name in ("fighting_cards", "fighting_cards_small", "rps"):
        with pytest.raises(InvalidParameterError, match="not a poker game.*learned-br"):
            local_best_response(make_game(name), agent, hands=2, rollouts=2)
    # the CLI, not asked for exact values, says it samples them instead
    args = ["exploitability", "random", "--game", "limit_holdem", "--method", "lbr"]
    assert main([*args, "--hands", "2"]) == 0
    out = capsys.readouterr().out
    assert "20 rollouts per action" in out and "lbr (20 rollouts)" in out
    assert local_best_response(LEDUC, agent, hands=2).method == "lbr (exact values)"


def test_tournament_reports_the_lbr_bound_where_exact_is_out_of_reach(tmp_path):
    """Limit Hold'em does not compile: with ``lbr_hands`` the tournament stores each
    PolicyAgent's LBR lower bound, marked as such in the text and HTML reports."""
    from nashzoo.agents import AgentSpec
    from nashzoo.eval.report import write_tournament_report
    from nashzoo.eval.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(
        game="nashzoo/limit_holdem-v0",
        agents=(("rnd", AgentSpec("random")), ("rules", AgentSpec("poker-rules"))),
        deals=20,
        block_size=20,
        lbr_hands=8,
    )
    assert config.to_dict()["lbr_hands"] == 8
    result = run_tournament(config, tmp_path / "t.sqlite", workers=0, bootstrap=0)
    assert result.exploitability_method == {"rnd": "lbr", "rules": "lbr"}
    # random play loses to LBR by far more than nothing (the bound's CI is wide in 8 hands)
    assert result.exploitability["rnd"] > 0
    assert "8 hands" in result.exploitability_note["rnd"]
    mbb = 1000 / 10  # the table is in mbb/game: Limit Hold'em's big blind is 10 chips
    assert f">={result.exploitability['rnd'] * mbb:.4g} (LBR)" in result.format()
    page = write_tournament_report(result, tmp_path / "report").read_text()
    assert "(LBR)" in page
    # without lbr_hands the figure stays unknown, with the reason
    plain = run_tournament(
        TournamentConfig(game=config.game, agents=config.agents, deals=20, block_size=20),
        tmp_path / "t.sqlite",
        workers=0,
        bootstrap=0,
    )
    assert plain.exploitability["rnd"] is None and plain.exploitability_method["rnd"] is None
    assert "too large" in plain.exploitability_note["rnd"]


class _Acting:
    """An agent that only acts (no stated distribution), playing a tabular policy."""

    def __init__(self, policy_agent):
        self.inner = policy_agent

    def reset(self, *, seed=None):
        self.inner.reset(seed=seed)

    def act(self, observation, info):
        return self.inner.act(observation, info)


def test_lbr_against_an_agent_that_only_acts_keeps_its_range_with_a_model():
    """With ``model``, LBR plays against the agent's own moves and asks the model for the
    range and the rollouts. On Leduc against always-call (exact exploitability known):
    with the agent's own policy as the model the bound agrees with plain LBR; with a
    wrong model (uniform) it is still a lower bound, and looser."""
    tree = compile_game(LEDUC)
    call = TabularPolicyAgent(fixed(tree, 1), name="always-call")
    exact = exploitability(call, tree).exploitability
    short = local_best_response(LEDUC, _Acting(call), model=call, hands=10, seed=4)
    assert short.method == "lbr (exact values, range from a model)"
    with coverage_paused():  # the statistics (the short run above is traced)
        plain = local_best_response(LEDUC, call, hands=2000, seed=4)
        right = local_best_response(LEDUC, _Acting(call), model=call, hands=2000, seed=4)
        wrong = local_best_response(
            LEDUC, _Acting(call), model=RandomAgent(seed=0), hands=2000, seed=4
        )
        # the earlier valuation plays the model's continuation: a wrong model costs more
        kept = {"valuation": "continuation", "hands": 2000, "seed": 4}
        right_c = local_best_response(LEDUC, _Acting(call), model=call, **kept)
        wrong_c = local_best_response(LEDUC, _Acting(call), model=RandomAgent(seed=0), **kept)
    assert right.method == short.method
    assert abs(right.value - plain.value) < 4 * max(right.stderr, plain.stderr), (right, plain)
    for bound in (right, wrong, right_c, wrong_c):
        assert bound.ci95[0] <= exact, (bound, exact)
    # measured (the paper's valuation): right 1.452, the same hands as plain LBR (always-call
    # plays deterministically), wrong 1.475 (against always-call the range is the same
    # whatever the model, and a model that folds a third of the time only makes LBR bet
    # more, which pays here); the continuation: right 1.452, wrong 0.729; exact 1.467
    assert wrong_c.value < right_c.value - 3 * max(right_c.stderr, wrong_c.stderr), (
        wrong_c, right_c,
    )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="model must be a PolicyAgent"):
        local_best_response(LEDUC, _Acting(call), model=object(), hands=10)
    with pytest.raises(InvalidParameterError, match="has none"):
        local_best_response(LEDUC, object(), model=call, hands=10)
    raise_only = TabularPolicyAgent(fixed(tree, 2), name="always-raise")
    with pytest.raises(InvalidParameterError, match="model gave zero probability"):
        local_best_response(LEDUC, _Acting(raise_only), model=call, hands=10)


def test_lbr_against_a_mixed_strategy_keeps_its_range_over_members_and_cards():
    """Nash memory plays a mixture: one member drawn per hand. LBR keeps its range over
    (member, cards) pairs, weighing each member by its probabilities of the agent's
    actions, so what it sees also tells it which member it faces. By Kuhn's theorem the
    mixture plays like its behavioural equivalent (realization weights,
    :func:`nashzoo.tree.mixture.behavioural_mixture`, another code path), so LBR must win
    the same against both, and stay under the mixture's exact exploitability. The members
    (check-fold and raise, each 95% of the time, otherwise uniform) can both play any
    action, so only the likelihoods tell them apart: with the members' prior kept instead
    (a mutation tried by hand) LBR won 0.50 chips a hand here, against 1.45 (the mixture)
    and 1.34 (its behavioural equivalent), in 3,000 hands each. 1,500 hands keep that
    mutation caught: standard errors near 0.14 (0.17 measured at 1,000 hands on three
    seeds), so 4 of them (0.56) stay under the 0.9 it costs."""
    from nashzoo.agents.nash_memory import MixtureAgent
    from nashzoo.tree.mixture import behavioural_mixture

    tree = compile_game(LEDUC)
    uniform = tree.uniform_probs()
    members = [TabularPolicy(tree, 0.95 * fixed(tree, a).probs + 0.05 * uniform) for a in (0, 2)]
    weights = np.array([0.5, 0.5])
    mixture = MixtureAgent([TabularPolicyAgent(m, seed=0) for m in members], weights, seed=0)
    profile = tree.uniform_probs()
    for p in (0, 1):
        behavioural_mixture(tree, p, members, weights, out=profile)
    behavioural = TabularPolicyAgent(TabularPolicy(tree, profile), name="behavioural")
    exact = exploitability(behavioural, tree).exploitability  # measured: 1.687
    with coverage_paused():  # the statistics (the 40-hand runs below are traced)
        mixed = local_best_response(LEDUC, mixture, hands=1500, seed=5)
        same = local_best_response(LEDUC, behavioural, hands=1500, seed=5)
    assert abs(mixed.value - same.value) < 4 * max(mixed.stderr, same.stderr), (mixed, same)
    assert mixed.ci95[0] <= exact, (mixed, exact)
    assert local_best_response(LEDUC, mixture, hands=40, seed=1).winnings == (
        local_best_response(LEDUC, mixture, hands=40, seed=1).winnings
    )
    with pytest.raises(InvalidParameterError, match="every member to be a PolicyAgent"):
        local_best_response(LEDUC, MixtureAgent([_Acting(mixture.members[0])], np.ones(1)))


def test_duplicate_pairs_deal_the_same_cards_and_narrow_the_interval(monkeypatch):
    """By default LBR plays hands in pairs: the second hand replays the first one's
    uniforms at every chance event (the same cards) with the seats swapped, so the luck of
    the cards largely cancels within a pair. Each hand is still dealt from the game's
    chance distribution, so the estimate is the one fresh deals give, with a smaller
    standard error (Leduc against CFR+ after 10 iterations, exact action values)."""
    import copy

    from nashzoo.eval import lbr as lbr_module

    solver = CFRPlusSolver(LEDUC)
    solver.iterate(10)
    agent = TabularPolicyAgent(solver.average_policy(), name="cfr+10")
    first_uniforms = []
    play = lbr_module._LBR.play

    def spy(self, seat, agent_rng, chance):
        first_uniforms.append(tuple(copy.deepcopy(chance).random(3)))
        return play(self, seat, agent_rng, chance)

    with monkeypatch.context() as m:
        m.setattr(lbr_module._LBR, "play", spy)
        local_best_response(LEDUC, agent, hands=6, seed=5)
        assert first_uniforms[0::2] == first_uniforms[1::2]  # a pair's hands: same cards
        assert len(set(first_uniforms)) == 3  # pairs: fresh cards
        first_uniforms.clear()
        local_best_response(LEDUC, agent, hands=6, seed=5, duplicate=False)
        assert first_uniforms[0] != first_uniforms[1]
    with coverage_paused():  # the statistics (the 6-hand runs above are traced)
        pairs = local_best_response(LEDUC, agent, hands=2000, seed=6)
        fresh = local_best_response(LEDUC, agent, hands=2000, seed=6, duplicate=False)
    assert pairs.duplicate and not fresh.duplicate
    joint = float(np.hypot(pairs.stderr, fresh.stderr))
    assert abs(pairs.value - fresh.value) < 4 * joint, (pairs, fresh)
    # measured with seeds 6, 7, 8: the pairs' standard error is 0.84, 0.86 and 0.88 of
    # fresh deals' (Leduc's one private card leaves less luck to cancel than Hold'em's)
    assert pairs.stderr < 0.95 * fresh.stderr, (pairs.stderr, fresh.stderr)
    # the pairs' standard error is that of the pairs' means, each pair one sample
    values = np.asarray(pairs.winnings)
    means = (values[0::2] + values[1::2]) / 2
    assert pairs.stderr == pytest.approx(means.std(ddof=1) / np.sqrt(len(means)))
    assert pairs.value == pytest.approx(values.mean())


def test_odd_hand_counts_are_refused_where_lbr_plays_pairs(capsys):
    agent = RandomAgent(seed=0)
    with pytest.raises(InvalidParameterError, match="must be even.*received 11"):
        local_best_response(LEDUC, agent, hands=11)
    assert local_best_response(LEDUC, agent, hands=11, duplicate=False).hands == 11
    with pytest.raises(InvalidParameterError, match="duplicate"):
        local_best_response(LEDUC, agent, hands=10, duplicate="yes")
    from nashzoo.agents import AgentSpec
    from nashzoo.eval.tournament import TournamentConfig

    agents = (("cfr", AgentSpec("cfr+:10")), ("rnd", AgentSpec("random")))
    with pytest.raises(InvalidParameterError, match="lbr_hands.*even"):
        TournamentConfig(game="nashzoo/leduc_holdem-v0", agents=agents, deals=100, lbr_hands=3)
    from nashzoo.cli import main

    with pytest.raises(SystemExit):
        main(["train", "nfsp", "leduc_holdem", "--minutes", "0.01", "--lbr-hands", "3"])
    assert "--lbr-hands" in capsys.readouterr().err


def test_the_papers_valuation_on_a_hand_checked_river_spot():
    """Issue 87: Lisý & Bowling's action values. LBR holds Ks on a Qh board after two
    checks; the agent holds Js or Qs, equally likely. Checking down wins 1 against the
    jack and loses 1 against the pair: 0. Betting 4 against the uniform policy: it folds
    a third of the time (LBR wins the ante, 1) and otherwise calls (raises are valued as
    calls), when the showdown is worth +5 or -5: 1/3 * 1 + 2/3 * 0 = 1/3. Against a
    policy that never folds the bet is worth the check-down, 0."""
    from nashzoo.eval.lbr import _LBR

    tree = compile_game(LEDUC)

    def spot(agent_card):
        state = LEDUC.new_initial_state()
        for action in (4, agent_card, 1, 1, 3):  # Ks to LBR, the agent's card, checks, Qh
            state.apply_action(action)
        return state

    states, weights = [spot(0), spot(2)], np.array([0.5, 0.5])
    assert states[0].information_state_string(0) == "player=0 card=Ks public=Qh bets=cc/"
    uniform = TabularPolicyAgent(TabularPolicy.uniform(tree), seed=0)
    lbr = _LBR(LEDUC, uniform, None, None, 1, np.random.default_rng(0))
    check, bet = lbr._paper_values([1, 2], states, weights, [0, 0], 0)
    assert check == pytest.approx(0.0) and bet == pytest.approx(1 / 3)
    caller = TabularPolicyAgent(fixed(tree, 1), seed=0)
    lbr = _LBR(LEDUC, caller, None, None, 1, np.random.default_rng(0))
    assert lbr._paper_values([1, 2], states, weights, [0, 0], 0) == pytest.approx([0.0, 0.0])
    # with the jack alone in the range, betting wins 1/3 * 1 + 2/3 * 5 from the uniform
    lbr = _LBR(LEDUC, uniform, None, None, 1, np.random.default_rng(0))
    values = lbr._paper_values([1, 2], states[:1], np.array([1.0]), [0], 0)
    assert values == pytest.approx([1.0, 1 / 3 + 10 / 3])


@pytest.mark.parametrize(
    "name", ["uniform", "cfr+3", "cfr+10", "cfr+30", "cfr+100", "cfr+1000", "always-call",
             "always-raise"],
)  # fmt: skip
def test_lbr_is_a_sound_lower_bound_against_exact_best_responses_on_leduc(name):
    """Issue 87: the review measured nashzoo's earlier LBR below zero against CFR+ after
    30 iterations (-0.115 [-0.226, -0.003], 20 rollouts), a bound of nothing. With the
    paper's valuation, on 2,000 paired deals: the mean is at most the exact best
    response's value plus the interval's half-width, no interval lies wholly below 0,
    and against uniform play LBR finds at least 90% of the exact value (measured
    2026-12-05: uniform 2.2505 of 2.3736; CFR+ 10 0.4775 of 0.6104; CFR+ 30 +0.054
    [-0.029, +0.137] of 0.0818; CFR+ 1000 +0.015 of 0.0003)."""
    if name == "uniform" or name.startswith("cfr+"):
        policy = _uniform_or_cfr(LEDUC, 0 if name == "uniform" else int(name[4:]))
    else:
        policy = fixed(compile_game(LEDUC), 1 if name == "always-call" else 2)
    bound, exact = _sound_bound(LEDUC, policy)
    if name == "uniform":
        assert bound.value >= 0.9 * exact, (bound, exact)


def test_a_bad_valuation_is_refused_by_name():
    tree = compile_game(LEDUC)
    agent = TabularPolicyAgent(TabularPolicy.uniform(tree), seed=0)
    with pytest.raises(InvalidParameterError, match="'paper' or 'continuation', received 'x'"):
        local_best_response(LEDUC, agent, hands=2, valuation="x")


def _three_round_limit_game():
    """The poker engine's small game with two board rounds (144,487 histories)."""
    from nashzoo.games.poker import two_board_round_limit

    return two_board_round_limit()


def _uniform_or_cfr(game, iterations):
    """Uniform play (``iterations`` 0) or CFR+'s average policy after ``iterations``."""
    if iterations == 0:
        return TabularPolicy.uniform(compile_game(game))
    return CFRPlusSolver(game).iterate(iterations).average_policy()


def _sound_bound(game, policy):
    """LBR (2,000 paired hands) against ``policy`` and its exact exploitability, with the
    two properties every policy must show: the mean at most the exact value plus the
    interval's half-width, and no interval wholly below 0."""
    exact = exploitability(policy).exploitability
    bound = local_best_response(game, TabularPolicyAgent(policy, seed=0), hands=2000, seed=1)
    half = (bound.ci95[1] - bound.ci95[0]) / 2
    assert bound.value <= exact + half and bound.ci95[1] > 0, (bound, exact)
    return bound, exact


@pytest.mark.parametrize("iterations", [0, 10, 100])
def test_lbr_is_a_sound_lower_bound_on_a_game_with_two_board_rounds(iterations):
    """Issue 87: the same properties on a larger compiled poker game of the poker engine
    (measured 2026-12-05, 2,000 paired deals: uniform 3.867 [3.527, 4.207] of the exact
    4.2471; CFR+ 10 0.873 of 1.1323; CFR+ 100 -0.134 [-0.373, +0.106] of 0.0339)."""
    game = _three_round_limit_game()
    assert compile_game(game).num_nodes == 144_487
    bound, exact = _sound_bound(game, _uniform_or_cfr(game, iterations))
    if iterations == 0:
        assert bound.value >= 0.9 * exact, (bound, exact)
    if iterations == 10:
        assert bound.value >= 0.7 * exact, (bound, exact)


@pytest.mark.parametrize("mixed", [False, True])
def test_the_holdings_range_plays_exactly_as_the_replayed_range(mixed):
    """The fast path (the range as an array over the agent's hole cards, win
    probabilities from ranked boards) is the same LBR as the replay of private deals: on
    the two-board-round game with exact values, every hand of 300 wins the same, against
    one policy and against a mixture (its range over member and cards)."""
    from nashzoo.agents.nash_memory import MixtureAgent
    from nashzoo.eval import lbr as lbr_module

    game = _three_round_limit_game()
    solver = CFRPlusSolver(game)
    policy = solver.iterate(10).average_policy()
    agent = TabularPolicyAgent(policy, seed=0)
    if mixed:
        uniform = TabularPolicyAgent(TabularPolicy.uniform(policy.tree), seed=0)
        agent = MixtureAgent([agent, uniform], np.array([0.7, 0.3]), seed=0)
    fast = local_best_response(game, agent, hands=300, seed=4)
    built = []
    original = lbr_module._LBR.__init__

    def replayed(self, *args, **kwargs):
        original(self, *args, **kwargs)
        built.append(self.fast is not None)
        self.fast = None

    with pytest.MonkeyPatch.context() as m:
        m.setattr(lbr_module._LBR, "__init__", replayed)
        slow = local_best_response(game, agent, hands=300, seed=4)
    assert built == [True]  # the game took the fast path until it was taken away
    assert fast.winnings == pytest.approx(slow.winnings, abs=1e-9)


def test_the_papers_valuation_on_a_holdem_river_spot():
    """A hand-checked Limit Hold'em river for the fast path. LBR (seat 0) holds AcAd on
    2c 7d 9h Js Kh after checks on every street: each player has put in 10 chips (the
    big blind). The range: KsQs (LBR wins) with weight 3, and 7c7h (a set: LBR loses)
    with weight 1. Checking down is worth 10 * (3/4 - 1/4) = 5. A bet (the river's big
    bet, 20 chips) against an agent that folds, calls or raises uniformly wins the 10
    chips it put in a third of the time, and otherwise the showdown for 30 (a raise
    valued as a call): 10/3 + 2/3 * 30 * 1/2 = 40/3."""
    from nashzoo.eval.lbr import _LBR
    from nashzoo.games.poker import limit_holdem
    from nashzoo.games.poker.hands import parse_cards

    game = limit_holdem()
    state = game.new_initial_state()
    deal = parse_cards("AcAd KsQs 2c7d9h Js Kh")
    for card in deal[:4]:
        state.apply_action(card)
    for cards in (deal[4:7], deal[7:8], deal[8:9]):
        while state.current_player() >= 0:
            state.apply_action(1)  # calls and checks
        for card in cards:
            state.apply_action(card)
    while state.current_player() == 1:  # seat 1 acts first after the flop: it checks
        state.apply_action(1)
    assert state.current_player() == 0 and state.pot_contributions() == (10, 10)

    class Uniform:
        def batch_probabilities(self, observation, mask, player):
            return mask / mask.sum(axis=1, keepdims=True)

    lbr = _LBR(game, Uniform(), 20, None, 1, np.random.default_rng(0))
    assert lbr.fast is not None
    holdings = np.array([parse_cards("KsQs"), parse_cards("7c7h")])
    options, values = lbr.fast.values(state, 0, holdings, np.array([[3.0, 1.0]]))
    assert options == [1, 2]
    assert values == pytest.approx([5.0, 40 / 3])


def test_no_limit_lbr_bets_the_papers_sizes_and_refuses_others():
    """In no-limit LBR bets as the paper does: fold, call, pot and all-in, plus the pot
    fractions asked for, among those the game offers; others are refused by name."""
    from nashzoo.eval.lbr import _lbr_actions
    from nashzoo.games.poker import PokerDefinition, PokerGame

    nl = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    game = PokerGame(nl, raises=(0.5, 1.0, 2.0))  # actions: F, C, 0.5, 1, 2, all-in
    assert _lbr_actions(game, None, None) == (0, 1, 3, 5)
    assert _lbr_actions(game, None, [0.5, 2.0]) == (0, 1, 2, 4, 5)
    assert _lbr_actions(game, (1, 2), None) == (1, 2)
    assert _lbr_actions(PokerGame(nl, raises=(0.5,)), None, None) == (0, 1, 3)
    assert _lbr_actions(_three_round_limit_game(), None, None) is None  # limit: all
    agent = TabularPolicyAgent(TabularPolicy.uniform(compile_game(game)), seed=0)
    with pytest.raises(InvalidParameterError, match=r"offers \(\[0.5, 1.0, 2.0\]\), received 0.75"):
        local_best_response(game, agent, hands=2, bet_fractions=[0.75])
    with pytest.raises(InvalidParameterError, match="not both"):
        local_best_response(game, agent, hands=2, bet_fractions=[1.0], actions=[1])
    with pytest.raises(InvalidParameterError, match="no pot-fraction raises"):
        limit = _three_round_limit_game()
        local_best_response(limit, agent, hands=2, bet_fractions=[1.0])
    with pytest.raises(InvalidParameterError, match="rollouts"):
        local_best_response(game, agent, hands=2, rollouts=0)
    result = local_best_response(game, agent, hands=200, seed=1, bet_fractions=[1.0])
    assert result.hands == 200


@pytest.mark.parametrize("iterations", [0, 10, 100])
def test_no_limit_lbr_is_a_sound_lower_bound_if_a_weak_one(iterations):
    """Issue 87 on a small no-limit game (3 ranks, 2 suits, 2 rounds, stacks of 20, pot
    raises; 12,907 histories), 2,000 paired deals: the mean is at most the exact value
    plus the interval's half-width and no interval lies wholly below 0. The paper's
    valuation is weak here against agents that raise often, and the test states it:
    measured 2026-12-05, uniform 1.84 [1.46, 2.22] of the exact 3.66 (50%, where limit
    games give 90% and more), CFR+ 10 -0.05 [-0.26, +0.17] of 0.73."""
    from nashzoo.games.poker import PokerDefinition, PokerGame

    definition = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    game = PokerGame(definition, raises=(1.0,))
    bound, exact = _sound_bound(game, _uniform_or_cfr(game, iterations))
    if iterations == 0:  # weak, as stated, but it finds much of uniform play's weakness
        assert bound.value >= 0.4 * exact, (bound, exact)


def test_cli_lbr_takes_the_valuation_and_no_limit_bet_sizes(capsys):
    """`nashzoo exploitability --method lbr` on heads-up no-limit Hold'em with the
    paper's sizes plus half-pot bets, the continuation, the paper's actions by round,
    and a size the game lacks."""
    from nashzoo.cli import main

    args = ["exploitability", "random", "--game", "no_limit_holdem", "--method", "lbr"]
    args += ["--hands", "4", "--rollouts", "3"]
    assert main([*args, "--bet-fractions", "0.5", "1"]) == 0
    assert "lbr (3 rollouts)" in capsys.readouterr().out
    assert main([*args, "--valuation", "continuation"]) == 0
    assert main([*args, "--round-actions", "c/c/fcpa/fcpa"]) == 0
    assert "lbr (3 rollouts, c/c/fcpa/fcpa)" in capsys.readouterr().out
    assert main([*args, "--bet-fractions", "0.75"]) != 0
    assert "pot fractions no_limit_holdem offers ([0.5, 1.0]), received 0.75" in (
        capsys.readouterr().err
    )


class _AlwaysFold:
    """Folds wherever folding is legal, else checks: the "Always Fold" row of the LBR
    tables (rows of masks in, rows of probabilities out)."""

    name = "always-fold"

    def batch_probabilities(self, observation, action_mask, player):
        mask = np.asarray(action_mask, bool)
        out = np.zeros(mask.shape)
        out[mask[:, 0], 0] = 1.0
        out[~mask[:, 0], 1] = 1.0
        return out

    def action_probabilities(self, observation, info):
        return self.batch_probabilities(observation[None], info["action_mask"][None], None)[0]


def test_lbr_with_the_papers_round_actions_wins_what_the_published_table_says():
    """LBR's action set per betting round, as Lisý & Bowling and DeepStack's supplement
    (Table 3) vary it, on heads-up no-limit Hold'em (20,000-chip stacks, blinds 50/100),
    against an agent that folds wherever it may. The published "Always Fold" row: 250
    mbb/game when LBR only folds or calls (it wins the small blind when the agent folds
    it, and checks down as the small blind), 750 when it bets the pot from the turn (it
    also wins the big blind there). Both follow from the rules, and the code gives them:
    the second exactly, every hand; the first within its interval (the check-downs'
    luck)."""
    import nashzoo

    game = nashzoo.make_game("no_limit_holdem")
    agent = _AlwaysFold()
    bets = local_best_response(
        game, agent, hands=40, rollouts=2, seed=0, round_actions="c/c/fcpa/fcpa"
    )
    assert bets.value * 1000 / game.big_blind == pytest.approx(750.0)
    assert set(bets.winnings) == {50.0, 100.0}  # the small blind as BB, the big as SB
    assert bets.method == "lbr (2 rollouts, c/c/fcpa/fcpa)"
    calls = local_best_response(
        game, agent, hands=400, rollouts=2, seed=0, round_actions="fc/fc/fc/fc"
    )
    low, high = (1000 * x / game.big_blind for x in calls.ci95)
    assert low < 250.0 < high and high - low < 200, calls
    assert all(w == 50.0 for w in calls.winnings[0::2])  # seat 0, the big blind: a fold


def test_round_actions_are_refused_where_they_do_not_fit():
    import nashzoo

    game = nashzoo.make_game("no_limit_holdem")
    agent = _AlwaysFold()
    for text, match in [
        ("c/c/fcpa", "each of .*4 betting rounds, received 3"),
        ("c/c/fcpx/fcpa", r"letters of \['a', 'c', 'f', 'p'\].*received 'fcpx'"),
        ("c//fcpa/fcpa", "received ''"),
        (7, "text such as 'c/c/fcpa/fcpa', received 7"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            local_best_response(game, agent, hands=2, rollouts=2, round_actions=text)
    with pytest.raises(InvalidParameterError, match="not both"):
        local_best_response(
            game, agent, hands=2, rollouts=2, round_actions="c/c/c/c", bet_fractions=[1.0]
        )
    with pytest.raises(InvalidParameterError, match="no pot-sized raise"):
        local_best_response(
            nashzoo.make_game("limit_holdem"), agent, hands=2, rollouts=2, round_actions="c/c/c/c"
        )
    with pytest.raises(InvalidParameterError, match="states tell their betting round"):
        local_best_response(LEDUC, agent, hands=2, round_actions="c/c")
