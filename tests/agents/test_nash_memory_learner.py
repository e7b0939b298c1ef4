"""Nash memory as a learner (issue 36 item 5): ``nashzoo train nash-memory``, files that
reload the same mixture (data only), agent files everywhere an agent goes, and the exact
and learned oracles picked by the game."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nashzoo.agents.nash_memory.learner import NashMemoryConfig, NashMemoryLearner
from nashzoo.errors import GameTooLargeError, InvalidParameterError, PolicyFileError
from nashzoo.games import KuhnPokerGame

pytest.importorskip("torch")

KUHN = KuhnPokerGame()
UNIFORM_KUHN = 11 / 24  # exploitability of the uniform policy in Kuhn (chips per game)


def test_the_exact_learner_solves_kuhn_and_its_file_reloads_the_same_mixture(tmp_path):
    # With the exact oracle (Kuhn compiles) the mixture is an equilibrium after 12
    # iterations (exploitability 0 within rounding, from uniform's 11/24); the saved file
    # reloads members, meta-game and history, so the reloaded mixture has the same
    # exploitability to the last bit and training resumes from where it stopped.
    learner = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3)).train(steps=12)
    assert learner.exact and learner.steps == 12
    value = learner.exploitability()
    assert value < 1e-9
    path = learner.save(tmp_path / "nm.pt")
    again = NashMemoryLearner.load(path)
    assert again.exploitability() == value
    np.testing.assert_array_equal(again.memory.weights, learner.memory.weights)
    assert [r.exploitability for r in again.history] == [r.exploitability for r in learner.history]
    again.train(steps=1)
    learner.train(steps=1)
    assert again.exploitability() == learner.exploitability()


def test_the_meta_game_measured_on_actors_is_the_one_measured_here():
    """Issue 92 item 5: each round of entries (a candidate against the support, then
    against the memory) split between two local actors; the exact learner's meta-game,
    mixtures and iteration count are this process's, bit for bit."""
    here = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3)).train(steps=12)
    there = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3, actors=2)).train(steps=12)
    np.testing.assert_array_equal(there.memory.scores, here.memory.scores)
    np.testing.assert_array_equal(there.memory.weights, here.memory.weights)
    assert there.exploitability() == here.exploitability() < 1e-9
    assert there.version > 12 and there._rounds.runtime is None  # measured there, then stopped
    with pytest.raises(InvalidParameterError, match="max_staleness does not apply"):
        NashMemoryLearner(KUHN, NashMemoryConfig(actors=2, max_staleness=0))


def test_candidates_trained_on_actors_are_the_ones_trained_here():
    """Issue 92 item 5: an iteration's candidates train on the actors (candidate j on
    actor j mod 2, the mixture sent as data and each candidate sent back as data); with
    the same seeds the learner admits the same candidates and measures the same meta-game
    as in this process, and three candidates an iteration do no worse than one."""
    from nashzoo.agents.nash_memory import exact_measure
    from tests.agents.test_population_nash_memory import _pure_oracle

    def learner(**settings):
        config = NashMemoryConfig(seed=3, oracle="learned", **settings)
        return NashMemoryLearner(KUHN, config, oracle=_pure_oracle, measure=exact_measure)

    here = learner(candidates=3).train(steps=6)
    there = learner(candidates=3, actors=2).train(steps=6)
    assert [m.name for m in there.memory.members] == [m.name for m in here.memory.members]
    np.testing.assert_array_equal(there.memory.scores, here.memory.scores)
    np.testing.assert_array_equal(there.memory.weights, here.memory.weights)
    assert there.exploitability() == here.exploitability()
    # 6 iterations, each one round of candidates and at least one round of entries
    assert there.version >= 12
    one = learner().train(steps=6)
    gains = [r.gain[0] for r in here.history]
    assert gains[0] >= one.history[0].gain[0]  # the best of three beats the first seed's
    with pytest.raises(InvalidParameterError, match="candidates"):
        NashMemoryConfig(candidates=0)


