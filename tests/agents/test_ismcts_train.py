"""Nash-ISMCTS self-play training (issue 12; ``docs/explanation/nash-ismcts.md``).

Reference: the uniform policy's exploitability in Kuhn poker is 0.458 chips (11/24),
the equilibrium's is 0 (Kuhn 1950). A short self-play run must beat uniform by a wide
margin, train the belief head toward Bayes' rule, be seeded (the same with worker processes
as in one process), and save an agent that loads through the spec.
"""

import dataclasses

import numpy as np
import pytest
import torch

from nashzoo.agents.ismcts import ISMCTSAgent, SearchTables
from nashzoo.agents.ismcts.losses import belief_kl
from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
from nashzoo.agents.learner import Learner
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.specs import build_agent
from nashzoo.cli import main
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.eval.matches import head_to_head
from nashzoo.games import KuhnPokerGame
from nashzoo.tree import TabularPolicy, compile_game, nash_conv_array

KUHN = KuhnPokerGame()
SMALL = dict(games_per_generation=32, simulations=30, eval_simulations=100, steps_per_generation=40)


@pytest.fixture(autouse=True)
def one_thread():
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def trained():
    torch.set_num_threads(1)
    config = TrainConfig(
        games_per_generation=64, simulations=50, eval_simulations=200, search_every=10, seed=1
    )
    return NashISMCTS(KUHN, config).train(steps=30)


def test_uniform_reference_is_kuhns_11_over_24():
    tree = compile_game(KUHN)
    assert nash_conv_array(tree, TabularPolicy.uniform(tree).probs) / 2 == pytest.approx(11 / 24)


def test_self_play_beats_uniform_by_a_wide_margin(trained):
    # Measured (seed 1, 2026-11-24): P 0.135 after one generation, 0.079 after 10, 0.066
    # after 20, 0.044 after 30; the search on the trained networks 0.074, 0.071, 0.035.
    last = trained.history[-1]
    assert last.prior_exploitability < 0.08 < 11 / 24 - 0.3
    assert last.search_exploitability is not None and last.search_exploitability < 0.08
    assert last.prior_exploitability < trained.history[0].prior_exploitability
    # the belief head follows Bayes' rule under the network's own policy, far closer than
    # the chance-only belief (uniform over the opponent's cards) does
    tables = trained.agent().tables
    chance_only = dataclasses.replace(tables, belief=SearchTables.uninformed(tables.views).belief)
    assert last.belief_kl == pytest.approx(belief_kl(tables))
    assert last.belief_kl < 0.01  # the spec's bound
    # measured: 0.0008 against 0.037 for the chance-only belief
    assert belief_kl(chance_only) > 10 * last.belief_kl
    # measured every search_every generations and at the end
    measured = [r.generation for r in trained.history if r.search_exploitability is not None]
    assert measured == [10, 20, 30]


def test_the_trained_agent_plays_the_dominant_actions_and_beats_random(trained):
    agent = trained.agent()
    assert isinstance(agent, ISMCTSAgent)
    tree = agent.tree
    i = tree.infoset_index["player=1 card=K history=b"]
    # the K calls a bet
    assert agent.search_at(i, np.random.SeedSequence([0, i])).policy[1] > 0.9
    result = head_to_head(KUHN, agent, RandomAgent(), exact=True)
    # exact expectation; Kuhn's equilibria win 1/9 (alpha 0) to 1/6 (alpha 1/3) chips a
    # game against uniform play, uniform play wins 0
    assert result.mean > 0.1


def _train(generations=2, **config):
    return NashISMCTS(KUHN, TrainConfig(**{**SMALL, **config})).train(steps=generations)


def test_the_same_seed_gives_the_same_networks_in_this_process_or_on_actors():
    alone = _train(search_every=2, seed=4)
    pooled = _train(search_every=2, seed=4, actors=2)
    for a, b in zip(alone.network.state_dict().values(), pooled.network.state_dict().values()):
        assert torch.equal(a, b)
    assert [r.prior_exploitability for r in alone.history] == [
        r.prior_exploitability for r in pooled.history
    ]
    other = _train(search_every=2, seed=5)
    assert other.history[-1].prior_exploitability != alone.history[-1].prior_exploitability


def test_the_checkpoint_loads_through_the_agent_spec_and_resumes_training(tmp_path):
    out = tmp_path / "nash.pt"
    trainer = _train(search_every=1, seed=0)
    assert isinstance(trainer, Learner) and trainer.steps == 2
    trainer.save(out)
    loaded = build_agent(str(out), KUHN)
    assert isinstance(loaded, ISMCTSAgent)
    np.testing.assert_array_equal(loaded.tables.prior, trainer.agent().tables.prior)
    state = torch.load(out, weights_only=True)
    assert state["network"]["shape"]["num_actions"] == 2
    again = NashISMCTS.load(out)
    assert again.steps == 2 and again.config == trainer.config
    assert again.exploitability() == pytest.approx(trainer.exploitability())
    again.train(steps=1)
    assert again.steps == 3 and [r.generation for r in again.history] == [1, 2, 3]


