"""The rules' own hidden information (nashzoo.games.hidden) against the tree walk.

On every information set of the small games (a player to move), the opponent's private
values that ``State.hidden_worlds`` lists, and their chance weights, must equal what
``consistent_histories`` finds by walking the tree, grouped by the opponent's private
information; every built world must show the player the same view; and
``Game.view_state`` must rebuild a state with that view from the string and the public
history alone (what an agent receives). Limit Hold'em, which no walk reaches, is checked
by counting: the hole-card pairs left in the deck.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, Game, State
from nashzoo.games.fighting import FightingCardGame, fighting_cards_small, fighting_cards_tiny
from nashzoo.games.goofspiel import GoofspielGame
from nashzoo.games.liars_dice import LiarsDiceGame
from nashzoo.games.poker import PokerDefinition, PokerGame, no_limit_holdem, presets
from nashzoo.games.worlds import consistent_histories, hidden_worlds, state_from_history
from tests.conftest import coverage_paused, traced_sample, walk_to_decision


def _small_no_limit() -> PokerGame:
    """Leduc-sized no-limit (poker engine): unequal stacks, so all-ins and returned chips."""
    d = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(13, 7), first_player=(1, 0), num_board_cards=(0, 1),
        num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    return PokerGame(d, raises=(0.5, 1.0))


def _two_hole_no_limit() -> PokerGame:
    """Two hole cards from a 6-card deck, no-limit (poker engine)."""
    d = PokerDefinition(
        num_rounds=1, blinds=(2, 1), stacks=(8, 8), first_player=(1,), num_board_cards=(0,),
        num_suits=2, num_ranks=3, num_hole_cards=2,
    )  # fmt: skip
    return PokerGame(d, raises=(1.0,))


GAMES = {
    "leduc (poker engine, 6 cards)": presets.leduc,
    "two-round 6-card poker": presets.two_round_six_card,
    "kuhn (poker engine)": presets.kuhn,
    "fighting cards tiny": fighting_cards_tiny,
    "no-limit, unequal stacks (poker engine)": _small_no_limit,
    "no-limit, two hole cards (poker engine)": _two_hole_no_limit,
    "liar's dice, one die of four faces": lambda: LiarsDiceGame(dice=1, faces=4),
    # two dice each: a sorted roll's weight is the orders it is rolled in (1-2 twice 1-1)
    "liar's dice, two dice of two faces": lambda: LiarsDiceGame(dice=2, faces=2),
    # the opponent's bids: consistent with who won each round, then one under way
    "goofspiel, three cards, hidden bids": lambda: GoofspielGame(num_cards=3),
    "goofspiel, four cards, bids shown": lambda: GoofspielGame(
        num_cards=4, imp_info=False, points_order="descending"
    ),
}


def decision_states(game: Game, limit: int | None = None, seed: int = 0) -> list[State]:
    """One state per (player to move, information set); all of them, or ``limit`` drawn
    by random play."""
    found: dict[tuple[int, str], State] = {}
    if limit is None:
        # the walk that lists them runs untraced (the no-limit game: 18 s traced, 2 s
        # plain); the rules' lines it runs are traced in each engine's own tests
        with coverage_paused():
            stack = [game.new_initial_state()]
            while stack:
                state = stack.pop()
                if state.is_terminal():
                    continue
                p = state.current_player()
                if p != CHANCE:
                    found.setdefault((p, state.information_state_string(p)), state)
                stack += [state.child(a) for a in state.legal_actions()]
        return list(found.values())
    rng = np.random.default_rng(seed)
    while len(found) < limit:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.advance_chance(rng.random)
            if state.is_terminal():
                break
            p = state.current_player()
            found.setdefault((p, state.information_state_string(p)), state.clone())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return list(found.values())


def walked(game: Game, state: State, player: int) -> dict[object, float]:
    """The tree walk's worlds, grouped by the opponent's private information."""
    weights: dict[object, float] = defaultdict(float)
    worlds = consistent_histories(
        game,
        player,
        state.information_state_string(player),
        state.public_history(),
        player_to_move=True,
    )
    for world in worlds:
        other = state_from_history(game, world.history)
        weights[other.private_information(1 - player)] += world.chance_probability
    total = sum(weights.values())
    return {value: w / total for value, w in weights.items()}


@pytest.mark.parametrize("name", list(GAMES))
def test_hidden_worlds_equal_the_tree_walk_on_every_information_set(name: str) -> None:
    game = GAMES[name]()
    states = decision_states(game)
    assert len(states) > 10
    for state in traced_sample(states, every=10):  # every state checked, a tenth traced
        player = state.current_player()
        info, public = state.information_state_string(player), state.public_history()
        fast = state.hidden_worlds(player)
        assert fast is not None
        expected = walked(game, state, player)
        got = fast.as_dict()
        assert set(got) == set(expected), (name, info)
        for value, w in expected.items():
            assert got[value] == pytest.approx(w, abs=1e-12), (name, info, value)
        for k, value in enumerate(fast.values):  # every world shows the player this view
            world = fast.state(k)
            assert world.information_state_string(player) == info
            assert world.public_history() == public
            assert world.current_player() == player
            assert world.private_information(1 - player) == value
        view = game.view_state(player, info, public)
        assert view is not None
        assert view.information_state_string(player) == info
        assert view.current_player() == player
        assert hidden_worlds(game, player, info, public).as_dict() == pytest.approx(got)


@pytest.mark.parametrize(
    ("game", "sample"),
    [
        (fighting_cards_small(), 120),  # 1,100 information sets: a sample keeps it short
        # two copies of each card: a draw's chance depends on the hand (copies left)
        (FightingCardGame(ranks=1, copies=2, hand_size=3, hit_points=2), 25),
        # two finished rounds' outcomes to fit (19 s for all 3,608 sets; a sample)
        (GoofspielGame(num_cards=4), 150),
    ],
    ids=["small", "two-copies", "goofspiel-four-cards"],
)
def test_hidden_worlds_match_the_walk_on_sampled_sets(game: Game, sample: int) -> None:
    for state in traced_sample(decision_states(game, limit=sample, seed=3), every=5):
        player = state.current_player()
        got = state.hidden_worlds(player).as_dict()
        expected = walked(game, state, player)
        assert set(got) == set(expected)
        assert all(got[v] == pytest.approx(w, abs=1e-12) for v, w in expected.items())


def test_the_tree_walk_serves_games_without_a_fast_path() -> None:
    game = nashzoo.make_game("leduc_holdem")  # the hand-written Leduc: no rules path
    state = decision_states(game)[7]
    player = state.current_player()
    assert state.hidden_worlds(player) is None
    assert game.view_state(player, "", []) is None
    info, public = state.information_state_string(player), state.public_history()
    worlds = hidden_worlds(game, player, info, public)
    walk = consistent_histories(game, player, info, public, player_to_move=True)
    assert tuple(worlds.values) == tuple(w.history for w in walk)
    for k in range(len(worlds)):
        assert worlds.state(k).information_state_string(player) == info


def test_limit_holdem_hidden_worlds_are_the_pairs_left_in_the_deck() -> None:
    game = presets.limit_holdem()
    for state in decision_states(game, limit=60, seed=1):
        player = state.current_player()
        fast = state.hidden_worlds(player)
        board = len(state.board_cards())
        assert len(fast) == math.comb(52 - 2 - board, 2)
        assert np.allclose(fast.weights, 1 / len(fast))
        seen = set(state.hole_cards(player)) | set(state.board_cards())
        assert all(not seen & set(v) for v in fast.values)
        assert state.private_information(1 - player) in fast.values
        rng = np.random.default_rng(0)
        for _ in range(3):
            world = fast.sample(rng)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert sorted(world.legal_actions()) == sorted(state.legal_actions())
        info, public = state.information_state_string(player), state.public_history()
        view = game.view_state(player, info, public)
        assert view.information_state_string(player) == info


def test_fighting_cards_default_preset_worlds_are_consistent() -> None:
    game = nashzoo.make_game("fighting_cards")
    for state in decision_states(game, limit=40, seed=2):
        player = state.current_player()
        fast = state.hidden_worlds(player)
        assert fast.weights.sum() == pytest.approx(1.0)
        assert state.private_information(1 - player) in fast.values
        info = state.information_state_string(player)
        for world in (fast.state(0), fast.state(len(fast) - 1)):
            assert world.information_state_string(player) == info
            assert world.public_history() == state.public_history()
        view = game.view_state(player, info, state.public_history())
        assert view.information_state_string(player) == info


def test_bad_views_are_refused_with_what_was_expected() -> None:
    game = presets.leduc()
    state = decision_states(game)[3]
    player = state.current_player()
    info, public = state.information_state_string(player), state.public_history()
    with pytest.raises(InvalidParameterError, match="player=1 hole="):
        game.view_state(1 - player if player == 0 else 0, "nonsense", public)
    with pytest.raises(InvalidParameterError, match="does not name"):
        game.view_state(player, info.replace("hole=", "hole=Zz"), public)
    with pytest.raises(InvalidParameterError, match="disagrees|not a history"):
        game.view_state(player, info, [*public, 2, 2, 2, 2, 2])
    with pytest.raises(InvalidParameterError, match="hole cards dealt"):
        game.new_initial_state().hidden_worlds(0)
    fighting = fighting_cards_tiny()
    with pytest.raises(InvalidParameterError, match="information-state string"):
        fighting.view_state(0, "player=0 hp=3/3 deal=Q9", [-1, -1])
    with pytest.raises(InvalidParameterError, match="both hands dealt"):
        fighting.new_initial_state().hidden_worlds(1)


@pytest.mark.parametrize("name", ["leduc (poker engine, 6 cards)", "fighting cards tiny"])
def test_worlds_do_not_move_with_the_state_they_came_from(name: str) -> None:
    # A search walks a state on after listing its worlds; the worlds stay where they were.
    game = GAMES[name]()
    state = decision_states(game)[5]
    player = state.current_player()
    info = state.information_state_string(player)
    worlds = state.hidden_worlds(player)
    state.apply_action(state.legal_actions()[0])
    for k in range(len(worlds)):
        assert worlds.state(k).information_state_string(player) == info


@pytest.mark.parametrize(("n", "k"), [(5, 1), (6, 2), (9, 3), (50, 2)])
def test_combinations_on_demand_are_itertools_order(n: int, k: int) -> None:
    import itertools

    from nashzoo.games.hidden import Combinations

    items = list(range(3, 3 + 2 * n, 2))  # increasing, not 0..n-1
    expected = list(itertools.combinations(items, k))
    lazy = Combinations(items, k)
    assert len(lazy) == len(expected) == math.comb(n, k)
    assert [lazy[i] for i in range(len(lazy))] == expected == list(lazy)
    assert lazy[-1] == expected[-1]
    assert all(c in lazy for c in expected[:: max(1, len(expected) // 7)])
    assert tuple(reversed(expected[0])) not in lazy or k == 1
    assert (items[0] - 1,) * k not in lazy
    picks = np.array([len(expected) - 1, 0, len(expected) // 2, 0])
    assert [tuple(row) for row in lazy.take(picks)] == [expected[i] for i in picks]
    with pytest.raises(IndexError):
        lazy[len(expected)]
    with pytest.raises(IndexError):
        lazy.take([len(expected)])


@pytest.mark.parametrize(
    "make",
    [
        presets.leduc,
        lambda: nashzoo.make_game("limit_holdem"),
        _small_no_limit,
        lambda: no_limit_holdem(stack=400),  # short stacks: all-ins, unequal stakes returned
    ],
    ids=["leduc", "limit-holdem", "small-no-limit", "hunl-short"],
)
def test_returns_over_the_worlds_equal_each_worlds_own_returns(make):
    # after a fold the worlds all pay the same; at a showdown each world's hand decides
    game = make()
    rng = np.random.default_rng(0)
    seen = {"fold": 0, "showdown": 0}
    for _ in range(60):
        state = game.new_initial_state()
        state.advance_chance(rng.random)
        while True:
            legal = list(state.legal_actions())
            action = int(rng.choice(legal)) if rng.random() < 0.3 else 1  # else check/call
            before = state.clone()
            state.apply_action(action)
            state.advance_chance(rng.random)
            if state.is_terminal():
                break
        p = before.current_player()
        worlds = before.hidden_worlds(p)
        after = before.clone()
        after.apply_unchecked(action)
        if not after.is_terminal():
            continue  # a board card was still to come: not an ending action
        seen["fold" if action == 0 else "showdown"] += 1
        expected = []
        for k in range(len(worlds)):
            world = worlds.state(k)
            world.apply_unchecked(action)
            expected.append(world.returns()[p])
        np.testing.assert_array_equal(after.returns_over(p, worlds.values), expected)
    assert seen["fold"] and seen["showdown"], seen


@pytest.mark.parametrize("make", [presets.limit_holdem, no_limit_holdem])
def test_the_string_of_another_holding_is_the_string_of_the_state_that_holds_it(make):
    """``information_state_string_as`` (what LBR hands an agent for each holding of its
    range): the string of the state in which the player holds those cards, on random
    decisions of both poker engines."""
    game = make()
    rng = np.random.default_rng(2)
    checked = 0
    while checked < 60:
        state = walk_to_decision(game, rng, 6)
        if state is None:
            continue
        p = state.current_player()
        worlds = state.hidden_worlds(1 - p)
        for k in rng.choice(len(worlds.values), size=3, replace=False):
            value = worlds.values[int(k)]
            held = worlds.state(int(k))  # the same state with the player holding ``value``
            assert state.information_state_string_as(p, value) == (held.information_state_string(p))
            checked += 1


def test_hole_cards_meet_the_board_in_their_features():
    """The board block of the poker engine's world features (``board_features``),
    worked by hand on Limit Hold'em: [dealt, share of hole cards pairing the board,
    pair / trips / quads using the board, two hole ranks paired, most of a hole suit
    over 5, longest rank run through a hole card over 5, share of overcards]."""
    from nashzoo.games.poker.hands import parse_cards
    from nashzoo.games.poker.private import BOARD_FEATURES

    game = nashzoo.make_game("limit_holdem")
    cases = {  # (hole, board): the block
        ("AsKs", "QsJsTs"): [1, 0, 0, 0, 0, 0, 1, 1, 1],  # royal flush: suits 5, run 5
        ("7c7d", "7h2c2d"): [1, 1, 1, 1, 0, 0, 0.4, 0.2, 0],  # trips of 7s (a full house)
        ("Ah2c", "AdKc2s"): [1, 1, 1, 0, 0, 1, 0.4, 0.4, 0],  # two pair; A-K and A-2 runs
        ("9h8h", "Kh4h2c"): [1, 0, 0, 0, 0, 0, 0.8, 0.4, 0],  # a flush draw; 8-9 run
        ("AsKs", ""): [0] * 9,  # before the flop
    }
    for (hole, board), expected in cases.items():
        value = tuple(parse_cards(hole))
        features = game.hidden_value_features([value], tuple(parse_cards(board)))
        assert features is not None
        np.testing.assert_allclose(features[0, -BOARD_FEATURES:], expected, err_msg=hole + board)
    # many views at once (a training batch) give each view's own rows
    rows = [([tuple(parse_cards(h))], tuple(parse_cards(b))) for h, b in cases]
    batched = game.hidden_value_features_rows(rows)
    one_by_one = np.concatenate([game.hidden_value_features(v, b) for v, b in rows])
    np.testing.assert_array_equal(batched, one_by_one)
