"""The actor/learner runtime (issue 91): lockstep runs that give the same networks on
both backends, version tags and staleness, a killed actor replaced with the experience
count exact, a killed driver resumed, and the settings it refuses."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from nashzoo.agents.nash_memory.learner import NashMemoryConfig, NashMemoryLearner
from nashzoo.agents.runtime import ActorConfig, Runtime, actor_seed
from nashzoo.envs.registration import make_game
from nashzoo.errors import InvalidParameterError, WorkerError
from nashzoo.testing.drills import NumberedActor
from tests.conftest import untraced_children

torch = pytest.importorskip("torch")

from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
from nashzoo.agents.neural_cfr import ESCHER, DeepCFR, DeepCFRConfig, ESCHERConfig
from nashzoo.agents.nfsp import NFSP
from nashzoo.agents.nfsp.config import NFSPConfig
from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig

KUHN = make_game("kuhn_poker")
UNIFORM_KUHN = 11 / 24  # exploitability of the uniform policy (exact, tests/eval)

LEDUC = make_game("leduc_holdem")
HOLDEM = make_game("limit_holdem")
# Nash-ISMCTS's small settings on the compiled path and over the rules (as in
# tests/agents/test_ismcts_train.py and test_ismcts_rules_nash.py)
NASH_KUHN = {"games_per_generation": 32, "simulations": 30, "eval_simulations": 100,
             "steps_per_generation": 40, "search_every": 2, "seed": 4}  # fmt: skip
NASH_HOLDEM = {"games_per_generation": 3, "simulations": 12, "belief_games": 4,
               "steps_per_generation": 2, "batch_size": 8, "hidden_sizes": (16,),
               "embed_size": 8, "seed": 4}  # fmt: skip
SMALL = {"hidden_sizes": (32,), "batch_games": 32, "min_buffer_to_learn": 64, "batch_size": 32}


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    with untraced_children():  # Ray's processes run untraced (tests/conftest.py)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _networks(nfsp: NFSP) -> dict[str, torch.Tensor]:
    out = {}
    for p, pl in enumerate(nfsp.players):
        for name in ("q", "q_target", "avg"):
            for key, value in getattr(pl, name).state_dict().items():
                out[f"{p}.{name}.{key}"] = value
    return out


def _flat(state, prefix=""):
    """A checkpoint as {path: bytes or value}: tensors compared by their bytes."""
    if isinstance(state, dict):
        return {
            k: v for key, item in state.items() for k, v in _flat(item, f"{prefix}/{key}").items()
        }
    if isinstance(state, (list, tuple)):
        return {
            k: v for i, item in enumerate(state) for k, v in _flat(item, f"{prefix}/{i}").items()
        }
    if isinstance(state, torch.Tensor):
        return {prefix: (state.dtype, tuple(state.shape), state.numpy().tobytes())}
    return {prefix: state}


def _same_memories(a, b) -> None:
    """Two neural regret learners hold the same memories: rows and targets, byte for byte."""
    for x, y in zip(a._memories(), b._memories()):
        assert x.size == y.size > 0 and np.array_equal(x.obs.rows[: x.size], y.obs.rows[: y.size])
        assert np.array_equal(x.columns["target"][: x.size], y.columns["target"][: y.size])


def _counting_done(nfsp: NFSP) -> list[int]:
    """Wrap the learner's intake: count the final transitions of player 0 it stores (one
    per finished Leduc game: both players act in every game)."""
    finals = [0]
    absorb = nfsp._absorb

    def counted(rows):
        if "t_done" in rows[0]:
            finals[0] += int(rows[0]["t_done"].sum())
        absorb(rows)

    nfsp._absorb = counted  # type: ignore[method-assign]
    return finals


def test_the_in_process_path_is_unchanged_and_local_actors_learn_from_their_batches():
    # actors=None is the path of before the runtime; a local actor's games go through its
    # own copy of the networks, and every episode it reports arrives as data
    config = NFSPConfig(**SMALL, seed=3)
    alone = NFSP(LEDUC, config).train(steps=2_000)
    again = NFSP(LEDUC, config).train(steps=2_000)
    assert all(
        torch.equal(a, b) for a, b in zip(_networks(alone).values(), _networks(again).values())
    )
    with_actors = NFSP(LEDUC, NFSPConfig(**SMALL, seed=3, actors=2))
    finals = _counting_done(with_actors)
    with_actors.train(steps=2_000)
    assert with_actors.episodes == finals[0] >= 2_000
    assert with_actors.version > 1 and with_actors.players[0].learn_steps > 0
    assert not torch.equal(
        _networks(alone)["0.avg.0.weight"], _networks(with_actors)["0.avg.0.weight"]
    )


def test_lockstep_on_ray_gives_the_local_backends_checkpoint(ray, tmp_path):
    settings = {**SMALL, "seed": 5, "actors": 2, "deterministic": True}
    local = NFSP(LEDUC, NFSPConfig(**settings)).train(steps=1_500)
    with untraced_children():
        on_ray = NFSP(LEDUC, NFSPConfig(**settings, backend="ray")).train(steps=1_500)
    assert (local.episodes, local.version) == (on_ray.episodes, on_ray.version)
    for key, value in _networks(local).items():
        assert torch.equal(value, _networks(on_ray)[key]), key
    local.save(tmp_path / "local.pt")
    on_ray.save(tmp_path / "ray.pt")
    files = [torch.load(tmp_path / name, weights_only=True) for name in ("local.pt", "ray.pt")]
    for state in files:  # what differs by design: the backend named, the wall time
        state["config"].pop("backend")
        state.pop("seconds")
    assert _flat(files[0]) == _flat(files[1])
    # Deep CFR: the iteration's traversals split among the actors, the same memories
    deep = {"traversals": 61, "regret_steps": 5, "policy_steps": 5, "actors": 2, "seed": 1}
    here = DeepCFR(LEDUC, DeepCFRConfig(**deep)).train(steps=2)
    with untraced_children():
        there = DeepCFR(LEDUC, DeepCFRConfig(**deep, backend="ray")).train(steps=2)
    assert here.traversals == there.traversals == 2 * 2 * 61
    _same_memories(here, there)
    # and over the rules: the actors' copies of the regret networks, the same memories
    rules = {**deep, "tree": False, "traversals": 21}
    here_r = DeepCFR(KUHN, DeepCFRConfig(**rules)).train(steps=2)
    with untraced_children():
        there_r = DeepCFR(KUHN, DeepCFRConfig(**rules, backend="ray")).train(steps=2)
    assert here_r.tree is None and here_r.traversals == there_r.traversals == 2 * 2 * 21
    _same_memories(here_r, there_r)
    # ESCHER: the value and the regret episodes, the same memories and value networks
    small = {"regret_traversals": 41, "value_traversals": 41, "regret_steps": 5}
    small |= {"value_steps": 5, "policy_steps": 5, "actors": 2, "seed": 1}
    here_e = ESCHER(LEDUC, ESCHERConfig(**small)).train(steps=2)
    with untraced_children():
        there_e = ESCHER(LEDUC, ESCHERConfig(**small, backend="ray")).train(steps=2)
    assert here_e.traversals == there_e.traversals == 2 * 2 * 41
    _same_memories(here_e, there_e)
    for a, b in zip(here_e.value_nets, there_e.value_nets):
        assert all(
            torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values())
        )
    # ESCHER over the rules: value and regret episodes by the actors' copies
    small_r = {**small, "tree": False, "regret_traversals": 13, "value_traversals": 13}
    here_er = ESCHER(KUHN, ESCHERConfig(**small_r)).train(steps=2)
    with untraced_children():
        there_er = ESCHER(KUHN, ESCHERConfig(**small_r, backend="ray")).train(steps=2)
    assert here_er.tree is None and here_er.traversals == there_er.traversals == 2 * 2 * 13
    _same_memories(here_er, there_er)
    # simplex-gradient: the iteration's games split among the actors, which score their
    # decisions with f (td_lambda < 1), the same networks after three iterations
    sg = {"batch_games": 16, "td_lambda": 0.9, "actors": 2, "seed": 1}
    here_s = SimplexGradient(LEDUC, SimplexGradientConfig(**sg)).train(steps=3)
    with untraced_children():
        there_s = SimplexGradient(LEDUC, SimplexGradientConfig(**sg, backend="ray")).train(steps=3)
    assert here_s.episodes == there_s.episodes == 3 * 16
    for name in here_s._saved_modules():
        if name.endswith("_net"):
            for x, y in zip(
                getattr(here_s, name).state_dict().values(),
                getattr(there_s, name).state_dict().values(),
            ):
                assert torch.equal(x, y), name
    # Nash memory: the meta-game's entries measured on the actors, the same meta-game
    nm = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3, actors=2)).train(steps=4)
    with untraced_children():
        nm_ray = NashMemoryLearner(KUHN, NashMemoryConfig(seed=3, actors=2, backend="ray"))
        nm_ray.train(steps=4)
    np.testing.assert_array_equal(nm.memory.scores, nm_ray.memory.scores)
    # Nash-ISMCTS: a generation's games split among the actors, on the compiled fast path
    # (Kuhn's tables) and over the rules (Limit Hold'em), the same networks (in this
    # test's Ray session rather than one each)
    for game, nash in ((KUHN, NASH_KUHN), (HOLDEM, NASH_HOLDEM)):
        here_n = NashISMCTS(game, TrainConfig(**nash, actors=2)).train(steps=2)
        with untraced_children():
            there_n = NashISMCTS(game, TrainConfig(**nash, actors=2, backend="ray")).train(steps=2)
        for key, value in here_n.network.state_dict().items():
            assert torch.equal(value, there_n.network.state_dict()[key]), (game, key)
    other = NFSP(LEDUC, NFSPConfig(**{**settings, "seed": 6})).train(steps=1_500)
    assert not torch.equal(_networks(other)["0.avg.0.weight"], _networks(local)["0.avg.0.weight"])


def test_batches_carry_the_version_they_were_made_with_and_stale_ones_are_dropped(ray):
    # actor 0 answers in 10 ms, actor 1 in 400 ms: by the time actor 1's batch arrives,
    # the learner has broadcast many versions, so with max_staleness=2 it is dropped
    factory = functools.partial(NumberedActor, delays=(0.01, 0.4))
    with untraced_children(), Runtime(factory, actors=2, backend="ray", max_staleness=2) as rt:
        rt.broadcast(None, 0)
        kept = []
        deadline = time.monotonic() + 60
        while rt.stats.dropped < 2 and time.monotonic() < deadline:
            for batch in rt.collect():
                index, _, _, held = batch.data
                assert batch.version == held and rt.version - batch.version <= 2
                kept.append(index)
            rt.broadcast(None, rt.version + 1)
        assert rt.stats.dropped >= 2 and rt.stats.dropped_experience == rt.stats.dropped
        assert rt.stats.batches == len(kept) and kept.count(0) > 20
    with Runtime(factory, actors=2, backend="local", max_staleness=0) as lockstep:
        for version in range(3):
            lockstep.broadcast(None, version)
            batches = lockstep.collect()
            assert [b.actor for b in batches] == [0, 1]
            assert (
                [b.data[3] for b in batches] == [version, version] == [b.version for b in batches]
            )
        assert lockstep.stats.dropped == 0


def test_a_killed_actor_is_replaced_and_nothing_is_lost_or_counted_twice(ray):
    factory = functools.partial(NumberedActor, delays=(0.02, 0.02))
    with untraced_children(), Runtime(factory, actors=2, backend="ray", seed=7) as rt:
        rt.broadcast(None, 0)
        received = []
        while len(received) < 10:
            received += [b.data for b in rt.collect()]
        rt.kill_actor(0)
        while sum(1 for d in received if d[0] == 0 and d[1] != actor_seed(7, 0)) < 3:
            received += [b.data for b in rt.collect()]
        assert rt.stats.replaced == 1
        assert rt.stats.experience == rt.stats.batches == len(received)
        assert len(set(received)) == len(received)  # no batch twice
        for index in (0, 1):
            for seed in {d[1] for d in received if d[0] == index}:
                numbers = sorted(d[2] for d in received if d[:2] == (index, seed))
                assert numbers == list(range(1, len(numbers) + 1))  # none lost in between

    # the same drill under NFSP: the episodes counted are the games whose data arrived
    nfsp = NFSP(LEDUC, NFSPConfig(**SMALL, seed=2, actors=2, backend="ray"))
    finals = _counting_done(nfsp)
    runtimes = []

    def kill_once(learner):
        if not runtimes:
            runtimes.append(learner._runtime)
            learner._runtime.kill_actor(1)

    with untraced_children():
        nfsp.train(steps=1_500, callback=kill_once, callback_every=0.01)
    assert runtimes[0].stats.replaced == 1
    assert nfsp.episodes == finals[0] == runtimes[0].stats.experience >= 1_500


def test_a_killed_driver_resumes_from_its_checkpoint(tmp_path):
    out = tmp_path / "nfsp.pt"
    command = [
        sys.executable, "-m", "nashzoo", "train", "nfsp", "leduc_holdem", "--out", str(out),
        "--minutes", "2", "--checkpoint-every", "0.5", "--actors", "2",
        "--hidden-sizes", "32", "--batch-games", "32", "--quiet",
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert out.exists(), proc.stderr.read().decode() if proc.poll() is not None else ""
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    saved = NFSP.load(out)
    assert saved.config.actors == 2 and saved.episodes > 0
    done = subprocess.run(
        [sys.executable, "-m", "nashzoo", "train", "nfsp", "leduc_holdem", "--resume", str(out),
         "--steps", str(saved.episodes + 500), "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    resumed = NFSP.load(out)
    assert resumed.episodes >= saved.episodes + 500 and resumed.version > saved.version


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"actors": 0}, "`NFSPConfig.actors` must be an integer >= 1 or None, received 0"),
        ({"max_staleness": -1}, "`NFSPConfig.max_staleness` must be an integer >= 0 or None"),
        ({"backend": "ray"}, "needs `actors`"),
        ({"actors": 2, "ray_address": "10.0.0.1:6379"}, "ray_address is for backend='ray'"),
        ({"actors": 2, "backend": "slurm"}, "`NFSPConfig.backend` must be one of 'local', 'ray'"),
    ],
)
def test_bad_settings_are_refused_by_name(settings, words):
    with pytest.raises(InvalidParameterError, match=words.replace("(", r"\(").replace("`", ".")):
        NFSPConfig(**settings)


def test_the_runtime_refuses_bad_values_and_an_unreachable_cluster():
    factory = functools.partial(NumberedActor)
    with pytest.raises(InvalidParameterError, match="`actors` must be >= 1, received 0"):
        Runtime(factory, actors=0)
    with pytest.raises(InvalidParameterError, match="`max_staleness` must be >= 0, received -2"):
        Runtime(factory, actors=1, max_staleness=-2)
    with pytest.raises(InvalidParameterError, match="before the first broadcast"):
        Runtime(factory, actors=1).collect()
    runtime = Runtime(factory, actors=1)
    runtime.broadcast(None, 3)
    with pytest.raises(InvalidParameterError, match="`version` must be >= 4, received 3"):
        runtime.broadcast(None, 3)
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    with pytest.raises(
        InvalidParameterError, match="'host:port' or 'ray://host:port', received 'nowhere'"
    ):
        Runtime(factory, actors=1, backend="ray", ray_address="nowhere")
    started = time.monotonic()
    with pytest.raises(WorkerError, match="Cannot reach the Ray cluster at '127.0.0.1:9'"):
        Runtime(factory, actors=1, backend="ray", ray_address="127.0.0.1:9")
    assert time.monotonic() - started < 10 and not ray.is_initialized()
    assert ActorConfig().actors is None and np.int64(3) == ActorConfig(actors=np.int64(3)).actors


def test_the_device_setting_resolves_and_refuses_what_is_not_here(tmp_path):
    # this machine's torch is built for the CPU: "auto" is the CPU, a GPU is refused by
    # name; the networks and a checkpoint are the same as without the setting
    assert NFSPConfig().device == "auto"
    auto = NFSP(LEDUC, NFSPConfig(**SMALL, seed=3)).train(steps=1_000)
    cpu = NFSP(LEDUC, NFSPConfig(**SMALL, seed=3, device="cpu")).train(steps=1_000)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert auto.device.type == expected == next(auto.players[0].avg.parameters()).device.type
    if expected == "cpu":
        for key, value in _networks(auto).items():
            assert torch.equal(value, _networks(cpu)[key]), key
    with pytest.raises(
        InvalidParameterError, match="must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'tpu'"
    ):
        NFSPConfig(device="tpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(
        InvalidParameterError, match=f"device='cuda:{count}' needs a CUDA GPU {count}"
    ):
        NFSP(LEDUC, NFSPConfig(device=f"cuda:{count}"))
    cpu.save(tmp_path / "n.pt")
    assert NFSP.load(tmp_path / "n.pt", device="cpu").device.type == "cpu"
    with pytest.raises(InvalidParameterError, match=f"needs a CUDA GPU {count}"):
        NFSP.load(tmp_path / "n.pt", device=f"cuda:{count}")


def _device_case(cls):
    """A learner class's config class, small settings and its networks by name."""
    if cls is SimplexGradient:
        small = {"batch_games": 16, "hidden_sizes": (32,), "seed": 3}
        return (
            SimplexGradientConfig,
            small,
            lambda x: {
                name: getattr(x, name) for name in x._saved_modules() if not name.endswith("opt")
            },
        )
    small = {"regret_steps": 5, "policy_steps": 5, "batch_size": 32, "seed": 3}
    if cls is DeepCFR:
        small["traversals"] = 21
    else:
        small.update(regret_traversals=21, value_traversals=21, value_steps=5)
    config = DeepCFRConfig if cls is DeepCFR else ESCHERConfig
    return (
        config,
        small,
        lambda x: {k: m for k, m in x._modules().items() if isinstance(m, torch.nn.Module)},
    )