def test_a_staleness_bound_is_refused_and_a_file_of_worker_processes_loads(tmp_path):
    # a generation's games all use its network: there is no staleness to bound
    with pytest.raises(InvalidParameterError, match="TrainConfig.max_staleness does not apply"):
        NashISMCTS(KUHN, TrainConfig(**SMALL, actors=2, max_staleness=1))
    # a file saved before the runtime names its self-play processes `workers`
    out = tmp_path / "old.pt"
    _train(generations=1, seed=0).save(out)
    state = torch.load(out, weights_only=True)
    saved = state["network"]["trainer"]["config"]
    del saved["actors"], saved["max_staleness"], saved["deterministic"], saved["ray_address"]
    saved["workers"] = 2
    torch.save(state, out)
    assert NashISMCTS.load(out).config.actors == 2
    saved["workers"] = -1  # a value the actors' field refuses, by its new name
    torch.save(state, out)
    with pytest.raises(PolicyFileError, match="actors"):
        NashISMCTS.load(out)


def test_cli_train_nash_ismcts_writes_agent_and_curve(tmp_path, capsys):
    out, plot = tmp_path / "nash.pt", tmp_path / "nash.png"
    code = main(
        [
            "train",
            "nash-ismcts",
            "kuhn_poker",
            "--steps",
            "3",
            "--games-per-generation",
            "16",
            "--simulations",
            "20",
            "--eval-simulations",
            "50",
            "--search-every",
            "1",
            "--eval-every",
            "0.001",
            "--actors",
            "2",
            "--out",
            str(out),
            "--plot",
            str(plot),
            "--quiet",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    # one measurement per generation: the search's exploitability and P's
    assert text.count(" generations  exploitability ") == 3 and text.count("  P ") == 3
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert isinstance(ISMCTSAgent.load(out, KUHN), ISMCTSAgent)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("search_every", 0),
        ("games_per_generation", -1),
        ("eps", -0.1),
        ("play_eps", float("nan")),
        ("backend", "mpi"),
        ("actors", 0),
    ],
)
def test_bad_training_settings_are_refused_by_name(field, value):
    with pytest.raises(InvalidParameterError, match=field):
        TrainConfig(**{field: value})


def test_the_trainer_refuses_what_is_not_a_game_a_config_or_a_pt_path(tmp_path):
    with pytest.raises(InvalidParameterError, match="Game"):
        NashISMCTS("kuhn_poker")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="TrainConfig"):
        NashISMCTS(KUHN, {"seed": 1})  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"\.pt"):
        NashISMCTS(KUHN, TrainConfig(**SMALL)).save(tmp_path / "agent.npz")
    with pytest.raises(InvalidParameterError, match="`steps` or `seconds`"):
        NashISMCTS(KUHN, TrainConfig(**SMALL)).train()


def test_the_parameter_average_is_the_warmed_up_moving_average():
    """ParameterAverage after n updates: each update keeps min(decay, (1 + n) / (10 + n))
    of the average (computed here by hand from the networks it was given)."""
    from nashzoo.agents.ismcts.nets import ParameterAverage

    net = torch.nn.Linear(3, 2)
    average = ParameterAverage(net, 0.5)
    expected = net.weight.detach().clone()
    for n in range(1, 13):
        with torch.no_grad():
            net.weight.add_(torch.randn_like(net.weight))
        keep = min(0.5, (1 + n) / (10 + n))  # 0.18, 0.25, ..., then 0.5 from n = 8
        expected = keep * expected + (1 - keep) * net.weight.detach()
        average.update(net)
        torch.testing.assert_close(average.network.weight, expected)
    assert average.updates == 12 and not average.network.weight.requires_grad
    copy = ParameterAverage(torch.nn.Linear(3, 2), 0.5)
    copy.restore(average.state())
    assert copy.updates == 12 and torch.equal(copy.network.weight, average.network.weight)
    for bad in (1.0, -0.1):
        with pytest.raises(InvalidParameterError, match=r"decay must be in \[0, 1\)"):
            ParameterAverage(net, bad)
    with pytest.raises(InvalidParameterError, match="average_decay"):
        TrainConfig(average_decay=1.0)


def test_the_agent_plays_the_parameter_average_and_a_file_keeps_both_networks(tmp_path):
    """With average_decay the agent's tables come from the average, self-play from the
    current network (the same as without the setting); a saved trainer loads both
    networks and the count of updates (the replay buffer is not saved, so training on
    from the file is not the straight run)."""
    from nashzoo.agents.ismcts.nets import tabulate

    trainer = _train(generations=2, average_decay=0.9, seed=2)
    plain = _train(generations=2, seed=2)
    for a, b in zip(plain.network.state_dict().values(), trainer.network.state_dict().values()):
        assert torch.equal(a, b)
    average = tabulate(trainer.average.network, trainer.views).prior
    np.testing.assert_array_equal(trainer.agent().tables.prior, average)
    assert not np.array_equal(average, tabulate(trainer.network, trainer.views).prior)
    again = NashISMCTS.load(trainer.save(tmp_path / "avg.pt"))
    assert again.average.updates == 2
    for one, other in (
        (trainer.network, again.network),
        (trainer.average.network, again.average.network),
    ):
        for a, b in zip(one.state_dict().values(), other.state_dict().values()):
            assert torch.equal(a, b)
    np.testing.assert_array_equal(build_agent(str(tmp_path / "avg.pt"), KUHN).tables.prior, average)
    assert again.train(steps=1).average.updates == 3
