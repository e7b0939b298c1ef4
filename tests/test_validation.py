"""Bad parameters get a clear error naming what was expected and what was received
(issue 11's list), and the shared checks of nashzoo.validation."""

import numpy as np
import pytest

import nashzoo
from nashzoo.agents import AgentSpec, build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.tournament import TournamentConfig
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.wrappers import SingleAgentEnv


@pytest.mark.parametrize("strict", [1, 0, "yes", None])
def test_strict_must_be_a_bool(strict):
    with pytest.raises(InvalidParameterError, match="`strict` expects True or False"):
        nashzoo.make("kuhn_poker", strict=strict)
    with pytest.raises(InvalidParameterError, match="`strict` expects True or False"):
        SingleAgentEnv("kuhn_poker", strict=strict)


def test_illegal_reward_must_be_finite_and_numpy_numbers_are_accepted():
    env = nashzoo.make("kuhn_poker", illegal_reward=np.float32(-2.5))
    assert env.unwrapped.illegal_reward == -2.5
    for bad in (float("nan"), float("inf"), "1", None, True):
        with pytest.raises(InvalidParameterError, match="illegal_reward"):
            nashzoo.make("kuhn_poker", illegal_reward=bad)


@pytest.mark.parametrize("sizes", [2, "24", {1: 2}, {2, 4}])
def test_raise_sizes_must_be_a_sequence(sizes):
    with pytest.raises(InvalidParameterError, match="`raise_sizes` expects a sequence"):
        LeducHoldemGame(raise_sizes=sizes)
    assert LeducHoldemGame(raise_sizes=np.array([2, 4])).raise_sizes == (2, 4)


@pytest.mark.parametrize("seat", [2, -1, "0", True, None, 0.0])
def test_single_agent_seat_is_validated(seat):
    with pytest.raises(InvalidParameterError, match="`seat` must be 0, 1, 'alternate'"):
        SingleAgentEnv("kuhn_poker", seat=seat)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_seeds_are_validated_with_their_name(seed):
    env = nashzoo.make("kuhn_poker")
    with pytest.raises(InvalidParameterError, match="Parameter `seed`"):
        env.reset(seed=seed)
    with pytest.raises(InvalidParameterError, match="Parameter `seed`"):
        SingleAgentEnv("kuhn_poker").reset(seed=seed)
    with pytest.raises(InvalidParameterError, match="Parameter `seed`"):
        nashzoo.RandomAgent(seed=seed)


def test_kuhn_deck_size_is_bounded():
    with pytest.raises(InvalidParameterError, match=r"`deck_size` must be in \[3, 100\]"):
        KuhnPokerGame(10**6)


def good_config(**kw):
    base = dict(
        game="nashzoo/kuhn_poker-v0",
        deals=10,
        agents=(("a", AgentSpec("random")), ("b", AgentSpec("random"))),
    )
    return TournamentConfig(**{**base, **kw})


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("game", 3, "TournamentConfig.game is an env id"),
        ("game", "nashzoo/chess-v0", "No environment registered"),
        ("deals", 0, "`deals` must be >= 1"),
        ("deals", 2.5, "`deals` expects an integer"),
        ("block_size", -1, "`block_size` must be >= 1"),
        ("seed", -3, "`seed` must be >= 0"),
        ("move_time_limit", 0, "`move_time_limit` must be > 0"),
        ("move_time_limit", "fast", "`move_time_limit` expects a number"),
        ("memory_limit_mb", 10, "`memory_limit_mb` must be >= 64"),
        ("params", [1], "params is a dict"),
        ("params", {"deck_size": object()}, "must be JSON values"),
        ("agents", "ab", "sequence of \\(name, agent or factory\\) pairs"),
        ("agents", (("", AgentSpec("random")), ("b", AgentSpec("random"))), "non-empty strings"),
        ("agents", (("a", 42), ("b", AgentSpec("random"))), "expected an agent .* received int"),
    ],
)
def test_every_tournament_config_field_is_validated(field, value, match):
    with pytest.raises((InvalidParameterError, LookupError), match=match):
        good_config(**{field: value})


