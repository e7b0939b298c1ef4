"""The poker engine at tables of three to six players, limit and no-limit (issue 38
item 2): lockstep with OpenSpiel's universal_poker, exact history counts, side pots,
CFR+ on a small ring game, and the envs."""

from __future__ import annotations

import dataclasses

import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError
from nashzoo.games import load_game
from nashzoo.games.poker import (
    NO_STACK,
    PokerDefinition,
    PokerGame,
    no_limit_holdem,
    parse_gamedef,
    ring_limit_holdem,
)
from tests.conftest import coverage_paused

from .trees import walk
from .universal_poker import lockstep

LIMIT3 = PokerDefinition(
    num_rounds=2, blinds=(1, 2, 0), stacks=(NO_STACK,) * 3, first_player=(2, 0),
    num_board_cards=(0, 1), num_suits=2, num_ranks=4, num_hole_cards=1, betting="limit",
    raise_sizes=(2, 4), max_raises=(2, 2),
)  # fmt: skip
"""A Leduc-sized three-player limit game (8 cards)."""
NOLIMIT3 = PokerDefinition(
    num_rounds=2, blinds=(1, 2, 0), stacks=(12, 9, 15), first_player=(2, 0),
    num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
)  # fmt: skip
"""A three-player no-limit game with unequal stacks (side pots)."""


@pytest.mark.parametrize("definition, histories", [(LIMIT3, 2_041_265), (NOLIMIT3, 380_437)])
def test_history_counts_are_exact(definition, histories):
    game = PokerGame(definition)
    assert game.count_histories() == histories
    if definition is NOLIMIT3:  # walking the limit game's two million takes a while
        # untraced (3 s, 23 s traced): this file's other tests trace the engine's lines
        with coverage_paused():
            total, longest = walk(game.new_initial_state())
        assert total == histories and longest <= game.max_game_length


def test_side_pots_at_a_three_player_table():
    # player 1 is all-in short (9 chips) with the best hand; players 0 and 2 bet on to
    # 12 between themselves: player 1 wins 9 from each, player 2 (second best) the rest
    game = PokerGame(NOLIMIT3, raises=())
    state = game.new_initial_state()
    for card in (1, 5, 3):  # player 0: 2h; player 1: 4h; player 2: 3h (card = rank*2 + suit)
        state.apply_action(card)
    state.apply_action(game.all_in)  # player 2 all-in for 15
    state.apply_action(1)  # player 0 calls: all-in for 12
    state.apply_action(1)  # player 1 calls: all-in for 9
    assert state.is_chance_node() and state.pot_contributions() == (12, 9, 15)
    state.apply_action(0)  # the board: 2c, a pair for player 0
    assert state.is_terminal()
    # player 0's pair of deuces beats both: it wins the main pot (27) and the side pot
    # it reached (3 + 3); player 2 gets back the 3 nobody matched
    assert state.returns() == [21.0, -9.0, -12.0]
    assert sum(state.returns()) == 0


@pytest.mark.parametrize(
    "make, deals",
    [
        (lambda: PokerGame(LIMIT3), 3000),
        (lambda: ring_limit_holdem(3), 300),
        (lambda: ring_limit_holdem(4), 200),
        (lambda: PokerGame(NOLIMIT3, raises=(0.25, 0.5, 1.0)), 3000),
        (lambda: no_limit_holdem(players=3), 300),
        (lambda: no_limit_holdem(players=6), 200),
    ],
    ids=["limit-3p-small", "limit-holdem-3p", "limit-holdem-4p", "nolimit-3p-small",
         "nolimit-holdem-3p", "nolimit-holdem-6p"],
)  # fmt: skip
def test_lockstep_with_universal_poker(make, deals):
    # universal_poker (fullgame for no-limit) on the same definition: the same player
    # to move, the same legal actions (limit) or fold/call legality and raise-to range
    # (no-limit), the same cards and the same payoffs, over random deals and actions.
    # (universal_poker reads limit games of at most four players: no 6-player limit here.)
    pyspiel = pytest.importorskip("pyspiel")
    game = make()
    d = game.definition
    peer = pyspiel.load_game("universal_poker", d.universal_poker_params("fullgame"))
    assert lockstep(game, peer, deals, seed=d.num_players) > deals // 2


def test_cfr_plus_on_a_three_player_no_limit_game():
    from nashzoo.agents.cfr import make_solver
    from nashzoo.tree.best_response import nash_conv_array

    game = PokerGame(dataclasses.replace(NOLIMIT3, stacks=(6, 6, 6)), raises=(1.0,))
    solver = make_solver("cfr+", game)
    first = nash_conv_array(solver.tree, solver.iterate(1).average_policy().probs)
    solver.iterate(199)
    assert nash_conv_array(solver.tree, solver.average_policy().probs) < first / 10


