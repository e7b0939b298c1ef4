"""Hypothesis fuzzing of the env API and of policy files (derandomized in CI, see
conftest.py): whatever a careless or hostile caller does, the answer is either valid
behaviour or one of nashzoo's own errors, never a stray exception (issue 11)."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nashzoo
from nashzoo.errors import NashzooError, PolicyFileError
from nashzoo.tree import TabularPolicy

ENV_IDS = sorted(nashzoo.registry)

actions = st.one_of(
    st.integers(-3, 5),
    st.none(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=2),
    st.builds(np.int64, st.integers(-2, 4)),
    st.builds(np.array, st.lists(st.integers(0, 2))),
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("step"), actions),
        st.tuples(st.just("legal"), st.none()),
        st.tuples(st.just("last"), st.none()),
        st.tuples(st.just("reset"), st.one_of(st.none(), st.integers(0, 2**32))),
    ),
    max_size=40,
)


@pytest.mark.filterwarnings("ignore::nashzoo.envs.IllegalActionWarning")
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(ENV_IDS), ops=operations, strict=st.booleans())
def test_env_api_fuzz(env_id, ops, strict):
    env = nashzoo.make(env_id, strict=strict)
    env.reset(seed=0)
    space = env.observation_space("player_0")
    for op, arg in ops:
        try:
            if op == "reset":
                env.reset(seed=arg)
            elif op == "last":
                obs, reward, terminated, truncated, info = env.last()
                assert space.contains(obs)
                assert sorted(info) == [
                    "history_length",
                    "illegal_action",
                    "player",
                    "public_history",
                ]
            elif op == "legal":
                if env.agents:
                    obs, _, done, trunc, _ = env.last()
                    env.step(None if done or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
            else:
                env.step(arg)
        except NashzooError:
            pass  # a documented refusal (bad type, out of range, illegal in strict mode...)
    if env.agents:
        assert env.agent_selection in env.agents


valid = json.loads(
    json.dumps(
        {
            "format": "nashzoo.tabular_policy",
            "version": 1,
            "game": {"type": "kuhn_poker", "params": {"deck_size": 3}},
            "num_actions": 2,
            "metadata": {},
            "infosets": {
                k: row.tolist()
                for k, row in zip(
                    TabularPolicy.uniform(nashzoo.make_game("kuhn_poker")).keys,
                    TabularPolicy.uniform(nashzoo.make_game("kuhn_poker")).probs,
                )
            },
        }
    )
)
json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.lists(
        st.sampled_from(
            [
                "format",
                "version",
                "game",
                "type",
                "params",
                "deck_size",
                "infosets",
                "metadata",
                "player=0 card=J history=",
            ]
        ),
        min_size=1,
        max_size=3,
    ),
    value=json_values,
    delete=st.booleans(),
)
def test_policy_file_fuzz(tmp_path, path, value, delete):
    doc = json.loads(json.dumps(valid))
    node = doc
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            break
        node = node[key]
    if isinstance(node, dict):
        if delete:
            node.pop(path[-1], None)
        else:
            node[path[-1]] = value
    file = tmp_path / "fuzz.json"
    file.write_text(json.dumps(doc))
    try:
        policy = TabularPolicy.load(file)
    except (PolicyFileError, NashzooError):
        return
    assert np.allclose(policy.probs.sum(axis=1), 1.0)  # whatever loads is a valid policy