def test_build_agent_names_the_spec_when_a_factory_fails():
    with pytest.raises(
        InvalidParameterError,
        match=r"Agent spec 'tests.fixture_agents:broken_factory': "
        r"tests.fixture_agents.broken_factory\(\) raised ZeroDivisionError",
    ):
        build_agent("tests.fixture_agents:broken_factory", KuhnPokerGame())


@pytest.mark.parametrize("spec", ["cfr+:²", "cfr+:-3", "cfr+:1e3", "cfr+:0", "cfr+:x"])
def test_solver_specs_need_a_positive_ascii_integer(spec):
    with pytest.raises(InvalidParameterError, match="A solver spec is cfr\\+:ITERATIONS"):
        build_agent(spec, KuhnPokerGame())


def test_unknown_specs_list_the_forms():
    with pytest.raises(InvalidParameterError, match="Unknown agent spec 'nobody'.*cfr\\+:ITER"):
        build_agent("nobody", KuhnPokerGame())


def test_the_parallel_api_checks_its_action_dict(caplog):
    env = nashzoo.make_parallel("rps")
    env.reset(seed=0)
    with pytest.raises(
        InvalidParameterError, match="actions for \\['player_9'\\], which are not live agents"
    ):
        env.step({"player_0": 0, "player_1": 1, "player_9": 2})
    with pytest.raises(InvalidParameterError, match="no action for \\['player_1'\\]"):
        env.step({"player_0": 0})
    obs, rewards, terms, truncs, infos = env.step({"player_0": 0, "player_1": 1})
    assert rewards == {"player_0": -1.0, "player_1": 1.0} and all(terms.values())
    assert env.agents == []
    assert env.step({}) == ({}, {}, {}, {}, {})  # after the end: warns, as the AEC env
    assert "step() called after all agents are terminated" in caplog.text


def test_numba_caches_in_the_users_cache_directory():
    import numba

    from nashzoo.extras import user_cache_dir
    from nashzoo.tree.kernels import compiled

    compiled()  # compiling any kernel points the cache there first

    assert str(user_cache_dir("numba")) == numba.config.CACHE_DIR
    assert not str(numba.config.CACHE_DIR).startswith(str(nashzoo.__path__[0]))


# -- declared configs (issue 30: field rules in metadata, checked once, frozen) ----------
def _configs():
    from nashzoo.agents.cfr.learner import TabularConfig
    from nashzoo.agents.ismcts.search import SearchConfig
    from nashzoo.agents.ismcts.train import TrainConfig
    from nashzoo.agents.nfg import GempConfig
    from nashzoo.agents.nfsp import NFSPConfig
    from nashzoo.agents.simplex_gradient import SimplexGradientConfig

    configs = [NFSPConfig, SimplexGradientConfig, SearchConfig, TrainConfig, GempConfig]
    return [*configs, TabularConfig]


@pytest.mark.parametrize("kind", _configs(), ids=lambda k: k.__name__)
def test_every_learner_config_is_frozen_declared_and_round_trips(kind):
    import dataclasses

    from nashzoo.validation import Config

    assert issubclass(kind, Config) and kind.__dataclass_params__.frozen
    config = kind()
    assert kind.from_dict(config.to_dict()) == config
    # every field declares its rule, so nothing goes unchecked
    undeclared = [f.name for f in dataclasses.fields(kind) if "rule" not in f.metadata]
    assert undeclared == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 3
    # a change makes a new config, checked again
    with pytest.raises(InvalidParameterError, match=rf"`{kind.__name__}.seed` must be"):
        dataclasses.replace(config, seed=-1)
    with pytest.raises(InvalidParameterError, match=r"Unknown .* fields \['nope'\]; the known"):
        kind.from_dict({"nope": 1})


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("batch_size", 0, "must be an integer >= 1, received 0."),
        ("batch_size", 2.0, "must be an integer >= 1, received 2.0."),
        ("batch_size", True, "must be an integer >= 1, received True."),
        ("anticipatory", float("nan"), "must be a finite number >= 0 and <= 1, received nan."),
        ("anticipatory", "0.1", "must be a finite number >= 0 and <= 1, received '0.1'."),
        ("vectorized", 1, "must be True or False, received 1."),
        ("loss", ["mse"], "must be one of 'mse', 'huber', received ['mse']."),
        ("seed", -1, "must be an integer >= 0 or None, received -1."),
        ("hidden_sizes", (), "must be a non-empty tuple of integers >= 1, received ()."),
        # a text field with a pattern (agents.training.device_field): matched whole
        ("device", "tpu", "must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'tpu'."),
        ("device", "cuda:", "must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'cuda:'."),
        ("device", "cpu0", "must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 'cpu0'."),
        ("device", 0, "must be 'auto', 'cpu', 'cuda' or 'cuda:N', received 0."),
    ],
)
def test_config_messages_have_one_form(field, value, message):
    from nashzoo.agents.nfsp import NFSPConfig

    with pytest.raises(InvalidParameterError) as caught:
        NFSPConfig(**{field: value})
    assert str(caught.value) == f"`NFSPConfig.{field}` {message}"


