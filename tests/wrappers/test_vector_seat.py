"""One seat of batched games against a batched opponent (Gymnasium VectorEnv) and its
stable-baselines3 VecEnv: exact values, seats, skipped deals, errors, and learning."""

import numpy as np
import pytest

from nashzoo.agents.random_agent import RandomAgent
from nashzoo.errors import (
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidParameterError,
    ResetNeededError,
)
from nashzoo.eval import head_to_head
from nashzoo.games import KuhnPokerGame
from nashzoo.tree import TabularPolicy, compile_game
from nashzoo.wrappers.vector_seat import SeatVectorEnv


def test_mean_reward_equals_the_exact_value_against_random():
    # The learner always bets (action 1) in Kuhn against the uniform random opponent, in
    # both seats: the mean reward per episode must equal the exact expectation.
    tree = compile_game(KuhnPokerGame())
    always_bet = TabularPolicy(tree, np.tile([0.0, 1.0], (tree.legal_mask.shape[0], 1)))
    exact = head_to_head(tree, always_bet, TabularPolicy.uniform(tree), exact=True).mean
    env = SeatVectorEnv("nashzoo/kuhn_poker-v0", 512, seed=3)
    obs, info = env.reset(seed=3)
    assert obs.shape == (512, 11) and set(info) == {"action_mask", "seat"}
    assert info["seat"].tolist() == [0, 1] * 256
    total, episodes = [], 0
    for _ in range(60):
        obs, rewards, terminated, truncated, info = env.step(np.ones(512, dtype=np.int64))
        assert set(info) == {"action_mask", "seat"} and not truncated.any()
        assert (rewards[~terminated] == 0).all()
        total.append(rewards[terminated])
        episodes += int(terminated.sum())
    returns = np.concatenate(total)
    se = returns.std() / np.sqrt(len(returns))
    assert episodes > 15_000
    assert abs(returns.mean() - exact) < 4 * se, (returns.mean(), exact, se)


def test_seats_alternate_and_same_seed_same_run():
    runs = []
    for _ in range(2):
        env = SeatVectorEnv("nashzoo/leduc_holdem-v0", 8, opponent="random", seed=1)
        obs, info = env.reset(seed=1)
        seats = [info["seat"].copy()]
        rewards = []
        rng = np.random.default_rng(0)
        for _ in range(30):
            mask = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, r, terminated, _, info = env.step(actions)
            ended = terminated.copy()
            # a game that ended switched seat for its next deal
            flips = info["seat"] != seats[-1]
            assert (flips == ended).all() or env.skipped_deals  # Leduc has no skipped deals
            seats.append(info["seat"].copy())
            rewards.append(r)
        runs.append((np.array(seats), np.array(rewards), obs))
        assert env.skipped_deals == 0
    for a, b in zip(runs[0], runs[1]):
        np.testing.assert_array_equal(a, b)


class _AlwaysFold:
    """Folds whenever it may (a batched opponent stating its probabilities)."""

    def batch_probabilities(self, observation, action_mask, player):
        probs = np.where(action_mask[:, :1] > 0, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
        return probs


def test_deals_the_opponent_ends_at_once_are_skipped_then_refused():
    # Limit Hold'em: the small blind (seat 1) may fold before the big blind acts.
    env = SeatVectorEnv("nashzoo/limit_holdem-v0", 4, _AlwaysFold(), seat=0, seed=0)
    env.max_redeals = 50
    with pytest.raises(GameOverError, match="deals in a row"):
        env.reset(seed=0)  # the learner (big blind) never reaches a decision
    env = SeatVectorEnv("nashzoo/limit_holdem-v0", 4, _AlwaysFold(), seat="alternate", seed=0)
    env.reset(seed=0)  # alternating: a skipped deal switches seat like any other
    assert env.skipped_deals == 2 and (env.seats == 1).all()
    env = SeatVectorEnv("nashzoo/limit_holdem-v0", 4, _AlwaysFold(), seat=1, seed=0)
    obs, info = env.reset(seed=0)
    assert (info["seat"] == 1).all() and env.skipped_deals == 0
    # the learner (small blind) calls, the opponent checks; on the flop the opponent
    # checks first, the learner bets and the opponent folds
    obs, rewards, terminated, _, info = env.step(np.ones(4, dtype=np.int64))
    assert not terminated.any()
    obs, rewards, terminated, _, info = env.step(np.full(4, 2, dtype=np.int64))  # bet
    assert terminated.all() and (rewards == 10.0).all()  # the big blind's 10 chips


def test_errors():
    with pytest.raises(InvalidParameterError, match="`seat`"):
        SeatVectorEnv("nashzoo/kuhn_poker-v0", 2, seat="random")
    with pytest.raises(InvalidParameterError, match="action probabilities"):
        SeatVectorEnv("nashzoo/kuhn_poker-v0", 2, opponent=object())
    env = SeatVectorEnv("nashzoo/leduc_holdem-v0", 2, RandomAgent(seed=0), seat=0)
    with pytest.raises(ResetNeededError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    obs, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [[0, 1, 1]] * 2  # nothing to fold to
    assert info["action_mask"].dtype == np.int8 == env.action_masks().dtype  # issue 32
    assert env.single_action_space.sample(mask=info["action_mask"][0]) in (1, 2)
    with pytest.raises(IllegalActionError, match="Action 0 is illegal in game 0"):
        env.step(np.array([0, 1]))
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])  # unchanged
    with pytest.raises(InvalidActionError, match="shape"):
        env.step(np.array([1, 1, 1]))
    env.step(np.array([1, 1]))  # a check in both games; the opponent answers


def test_maskable_ppo_learns_on_the_sb3_vec_env():
    # Measured 2026-11-24 (16 batched Leduc games, n_steps 128, batch 256, seeds 0 and 1):
    # exact score against uniform random 0.64-0.68 after 4,096 steps, 1.30 after 8,192,
    # the single env's curve (tests/agents/test_sb3.py). Uniform scores 0 against itself.
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    from nashzoo.agents.sb3 import SB3Agent
    from nashzoo.games import LeducHoldemGame
    from nashzoo.wrappers.sb3_vec import SB3VecEnv

    env = SB3VecEnv("nashzoo/leduc_holdem-v0", 16, seed=0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=256, gamma=1.0, seed=0, device="cpu"
    ).learn(8192)
    tree = compile_game(LeducHoldemGame())
    learned = TabularPolicy.from_agent(SB3Agent(model), tree)
    exact = head_to_head(tree, learned, TabularPolicy.uniform(tree), exact=True).mean
    assert exact > 0.0 + 0.9  # uniform's score plus a margin
    assert env.get_attr("skipped_deals") == [0] * 16
    with pytest.raises(InvalidParameterError, match="action_masks"):
        env.env_method("render")
