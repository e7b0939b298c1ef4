"""NFSP (skips without torch)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nashzoo import PolicyAgent
from nashzoo.agents.nfsp import NFSP, NFSPConfig
from nashzoo.cli import main
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.eval import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game


def test_save_load_round_trip_keeps_action_probabilities(tmp_path):
    nfsp = NFSP(LeducHoldemGame(), NFSPConfig(seed=1, batch_games=16)).train(steps=3000)
    path = nfsp.save(tmp_path / "agent.pt")
    loaded = NFSP.load(path)
    np.testing.assert_array_equal(nfsp.average_policy().probs, loaded.average_policy().probs)
    assert loaded.episodes == nfsp.episodes and loaded.config == nfsp.config
    (tmp_path / "junk.pt").write_bytes(b"garbage")
    with pytest.raises(PolicyFileError, match="not a readable nashzoo"):
        NFSP.load(tmp_path / "junk.pt")


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda s: s.update(players=[]), r"must hold 2 players' networks, received 0"),
        (lambda s: s["players"][1].pop("avg"), r"players\[1\] must hold the states"),
        (lambda s: s.update(version=7), r"of version 7; this nashzoo reads version 1"),
        (lambda s: s.update(format=None), r"is a None file, not a 'nashzoo.nfsp' file"),
    ],
    ids=["no-networks", "one-missing", "version", "format"],
)
def test_a_checkpoint_without_its_networks_or_of_another_version_is_refused(
    tmp_path, change, match
):
    # issue 31, D5: such files loaded as randomly initialised agents, and the
    # leaderboard ranked two of them
    nfsp = NFSP(KuhnPokerGame(), NFSPConfig(seed=1, batch_games=4, hidden_sizes=(8,)))
    path = nfsp.train(steps=20).save(tmp_path / "agent.pt")
    state = torch.load(path, weights_only=True)
    change(state)
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(PolicyFileError, match=match):
        NFSP.load(tmp_path / "bad.pt")


@pytest.mark.parametrize("vectorized", [True, False])
def test_same_seed_same_training(vectorized):
    runs = [
        NFSP(KuhnPokerGame(), NFSPConfig(seed=5, batch_games=8, vectorized=vectorized)).train(
            steps=4000
        )
        for _ in range(2)
    ]
    stepped = type(runs[0]._games.venv).__name__
    assert stepped == ("TreeVectorEnv" if vectorized else "StateVectorEnv")
    np.testing.assert_array_equal(runs[0].average_policy().probs, runs[1].average_policy().probs)


def test_self_play_on_limit_holdem_runs_in_the_batched_poker_env():
    from nashzoo.games.poker import limit_holdem

    nfsp = NFSP(limit_holdem(), NFSPConfig(seed=0, batch_games=16, min_buffer_to_learn=64))
    nfsp.train(steps=300)
    assert type(nfsp._games.venv).__name__ == "PokerVectorEnv"
    assert nfsp.episodes >= 300
    # both players stored transitions and learned from them
    assert all(pl.replay.size > 64 and pl.learn_steps > 0 for pl in nfsp.players)


def test_agent_is_a_policy_agent_evaluated_exactly():
    nfsp = NFSP(KuhnPokerGame(), NFSPConfig(seed=0, batch_games=8)).train(steps=2000)
    agent = nfsp.agent(seed=0)
    assert isinstance(agent, PolicyAgent)
    tree = compile_game(KuhnPokerGame())
    by_agent = TabularPolicy.from_agent(agent, tree)
    np.testing.assert_allclose(by_agent.probs, nfsp.average_policy().probs, atol=1e-6)
    assert exploitability(agent, tree).nash_conv == pytest.approx(
        exploitability(nfsp.average_policy()).nash_conv, abs=1e-6
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"anticipatory": 1.5},
            r"`NFSPConfig.anticipatory` must be a finite number >= 0 and <= 1, received 1.5",
        ),
        ({"batch_games": 0}, r"`NFSPConfig.batch_games` must be an integer >= 1, received 0"),
        ({"hidden_sizes": [64, 0]}, "hidden_sizes` must be a non-empty tuple of integers"),
        ({"optimizer": "rmsprop"}, "optimizer` must be one of 'sgd', 'adam'"),
        ({"rl_learning_rate": -1}, "rl_learning_rate` must be a finite number > 0"),
    ],
)
def test_bad_config_values(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        NFSPConfig(**kwargs)


def test_train_needs_a_budget():
    with pytest.raises(InvalidParameterError, match="`steps` or `seconds`"):
        NFSP(KuhnPokerGame()).train()


def test_cli_train_writes_agent_and_curve(tmp_path, capsys):
    out, plot = tmp_path / "nfsp.pt", tmp_path / "nfsp.png"
    assert (
        main(
            [
                "train",
                "nfsp",
                "kuhn_poker",
                "--minutes",
                "0.05",
                "--eval-every",
                "1",
                "--out",
                str(out),
                "--plot",
                str(plot),
                "--quiet",
            ]
        )
        == 0
    )
    assert "exploitability" in capsys.readouterr().out
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert NFSP.load(out).episodes > 0


@pytest.mark.slow
def test_nfsp_learns_kuhn_below_0_1():
    # Issue 5: NFSP on Kuhn reaches exploitability below 0.1 within a small budget
    # (uniform random: 0.458; OpenSpiel's example settings stall near 0.13).
    nfsp = NFSP(KuhnPokerGame(), NFSPConfig(seed=0)).train(steps=150_000)
    assert nfsp.exploitability() < 0.1


def test_loading_a_checkpoint_never_runs_its_code(tmp_path):
    # Issue 11: torch.load(weights_only=False) ran a crafted checkpoint's os.system.
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {marker}",))

    evil = tmp_path / "evil.pt"
    torch.save({"format": "nashzoo.nfsp", "payload": Payload()}, evil)
    with pytest.raises(PolicyFileError, match="not a readable nashzoo"):
        NFSP.load(evil)
    assert not marker.exists()


def test_train_logs_one_line_per_evaluation_and_no_progress_updates(tmp_path):
    from tests.conftest import run_cli

    text = run_cli(
        ["train", "nfsp", "kuhn_poker", "--minutes", "0.05", "--eval-every", "1"],
        tmp_path,
        log=tmp_path / "train.log",
    )
    assert "\r" not in text
    lines = [line for line in text.splitlines() if "exploitability" in line]
    assert 2 <= len(lines) <= 6  # about one per second of a 3-second run


def test_the_agent_plays_on_read_only_observations_without_warnings():
    import warnings

    import nashzoo
    from nashzoo.eval import head_to_head

    agent = NFSP(KuhnPokerGame(), NFSPConfig(seed=2, batch_games=8)).agent(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch warns on non-writable arrays
        result = head_to_head(KuhnPokerGame(), agent, nashzoo.RandomAgent(seed=1), deals=20)
    assert result.deals == 20


def test_buffers_store_0_1_observations_in_a_byte_each_and_widen_exactly():
    """The games' tensors are 0/1, kept as uint8 (a quarter of float32's memory); the
    first observation that is not a whole byte widens the storage to float32, with the
    rows already stored unchanged, and every read gives float32."""
    from nashzoo.agents.nfsp.buffers import ReplayBuffer, ReservoirBuffer

    rng = np.random.default_rng(0)
    reservoir = ReservoirBuffer(8, 3, 2)
    binary = np.array([[0, 1, 1], [1, 0, 0]], np.float32)
    reservoir.add(rng, binary, np.ones((2, 2), bool), np.array([0, 1]))
    assert reservoir.obs.rows.dtype == np.uint8
    obs, _, actions = reservoir.sample(rng, 16)
    assert obs.dtype == np.float32
    assert all((row == binary[a]).all() for row, a in zip(obs, actions))
    reservoir.add(rng, np.array([[0.5, 0, 2]], np.float32), np.ones((1, 2), bool), np.array([0]))
    assert reservoir.obs.rows.dtype == np.float32
    assert np.array_equal(reservoir.obs.rows[:3], [[0, 1, 1], [1, 0, 0], [0.5, 0, 2]])
    replay = ReplayBuffer(4, 3, 2)
    replay.add(binary, [0, 1], [1.0, -1.0], binary[::-1], np.ones((2, 2), bool), [0.0, 1.0])
    assert replay.obs.rows.dtype == np.uint8 and replay.next_obs.rows.dtype == np.uint8
    replay.add(binary[:1] * 300, [0], [0.0], binary[:1], np.ones((1, 2), bool), [1.0])
    assert replay.obs.rows.dtype == np.float32 and replay.next_obs.rows.dtype == np.uint8
    assert np.array_equal(replay.obs.read(np.arange(3)), [[0, 1, 1], [1, 0, 0], [0, 300, 300]])


def _reservoir_one_by_one(buffer, rng, obs, mask, actions):
    """Algorithm R, one item and one draw at a time (the reference)."""
    buffer.obs.accept(np.asarray(obs))
    for k in range(len(actions)):
        if buffer.size < buffer.capacity:
            slot = buffer.size
            buffer.size += 1
        else:
            slot = int(rng.integers(buffer.seen + 1))
            if slot >= buffer.capacity:
                buffer.seen += 1
                continue
        buffer.obs.rows[slot] = obs[k]
        buffer.mask[slot] = mask[k]
        buffer.actions[slot] = actions[k]
        buffer.seen += 1


@pytest.mark.parametrize("capacity", [1, 7, 50, 1000])
def test_the_reservoir_adds_a_batch_as_algorithm_r_adds_its_items_one_by_one(capacity):
    """A batch is offered with all its draws at once (duplicate slots: the later item
    wins); the slots, the items kept and the generator's state are those of one draw per
    item in order."""
    from nashzoo.agents.nfsp.buffers import ReservoirBuffer

    batched, reference = ReservoirBuffer(capacity, 5, 3), ReservoirBuffer(capacity, 5, 3)
    rng_a, rng_b, source = (np.random.default_rng(s) for s in (3, 3, 9))
    for _ in range(60):
        m = int(source.integers(0, 40))
        obs = source.integers(0, 2, (m, 5)).astype(np.float32)
        mask = source.integers(0, 2, (m, 3)).astype(bool)
        actions = source.integers(0, 3, m)
        batched.add(rng_a, obs, mask, actions)
        _reservoir_one_by_one(reference, rng_b, obs, mask, actions)
        assert (batched.size, batched.seen) == (reference.size, reference.seen)
        assert np.array_equal(batched.obs.rows, reference.obs.rows)
        assert np.array_equal(batched.mask, reference.mask)
        assert np.array_equal(batched.actions, reference.actions)
    assert rng_a.random() == rng_b.random()


def test_the_reservoir_keeps_every_item_with_equal_probability():
    """100 items offered in batches of 7 to a reservoir of 10: each is kept with
    probability 10/100 (2,000 runs: 200 expected per item, 4 standard deviations ~ 54)."""
    from nashzoo.agents.nfsp.buffers import ReservoirBuffer

    counts = np.zeros(100)
    rng = np.random.default_rng(0)
    items = np.arange(100)
    for _ in range(2000):
        buffer = ReservoirBuffer(10, 1, 1)
        for start in range(0, 100, 7):
            chunk = items[start : start + 7]
            buffer.add(rng, np.zeros((chunk.size, 1)), np.ones((chunk.size, 1), bool), chunk)
        counts[buffer.actions] += 1
    assert np.abs(counts - 200).max() < 4 * np.sqrt(2000 * 0.1 * 0.9), counts
