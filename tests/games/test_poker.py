"""The poker engine read from game definitions: presets against the reference trees and
values, the ACPC format (with the choice of raise sizes), Hold'em rules hand by hand, and
a state-by-state cross-check against OpenSpiel's universal_poker with the same
definitions. (No-limit and tables: tests/games/test_nolimit.py, test_acpc_ring.py.)"""

import numpy as np
import pytest

from nashzoo.agents.cfr import make_solver
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.eval import exploitability
from nashzoo.games import load_game
from nashzoo.games.poker import (
    CALL,
    FOLD,
    LIMIT_HOLDEM_GAMEDEF,
    NO_STACK,
    RAISE,
    PokerDefinition,
    PokerGame,
    four_bet_eight_card,
    kuhn,
    leduc,
    limit_holdem,
    parse_gamedef,
    two_round_six_card,
)
from nashzoo.games.poker.hands import parse_cards
from nashzoo.testing import hostile
from nashzoo.tree import compile_game
from nashzoo.tree.best_response import policy_values
from nashzoo.tree.policy import TabularPolicy


@pytest.mark.parametrize(
    "game, nodes, terminals, infosets, value, uniform_nash_conv",
    [
        # Kuhn 1950 / OpenSpiel: 58 histories, 30 terminal, 6 infosets each, -1/18, 11/12
        (kuhn(), 58, 30, 6, -1 / 18, 11 / 12),
        # OpenSpiel leduc_poker: 9457 histories, 5520 terminal, 468 each, -0.0856, 4.7472
        (leduc(), 9457, 5520, 468, -0.0856, 4.747222),
    ],
)
def test_presets_reproduce_the_reference_games(
    game, nodes, terminals, infosets, value, uniform_nash_conv
):
    tree = compile_game(game)
    summary = tree.summary()
    assert (summary["nodes"], summary["terminals"]) == (nodes, terminals)
    assert summary["infosets_per_player"] == [infosets, infosets]
    assert game.count_histories() == nodes
    uniform = exploitability(TabularPolicy.uniform(tree))
    assert uniform.nash_conv == pytest.approx(uniform_nash_conv, abs=1e-5)
    solver = make_solver("pcfr+", game).iterate(600)
    policy = solver.average_policy()
    assert solver.exploitability() < 2e-3
    assert policy_values(policy.tree, policy.probs)[0] == pytest.approx(value, abs=2e-3)


def test_eight_card_kuhn_value():
    # Oliehoek (2005): in 8-card poker the gambler (player 0) loses 1/16 per game
    solver = make_solver("dcfr", kuhn(8)).iterate(1500)
    policy = solver.average_policy()
    assert solver.exploitability() < 1e-3
    assert policy_values(policy.tree, policy.probs)[0] == pytest.approx(-1 / 16, abs=2e-3)


def test_thesis_games_tree_sizes():
    # Oliehoek (2005). 2-round 6-card poker: "over 18,000 nodes", 2,162 sequences per
    # player. 4-bet 8-card poker: "nearly 4,000 nodes", 274 sequences per player. Both
    # trees here count one sequence fewer per player than the thesis (it counts one more
    # per player in both games; the node counts agree).
    six = compile_game(two_round_six_card()).summary()
    assert 18_000 < six["nodes"] == 18_277
    assert six["sequences_per_player"] == [2161, 2161]
    four_game = four_bet_eight_card()
    four = compile_game(four_game).summary()
    assert 3_500 < four["nodes"] == four_game.count_histories() == 3_873 < 4_000
    assert four["sequences_per_player"] == [273, 273]
    # raises of 1 or 2 coins, up to 4 coins in (a stack of 5 with the ante)
    state = four_game.new_initial_state()
    state.apply_action(0)
    state.apply_action(7)
    assert list(state.legal_actions()) == [CALL, RAISE, RAISE + 1]
    for action in (RAISE + 1, RAISE + 1):  # 2 coins, then 2 more: 5 chips in
        state.apply_action(action)
    assert state.pot_contributions() == (3, 5)
    assert list(state.legal_actions()) == [FOLD, CALL]
    assert state.information_state_string(0) == "player=0 hole=2c bets=r2r2"  # chips added