@pytest.mark.parametrize("value", ["", "   ", 3, None, b"ehs2:169,50,50,50"])
def test_a_text_field_takes_a_non_empty_string_and_the_cli_passes_one(value):
    import argparse

    from nashzoo.agents.simplex_gradient import SimplexGradientConfig
    from nashzoo.cli.train import config_options

    with pytest.raises(InvalidParameterError) as caught:
        SimplexGradientConfig(strength_abstraction=value)
    assert str(caught.value) == (
        f"`SimplexGradientConfig.strength_abstraction` must be a non-empty string, "
        f"received {value!r}."
    )
    parser = argparse.ArgumentParser()
    config_options(parser, SimplexGradientConfig)
    args = parser.parse_args(["--strength-abstraction", "ehs:169,10,10,10"])
    assert args.strength_abstraction == "ehs:169,10,10,10"
    config = SimplexGradientConfig(strength_abstraction=args.strength_abstraction)
    assert config.to_dict()["strength_abstraction"] == "ehs:169,10,10,10"


def test_config_values_are_cleaned_once():
    from nashzoo.agents.nfg import GempConfig
    from nashzoo.agents.nfsp import NFSPConfig

    config = NFSPConfig(batch_size=np.int64(64), hidden_sizes=[32, 16], anticipatory=0)
    assert type(config.batch_size) is int and config.hidden_sizes == (32, 16)
    assert type(config.anticipatory) is float
    assert GempConfig(eta=[1, 2]).eta == (1.0, 2.0)
    with pytest.raises(InvalidParameterError, match=r"`GempConfig.eta` must be a tuple of 2"):
        GempConfig(eta=(1.0, 0.0))


@pytest.mark.parametrize("spec", ["random:", "poker-rules:", "cfr+:"])
def test_a_spec_with_an_empty_argument_is_refused(spec):
    # issue 31: `random:` was accepted as `random`
    with pytest.raises(InvalidParameterError, match="ends in ':' with nothing after it"):
        build_agent(spec, LeducHoldemGame())


@pytest.mark.parametrize("env_id", ["leduc_holdem", "limit_holdem"])
def test_a_batch_beyond_the_limit_is_a_typed_error_naming_it(env_id):
    # issue 31: make_vector(id, 10**12) raised a bare MemoryError
    from nashzoo.vector import make_vector
    from nashzoo.vector.base import MAX_NUM_ENVS

    with pytest.raises(InvalidParameterError, match=rf"num_envs.*\[1, {MAX_NUM_ENVS}\]"):
        make_vector(env_id, 10**12)
    assert make_vector(env_id, 3).num_envs == 3


@pytest.mark.parametrize("kind", _configs(), ids=lambda k: k.__name__)
def test_every_config_field_is_documented(kind):
    # `nashzoo train` shows each field's documentation as its option's help
    helps = kind.field_help()
    assert set(helps) == {f.name for f in __import__("dataclasses").fields(kind)}
    assert [name for name, text in helps.items() if len(text) < 8] == []


def test_field_help_reads_the_attributes_section_and_prefers_metadata():
    import dataclasses

    from nashzoo.validation import Config, integer

    @dataclasses.dataclass(frozen=True)
    class Toy(Config):
        """A toy.

        Attributes:
            a, b: shared text
                that goes on.
            c: overridden below.

        Raises:
            Nothing: not an attribute.
        """

        a: int = integer(1)
        b: int = integer(2)
        c: int = integer(3, help="from the metadata")

    assert Toy.field_help() == {
        "a": "shared text that goes on.",
        "b": "shared text that goes on.",
        "c": "from the metadata",
    }
