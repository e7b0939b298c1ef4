"""The learned best response on Leduc against the exact one: a lower bound that beats
the uniform policy's score, for a policy agent (batched env) and an act-only agent
(single-agent envs)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
torch.set_num_threads(1)

from nashzoo.agents.random_agent import RandomAgent
from nashzoo.bounds import learned_best_response
from nashzoo.errors import InvalidParameterError
from nashzoo.eval import exploitability, head_to_head
from nashzoo.games import LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game

LEDUC = LeducHoldemGame()


class ActOnlyRaiser:
    """Raises where it may, else calls; states no probabilities (like a search agent)."""

    name = "raiser"

    def reset(self, *, seed=None):
        pass

    def act(self, observation, info):
        return 2 if observation["action_mask"][2] else 1


def raiser_policy(tree):
    probs = np.zeros(tree.legal_mask.shape)
    can = tree.legal_mask[:, 2].astype(bool)
    probs[can, 2] = 1.0
    probs[~can, 1] = 1.0
    return TabularPolicy(tree, probs)


@pytest.mark.parametrize("opponent", ["random", "raiser"])
def test_learned_best_response_is_a_lower_bound_above_uniform(opponent):
    tree = compile_game(LEDUC)
    uniform = TabularPolicy.uniform(tree)
    if opponent == "random":
        agent, policy = RandomAgent(seed=0), uniform
    else:
        agent, policy = ActOnlyRaiser(), raiser_policy(tree)
    exact = exploitability(policy).exploitability  # random 2.3736, raiser 2.3667
    uniform_score = head_to_head(tree, uniform, policy, exact=True).mean
    result = learned_best_response(LEDUC, agent, steps=16_384, deals=2000, seed=0)
    assert result.batched == (opponent == "random")
    assert result.ci95[0] <= exact, (result, exact)
    # Measured 2026-11-24 (seed 0, 16,384 steps): 1.66 [1.51, 1.82] against random (exact
    # best response 2.37, uniform 0.00); 0.94 [0.77, 1.11] against the raiser (exact 2.37,
    # uniform -1.90).
    assert result.value > uniform_score + 0.3, (result, uniform_score)


def test_learned_best_response_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    """SB3's default logger makes an empty ``SB3-<date>`` folder in the temporary folder
    at every learn(), even silent; the learned best response trains with one that
    writes nowhere. (torch may make its own cache folder there; that is not ours.)"""
    import tempfile

    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    learned_best_response(LEDUC, RandomAgent(seed=0), steps=256, deals=10, num_envs=2, seed=0)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("SB3-")] == []


def test_a_time_budget_ends_training_and_the_result_counts_the_steps_taken():
    """``seconds`` stops training at its first step past the budget, long before
    ``steps``; the result states the steps actually taken (a step of each of the 2
    environments at a time, the clock read after each)."""
    result = learned_best_response(
        LEDUC, RandomAgent(seed=0), steps=10**9, seconds=0.5, deals=10, num_envs=2,
        n_steps=16, seed=0,
    )  # fmt: skip
    assert 0 < result.steps < 10**9 and result.steps % 2 == 0
    assert result.train_seconds >= 0.5
    assert result.method == f"learned-br (maskable-ppo, {result.steps:,} steps)"
    for bad in (0, -1.0, float("nan"), "1"):
        with pytest.raises(InvalidParameterError, match="seconds"):
            learned_best_response(LEDUC, RandomAgent(seed=0), steps=8, seconds=bad)