def _limit(**fields):
    base = dict(
        num_rounds=3, blinds=(2, 1), stacks=(NO_STACK, NO_STACK), first_player=(1, 0, 1),
        num_board_cards=(0, 1, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
        betting="limit", raise_sizes=(2, 2, 4), max_raises=(1, 1, 1),
    )  # fmt: skip
    return PokerDefinition(**{**base, **fields})


def test_count_histories_matches_the_compiled_tree():
    # several sizes and a stack that a raise can reach before the last round (all-in)
    definition = _limit(raise_sizes=((2, 3), (2, 4), (4, 8)), stacks=(12, 12))
    game = PokerGame(definition)
    assert game.count_histories() == compile_game(game).num_nodes


def test_gamedef_round_trip_and_holdem_fields():
    definition = parse_gamedef(LIMIT_HOLDEM_GAMEDEF)
    assert definition.blinds == (10, 5)
    assert definition.raise_sizes == ((10,), (10,), (20,), (20,))
    assert definition.max_raises == (3, 4, 4, 4)
    assert definition.first_player == (1, 0, 0, 0)  # the text counts seats from 1
    assert definition.num_board_cards == (0, 3, 1, 1)
    assert parse_gamedef(definition.to_gamedef()) == definition
    four = four_bet_eight_card().definition
    assert "raiseSize = 1,2" in four.to_gamedef()
    assert parse_gamedef(four.to_gamedef()) == four
    game = limit_holdem()
    assert load_game(game.to_spec()) == game
    assert load_game(four_bet_eight_card().to_spec()) == four_bet_eight_card()
    # heads-up limit: each round's actions in a block of max_raises + 2 slots
    assert game.information_state_tensor_size == 2 + 52 * 4 + 3 * (5 + 6 + 6 + 6)


@pytest.mark.parametrize(
    "text, match",
    [
        ("limit\nnumPlayers = 2", "starts with 'GAMEDEF'"),
        (
            "GAMEDEF\nnolimit\nnumPlayers = 2\nEND GAMEDEF",
            "Expected 'limit' betting.*betting='nolimit'",
        ),
        (
            LIMIT_HOLDEM_GAMEDEF.replace("numPlayers = 2", "numPlayers = 11").replace(
                "blind = 10 5", "blind = " + " ".join(["10"] * 11)
            ),
            "2 to 10 players",
        ),
        ("GAMEDEF\nlimit\nnumPlayers = 2\nfoo = 1\nEND GAMEDEF", "Unknown key 'foo'"),
        (LIMIT_HOLDEM_GAMEDEF.replace("maxRaises = 3 4 4 4", "maxRaises = 3 4"), "needs 4 values"),
        (LIMIT_HOLDEM_GAMEDEF.replace("numRanks = 13", "numRanks = x"), "expects integers"),
        (LIMIT_HOLDEM_GAMEDEF.replace("numRanks = 13", "numRanks = 2"), "deck has 8 cards"),
    ],
)
def test_gamedef_errors(text, match):
    with pytest.raises(InvalidParameterError, match=match):
        parse_gamedef(text, "limit")


def test_definition_field_errors():
    fields = leduc().definition.to_dict()
    with pytest.raises(InvalidParameterError, match="raise_sizes.*one entry per round"):
        PokerDefinition.from_dict({**fields, "raise_sizes": 2})
    with pytest.raises(InvalidParameterError, match="same number of raise sizes"):
        PokerDefinition.from_dict({**fields, "raise_sizes": [[2], [4, 8]]})
    with pytest.raises(InvalidParameterError, match=r"unknown \['ante'\]"):
        PokerDefinition.from_dict({**fields, "ante": 1})
    with pytest.raises(InvalidParameterError, match="first_player.*received 2"):
        PokerDefinition.from_dict({**fields, "first_player": [2, 0]})


@pytest.mark.parametrize("name", sorted(hostile.MALFORMED_DEFINITIONS))
def test_the_malformed_definition_family_is_refused_clearly(name):
    text, message = hostile.MALFORMED_DEFINITIONS[name]
    with pytest.raises(InvalidParameterError, match=message):
        parse_gamedef(text)


def test_acpc_defaults_for_first_player_and_board_cards():
    # issue 31, D1: without firstPlayer or numBoardCards the parser crashed with
    # "'int' object is not subscriptable"; the ACPC defaults are player 1 and no board
    text = "\n".join(
        line
        for line in LIMIT_HOLDEM_GAMEDEF.splitlines()
        if not line.startswith(("firstPlayer", "numBoardCards"))
    )
    definition = parse_gamedef(text)
    assert definition.first_player == (0, 0, 0, 0)
    assert definition.num_board_cards == (0, 0, 0, 0)


def test_short_deck_holdem_is_accepted_and_more_than_seven_cards_a_player_refused():
    # issue 31, D2: the check counted both players' hole cards against a per-player limit
    for ranks in (9, 12):  # short-deck Hold'em: 36 and 48 cards, 2 + 5 cards a player
        text = LIMIT_HOLDEM_GAMEDEF.replace("numRanks = 13", f"numRanks = {ranks}")
        assert parse_gamedef(text).num_cards == 4 * ranks
    eight = LIMIT_HOLDEM_GAMEDEF.replace("numHoleCards = 2", "numHoleCards = 3")
    with pytest.raises(InvalidParameterError, match=r"each player 8 \(3 hole \+ 5 board"):
        parse_gamedef(eight)


@pytest.mark.parametrize("size", [10**20, 2**62, 2**53 + 1])
def test_chip_amounts_that_could_overflow_the_pot_are_refused(size):
    # issue 31, D4: 10**20 gave OverflowError in the vector env, 2**62 wrapped int64
    text = LIMIT_HOLDEM_GAMEDEF.replace("raiseSize = 10 10 20 20", f"raiseSize = 10 10 20 {size}")
    with pytest.raises(InvalidParameterError, match=r"at or below 2\*\*53"):
        parse_gamedef(text)
    with pytest.raises(InvalidParameterError, match="2\\*\\*53"):
        PokerDefinition.from_dict({**limit_holdem().definition.to_dict(), "stacks": [size] * 2})


def test_the_largest_exact_pot_is_accepted():
    fields = limit_holdem().definition.to_dict()
    assert PokerDefinition.from_dict(fields).stacks == (NO_STACK, NO_STACK)  # none given
    big = PokerDefinition.from_dict({**fields, "stacks": [2**52, 2**52]})
    assert big.stacks == (2**52, 2**52)
    # a raise of 2**52 chips without stacks: capped at ACPC's stack of 2**31 - 1 chips
    text = LIMIT_HOLDEM_GAMEDEF.replace("raiseSize = 10 10 20 20", f"raiseSize = 10 10 20 {2**52}")
    game = PokerGame(parse_gamedef(text))
    assert game.max_utility == NO_STACK


def _deal(state, cards):
    for card in cards:
        state.apply_action(card)


def test_holdem_betting_rules():
    game = limit_holdem()
    state = game.new_initial_state()
    # player 0 gets As Ah, player 1 gets 2c 2d (the big blind is player 0)
    _deal(state, parse_cards("AsAh2c2d"))
    assert state.pot_contributions() == (10, 5)
    assert state.current_player() == 1  # the small blind acts first before the flop
    assert list(state.legal_actions()) == [FOLD, CALL, RAISE]
    state.apply_action(CALL)  # limp: 10 each, the big blind keeps its option
    assert state.current_player() == 0 and list(state.legal_actions()) == [CALL, RAISE]
    for _ in range(3):  # raises 2, 3, 4: four bets with the blind, then capped
        state.apply_action(RAISE)
    assert state.pot_contributions() == (40, 30)
    assert list(state.legal_actions()) == [FOLD, CALL]
    state.apply_action(CALL)
    assert state.is_chance_node() and state.round == 1
    _deal(state, parse_cards("Kc7d2h"))
    assert state.current_player() == 0  # the big blind acts first after the flop
    state.apply_action(RAISE)
    assert state.pot_contributions() == (50, 40)  # 10-chip raises on the flop
    state.apply_action(CALL)
    _deal(state, parse_cards("9s"))
    state.apply_action(RAISE)
    assert state.pot_contributions() == (70, 50)  # 20 on the turn
    with pytest.raises(IllegalActionError, match="legal actions are"):
        state.apply_action(7)
    state.apply_action(CALL)
    _deal(state, parse_cards("3c"))
    state.apply_action(CALL)
    state.apply_action(CALL)
    assert state.is_terminal()
    # 2c 2d with 2h on the board: trips beat the aces
    assert state.returns() == [-70.0, 70.0]
    assert state.information_state_string(0) == (
        "player=0 hole=AsAh board=Kc7d2h/9s/3c bets=crrrc/rc/rc/cc"
    )


def test_holdem_fold_and_split():
    game = limit_holdem()
    state = game.new_initial_state()
    _deal(state, parse_cards("AsKd2c7d"))
    state.apply_action(FOLD)  # the small blind folds: loses its 5
    assert state.is_terminal() and state.returns() == [5.0, -5.0]
    state = game.new_initial_state()
    _deal(state, parse_cards("2s3d2c3c"))
    state.apply_action(CALL)
    state.apply_action(CALL)
    for board in ("AhKhQd", "Jc", "Ts"):  # a broadway straight on the board: split
        _deal(state, parse_cards(board))
        state.apply_action(CALL)
        state.apply_action(CALL)
    assert state.returns() == [0.0, 0.0]


def test_tensor_and_string_agree():
    game = limit_holdem()
    rng = np.random.default_rng(3)
    for _ in range(200):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.advance_chance(rng.random)
                continue
            for p in (0, 1):
                tensor = state.information_state_tensor(p)
                assert tensor.shape == (game.information_state_tensor_size,)
                assert tensor[p] == 1 and tensor[2:54].sum() == 2
                hole = "".join(
                    game.card_names[c] for c in sorted(np.flatnonzero(tensor[2:54]))[::-1]
                )
                assert f"hole={hole} " in state.information_state_string(p)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


# -- cross-check against OpenSpiel's universal_poker ------------------------------------

SMALL_DEFINITIONS = [
    kuhn().definition,
    leduc().definition,
    two_round_six_card().definition,
    _limit(),  # unequal blinds, three rounds, the first player changing
    _limit(  # two hole cards and a board card: pairs and trips
        num_rounds=2,
        raise_sizes=(2, 4),
        max_raises=(1, 1),
        first_player=(1, 0),
        num_board_cards=(0, 1),
        num_hole_cards=2,
    ),
]


def _universal_poker(definition):
    pyspiel = pytest.importorskip("pyspiel")
    return pyspiel.load_game("universal_poker", definition.universal_poker_params())


def _compare(ours, theirs, a, b):
    """One state of each: player, legal actions or chance outcomes, returns, tensors."""
    assert a.current_player() == b.current_player(), (a.history(), str(b))
    if a.is_terminal():
        assert b.is_terminal() and a.returns() == b.returns(), (str(a), str(b))
        return
    if a.is_chance_node():
        ours_outcomes, theirs_outcomes = a.chance_outcomes(), b.chance_outcomes()
        assert [o for o, _ in ours_outcomes] == [o for o, _ in theirs_outcomes]
        np.testing.assert_allclose([p for _, p in ours_outcomes], [p for _, p in theirs_outcomes])
        return
    assert list(a.legal_actions()) == list(b.legal_actions()), (a.history(), str(b))
    cards = ours.num_cards
    for p in (0, 1):
        mine = a.information_state_tensor(p)
        other = np.asarray(b.information_state_tensor(p))
        # the player, the private cards and the public cards (universal_poker has one
        # block for every board card; the engine one per round)
        np.testing.assert_array_equal(mine[: 2 + cards], other[: 2 + cards])
        board = mine[2 + cards : ours.actions_offset].reshape(-1, cards).sum(axis=0)
        np.testing.assert_array_equal(board, other[2 + cards : 2 + 2 * cards])


@pytest.mark.parametrize(
    "definition",
    SMALL_DEFINITIONS,
    ids=["kuhn", "leduc", "six_card", "three_rounds", "two_hole_cards"],
)
def test_cross_check_universal_poker_whole_tree(definition):
    theirs_game = _universal_poker(definition)
    ours_game = PokerGame(definition)
    keys: list[dict[str, str]] = [{}, {}]
    one_board_round = sum(1 for k in definition.num_board_cards if k) <= 1
    back: list[dict[str, str]] = [{}, {}]
    stack = [(ours_game.new_initial_state(), theirs_game.new_initial_state())]
    visited = 0
    while stack:
        a, b = stack.pop()
        visited += 1
        _compare(ours_game, theirs_game, a, b)
        if a.is_terminal():
            continue
        if not a.is_chance_node():
            for p in (0, 1):
                mine, other = a.information_state_string(p), b.information_state_string(p)
                # our information sets refine theirs (each of ours lies inside one of
                # theirs); with board cards in one round only, they are the same sets.
                # With several, universal_poker forgets which round dealt which board
                # card; the engine remembers (perfect recall).
                assert keys[p].setdefault(mine, other) == other
                if one_board_round:
                    assert back[p].setdefault(other, mine) == mine
        for action in a.legal_actions():
            stack.append((a.child(action), b.child(action)))
    assert visited == ours_game.count_histories()


def test_cross_check_universal_poker_sampled_holdem():
    definition = limit_holdem().definition
    theirs_game = _universal_poker(definition)
    ours_game = PokerGame(definition)
    rng = np.random.default_rng(0)
    showdowns = 0
    for _ in range(1500):
        a, b = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while True:
            _compare(ours_game, theirs_game, a, b)
            if a.is_terminal():
                break
            legal = [o for o, _ in a.chance_outcomes()] if a.is_chance_node() else a.legal_actions()
            # calls half the time, so that many hands reach the showdown
            action = legal[rng.integers(len(legal))]
            if not a.is_chance_node() and rng.random() < 0.5:
                action = CALL
            a.apply_action(action)
            b.apply_action(action)
        showdowns += not a.betting().endswith("f")
    assert showdowns > 700  # the showdowns compare hands of 7 cards: the evaluators agree


def test_files_of_the_old_heads_up_limit_engine_load_as_the_same_games():
    # nashzoo 0.2 saved these specs for its heads-up limit engine ("type": "poker", one
    # stack for both players or None); they are the same games on the one engine
    old_holdem = {
        "type": "poker",
        "params": {
            "definition": {
                "num_rounds": 4, "blinds": [10, 5], "raise_sizes": [[10], [10], [20], [20]],
                "max_raises": [3, 4, 4, 4], "first_player": [1, 0, 0, 0],
                "num_board_cards": [0, 3, 1, 1], "num_suits": 4, "num_ranks": 13,
                "num_hole_cards": 2, "stack": None,
            },
            "name": "limit_holdem",
        },
    }  # fmt: skip
    assert load_game(old_holdem) == limit_holdem()
    old_four = {"type": "poker", "params": {"definition": {
        "num_rounds": 1, "blinds": [1, 1], "raise_sizes": [[1, 2]], "max_raises": [4],
        "first_player": [0], "num_board_cards": [0], "num_suits": 1, "num_ranks": 8,
        "num_hole_cards": 1, "stack": 5}, "name": "four_bet_eight_card_poker"}}  # fmt: skip
    assert load_game(old_four) == four_bet_eight_card()