@pytest.mark.parametrize("cls", [DeepCFR, ESCHER, SimplexGradient])
def test_the_other_learners_take_the_device_setting_too(cls, tmp_path):
    """Deep CFR, ESCHER and simplex-gradient: the same setting as NFSP's. Their networks
    live on it, the actors' copies (and Deep CFR's regret matching one information set
    at a time) on the CPU; on this CPU-only machine "auto" is the CPU and gives the
    networks of device="cpu" bit for bit."""
    config, small, networks = _device_case(cls)
    assert config().device == "auto"
    auto = cls(KUHN, config(**small)).train(steps=2)
    cpu = cls(KUHN, config(**small, device="cpu")).train(steps=2)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    nets = networks(auto)
    assert len(nets) >= 3
    for net in nets.values():
        assert next(net.parameters()).device.type == expected == auto.device.type
    if expected == "cpu":
        for key, net in nets.items():
            theirs = networks(cpu)[key].state_dict()
            for name, value in net.state_dict().items():
                assert torch.equal(value, theirs[name]), (key, name)
        assert auto.exploitability() == cpu.exploitability()
    # on two actors (Deep CFR and ESCHER over the rules): the copies are built on the CPU
    rules = {} if cls is SimplexGradient else {"tree": False}
    on_actors = cls(KUHN, config(**small, **rules, actors=2)).train(steps=1)
    assert on_actors.version > 0 and on_actors._rounds.runtime is None  # used, then stopped
    with pytest.raises(
        InvalidParameterError, match="must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'tpu'"
    ):
        config(device="tpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(InvalidParameterError, match=f"needs a CUDA GPU {count}"):
        cls(KUHN, config(device=f"cuda:{count}"))
    cpu.save(tmp_path / "n.pt")
    again = cls.load(tmp_path / "n.pt", device="cpu")
    assert again.device.type == "cpu" and again.exploitability() == cpu.exploitability()
    with pytest.raises(InvalidParameterError, match=f"needs a CUDA GPU {count}"):
        cls.load(tmp_path / "n.pt", device=f"cuda:{count}")


@pytest.mark.parametrize("path", ["tables", "rules"])
def test_nash_ismcts_takes_the_device_setting_too(path, tmp_path):
    """Nash-ISMCTS's network lives and learns on ``device`` on both paths (Kuhn's tables,
    Hold'em over the rules), its actors search on the CPU with copies; on this CPU-only
    machine "auto" gives the networks of device="cpu" bit for bit, and a file loads
    with ``device="cpu"``."""
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig

    if path == "tables":
        game, small = KUHN, {"games_per_generation": 8, "simulations": 10, "search_every": 9}
        small.update(steps_per_generation=5, eval_simulations=20)
    else:
        game = make_game("limit_holdem")
        small = {"games_per_generation": 2, "simulations": 8, "belief_games": 2}
        small.update(steps_per_generation=2, hidden_sizes=(16,), embed_size=8)
    assert TrainConfig().device == "auto"
    auto = NashISMCTS(game, TrainConfig(**small, seed=3)).train(steps=2)
    cpu = NashISMCTS(game, TrainConfig(**small, seed=3, device="cpu")).train(steps=2)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert auto.device.type == expected == next(auto.network.parameters()).device.type
    if expected == "cpu":
        theirs = cpu.network.state_dict()
        for name, value in auto.network.state_dict().items():
            assert torch.equal(value, theirs[name]), name
    on_actors = NashISMCTS(game, TrainConfig(**small, seed=3, actors=2)).train(steps=1)
    assert on_actors.steps == 1  # the actors' copies are built on the CPU
    with pytest.raises(
        InvalidParameterError, match="must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'tpu'"
    ):
        TrainConfig(device="tpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    with pytest.raises(InvalidParameterError, match=f"needs a CUDA GPU {count}"):
        NashISMCTS(game, TrainConfig(**small, device=f"cuda:{count}"))
    cpu.save(tmp_path / "n.pt")
    again = NashISMCTS.load(tmp_path / "n.pt", device="cpu")
    assert again.device.type == "cpu" and again.steps == 2
    for name, value in again.network.state_dict().items():
        assert torch.equal(value, cpu.network.state_dict()[name]), name
    with pytest.raises(InvalidParameterError, match=f"needs a CUDA GPU {count}"):
        NashISMCTS.load(tmp_path / "n.pt", device=f"cuda:{count}")


def test_neural_cfr_on_actors_splits_each_iteration_on_the_tree_and_over_the_rules():
    # the short version of the two tests below: two iterations of two local actors, their
    # traversals and network versions counted, and the policy already below uniform's
    # exploitability (measured 0.224 and 0.252 for Deep CFR on the tree and over the
    # rules, 0.218 and 0.262 for ESCHER; uniform 0.458); the slow tests train to their
    # learning bounds
    for cls, config, per_actor, versions in (
        (DeepCFR, DeepCFRConfig, 375, 4),
        (ESCHER, ESCHERConfig, 1024, 2 * 2 * 2),
    ):
        for tree in (True, False):
            learner = cls(KUHN, config(seed=0, actors=2, tree=tree)).train(steps=2)
            assert (learner.tree is None) == (not tree), cls
            assert learner.traversals == 2 * 2 * per_actor, (cls, tree)
            assert learner.version == versions, (cls, tree)
            assert learner.exploitability() < 0.7 * UNIFORM_KUHN, (cls, tree)


@pytest.mark.slow  # 36 s in CI: the short version is above
def test_deep_cfr_on_actors_learns_kuhn_on_the_tree_and_over_the_rules():
    # the settings and bound of tests/agents/test_deep_cfr.py (a quarter of uniform's
    # exploitability after 15 iterations), the traversals made by two local actors
    learner = DeepCFR(KUHN, DeepCFRConfig(seed=0, actors=2)).train(steps=15)
    assert learner.traversals == 15 * 2 * 375 and learner.version == 30
    assert learner.exploitability() < UNIFORM_KUHN / 4
    # over the rules (what a game too big to compile takes): each actor traverses with a
    # copy of the broadcast regret networks; the same bound (in one process over the
    # rules, seeds 0-2 measured 0.040, 0.066 and 0.047)
    rules = DeepCFR(KUHN, DeepCFRConfig(seed=0, actors=2, tree=False)).train(steps=15)
    assert rules.tree is None and rules.traversals == 15 * 2 * 375
    assert rules.exploitability() < UNIFORM_KUHN / 4
    with pytest.raises(InvalidParameterError, match="max_staleness does not apply"):
        DeepCFR(KUHN, DeepCFRConfig(actors=2, max_staleness=1))


@pytest.mark.slow  # 37 s in CI: the short version is above
def test_escher_on_actors_learns_kuhn_on_the_tree_and_over_the_rules():
    # the settings and bound of tests/agents/test_escher.py (a third of uniform's
    # exploitability after 8 iterations over the tree), the episodes made by two actors
    learner = ESCHER(KUHN, ESCHERConfig(seed=0, actors=2)).train(steps=8)
    assert learner.traversals == 8 * 2 * 1024 and learner.version == 8 * 2 * 2
    assert learner.exploitability() < UNIFORM_KUHN / 3
    # over the rules, each actor with copies of the broadcast regret and value networks:
    # the same bound (in one process over the rules, seeds 0-2 measured 0.059, 0.057 and
    # 0.045)
    rules = ESCHER(KUHN, ESCHERConfig(seed=0, actors=2, tree=False)).train(steps=8)
    assert rules.tree is None and rules.traversals == 8 * 2 * 1024
    assert rules.exploitability() < UNIFORM_KUHN / 3


def test_simplex_gradient_on_actors_learns_kuhn():
    """Two local actors play each iteration's 64 games (32 each). Bound: 0.6 of uniform's
    exploitability after 300 iterations; measured 0.218-0.239 over seeds 0-3, against
    0.215-0.241 in one process (uniform: 11/24 = 0.458)."""
    learner = SimplexGradient(KUHN, SimplexGradientConfig(seed=1, actors=2)).train(steps=300)
    assert learner.episodes == 300 * 64 and learner.version == 300
    assert learner.exploitability() < 0.6 * UNIFORM_KUHN
    with pytest.raises(InvalidParameterError, match="max_staleness does not apply"):
        SimplexGradient(KUHN, SimplexGradientConfig(actors=2, max_staleness=1))


def test_an_actor_on_ray_gets_writeable_arrays():
    """Ray hands out read-only arrays; numba would compile a second specialization of the
    actors' kernels for them, so the host copies them before the actor sees them."""
    from nashzoo.agents.runtime import _Hosted

    class Keeper:
        def set_weights(self, weights, version):
            self.weights = weights

    frozen = np.arange(3.0)
    frozen.setflags(write=False)
    hosted = _Hosted(lambda index, seed: Keeper(), 0, 0)
    hosted.set_weights({"sigma": frozen, "nets": [frozen], "pair": (frozen, 1)}, 1)
    got = hosted.actor.weights
    arrays = [got["sigma"], got["nets"][0], got["pair"][0]]
    assert all(a.flags.writeable and np.array_equal(a, frozen) for a in arrays)
    assert got["pair"][1] == 1 and not frozen.flags.writeable
