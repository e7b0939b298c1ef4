"""One registry of game types (issue 30): read-only, added to by register_game_type or
by registering an env whose factory is a Game class."""

import pytest

from nashzoo.errors import InvalidParameterError
from nashzoo.games import (
    _GAME_TYPES,
    GAME_TYPES,
    KuhnPokerGame,
    LeducHoldemGame,
    load_game,
    register_game_type,
)


@pytest.fixture()
def restored():
    before = dict(_GAME_TYPES)
    yield
    _GAME_TYPES.clear()
    _GAME_TYPES.update(before)


def test_the_built_in_types_and_a_read_only_view():
    # one poker engine: its saved files say "acpc_poker" (the format of its definitions)
    assert {
        "kuhn_poker",
        "leduc_holdem",
        "matrix_game",
        "fighting_cards",
        "acpc_poker",
        "liars_dice",
        "goofspiel",
    } == set(GAME_TYPES)
    from nashzoo.games import GoofspielGame, LiarsDiceGame

    for game in (LiarsDiceGame(dice=2, faces=3), GoofspielGame(num_cards=5, imp_info=False)):
        assert load_game(game.to_spec()) == game  # saved files rebuild the new games too
    with pytest.raises(TypeError):
        GAME_TYPES["mine"] = KuhnPokerGame  # type: ignore[index]
    assert load_game(LeducHoldemGame().to_spec()) == LeducHoldemGame()


def test_register_game_type_as_a_decorator_and_its_refusals(restored):
    @register_game_type
    class Coin(KuhnPokerGame):
        game_type = "coin_test"

    assert GAME_TYPES["coin_test"] is Coin
    assert register_game_type(Coin) is Coin  # again: nothing changes
    assert type(load_game({"type": "coin_test", "params": {}})) is Coin

    class Impostor(KuhnPokerGame):
        game_type = "coin_test"

    with pytest.raises(InvalidParameterError, match="'coin_test' is taken by .*Coin"):
        register_game_type(Impostor)

    class Nameless(KuhnPokerGame):
        game_type = ""

    with pytest.raises(InvalidParameterError, match="needs a class attribute game_type"):
        register_game_type(Nameless)
    with pytest.raises(InvalidParameterError, match="expects a Game subclass"):
        register_game_type(dict)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="Unknown game type 'nope'"):
        load_game({"type": "nope"})
