"""Deep CFR (issue 36 item 1): it learns Kuhn, its strategy is regret matching on the
advantage network, it is seeded end to end, and a saved run resumes exactly."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nashzoo.agents.neural_cfr import DeepCFR, DeepCFRConfig
from nashzoo.agents.nfsp import NFSP, NFSPConfig
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.eval.matches import head_to_head
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from tests.conftest import coverage_paused

KUHN = KuhnPokerGame()
UNIFORM_KUHN = 11 / 24  # exploitability of the uniform policy (exact, tests/eval)
SMALL = DeepCFRConfig(traversals=30, regret_steps=20, policy_steps=50, batch_size=64)


@pytest.fixture(autouse=True)
def one_thread():
    torch.set_num_threads(1)


@pytest.mark.slow  # 27 s in CI; short versions: tests/agents/test_runtime.py, the new games
def test_deep_cfr_learns_kuhn_well_below_uniform():
    # OpenSpiel's example settings (the defaults), 15 iterations (about 3 s here, over the
    # compiled tree): measured 0.035, 0.028 and 0.038 for seeds 0-2 (over the rules:
    # 0.040, 0.066, 0.047). The bound is a quarter of uniform's 0.458; Kuhn's equilibria
    # are at 0.
    learner = DeepCFR(KUHN, DeepCFRConfig(seed=0)).train(steps=15)
    assert learner.traversals == 15 * 2 * 375
    assert learner.exploitability() < UNIFORM_KUHN / 4
    # and its agent plays through the Agent protocol: it beats a uniform player
    # (Kuhn's value for the stronger side against uniform is well above 0)
    result = head_to_head(KUHN, learner.agent(seed=1), build_agent("random", KUHN), deals=2000)
    assert result.ci95[0] > 0


def test_the_current_strategy_is_regret_matching_on_the_advantage_network():
    learner = DeepCFR(KUHN, SMALL)
    net = learner.regret_nets[0]
    state = KUHN.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    key = state.information_state_string(0)
    view = learner.observations.get(state, 0, key)
    last = net[-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.tensor([3.0, 1.0]))
    np.testing.assert_allclose(learner._strategy(0, key, view.tensor, view.mask), [0.75, 0.25])
    # cached until the network is fitted again
    with torch.no_grad():
        last.bias.copy_(torch.tensor([-3.0, -1.0]))
    np.testing.assert_allclose(learner._strategy(0, key, view.tensor, view.mask), [0.75, 0.25])
    learner._strategies[0] = {}
    # no positive advantage: all weight on the highest one
    np.testing.assert_allclose(learner._strategy(0, key, view.tensor, view.mask), [0.0, 1.0])


def test_sampled_regrets_are_zero_in_expectation_under_the_strategy():
    # every advantage row is v(a) - sigma . v over the legal actions, so sigma . r = 0:
    # recompute sigma from the advantage network of the iteration that wrote the rows
    learner = DeepCFR(KUHN, replace(SMALL, seed=2, reinitialize_regrets=False))
    learner._fit_regrets = lambda player, t, steps, reinitialize: 0.0  # keep the initial networks
    learner.train(steps=1)
    memory = learner.regret_memory[0]
    obs = memory.obs.read(np.arange(memory.size))
    targets = memory.columns["target"][: memory.size]
    with torch.no_grad():
        raw = learner.regret_nets[0](torch.from_numpy(obs)).numpy()
    positive = np.maximum(raw, 0)
    sigma = np.where(
        positive.sum(1, keepdims=True) > 0,
        positive / np.maximum(positive.sum(1, keepdims=True), 1e-12),
        np.eye(2)[raw.argmax(1)],
    )
    assert memory.size > 0
    np.testing.assert_allclose((sigma * targets).sum(1), 0.0, atol=1e-6)
    assert np.abs(targets).max() > 0.5  # the rows are not all zero


@pytest.mark.parametrize("path", ["tree", "rules"])
@pytest.mark.parametrize(
    "game, sampled",
    [(KUHN, 0), (LeducHoldemGame(), 0), (KUHN, 1), (LeducHoldemGame(), 2)],
    ids=["kuhn", "leduc", "kuhn-robust-1", "leduc-robust-2"],
)
def test_both_traversal_paths_record_unbiased_regret_rows(path, game, sampled):
    # External sampling explores all the traverser's actions and draws the rest: at each of
    # its information sets, the mean over N traversals of the stored regret rows is, in
    # expectation, the sum over the set's histories of (chance and opponent reach) x
    # (q(h, a) - sigma . q(h)), computed here by brute force over the rules. Both paths
    # (numba over the compiled tree, Python over the rules) must agree with it at every
    # information set met at least 50 times (within 4.5 standard errors). With
    # ``sampled_actions`` = k (robust sampling) a traversal explores k of the legal actions
    # (1 of Kuhn's 2; 2 of Leduc's 3 where raising is legal), weighted by |A| / k: the
    # rows stay unbiased, and a history's weight is also the chance that its own actions
    # were explored.
    from collections import defaultdict

    from tests.agents.test_escher import _check_rows, _expected_rows, _mixed_strategies

    traversals = (4000 if game is KUHN else 1500) * (2 if sampled else 1)
    config = replace(
        SMALL, seed=5, traversals=traversals, tree=path == "tree", sampled_actions=sampled
    )
    learner = DeepCFR(game, config)
    assert (learner.tree is not None) == (path == "tree")
    _mixed_strategies(learner)
    expected: dict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(learner.num_actions))
    _expected_rows(learner, game.new_initial_state(), 0, 1.0, 1.0, expected, explored=sampled)
    learner._fit_regrets = lambda player, t, steps, reinitialize: 0.0  # keep the networks
    # robust Leduc over the rules runs the lines of robust Kuhn and of Leduc over the
    # rules: untraced (10 s traced, 3 s plain)
    heavy = path == "rules" and game is not KUHN and sampled
    with coverage_paused() if heavy else contextlib.nullcontext():
        learner._iteration()
    _check_rows(learner.regret_memory[0], expected, traversals, 6 if game is KUHN else 12)


def test_deep_cfr_is_seeded_end_to_end():
    one = DeepCFR(KUHN, replace(SMALL, seed=4)).train(steps=3)
    two = DeepCFR(KUHN, replace(SMALL, seed=4)).train(steps=3)
    other = DeepCFR(KUHN, replace(SMALL, seed=5)).train(steps=3)
    np.testing.assert_array_equal(one.average_policy().probs, two.average_policy().probs)
    for a, b in zip(one.regret_nets[1].parameters(), two.regret_nets[1].parameters()):
        assert torch.equal(a, b)
    assert not np.array_equal(one.average_policy().probs, other.average_policy().probs)


def test_a_saved_run_resumes_exactly(tmp_path):
    # 3 iterations, save, load, 2 more == 5 iterations in one go: memories, networks,
    # optimisers and the random stream all travel in the file
    straight = DeepCFR(KUHN, replace(SMALL, seed=6, reinitialize_regrets=False)).train(steps=5)
    first = DeepCFR(KUHN, replace(SMALL, seed=6, reinitialize_regrets=False)).train(steps=3)
    path = first.save(tmp_path / "dcfr.pt")
    resumed = DeepCFR.load(path)
    assert resumed.iterations == 3 and resumed.strategy_memory.size == first.strategy_memory.size
    np.testing.assert_array_equal(resumed.average_policy().probs, first.average_policy().probs)
    resumed.train(steps=2)
    for a, b in zip(straight.regret_nets[0].parameters(), resumed.regret_nets[0].parameters()):
        assert torch.equal(a, b)
    np.testing.assert_array_equal(straight.average_policy().probs, resumed.average_policy().probs)
    # the file is an agent every tool reads
    agent = build_agent(str(path), KUHN)
    assert agent.name == "dcfr"


def test_an_agent_file_plays_like_the_checkpoint_and_refuses_to_resume(tmp_path, capsys):
    # saved without its memories, the file is a small agent file: the same average policy,
    # loadable by every tool, but training (and `nashzoo train --resume`) refuse it
    from nashzoo.cli import main

    learner = DeepCFR(KUHN, replace(SMALL, seed=7)).train(steps=3)
    full = learner.save(tmp_path / "full.pt")
    slim = learner.save(tmp_path / "slim.pt", memories=False)
    assert slim.stat().st_size < full.stat().st_size
    loaded = DeepCFR.load(slim)
    assert not loaded.resumable and DeepCFR.load(full).resumable
    assert loaded.strategy_memory.size == 0 and loaded.iterations == 3
    np.testing.assert_array_equal(loaded.average_policy().probs, learner.average_policy().probs)
    assert build_agent(str(slim), KUHN).name == "slim"
    with pytest.raises(InvalidParameterError, match="agent file saved without its memories"):
        loaded.train(steps=1)
    capsys.readouterr()
    assert main(["train", "deep-cfr", "kuhn_poker", "--steps", "4", "--resume", str(slim)]) == 2
    assert "agent file, saved without the learner's memories" in capsys.readouterr().err


def test_deep_cfr_refuses_what_is_wrong(tmp_path):
    with pytest.raises(InvalidParameterError, match="DeepCFRConfig"):
        DeepCFR(KUHN, NFSPConfig())
    with pytest.raises(InvalidParameterError, match="two-player nashzoo Game"):
        DeepCFR("kuhn_poker")
    with pytest.raises(InvalidParameterError, match="traversals"):
        DeepCFRConfig(traversals=0)
    nfsp_file = NFSP(KUHN, NFSPConfig(batch_games=4)).save(tmp_path / "nfsp.pt")
    with pytest.raises(PolicyFileError, match="'nashzoo.nfsp'.*'nashzoo.deep_cfr'"):
        DeepCFR.load(nfsp_file)
    # a file whose networks do not fit its config (another shape) is refused
    learner = DeepCFR(KUHN, SMALL)
    state = torch.load(learner.save(tmp_path / "d.pt"), weights_only=True)
    state["config"]["regret_sizes"] = [7]
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(PolicyFileError, match="regret"):
        DeepCFR.load(tmp_path / "bad.pt")


def test_external_sampling_is_refused_where_one_traversal_cannot_finish():
    """Goofspiel with 13 cards: exploring every bid of one player is 13! = 6.2e9 leaves a
    traversal. Knuth's estimator gives exactly that (the traverser's branching does not
    depend on the opponent's choices), and training says so instead of running forever;
    robust sampling trains."""
    import math

    import nashzoo
    from nashzoo.agents.neural_cfr.deep_cfr import TRAVERSAL_LIMIT, traversal_size

    big = nashzoo.make_game("goofspiel")
    assert traversal_size(big, 0) == pytest.approx(math.factorial(13))
    assert traversal_size(nashzoo.make_game("goofspiel", num_cards=4), 1) == 24
    learner = DeepCFR(big, replace(SMALL, traversals=1))
    with pytest.raises(InvalidParameterError, match=r"sampled_actions=0.*6\.2e\+09 leaves"):
        learner.train(steps=1)
    assert learner.iterations == 0 and math.factorial(13) > TRAVERSAL_LIMIT
    sampled = DeepCFR(big, replace(SMALL, traversals=1, sampled_actions=1, regret_steps=1))
    sampled.train(steps=1)
    assert sampled.iterations == 1
