"""Nash memory over agents (issue 36 item 3): the exact oracle and exact meta-game solve
Kuhn; the measured meta-game's entries agree with the exact ones; a learned oracle finds
an agent that beats the mixture; mixtures draw their members by weight."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nashzoo.agents.nash_memory import (
    MixtureAgent,
    PopulationNashMemory,
    exact_measure,
    exact_oracle,
)
from nashzoo.agents.nash_memory.population import solve_meta_game
from nashzoo.bounds import duplicate_measure
from nashzoo.errors import InvalidParameterError
from nashzoo.games import KuhnPokerGame
from nashzoo.games.matrix import MatrixGame
from tests.conftest import coverage_paused

KUHN = KuhnPokerGame()
UNIFORM_KUHN = 11 / 24


def test_exact_oracle_and_exact_meta_game_solve_kuhn():
    # Ficici & Pollack's Nash memory on the seat-symmetrised game: with exact best
    # responses and exact entries the mixture reaches an equilibrium (measured: exactly 0
    # after 11 iterations, from uniform's 0.458)
    memory = PopulationNashMemory(KUHN).iterate(12)
    assert memory.history[0].exploitability == pytest.approx(0.4167, abs=1e-4)
    assert min(r.exploitability for r in memory.history) < 1e-9
    scores = memory.scores
    np.testing.assert_allclose(scores, -scores.T, atol=1e-12)  # antisymmetric meta-game
    assert np.all(memory.stderrs == 0)
    # each best response gains what the mixture leaves open: its gain is the mixture's
    # exploitability before it joined (exact, both seats)
    gains = [r.gain[0] for r in memory.history]
    before = [UNIFORM_KUHN] + [r.exploitability for r in memory.history[:-1]]
    np.testing.assert_allclose(gains, before, atol=1e-9)


def test_measured_meta_game_agrees_with_the_exact_one():
    # the same loop with duplicate matches for the entries (AIVAT: tabular agents state
    # their probabilities): every entry within 4.5 standard errors of the exact score,
    # and the mixture still far below uniform's exploitability
    memory = PopulationNashMemory(KUHN, measure=duplicate_measure(deals=1500)).iterate(2)
    with coverage_paused():  # the second iteration ran the lines of the next four
        memory.iterate(4)  # (all six: 33 s traced, 20 s plain)
    n = len(memory.members)
    checked = 0
    for i in range(n):
        for j in range(i + 1, n):
            exact, _ = exact_measure(KUHN, memory.members[i], memory.members[j], 0)
            assert abs(memory.scores[i, j] - exact) <= 4.5 * memory.stderrs[i, j] + 1e-9
            assert memory.stderrs[i, j] > 0
            checked += 1
    assert checked == n * (n - 1) // 2 >= 21
    assert memory.history[-1].exploitability < UNIFORM_KUHN / 3


def test_a_learned_oracle_beats_the_mixture_it_trained_against():
    pytest.importorskip("sb3_contrib")
    import torch

    from nashzoo.bounds import learned_oracle

    torch.set_num_threads(1)
    memory = PopulationNashMemory(
        KUHN,
        oracle=learned_oracle(steps=6000, num_envs=4, n_steps=64),
        measure=duplicate_measure(deals=1000),
    ).iterate(1)
    gain, stderr = memory.history[0].gain
    # against uniform Kuhn a best response wins 0.458 per game; the learned one must win
    # with a 95% interval above 0, and the LP then moves weight onto it
    assert gain - 1.96 * stderr > 0
    assert memory.weights[1] > 0.5
    # the learned member states its probabilities: tabulated, the mixture is measured
    # exactly, and the best response's gain (sampled) is close to uniform's exploitability
    assert memory.history[0].exploitability < UNIFORM_KUHN
    assert abs(gain - UNIFORM_KUHN) < 0.25


def test_the_thesis_loop_with_a_learned_oracle_falls_monotonically_on_kuhn():
    """Issue 92: Nash memory as the thesis defines it (admission at 1.96 standard errors,
    a bounded memory, the robust meta-solver) with a learned oracle (MaskablePPO, 2,048
    steps) and 1,000-deal duplicate entries, five generations on Kuhn. Each generation's
    mixture is measured exactly (its learned members tabulated over the tree). The curve
    falls, and never climbs above the lowest point it had reached by more than 1% of
    uniform's exploitability (the tolerance of ``nash_memory_vs_cfr.py --section
    learned``). Measured: 0.314, 0.275, 0.275 (rejected), 0.275 (rejected), 0.261.

    What this pins is measured at this seed and budget, not a theorem: the thesis
    promises that the mixture's security against the memory never falls, not that its
    exploitability in the whole game does. A rejected candidate leaves the mixture as it
    was (checked below), but an admitted one can still raise it: on Leduc the
    benchmark finds such rises. The PSRO loop with the same oracle, matches and seed
    admits every candidate and here stays within the tolerance too (0.314, 0.275, 0.272,
    0.275, 0.253)."""
    pytest.importorskip("sb3_contrib")
    import torch

    from nashzoo.agents.nash_memory import NashMemoryConfig, NashMemoryLearner

    torch.set_num_threads(1)
    config = NashMemoryConfig(oracle="learned", oracle_steps=2048, oracle_envs=4,
                              meta_deals=1000, memory_cap=8, meta_solver="robust")  # fmt: skip
    history = NashMemoryLearner(KUHN, config).memory.iterate(5).history
    curve = np.array([r.exploitability for r in history])
    lowest = np.minimum.accumulate(curve)
    assert np.all(curve[1:] - lowest[:-1] <= 0.01 * UNIFORM_KUHN), curve
    # not monotone by standing still: candidates joined after the first and the mixture
    # ends well below uniform's 0.458
    assert sum(r.admitted for r in history[1:]) >= 2, curve
    assert curve[-1] < 0.6 * UNIFORM_KUHN, curve
    # a rejected candidate leaves the mixture, and so its exploitability, unchanged
    for before, r in itertools.pairwise(history):
        if not r.admitted:
            assert r.exploitability == before.exploitability


def test_mixture_agents_draw_members_by_weight():
    class Fixed:
        def __init__(self, action):
            self.action = action

        def reset(self, *, seed=None):
            pass

        def act(self, observation, info):
            return self.action

    mixture = MixtureAgent([Fixed(0), Fixed(1), Fixed(2)], np.array([0.2, 0.0, 0.8]), seed=1)
    drawn = []
    for _ in range(5000):
        mixture.reset()
        drawn.append(mixture.act(None, None))
    counts = np.bincount(drawn, minlength=3) / 5000
    assert counts[1] == 0
    assert abs(counts[0] - 0.2) < 4.5 * np.sqrt(0.2 * 0.8 / 5000)
    with pytest.raises(InvalidParameterError, match="summing to 1"):
        MixtureAgent([Fixed(0)], np.array([0.5]))


def test_nash_memory_refuses_what_it_cannot_solve():
    not_zero_sum = MatrixGame([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(InvalidParameterError, match="zero-sum"):
        PopulationNashMemory(not_zero_sum)
    memory = PopulationNashMemory(KUHN)
    with pytest.raises(InvalidParameterError, match="tabular"):
        exact_oracle(KUHN, MixtureAgent([object()], np.array([1.0])), 0)
    with pytest.raises(InvalidParameterError, match="deals"):
        duplicate_measure(deals=0)
    assert len(memory.members) == 1


def test_the_duplicate_measure_corrects_chance_when_an_agent_only_acts():
    # a mixture draws one member per game and states no probabilities; its matches still
    # get AIVAT's chance corrections (and the other agent's), so the meta-game's entries
    # are as precise as the game's value function allows, not only common random numbers
    from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
    from nashzoo.eval import head_to_head

    solver = CFRPlusSolver(KUHN)
    solver.iterate(3)
    stated = TabularPolicyAgent(solver.average_policy(), name="cfr+3")
    uniform = TabularPolicyAgent(CFRPlusSolver(KUHN).average_policy(), name="uniform")
    act_only = MixtureAgent([uniform], np.array([1.0]), seed=0)
    mean, stderr = duplicate_measure(deals=2000)(KUHN, stated, act_only, 4)
    aivat = head_to_head(KUHN, stated, act_only, deals=2000, seed=4, variance_reduction="aivat")
    crn = head_to_head(KUHN, stated, act_only, deals=2000, seed=4, variance_reduction="crn")
    assert (mean, stderr) == (aivat.mean, aivat.stderr)
    # uniform play's values on Kuhn: measured 0.0104 against common random numbers' 0.0125
    assert stderr < crn.stderr, (stderr, crn.stderr)
    exact = head_to_head(KUHN, stated, uniform, exact=True).mean
    assert abs(mean - exact) <= 4.5 * stderr


# -- the thesis' Nash memory: admission, a bounded memory, a robust meta-solver (issue 92) ----
class _Token:
    """A member that only names a row of a fixed payoff table."""

    def __init__(self, row):
        self.row = row
        self.name = f"s{row}"

    def reset(self, *, seed=None):
        pass


def _table_memory(table, stderrs, candidates, **settings):
    """Nash memory over a fixed symmetric meta-game: member ``i`` scores ``table[i, j]``
    (standard error ``stderrs[i, j]``) against member ``j``; the oracle proposes
    ``candidates`` in order."""
    table, stderrs = np.asarray(table, float), np.asarray(stderrs, float)
    proposals = iter(candidates)

    def measure(game, a, b, seed):
        return table[a.row, b.row], stderrs[a.row, b.row]

    def oracle(game, mixture, seed):
        return _Token(next(proposals))

    return PopulationNashMemory(
        KUHN, oracle=oracle, measure=measure, initial=[_Token(0)], **settings
    )


def test_a_candidate_joins_only_if_it_beats_the_mixture_by_more_than_its_uncertainty():
    # rows: 0 the first member; 1 beats it by 0.5 (se 0.1): in; 2 by 0.1 (se 0.1: the
    # interval 0.1 +- 0.196 reaches below 0): out; 3 loses: out
    table = np.array([[0, -0.5, -0.1, 0.2], [0.5, 0, 0, 0], [0.1, 0, 0, 0], [-0.2, 0, 0, 0]])
    stderrs = np.full((4, 4), 0.1) - 0.1 * np.eye(4)
    memory = _table_memory(table, stderrs, [2, 3, 1, 2]).iterate(4)
    admitted = [r.admitted for r in memory.history]
    assert admitted == [False, False, True, False]
    assert [m.row for m in memory.members] == [0, 1]
    # the rejected are logged with their measured gains against the mixture
    np.testing.assert_allclose([r.gain[0] for r in memory.history], [0.1, -0.2, 0.5, 0.0])
    np.testing.assert_allclose([r.gain[1] for r in memory.history], [0.1, 0.1, 0.1, 0.1])
    assert memory.weights.tolist() == [0.0, 1.0]
    # with no test (the PSRO loop) every candidate joins; a margin of 0 and z = 0 lets
    # the point estimate decide
    psro = _table_memory(table, stderrs, [2, 3], admission_margin=None).iterate(2)
    assert [m.row for m in psro.members] == [0, 2, 3]
    point = _table_memory(table, stderrs, [2], admission_z=0.0).iterate(1)
    assert point.history[0].admitted


def test_members_that_leave_the_support_are_remembered_and_the_oldest_evicted_at_the_cap():
    # transitive: strategy i beats every j < i by 1, so each newcomer is the whole support
    # and its predecessor moves to the memory
    table = np.subtract.outer(np.arange(5), np.arange(5)).clip(-1, 1).astype(float)
    memory = _table_memory(table, np.zeros((5, 5)), [1, 2, 3, 4], memory_cap=1)
    memory.iterate(2)  # members 0, 1, 2: support {2}, memory {0, 1} over the cap of 1
    assert [m.row for m in memory.members] == [1, 2]  # 0 left the support first: evicted
    assert [r.evicted for r in memory.history] == [0, 1]
    assert memory.support == [1] and memory.memory == [0]
    memory.iterate(2)
    assert [m.row for m in memory.members] == [3, 4] and memory.weights.tolist() == [0.0, 1.0]
    assert memory.scores.shape == memory.stderrs.shape == (2, 2)
    unbounded = _table_memory(table, np.zeros((5, 5)), [1, 2, 3, 4]).iterate(4)
    assert len(unbounded.members) == 5 and sum(r.evicted for r in unbounded.history) == 0


def test_the_robust_meta_solver_hedges_against_an_uncertain_entry():
    # s0 beats s1 by 0.1 by the means, so Nash plays s0 alone; but that entry's standard
    # error is 0.5. Within 1.96 standard errors the worst case puts each entry at its
    # lower end, L = [[0, 0.1 - 0.98], [-0.1 - 0.98, 0]], whose maximin plays s0 with
    # 1.08 / 1.96 = 0.551 and s1 with 0.88 / 1.96 = 0.449
    scores = np.array([[0.0, 0.1], [-0.1, 0.0]])
    stderrs = np.array([[0.0, 0.5], [0.5, 0.0]])
    np.testing.assert_allclose(solve_meta_game(scores, stderrs, "nash"), [1.0, 0.0], atol=1e-9)
    robust = solve_meta_game(scores, stderrs, "robust", z=1.96)
    np.testing.assert_allclose(robust, [1.08 / 1.96, 0.88 / 1.96], atol=1e-9)
    # exact entries: the same mixture either way
    np.testing.assert_allclose(
        solve_meta_game(scores, np.zeros((2, 2)), "robust"), [1.0, 0.0], atol=1e-9
    )
    memory = _table_memory(
        np.array([[0, -0.1], [0.1, 0]]), np.array([[0, 0.5], [0.5, 0]]), [1],
        admission_margin=None, meta_solver="robust",
    ).iterate(1)  # fmt: skip
    np.testing.assert_allclose(memory.weights, [0.88 / 1.96, 1.08 / 1.96], atol=1e-9)
    with pytest.raises(InvalidParameterError, match="meta_solver.*'nash', 'robust'"):
        PopulationNashMemory(KUHN, meta_solver="bayes")
    with pytest.raises(InvalidParameterError, match="memory_cap"):
        PopulationNashMemory(KUHN, memory_cap=-1)
    with pytest.raises(InvalidParameterError, match="admission_z"):
        PopulationNashMemory(KUHN, admission_z=-1.0)
    with pytest.raises(InvalidParameterError, match="shape"):
        solve_meta_game(scores, np.zeros((3, 3)))


def _pure_oracle(game, mixture, seed):
    """A candidate that depends on its seed alone: a seeded random pure policy (so the
    candidates of one iteration differ, and the best of them is known exactly)."""
    from nashzoo.agents.cfr.agent import TabularPolicyAgent
    from nashzoo.tree import TabularPolicy, compile_game

    tree = compile_game(game)
    rng = np.random.default_rng(seed)
    probs = np.zeros(tree.legal_mask.shape)
    for row, legal in enumerate(tree.legal_mask):
        probs[row, rng.choice(np.flatnonzero(legal))] = 1.0
    return TabularPolicyAgent(TabularPolicy(tree, probs), name=f"pure-{seed}")


def test_of_several_candidates_the_one_with_the_best_lower_bound_is_measured_for_admission():
    # four candidates from seeds 0, 104729, 209458, 314187 against the uniform mixture:
    # their exact gains are computed here, and the iteration's candidate is the best one
    uniform = PopulationNashMemory(KUHN).members[0]
    seeds = [0] + [104_729 * j for j in range(1, 4)]
    gains = [exact_measure(KUHN, _pure_oracle(KUHN, None, s), uniform, 0)[0] for s in seeds]
    assert len(set(gains)) > 1  # the candidates differ
    best = int(np.argmax(gains))
    many = PopulationNashMemory(KUHN, oracle=_pure_oracle, candidates=4)
    many.iterate(1)
    assert many.history[0].gain == (pytest.approx(gains[best]), 0.0)
    assert many.history[0].admitted == (gains[best] > 0)
    assert many.members[-1].name == f"pure-{seeds[best]}"
    one = PopulationNashMemory(KUHN, oracle=_pure_oracle)  # the first seed's candidate only
    one.iterate(1)
    assert one.history[0].gain[0] == pytest.approx(gains[0])
    with pytest.raises(InvalidParameterError, match="candidates"):
        PopulationNashMemory(KUHN, candidates=0)
