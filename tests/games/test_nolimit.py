"""Heads-up no-limit poker (issue 38 item 1): the ACPC rules in lockstep with OpenSpiel's
universal_poker (every raise-to range, every payoff), exact history counts, the
PettingZoo five-action env, and clear refusals of bad definitions."""

from __future__ import annotations

import dataclasses

import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError
from nashzoo.games import load_game
from nashzoo.games.poker import (
    NO_LIMIT_HOLDEM_GAMEDEF,
    PokerDefinition,
    PokerGame,
    no_limit_holdem,
    parse_gamedef,
)
from tests.conftest import coverage_paused

from .trees import walk
from .universal_poker import lockstep

SMALL = PokerDefinition(
    num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0), num_board_cards=(0, 1),
    num_suits=2, num_ranks=3, num_hole_cards=1,
)  # fmt: skip
"""A Leduc-sized no-limit game: 6 cards, one hole card, one board card, stacks of 10 big
blinds."""


@pytest.mark.parametrize("stacks", [(20, 20), (13, 7)])
@pytest.mark.parametrize("raises", [(0.5, 1.0), (0.25, 0.5, 1.0, 2.0)])
def test_history_counts_and_lengths_are_exact(stacks, raises):
    game = PokerGame(dataclasses.replace(SMALL, stacks=stacks), raises=raises)
    with coverage_paused():  # the reference walk (13 s traced, 2 s plain); the engine's
        total, longest = walk(game.new_initial_state())  # lines: the lockstep tests below
    assert game.count_histories() == total
    assert longest <= game.max_game_length


def test_a_finished_hand_has_no_player_and_no_legal_actions():
    game = PokerGame(SMALL, raises=(0.5, 1.0))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    state.apply_action(0)  # player 1, the small blind (1 chip), acts first and folds
    assert state.is_terminal() and state.current_player() < 0
    assert tuple(state.legal_actions()) == ()
    assert state.returns() == [1.0, -1.0]  # player 0, the big blind, wins its 1 chip


def test_pettingzoo_actions_and_the_rules_of_a_hand():
    game = no_limit_holdem()
    assert game.action_names == ("Fold", "Check/Call", "Raise Half Pot", "Raise Full Pot", "All-In")
    state = game.new_initial_state()
    for card in (51, 47, 3, 7):  # player 0: As Ks; player 1: 2s 3s (card = rank * 4 + suit)
        state.apply_action(card)
    assert state.current_player() == 1  # the small blind opens pre-flop
    # facing the big blind (100): half pot raises to 200 (the minimum raise), pot to 300
    assert list(state.legal_actions()) == [0, 1, 2, 3, 4]
    assert [state.raise_to(a) for a in (2, 3, 4)] == [200, 300, 20000]
    state.apply_action(3)  # to 300
    assert state.action_to_string(1) == "Call" and state.raise_to(2) == 600
    state.apply_action(2)  # re-raise to 600 (half pot: 2x the bet; the minimum is 500)
    state.apply_action(1)
    assert state.is_chance_node() and state.pot_contributions() == (600, 600)
    for card in (50, 46, 42):  # the flop: Ah Kh Qh
        state.apply_action(card)
    assert state.current_player() == 0 and state.action_to_string(1) == "Check"
    assert list(state.legal_actions()) == [1, 2, 3, 4]  # nothing owed: no fold
    state.apply_action(4)  # all-in
    state.apply_action(1)  # called: the turn and river are dealt, then the showdown
    assert state.is_chance_node()
    state.apply_action(0)
    state.apply_action(4)
    assert state.is_terminal()
    assert state.information_state_string(0) == (
        "player=0 hole=AsKs board=AhKhQh/2c/3c bets=r300r600c/r20000c//"
    )
    # aces and kings against threes and deuces (the turn 2c and river 3c)
    assert state.returns() == [20000.0, -20000.0]
    assert load_game(game.to_spec()) == game


def test_a_short_stack_all_in_returns_what_it_cannot_match():
    game = PokerGame(dataclasses.replace(SMALL, stacks=(13, 7)))
    state = game.new_initial_state()
    state.apply_action(5)  # player 0: the best card
    state.apply_action(0)  # player 1: the worst
    state.apply_action(4)  # player 1 all-in for 7
    assert list(state.legal_actions()) == [0, 1]  # nobody left to raise against
    state.apply_action(1)  # called
    state.apply_action(2)  # the board card (a middle rank; no pair); showdown
    assert state.is_terminal() and state.pot_contributions() == (7, 7)
    assert state.returns() == [7.0, -7.0]


