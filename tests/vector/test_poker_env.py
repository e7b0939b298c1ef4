"""The batched ACPC env (numba) against the engine it mirrors: game ``i`` seeded
``seed + i`` must play exactly the hands of the engine's own states seeded alike
(:class:`StateVectorEnv` steps :class:`PokerState` objects), whatever actions are
taken: the same observations, masks, players to act, returns and episode ends."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.poker import (
    PokerDefinition,
    PokerGame,
    no_limit_holdem,
    ring_limit_holdem,
)
from nashzoo.vector import PokerVectorEnv, StateVectorEnv, make_vector, vector_env


def _side_pot_table() -> PokerGame:
    """Three players with short, unequal stacks: all-ins and side pots every few hands."""
    d = no_limit_holdem(players=3).definition
    d = dataclasses.replace(d, stacks=(300, 700, 1500))
    return PokerGame(d, raises=(0.5, 1.0, 2.0), name="side_pots")


def _limit_with_stacks() -> PokerGame:
    """Four-player limit Hold'em whose stacks run out (the raise goes all-in short)."""
    d = ring_limit_holdem(4).definition
    d = dataclasses.replace(d, stacks=(60, 90, 200, 45))
    return PokerGame(d, name="short_limit")


def _ten_seats() -> PokerGame:
    """The most seats the engine takes, three stack sizes, three pot fractions."""
    d = PokerDefinition(
        num_rounds=4, blinds=(50, 100, *(0,) * 8), stacks=(3000,) * 4 + (800,) * 3 + (5000,) * 3,
        first_player=(2, 0, 0, 0), num_board_cards=(0, 3, 1, 1), num_suits=4, num_ranks=13,
        num_hole_cards=2,
    )  # fmt: skip
    return PokerGame(d, raises=(0.5, 1.0, 2.0), name="ten_seats")


GAMES = {
    "hunl": lambda: no_limit_holdem(),
    "hunl-short-stacks": lambda: no_limit_holdem(raises=(0.25, 0.5, 1.0, 2.0), stack=600),
    "3p-side-pots": _side_pot_table,
    "6p-no-limit": lambda: no_limit_holdem(players=6, stack=2000),
    "6p-limit": lambda: ring_limit_holdem(6),
    "4p-limit-short": _limit_with_stacks,
    "10p-no-limit-three-stacks": _ten_seats,
}


def _random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row, raises drawn as often as calls so stacks run out."""
    weights = mask.astype(float) * rng.random(mask.shape)
    return np.argmax(weights, axis=1)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_numba_env_plays_the_engines_hands(name):
    game = GAMES[name]()
    ours = vector_env(game, 24, seed=7)
    assert isinstance(ours, PokerVectorEnv)
    engine = StateVectorEnv(game, 24, seed=7)
    a, b = ours.reset(seed=7), engine.reset(seed=7)
    rng = np.random.default_rng(0)
    episodes = 0
    showdowns_split = 0
    for _ in range(400):
        np.testing.assert_array_equal(a.observation, b.observation)
        np.testing.assert_array_equal(a.action_mask, b.action_mask)
        np.testing.assert_array_equal(a.player, b.player)
        actions = _random_legal(a.action_mask, rng)
        only = rng.random(24) < 0.9
        a, b = ours.step(actions, only=only), engine.step(actions, only=only)
        np.testing.assert_array_equal(a.terminated, b.terminated)
        np.testing.assert_array_equal(a.rewards, b.rewards)  # bit for bit
        episodes += int(a.terminated.sum())
        # a side pot or a split leaves more than one player with a non-negative return
        showdowns_split += int(((a.rewards > 0).sum(axis=1) > 1).sum())
        np.testing.assert_allclose(a.rewards.sum(axis=1), 0.0, atol=1e-9)
    assert episodes > 300
    if name == "3p-side-pots":
        assert showdowns_split > 0  # the side-pot path was exercised


def test_make_vector_picks_the_numba_env_for_no_limit_and_ring_tables():
    assert isinstance(make_vector("nashzoo/no_limit_holdem-v0", 4, seed=0), PokerVectorEnv)
    venv = make_vector("nashzoo/limit_holdem-v0", 4, seed=0, players=6)
    assert isinstance(venv, PokerVectorEnv)
    assert venv.num_players == 6
    batch = venv.reset(seed=0)
    assert batch.rewards.shape == (4, 6)
    assert batch.observation.shape == (4, venv.game.information_state_tensor_size)


def test_an_illegal_action_is_refused_and_no_game_moves():
    venv = make_vector("nashzoo/no_limit_holdem-v0", 3, seed=1)
    venv.reset(seed=1)
    batch = venv.step(np.ones(3, np.int64))  # the small blind calls: the big blind owes nothing
    assert (batch.action_mask[:, 0] == 0).all()  # so folding is illegal
    before = batch.observation.copy()
    with pytest.raises(IllegalActionError, match="game 1"):
        venv.step(np.array([1, 0, 1]))
    after = venv.step(np.ones(3, np.int64), only=np.zeros(3, bool))  # steps no game
    np.testing.assert_array_equal(after.observation, before)  # the refused step moved none


def test_games_off_the_52_card_deck_are_refused_with_the_reason():
    small = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="52-card deck"):
        PokerVectorEnv(PokerGame(small), 2)
    with pytest.raises(InvalidParameterError, match="PokerGame"):
        PokerVectorEnv("no_limit_holdem", 2)  # type: ignore[arg-type]