def test_the_learned_learner_saves_its_networks_as_data(tmp_path):
    # oracle="learned" on Kuhn: MaskablePPO best responses and duplicate-match entries.
    # Its file holds the members' policy weights only (read with weights_only=True), and
    # the reloaded members state the same probabilities at every information set.
    pytest.importorskip("sb3_contrib")
    import torch

    from nashzoo.agents.torch_files import read_torch_file
    from nashzoo.tree import TabularPolicy, compile_game

    torch.set_num_threads(1)
    # (every candidate admitted: a 2,048-step best response need not beat the mixture
    # by two standard errors, and this test is about the files)
    config = NashMemoryConfig(
        oracle="learned", oracle_steps=2048, oracle_envs=4, meta_deals=200, admission_margin=None
    )
    learner = NashMemoryLearner(KUHN, config).train(steps=2)
    assert not learner.exact and len(learner.memory.members) == 3
    assert (learner.memory.stderrs[np.triu_indices(3, 1)] > 0).all()  # measured entries
    # issue 92 item 5: the matches on two actors, the members sent as this file's data,
    # give the meta-game this process measured, entry for entry
    twin = NashMemoryLearner(KUHN, dataclasses.replace(config, actors=2)).train(steps=2)
    np.testing.assert_array_equal(twin.memory.scores, learner.memory.scores)
    np.testing.assert_array_equal(twin.memory.stderrs, learner.memory.stderrs)
    assert twin.version >= 2  # a round per candidate at least (its support's entries)
    path = learner.save(tmp_path / "nml.pt")
    kinds = [m["kind"] for m in read_torch_file(path)["members"]]
    assert kinds == ["tabular", "maskable-ppo", "maskable-ppo"]
    again = NashMemoryLearner.load(path)
    tree = compile_game(KUHN)
    for before, after in zip(learner.memory.members[1:], again.memory.members[1:]):
        np.testing.assert_allclose(
            TabularPolicy.from_agent(after, tree).probs,
            TabularPolicy.from_agent(before, tree).probs,
            atol=1e-6,
        )
    assert again.exploitability() == pytest.approx(learner.exploitability(), abs=1e-5)


def test_train_cli_and_agent_files(tmp_path):
    from nashzoo.agents.specs import build_agent
    from nashzoo.cli import main
    from nashzoo.eval.matches import head_to_head

    out = tmp_path / "nm.pt"
    assert (
        main(["train", "nash-memory", "kuhn_poker", "--steps", "6", "--out", str(out), "--quiet"])
        == 0
    )
    agent = build_agent(str(out), KUHN)
    result = head_to_head(KUHN, agent, build_agent("random", KUHN), deals=2000, seed=1)
    assert result.ci95[0] > 0  # the mixture beats uniform random (95% interval above 0)
    # the leaderboard takes the file as data (it loads with weights_only=True)
    pytest.importorskip("fastapi")
    from nashzoo.leaderboard.bundles import Limits, classify

    assert classify("nm.pt", out.read_bytes(), KUHN, "kuhn_poker", Limits()) == "nash-memory"


def test_a_saved_mixture_is_measured_as_the_mixture_in_tournaments_and_the_cli(tmp_path, capsys):
    # A Nash memory file plays a mixture (one member drawn per game), not a PolicyAgent,
    # but its exploitability is defined: a tournament and `nashzoo exploitability` report
    # the exact figure the learner computes from its own members (a second code path:
    # the learner mixes its members' arrays, the tournament tabulates the loaded agents).
    from nashzoo.agents import AgentSpec
    from nashzoo.cli import main
    from nashzoo.eval.tournament import TournamentConfig, run_tournament

    learner = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3)).train(steps=3)
    expected = learner.exploitability()
    assert expected > 0.01  # not yet an equilibrium: a figure that can be told apart
    path = learner.save(tmp_path / "nm.pt")
    config = TournamentConfig(
        game="nashzoo/kuhn_poker-v0",
        agents=(("nm", AgentSpec(str(path))), ("rnd", AgentSpec("random"))),
        deals=20,
        block_size=20,
    )
    result = run_tournament(config, tmp_path / "t.sqlite", workers=0, bootstrap=0)
    assert result.exploitability_method["nm"] == "exact"
    assert result.exploitability["nm"] == pytest.approx(expected, abs=1e-12)
    assert result.exploitability["rnd"] == pytest.approx(UNIFORM_KUHN)
    assert main(["exploitability", str(path), "--game", "kuhn_poker"]) == 0
    assert f"exploitability  {expected:.6g} chips" in capsys.readouterr().out


