"""Batched Kuhn, Leduc and Limit Hold'em: the same episodes as the single env for the same seeds,
PCG64 reproduced draw for draw, auto-reset, and clear errors."""

import numpy as np
import pytest

import nashzoo
from nashzoo.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidParameterError,
    ResetNeededError,
)
from nashzoo.games.pcg import next_double, seeded_states
from nashzoo.vector import make_vector


def test_pcg64_draws_equal_numpy():
    seeds = [0, 1, 2**40 + 3]
    states = seeded_states(seeds)
    for i, seed in enumerate(seeds):
        expected = np.random.default_rng(seed).random(2000)
        ours = np.array([next_double(states, i) for _ in range(2000)])
        np.testing.assert_array_equal(ours, expected)


def _legal_choice(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize(
    "env_id, showdowns, stepped",
    [
        ("nashzoo/kuhn_poker-v0", False, "auto"),
        ("nashzoo/leduc_holdem-v0", False, "auto"),
        ("nashzoo/limit_holdem-v0", False, "auto"),
        ("nashzoo/limit_holdem-v0", True, "auto"),  # never fold: every hand is ranked
        # the rules stepped in Python (issue 30): games with no numba env, and any game
        ("nashzoo/leduc_holdem-v0", False, "python"),
        ("nashzoo/limit_holdem-v0", False, "python"),
        ("nashzoo/fighting_cards_small-v0", False, "python"),  # simultaneous moves
        ("nashzoo/fighting_cards-v0", False, "auto"),  # the fighting rules in numba
        ("nashzoo/liars_dice-v0", False, "auto"),  # one six-faced die: the compiled tree
        ("nashzoo/goofspiel-v0", False, "auto"),  # thirteen cards: the rules in Python
    ],
)
def test_same_episodes_as_the_single_env(env_id, showdowns, stepped):
    n, seed, steps = 6, 11, 120 if showdowns else 60
    if env_id in ("nashzoo/fighting_cards-v0", "nashzoo/goofspiel-v0"):  # long games
        steps = 160
    venv = make_vector(env_id, n, stepped=stepped)
    if stepped == "python":
        assert type(venv).__name__ == "StateVectorEnv"
    batch = venv.reset(seed=seed)
    choosers = [np.random.default_rng(100 + i) for i in range(n)]
    seen = [[] for _ in range(n)]  # per game: (observation, mask, action) at each decision
    returns = [[] for _ in range(n)]
    for _ in range(steps):
        masks = batch.action_mask.copy()
        if showdowns:
            masks[:, 0] = 0
        actions = np.array([_legal_choice(choosers[i], masks[i]) for i in range(n)])
        for i in range(n):
            seen[i].append((batch.observation[i].copy(), batch.action_mask[i].copy(), actions[i]))
        batch = venv.step(actions)
        for i in np.flatnonzero(batch.terminated):
            returns[i].append(batch.rewards[i].tolist())
    for i in range(n):
        env = nashzoo.make(env_id)
        env.reset(seed=seed + i)
        decisions = iter(seen[i])
        single_returns = []
        done = False
        while not done:
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                try:
                    observation, mask, action = next(decisions)
                except StopIteration:
                    done = True
                    break
                np.testing.assert_array_equal(obs["observation"], observation)
                np.testing.assert_array_equal(obs["action_mask"], mask)
                env.step(int(action))
            else:
                single_returns.append(env.unwrapped.state_of_game().returns())
                env.reset()
        assert single_returns == returns[i] and len(returns[i]) >= 5
        if showdowns:  # ranked hands: wins, losses and splits of the 7-card tables
            assert {r[0] > 0 for r in returns[i]} == {True, False}


def test_errors_and_autoreset():
    venv = make_vector("nashzoo/kuhn_poker-v0", 3)
    with pytest.raises(ResetNeededError, match="reset"):
        venv.step(np.ones(3, dtype=np.int64))
    batch = venv.reset(seed=0)
    assert batch.observation.shape == (3, 11) and batch.action_mask.shape == (3, 2)
    assert (batch.player == 0).all()
    with pytest.raises(InvalidActionError, match=r"shape \(3,\)"):
        venv.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(InvalidActionError, match=r"\[0, 2\)"):
        venv.step(np.array([0, 0, 5]))
    # Kuhn: bet, bet ends every game (a call); the rewards are +-2 and the games restart
    batch = venv.step(np.ones(3, dtype=np.int64))
    assert (batch.player == 1).all() and not batch.terminated.any()
    batch = venv.step(np.ones(3, dtype=np.int64))
    assert batch.terminated.all() and (batch.player == 0).all()
    assert set(np.abs(batch.rewards).ravel().tolist()) == {2.0}
    assert (batch.rewards.sum(axis=1) == 0).all()


def test_poker_vector_env_errors():
    from nashzoo.games.poker import leduc
    from nashzoo.vector import PokerVectorEnv

    with pytest.raises(InvalidParameterError, match="52-card deck"):
        PokerVectorEnv(leduc(), 4)
    venv = make_vector("nashzoo/limit_holdem-v0", 3)
    assert type(venv).__name__ == "PokerVectorEnv"
    batch = venv.reset(seed=5)
    assert batch.observation.shape == (3, 279) and (batch.player == 1).all()  # small blind
    assert batch.action_mask.tolist() == [[1, 1, 1]] * 3
    batch = venv.step(np.array([1, 1, 1]))  # the small blind calls: no fold for the big one
    assert batch.action_mask.tolist() == [[0, 1, 1]] * 3 and (batch.player == 0).all()
    before = batch.observation.copy()
    with pytest.raises(IllegalActionError, match="Action 0 is illegal in game 0"):
        venv.step(np.array([0, 1, 1]))
    batch = venv.step(np.array([1, 1, 1]))  # check: the flop comes, player 0 acts first
    assert (batch.player == 0).all() and not batch.terminated.any()
    assert (batch.observation[:, 54:106].sum(axis=1) == 3).all()
    assert (before[:, 54:106] == 0).all()


def test_illegal_action_changes_nothing():
    venv = make_vector("nashzoo/leduc_holdem-v0", 2)
    batch = venv.reset(seed=3)
    venv.step(np.array([2, 2]))  # raise, raise
    batch = venv.step(np.array([2, 2]))  # re-raise: the second and last raise
    assert batch.action_mask.tolist() == [[1, 1, 0], [1, 1, 0]]
    before = venv.information_state_strings()
    with pytest.raises(IllegalActionError, match="Action 2 is illegal in game 0"):
        venv.step(np.array([2, 1]))
    assert venv.information_state_strings() == before


def test_every_game_has_a_batched_env_and_nfsp_seat_and_sb3_use_the_same_one(monkeypatch):
    """Issue 30: a game with no numba env runs in the Python-stepped one behind the same
    API, for NFSP's self-play, SeatVectorEnv and the SB3 vec env alike (and a
    fighting-card game that does not compile in its numba env)."""
    import torch

    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.games.fighting import fighting_cards_small
    from nashzoo.tree import compile as tree_compile
    from nashzoo.vector import FightingVectorEnv, StateVectorEnv, vector_env
    from nashzoo.wrappers.sb3_vec import SB3VecEnv
    from nashzoo.wrappers.vector_seat import SeatVectorEnv

    game = fighting_cards_small()
    venv = vector_env(game, 4, seed=0, stepped="python")
    batch = venv.reset(seed=0)
    assert batch.observation.shape == (4, game.information_state_tensor_size)
    assert batch.action_mask.dtype == np.int8 and (batch.action_mask.sum(axis=1) > 0).all()
    with pytest.raises(IllegalActionError, match="No game was stepped"):
        venv.step(np.argmin(batch.action_mask, axis=1))  # a masked-out card in every game
    assert len(venv.information_state_strings()) == 4
    with pytest.raises(InvalidParameterError, match="stepped"):
        vector_env(game, 4, stepped="gpu")

    def too_large(game, **kwargs):  # as the fighting game's default preset is
        return None  # compiled_or_none's answer for a game that does not compile

    monkeypatch.setattr(tree_compile, "compiled_or_none", too_large)
    assert isinstance(vector_env(game, 2), FightingVectorEnv)
    game = nashzoo.make_game("leduc_holdem")  # the hand-written rules: no numba env
    assert isinstance(vector_env(game, 2), StateVectorEnv)
    seat = SeatVectorEnv(game, 4, seed=1)
    obs, info = seat.reset(seed=1)
    assert isinstance(seat.venv, StateVectorEnv)
    assert obs.shape == (4, game.information_state_tensor_size)
    obs, rewards, terminated, _, info = seat.step(np.argmax(info["action_mask"], axis=1))
    assert obs.shape[0] == 4 and rewards.shape == (4,)
    sb3 = SB3VecEnv(game, 3, seed=0)
    assert isinstance(sb3.env.venv, StateVectorEnv) and sb3.reset().shape[0] == 3
    torch.set_num_threads(1)
    nfsp = NFSP(game, NFSPConfig(batch_games=4, hidden_sizes=(8,), seed=0)).train(steps=20)
    assert isinstance(nfsp._games.venv, StateVectorEnv) and nfsp.episodes >= 20


@pytest.mark.parametrize(
    "params",
    [
        {},  # the default preset (does not compile)
        {"ranks": 1, "copies": 1, "hand_size": 3, "hit_points": 3},  # tiny
        {"ranks": 1, "copies": 1, "hand_size": 2, "hit_points": 3},  # small
        {"ranks": 2, "copies": 2, "hand_size": 4, "hit_points": 7},  # copies: draws weigh
    ],
)
def test_the_numba_fighting_env_plays_the_rules_games(params):
    """The fighting rules in numba against the rules' own states stepped in Python (the
    same single-env episodes, test above): the same observations, masks, players,
    returns and terminations for 400 random steps of 32 games."""
    from nashzoo.games.fighting import FightingCardGame
    from nashzoo.vector import FightingVectorEnv, StateVectorEnv

    game = FightingCardGame(**params)
    fast, slow = FightingVectorEnv(game, 32), StateVectorEnv(game, 32)
    a, b = fast.reset(seed=10), slow.reset(seed=10)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        for field in a._fields:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
        actions = np.array([_legal_choice(rng, mask) for mask in a.action_mask])
        a, b = fast.step(actions), slow.step(actions)
        ended += int(a.terminated.sum())
    assert ended > 100


def test_the_numba_fighting_env_refuses_bad_input():
    from nashzoo.games.fighting import FightingCardGame
    from nashzoo.vector import FightingVectorEnv

    with pytest.raises(InvalidParameterError, match="expects a FightingCardGame, received"):
        FightingVectorEnv(nashzoo.make_game("kuhn_poker"), 2)
    with pytest.raises(InvalidParameterError, match="num_envs"):
        FightingVectorEnv(FightingCardGame(), 0)
    venv = FightingVectorEnv(FightingCardGame(), 2, seed=0)
    batch = venv.reset(seed=0)
    with pytest.raises(IllegalActionError, match="No game was stepped"):
        venv.step(np.argmin(batch.action_mask, axis=1))