@pytest.mark.parametrize("env_id", ["nashzoo/limit_holdem-v0", "nashzoo/no_limit_holdem-v0"])
@pytest.mark.parametrize("players", [3, 6])
def test_ring_envs_pass_pettingzoo_api_and_seed_tests(env_id, players):
    from pettingzoo.test import api_test, seed_test

    env = nashzoo.make(env_id, players=players)
    assert env.possible_agents == [f"player_{k}" for k in range(players)]
    api_test(env, num_cycles=100)
    seed_test(lambda: nashzoo.make(env_id, players=players), num_cycles=30)


def test_definitions_and_refusals():
    text = """GAMEDEF
limit
numPlayers = 3
numRounds = 4
blind = 5 10 0
raiseSize = 10 10 20 20
firstPlayer = 3 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
    assert parse_gamedef(text) == ring_limit_holdem(3).definition
    game = ring_limit_holdem(5)
    assert load_game(game.to_spec()) == game and game.num_players == 5
    with pytest.raises(InvalidParameterError, match="`raise_sizes` needs 2 values"):
        dataclasses.replace(LIMIT3, raise_sizes=(2,))
    with pytest.raises(InvalidParameterError, match="are for 'limit' betting"):
        dataclasses.replace(NOLIMIT3, max_raises=(1, 1))
    with pytest.raises(InvalidParameterError, match=r"`first_player\[0\]` must be \[0, 2\]"):
        dataclasses.replace(NOLIMIT3, first_player=(3, 0))
    with pytest.raises(InvalidParameterError, match="2 to 10 players, received 11"):
        dataclasses.replace(NOLIMIT3, blinds=(1,) * 11, stacks=(9,) * 11)
    with pytest.raises(InvalidParameterError, match="deck has 6 cards.*deals 7 \\(6 players\\)"):
        dataclasses.replace(NOLIMIT3, blinds=(1, 2, 0, 0, 0, 0), stacks=(9,) * 6)
    with pytest.raises(InvalidParameterError, match="`players` must be 3 to 6"):
        ring_limit_holdem(2)
    with pytest.raises(InvalidParameterError, match="`players` must be 2 to 6"):
        no_limit_holdem(players=7)


def test_a_short_stack_in_limit_poker_can_only_call_all_in():
    """Issue 85, item 3: a limit player whose stack is at or below the bet could "raise"
    to its stack, lowering the bet (5 facing 12), and the next caller took 7 back. Now it
    may fold or call all in, in the engine and in the compiled kernel. (universal_poker
    cannot be the reference here: its limit games ignore the stacks, measured 2026-12-05:
    spent 40 with a stack of 15.)"""
    import numpy as np

    from nashzoo.testing.hostile import SHORT_STACK_LIMIT
    from nashzoo.vector import PokerVectorEnv

    game = PokerGame(parse_gamedef(SHORT_STACK_LIMIT))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 2
    state.apply_action(2)  # player 2 raises to 12
    assert state.current_player() == 0 and state.pot_contributions() == (1, 2, 12)
    assert tuple(state.legal_actions()) == (0, 1)  # fold, call all in: no raise
    assert state.raise_range() is None
    state.apply_action(1)
    assert state.pot_contributions() == (5, 2, 12)  # all in for 5; the bet stays 12
    # the compiled kernel, at the same spot in 16 deals at once
    venv = PokerVectorEnv(game, 16, seed=3)
    step = venv.reset(seed=3)
    assert (step.player == 2).all()
    step = venv.step(np.full(16, 2))  # player 2 raises to 12 everywhere
    assert (step.player == 0).all()
    np.testing.assert_array_equal(step.action_mask, np.tile([1, 1, 0], (16, 1)))
    # and in random play the bet never drops
    for seed in range(200):
        s = game.new_initial_state()
        r = np.random.default_rng(seed)
        top = 0
        while not s.is_terminal():
            s.apply_action(int(r.choice(list(s.legal_actions()))))
            assert max(s.pot_contributions()) >= top
            top = max(s.pot_contributions())


@pytest.mark.parametrize("raises", [[1e308], [10**400], [float("inf")], [float("nan")], [0]])
def test_out_of_range_pot_fractions_are_the_librarys_parameter_error(raises):
    """Issue 85, item 7: ``raises=[1e308]`` and ``[10**400]`` raised OverflowError."""
    with pytest.raises(InvalidParameterError, match="expects pot fractions above 0 and at most"):
        nashzoo.make("nashzoo/no_limit_holdem-v0", raises=raises)