@pytest.mark.parametrize(
    "definition, raises, deals",
    [
        (SMALL, (0.5, 1.0), 3000),
        (dataclasses.replace(SMALL, stacks=(13, 7)), (0.25, 0.5, 1.0, 2.0), 3000),
        (parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF, "nolimit"), (0.5, 1.0), 300),
        (parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF, "nolimit"), (0.3, 0.75, 1.5), 300),
    ],
)
def test_lockstep_with_universal_poker(definition, raises, deals):
    # universal_poker with every raise size ("fullgame"): the same player to move, the
    # same fold/call legality, the same raise-to range (smallest, all-in), every raise of
    # ours inside it, the same card numbering at chance nodes and the same payoffs, over
    # random deals and random actions (ours mapped to their raise-to totals).
    pyspiel = pytest.importorskip("pyspiel")
    game = PokerGame(definition, raises=raises)
    peer = pyspiel.load_game("universal_poker", definition.universal_poker_params("fullgame"))
    assert lockstep(game, peer, deals, seed=0) > deals  # raises were exercised


def test_cfr_solves_a_small_no_limit_game():
    from nashzoo.agents.cfr import make_solver
    from nashzoo.tree import compile_game

    game = PokerGame(SMALL)
    tree = compile_game(game)
    assert tree.num_nodes == game.count_histories() == 48307
    solver = make_solver("cfr+", game)
    first = solver.iterate(1).exploitability()
    solver.iterate(199)
    assert solver.exploitability() < first / 10


def test_the_env_passes_pettingzoo_api_and_seed_tests():
    from pettingzoo.test import api_test, seed_test

    api_test(nashzoo.make("nashzoo/no_limit_holdem-v0"), num_cycles=200)
    seed_test(lambda: nashzoo.make("nashzoo/no_limit_holdem-v0"), num_cycles=50)
    env = nashzoo.make("nashzoo/no_limit_holdem-v0", raises=(0.33, 0.75, 1.5), stack=1000)
    env.reset(seed=1)
    assert env.action_space("player_0").n == 6
    import gymnasium

    single = gymnasium.make("nashzoo/NoLimitHoldem-v0")
    obs, info = single.reset(seed=3)
    assert obs.shape == (290,) and info["action_mask"].sum() >= 2


@pytest.mark.parametrize(
    "change, match",
    [
        ({"stacks": (2, 20)}, r"stacks\[0\]` \(2\) must exceed player 0's blind \(2\)"),
        ({"blinds": (0, 0)}, "a blind of at least one chip"),
        ({"first_player": (1,)}, "`first_player` needs 2 values"),
        ({"num_ranks": 1}, "deck has 2 cards"),
        ({"stacks": (20, "x")}, r"`stacks\[1\]` expects an integer"),
    ],
)
def test_bad_definitions_name_the_field(change, match):
    with pytest.raises(InvalidParameterError, match=match):
        dataclasses.replace(SMALL, **change)


def test_bad_gamedefs_and_raises_are_refused():
    with pytest.raises(InvalidParameterError, match="Expected 'nolimit' betting.*'limit'"):
        parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF.replace("nolimit", "limit"), "nolimit")
    with pytest.raises(InvalidParameterError, match="betting='nolimit'"):
        parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF, "limit")
    with pytest.raises(InvalidParameterError, match="'raiseSize' is for 'limit' betting"):
        parse_gamedef(
            NO_LIMIT_HOLDEM_GAMEDEF.replace("numRounds = 4", "numRounds = 4\nraiseSize = 1 1 1 1"),
            "nolimit",
        )
    with pytest.raises(InvalidParameterError, match="'stack' and 'blind' for every player"):
        parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF.replace("stack = 20000 20000\n", ""), "nolimit")
    with pytest.raises(
        InvalidParameterError, match=r"Key 'blind' needs one value per player \(3\)"
    ):
        parse_gamedef(
            NO_LIMIT_HOLDEM_GAMEDEF.replace("numPlayers = 2", "numPlayers = 3"), "nolimit"
        )
    with pytest.raises(InvalidParameterError, match="pot fractions above 0"):
        no_limit_holdem(raises=(0.5, -1.0))
    with pytest.raises(InvalidParameterError, match="increasing pot fractions"):
        no_limit_holdem(raises=(1.0, 0.5))
    with pytest.raises(InvalidParameterError, match=r"stacks\[0\]` \(50\) must exceed"):
        no_limit_holdem(stack=50)
    state = no_limit_holdem().new_initial_state()
    with pytest.raises(InvalidParameterError, match="raise_to takes a raise action"):
        state.raise_to(2)  # a chance node
