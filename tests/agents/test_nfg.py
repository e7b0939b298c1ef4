"""Normal-form solvers: Gemp et al.'s loss, fictitious play, regret matching, and the
reduced normal form."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.agents.nfg import (
    FictitiousPlay,
    GempConfig,
    GempSolver,
    RegretMatching,
    gemp_loss,
)
from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.games.matrix import (
    MatrixGame,
    matching_pennies,
    rock_paper_scissors,
    weighted_rock_paper_scissors,
)
from nashzoo.tree import compile_game, solve_zero_sum
from nashzoo.tree.best_response import nash_conv_array, policy_values
from nashzoo.tree.normal_form import count_reduced_strategies, reduced_normal_form
from tests.rounding import UNIT_ROUNDOFF, lp_rounding, tree_rounding

KUHN = compile_game(KuhnPokerGame())
KUHN_RNF = reduced_normal_form(KUHN)


# -- reduced normal form ------------------------------------------------------------------


def test_kuhn_reduced_normal_form_sizes_and_value():
    # Kuhn (1950): 27 reduced pure strategies for the first player (bet / check-fold /
    # check-call per card), 64 for the second (two binary choices per card); value -1/18.
    assert KUHN_RNF.shape == (27, 64)
    assert count_reduced_strategies(KUHN, 0) == 27
    assert count_reduced_strategies(KUHN, 1) == 64
    # each payoff is a tree expectation (tests/rounding.py); the value an LP's
    np.testing.assert_allclose(
        KUHN_RNF.payoffs[0], -KUHN_RNF.payoffs[1], atol=2 * tree_rounding(KUHN)
    )
    value = solve_zero_sum(KUHN_RNF.payoffs[0])[2]
    assert value == pytest.approx(-1 / 18, abs=lp_rounding(KUHN_RNF.payoffs[0]))
    assert len(set(KUHN_RNF.labels[0])) == 27


def test_reduced_normal_form_payoffs_are_the_tree_values_of_pure_pairs():
    rng = np.random.default_rng(0)
    for _ in range(20):
        k, j = rng.integers(27), rng.integers(64)
        profile = KUHN_RNF.strategies[0][k].copy()
        own1 = KUHN.infoset_player == 1
        profile[own1] = KUHN_RNF.strategies[1][j][own1]
        values = policy_values(KUHN, profile)
        assert KUHN_RNF.payoffs[0][k, j] == pytest.approx(values[0], abs=2 * tree_rounding(KUHN))


def test_mixtures_convert_to_behaviour_that_plays_the_same():
    rng = np.random.default_rng(1)
    x0, x1 = rng.dirichlet(np.ones(27)), rng.dirichlet(np.ones(64))
    policy = KUHN_RNF.behavioural(x0, x1)
    assert policy_values(KUHN, policy.probs)[0] == pytest.approx(x0 @ KUHN_RNF.payoffs[0] @ x1)
    with pytest.raises(InvalidParameterError, match="27 non-negative weights"):
        KUHN_RNF.behavioural(np.ones(3) / 3, x1)
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        KUHN_RNF.behavioural(x0 * 2, x1)


def test_reduced_normal_form_refuses_games_too_large():
    with pytest.raises(GameTooLargeError, match="reduced pure strategies"):
        reduced_normal_form(compile_game(LeducHoldemGame()))
    assert KUHN_RNF.matrix_game().num_distinct_actions == 64


# -- Gemp et al. ----------------------------------------------------------------------------


@pytest.mark.parametrize("step", ["softmax", "mirror", "euclidean"])
def test_gemp_drives_the_loss_to_zero_at_the_uniform_point_of_rps(step):
    solver = GempSolver(
        rock_paper_scissors(), tau=0.05, step=step, learning_rate=0.1, init="random", seed=3
    )
    start = solver.loss()
    assert start > 0.5  # measured 1.69 at the random start
    solver.iterate(5000)
    # a convergence threshold, not a rounding one: the loss is a squared gradient norm,
    # whose rounding floor is about (u * payoff)^2 ~ 1e-32 (measured 1e-32 to 4e-30)
    assert solver.loss() < 1e-12
    for x in solver.x:
        np.testing.assert_allclose(x, np.full(3, 1 / 3), atol=1e-6)


def test_gemp_on_weighted_rps_approaches_the_nash_mix():
    # Nash: (2/5, 2/5, 1/5). The tau-QRE is near it (measured (0.4067, 0.3929, 0.2003) at
    # tau=0.05) and approaches it as tau falls.
    far = None
    for tau in (0.05, 0.01):
        solver = GempSolver(weighted_rock_paper_scissors(), tau=tau, init="random", seed=4)
        solver.iterate(20_000)
        assert solver.loss() < 1e-12  # convergence, far above rounding (measured 2e-33)
        err = np.abs(solver.x[0] - [0.4, 0.4, 0.2]).max()
        assert err < 0.01
        assert solver.nash_conv() <= solver.qre_bound()
        if far is not None:
            assert err < far
        far = err


def test_gemp_runs_one_compiled_loop_for_read_only_and_writeable_matrices():
    # A matrix game's payoffs are read-only, a reduced normal form's writeable; numba types
    # the two apart, so the solver passing them on compiled its loop twice.
    import numba

    game = weighted_rock_paper_scissors()
    pair = (np.array(game.row_payoffs), np.array(game.col_payoffs))
    assert not game.row_payoffs.flags.writeable and pair[0].flags.writeable
    read_only, writeable = GempSolver(game, seed=1), GempSolver(pair, seed=1)
    assert numba.typeof(read_only.a) == numba.typeof(writeable.a)
    assert numba.typeof(read_only.b) == numba.typeof(writeable.b)
    np.testing.assert_array_equal(read_only.iterate(50).x[0], writeable.iterate(50).x[0])


def test_gemp_on_kuhn_reduced_normal_form_reaches_the_value_within_the_qre_bound():
    solver = GempSolver(KUHN_RNF, tau=0.05, learning_rate=1.0).iterate(20_000)
    assert solver.loss() < 1e-6  # measured 5.2e-10
    bound = solver.qre_bound()  # tau (ln 27 + ln 64) = 0.373
    assert solver.nash_conv() <= bound  # measured 0.092
    assert abs(solver.values()[0] - (-1 / 18)) <= bound  # measured -0.0287
    # the behavioural policy of the tree is exactly as exploitable as the mixtures
    policy = solver.behavioural_policy()
    # Two routes to one NashConv: four tree expectations (best responses and values) on
    # one side, four bilinear forms over the 27 x 64 matrix (27 + 64 products each, of
    # payoffs up to 2) on the other.
    m0, m1 = KUHN_RNF.shape
    tol = 8 * tree_rounding(KUHN) + 4 * (m0 + m1) * UNIT_ROUNDOFF * 2
    assert nash_conv_array(KUHN, policy.probs) == pytest.approx(solver.nash_conv(), abs=tol)
    assert policy.metadata["algorithm"] == "gemp"


def test_two_sample_estimate_is_unbiased_and_one_sample_is_not():
    game = weighted_rock_paper_scissors()
    a, b = game.row_payoffs, game.col_payoffs
    rng = np.random.default_rng(5)
    x0, x1 = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
    tau = 0.05
    exact = gemp_loss(a, b, x0, x1, tau)
    n = 200_000
    j = rng.choice(3, size=(2, n), p=x1)
    i = rng.choice(3, size=(2, n), p=x0)
    e0 = -tau * (np.log(x0) + 1.0)
    e1 = -tau * (np.log(x1) + 1.0)

    def projected(g):
        return g - g.mean(axis=1, keepdims=True)

    ga0, gb0 = projected(a[:, j[0]].T + e0), projected(a[:, j[1]].T + e0)
    ga1, gb1 = projected(b[i[0]] + e1), projected(b[i[1]] + e1)
    two = (ga0 * gb0).sum(1) + (ga1 * gb1).sum(1)
    one = (ga0 * ga0).sum(1) + (ga1 * ga1).sum(1)
    se = two.std() / np.sqrt(n)
    assert abs(two.mean() - exact) < 4 * se
    assert one.mean() - exact > 20 * se  # the squared single sample adds its variance


def test_sampled_gemp_lowers_the_loss():
    game = rock_paper_scissors()
    solver = GempSolver(game, estimate="sampled", init="random", seed=3, learning_rate=0.002)
    start = solver.loss()
    solver.iterate(200_000)
    assert solver.loss() < 0.05 * start  # measured 1.69 -> 0.0019
    again = GempSolver(game, estimate="sampled", init="random", seed=3, learning_rate=0.002)
    np.testing.assert_array_equal(again.iterate(200_000).x[0], solver.x[0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tau": -1}, "tau"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"eta": (1.0,)}, "eta"),
        ({"step": "newton"}, "step"),
        ({"estimate": "mean"}, "estimate"),
        ({"init": "zeros"}, "init"),
    ],
)
def test_gemp_config_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        GempConfig(**kwargs)


def test_gemp_rejects_what_is_not_a_game():
    with pytest.raises(InvalidParameterError, match="MatrixGame"):
        GempSolver("rps")
    with pytest.raises(InvalidParameterError, match="ReducedNormalForm"):
        GempSolver(rock_paper_scissors()).behavioural_policy()


# -- fictitious play -------------------------------------------------------------------------


@pytest.mark.parametrize("alternating", [False, True])
def test_fictitious_play_average_converges_while_play_cycles(alternating):
    # Robinson (1951): in zero-sum games the empirical averages converge; the pure plays
    # never settle in RPS (its only equilibrium is mixed).
    solver = FictitiousPlay(rock_paper_scissors(), alternating=alternating)
    solver.iterate(100)
    early = solver.exploitability()
    solver.iterate(19_900)
    assert solver.exploitability() < early / 5  # measured 0.07 -> 0.005
    assert solver.exploitability() < 0.01
    assert solver.exploitability("last") == pytest.approx(1.0)  # a pure strategy loses 1
    # still visits every action (its runs of one action lengthen as the counts grow)
    assert len({i for i, _ in solver.history[-5000:]}) == 3


def test_fictitious_play_reaches_the_weighted_rps_and_pennies_equilibria():
    solver = FictitiousPlay(weighted_rock_paper_scissors()).iterate(50_000)
    np.testing.assert_allclose(solver.average()[0], [0.4, 0.4, 0.2], atol=0.01)
    pennies = FictitiousPlay(matching_pennies()).iterate(20_000)
    np.testing.assert_allclose(pennies.average()[1], [0.5, 0.5], atol=0.01)


def test_fictitious_play_on_kuhn_reduced_normal_form_approaches_the_value():
    solver = FictitiousPlay(KUHN_RNF).iterate(20_000)
    x0, x1 = solver.average()
    assert x0 @ KUHN_RNF.payoffs[0] @ x1 == pytest.approx(-1 / 18, abs=0.01)
    assert solver.exploitability() < 0.02


# -- regret matching ------------------------------------------------------------------------

SAMPLED_ROUNDS = 20_000
SAMPLED_SEEDS = 10


@pytest.mark.parametrize(
    ("game", "equilibrium", "payoff_range"),
    [
        (rock_paper_scissors(), [1 / 3, 1 / 3, 1 / 3], 2.0),
        (weighted_rock_paper_scissors(), [0.4, 0.4, 0.2], 4.0),
    ],
    ids=["rps", "weighted-rps"],
)
def test_sampled_regret_matching_average_converges_to_the_equilibrium(
    game, equilibrium, payoff_range
):
    # Hart & Mas-Colell (2000): with regret matching a player's average regret is at most
    # about range * sqrt(actions - 1) / sqrt(T) (0.020 for RPS, 0.040 for the weighted
    # game at 20,000 rounds); exploitability (NashConv / 2) is at most the players' mean
    # average regret. Every one of 10 seeds must be under that bound, which is 8x below
    # uniform's 1/3 on the weighted game (measured max over 20 seeds: 0.012 and 0.020).
    # The current mixtures keep moving: at least one seed ends far from the equilibrium.
    bound = payoff_range * np.sqrt(2) / np.sqrt(SAMPLED_ROUNDS)
    current = []
    for seed in range(SAMPLED_SEEDS):
        solver = RegretMatching(game, feedback="sampled", seed=seed).iterate(SAMPLED_ROUNDS)
        assert solver.exploitability() < bound
        assert solver.exploitability("empirical") < bound
        np.testing.assert_allclose(solver.average()[0], equilibrium, atol=0.03)
        np.testing.assert_allclose(solver.average()[1], equilibrium, atol=0.03)
        assert solver.counts[0].sum() == SAMPLED_ROUNDS
        current.append(solver.exploitability("current"))
    assert max(current) > 10 * bound


def test_full_feedback_regret_matching_converges_on_the_weighted_game():
    solver = RegretMatching(weighted_rock_paper_scissors(), feedback="full").iterate(20_000)
    assert solver.exploitability() < 4.0 * np.sqrt(2) / np.sqrt(20_000)  # measured 0.0032
    np.testing.assert_allclose(solver.average()[0], [0.4, 0.4, 0.2], atol=0.01)


def test_sampled_regret_is_an_unbiased_estimate_of_the_full_regret():
    # From one fixed pair of mixtures, the mean of many sampled regret increments equals
    # the full-feedback increment (within 4 standard errors per action).
    game = weighted_rock_paper_scissors()
    # regrets whose matched mixtures are (.75, .25, 0) and (0, .5, .5)
    start = [np.array([3.0, 1.0, 0.0]), np.array([0.0, 2.0, 2.0])]
    full = RegretMatching(game, feedback="full")
    full.regrets = [r.copy() for r in start]
    full.iterate(1)
    expected = [full.regrets[k] - start[k] for k in range(2)]
    draws = 20_000
    increments = np.zeros((2, draws, 3))
    for seed in range(draws):
        solver = RegretMatching(game, feedback="sampled", seed=seed)
        solver.regrets = [r.copy() for r in start]
        solver.iterate(1)
        for k in range(2):
            increments[k, seed] = solver.regrets[k] - start[k]
    for k in range(2):
        mean = increments[k].mean(axis=0)
        stderr = increments[k].std(axis=0, ddof=1) / np.sqrt(draws)
        assert np.all(np.abs(mean - expected[k]) <= 4 * stderr + 1e-12)
    # and it is a different estimator: single increments vary, the full one does not
    assert increments[0].std(axis=0).max() > 0.5


def test_regret_matching_is_seeded():
    one = RegretMatching(rock_paper_scissors(), feedback="sampled", seed=5).iterate(500)
    two = RegretMatching(rock_paper_scissors(), feedback="sampled", seed=5).iterate(500)
    other = RegretMatching(rock_paper_scissors(), feedback="sampled", seed=6).iterate(500)
    np.testing.assert_array_equal(one.regrets[0], two.regrets[0])
    assert not np.array_equal(one.regrets[0], other.regrets[0])


def test_regret_matching_errors():
    with pytest.raises(InvalidParameterError, match="feedback"):
        RegretMatching(rock_paper_scissors(), feedback="bandit")
    with pytest.raises(InvalidParameterError, match="which"):
        RegretMatching(rock_paper_scissors()).exploitability("best")
    with pytest.raises(InvalidParameterError, match="seed"):
        RegretMatching(rock_paper_scissors(), seed=-1)
    with pytest.raises(InvalidParameterError, match="MatrixGame"):
        RegretMatching("rps")


def test_fictitious_play_errors():
    solver = FictitiousPlay(MatrixGame([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(InvalidParameterError, match="iterate"):
        solver.last()
    with pytest.raises(InvalidParameterError, match="which"):
        solver.exploitability("best")
    with pytest.raises(InvalidParameterError, match="alternating"):
        FictitiousPlay(rock_paper_scissors(), alternating="yes")


def test_gemp_mirror_steps_equal_openspiels_adidas_sgd():
    # OpenSpiel's ADIDAS SGD solver (nonsymmetric/sgd.py) descends the same loss with the
    # same entropic mirror step; from the uniform point both trajectories must agree.
    # Not to rounding, though: the peer keeps every probability at least eps / dim with
    # eps = exp(-1 / tau) (its interior projection, x <- (1 - t) x + t / dim with
    # t <= eps / (1 - eps)), which ours does not; each projection moves a point by at
    # most t in every coordinate, so after n steps (which contract towards the QRE, not
    # apart) the trajectories are within n t of each other: 6.2e-7 here, measured 1.5e-8
    # on Kuhn's reduced normal form; one step more or less moves them by about 1.
    sgd = pytest.importorskip("open_spiel.python.algorithms.adidas_utils.solvers.nonsymmetric.sgd")
    steps, tau = 300, 0.05
    for game in (weighted_rock_paper_scissors(), KUHN_RNF):
        ours = GempSolver(game, tau=tau, step="mirror", learning_rate=0.1).iterate(steps)
        a, b = ours.a, ours.b
        matrices = {(0, 1): np.stack([a, b])}
        peer = sgd.Solver(temperature=tau, proj_grad=True, euclidean=False, lrs=(0.1,))
        assert peer.eps == pytest.approx(np.exp(-1 / tau))
        params = peer.init_vars(list(a.shape), 2)
        for t in range(steps):
            grads, _, _ = peer.compute_gradients(params, (matrices, matrices))
            params = peer.update(params, grads, t)
        tol = steps * peer.eps / (1 - peer.eps)
        for x, y in zip(ours.x, params[0]):
            np.testing.assert_allclose(x, y, rtol=0, atol=tol)
