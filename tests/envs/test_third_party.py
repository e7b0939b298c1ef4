"""Third-party RL libraries accept the envs unmodified (issue 10): TorchRL's
PettingZooWrapper and Tianshou's collector (the `peers` extra; skipped when absent)."""

import warnings

import numpy as np
import pytest

import nashzoo

ENV_IDS = ["nashzoo/kuhn_poker-v0", "nashzoo/leduc_holdem-v0"]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_torchrl_pettingzoo_wrapper_rollout(env_id):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    torch.manual_seed(0)
    env = PettingZooWrapper(nashzoo.make(env_id), use_mask=True, categorical_actions=True, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", nashzoo.envs.IllegalActionWarning)
        td = env.rollout(300, break_when_any_done=False)  # many episodes, auto-reset
    rewards = [td["next", p, "reward"].sum().item() for p in ("player_0", "player_1")]
    episodes = int(td["next", "done"].sum())
    assert episodes >= 30 and rewards[0] == -rewards[1]  # zero-sum, every episode
    info = td["player_0", "info"]
    game = nashzoo.make_game(env_id)
    assert set(info.keys()) == set(nashzoo.envs.protocol.INFO_KEYS)
    assert info["public_history"].shape[-1] == game.max_history_length
    assert int(info["history_length"].max()) <= game.max_history_length


def test_tianshou_collector_runs_episodes():
    pytest.importorskip("torch")
    pytest.importorskip("tianshou")
    from tianshou.algorithm import (
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(nashzoo.make("nashzoo/leduc_holdem-v0"))

    env = make()
    algorithms = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(2)
    ]
    collector = Collector(
        MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env), DummyVectorEnv([make, make])
    )
    collector.reset()
    stats = collector.collect(n_episode=40)
    assert stats.n_collected_episodes >= 40
    returns = np.asarray(stats.returns)
    assert returns.shape[1] == 2 and np.allclose(returns.sum(axis=1), 0)
    assert set(np.unique(np.abs(returns))) <= {0, 1, 3, 5, 7, 9, 11, 13}  # Leduc stakes