def test_refusals(tmp_path):
    from nashzoo.games.poker import limit_holdem

    with pytest.raises(InvalidParameterError, match="oracle='exact' needs a game that compiles"):
        NashMemoryLearner(limit_holdem(), NashMemoryConfig(oracle="exact"))
    with pytest.raises(InvalidParameterError, match="oracle"):
        NashMemoryConfig(oracle="psro")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file")
    with pytest.raises(PolicyFileError):
        NashMemoryLearner.load(bad)
    learner = NashMemoryLearner(KUHN)
    learner.memory.exploitability = lambda: None  # as on a game that does not compile
    with pytest.raises(GameTooLargeError, match="does not compile"):
        learner.exploitability()


def test_a_caller_s_oracle_and_measure_replace_the_learned_ones(tmp_path):
    """The learner sits in the agents layer; the learned oracle and measure it uses by
    default (MaskablePPO, duplicate matches) sit above it and are imported only when
    needed. Any oracle and measure may replace them: with the exact ones passed to a
    learner told oracle="learned", Kuhn is solved as by the exact learner (but from no
    initial member: the learned path starts from the first best response alone)."""
    from nashzoo.agents.nash_memory import exact_measure, exact_oracle

    calls = {"oracle": 0, "measure": 0}

    def oracle(game, mixture, seed):
        calls["oracle"] += 1
        return exact_oracle(game, mixture, seed)

    def measure(game, a, b, seed):
        calls["measure"] += 1
        return exact_measure(game, a, b, seed)

    config = NashMemoryConfig(seed=3, oracle="learned")
    learner = NashMemoryLearner(KUHN, config, oracle=oracle, measure=measure).train(steps=12)
    assert not learner.exact and calls["oracle"] >= 12 and calls["measure"] > 12
    assert learner.exploitability() < 0.01  # uniform play: 11/24
    # a file reloads with the caller's parts for training on
    path = learner.save(tmp_path / "nm.pt")
    again = NashMemoryLearner.load(path, oracle=oracle, measure=measure)
    assert again.exploitability() == learner.exploitability()
    before = calls["oracle"]
    again.train(steps=1)
    assert calls["oracle"] == before + 1
    # where the learner uses the exact parts, passing others is refused by name
    with pytest.raises(InvalidParameterError, match="replace the learned oracle"):
        NashMemoryLearner(KUHN, NashMemoryConfig(), oracle=oracle)
    with pytest.raises(InvalidParameterError, match="replace the learned oracle"):
        NashMemoryLearner(KUHN, NashMemoryConfig(oracle="exact"), measure=measure)
    with pytest.raises(InvalidParameterError, match="oracle must be callable, received int"):
        NashMemoryLearner(KUHN, config, oracle=3, measure=measure)


def test_the_learned_oracle_trains_longer_after_each_rejection(monkeypatch):
    """Issue 92: the oracle steps grow by ``oracle_growth`` with each rejected candidate,
    up to the cap. An admission margin of 10 chips (Kuhn's payoffs are at most 2) rejects
    every candidate, so the oracles train 64, 128, 256, then 300 (the cap) steps; an
    admitted candidate sets the steps back (the PSRO loop admits all: 64 each time)."""
    pytest.importorskip("sb3_contrib")
    import torch

    from nashzoo.bounds import learned_br

    torch.set_num_threads(1)
    trained = []
    real = learned_br.learned_best_response

    def recorded(game, mixture, *, steps, **settings):
        trained.append(steps)
        return real(game, mixture, steps=steps, **settings)

    monkeypatch.setattr(learned_br, "learned_best_response", recorded)
    small = {"oracle": "learned", "oracle_steps": 64, "oracle_envs": 2, "meta_deals": 20}
    small |= {"oracle_growth": 2.0, "oracle_steps_cap": 300}
    grown = NashMemoryConfig(**small, admission_margin=10.0)
    learner = NashMemoryLearner(KUHN, grown).train(steps=4)
    assert [r.admitted for r in learner.history] == [False] * 4
    assert trained == [64, 128, 256, 300] and learner.oracle_steps() == 300
    trained.clear()
    psro = dataclasses.replace(grown, admission_margin=None)
    assert NashMemoryLearner(KUHN, psro).train(steps=2).oracle_steps() == 64
    assert trained == [64, 64]
    with pytest.raises(InvalidParameterError, match="oracle_growth"):
        NashMemoryLearner(KUHN, NashMemoryConfig(oracle_growth=2.0))  # the exact oracle
    with pytest.raises(InvalidParameterError, match="oracle_growth"):
        NashMemoryLearner(KUHN, grown, oracle=lambda g, m, s: None)
    with pytest.raises(InvalidParameterError, match="oracle_growth"):
        NashMemoryConfig(oracle_growth=0.5)
