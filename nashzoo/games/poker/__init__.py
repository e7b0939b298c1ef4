"""Poker from game definitions: limit and no-limit, heads-up and ring games, on one engine.

* :mod:`~nashzoo.games.poker.definition`: the ACPC game-definition format
  (:class:`PokerDefinition`, :func:`parse_gamedef`), with a choice of raise sizes;
* :mod:`~nashzoo.games.poker.game`: the rules of any definition, limit or no-limit, 2 to
  10 players (:class:`PokerGame`; no-limit with an action abstraction of pot
  fractions), and :mod:`~nashzoo.games.poker.kernel`, the same rules in numba;
* :mod:`~nashzoo.games.poker.hands`: ranking hands of up to seven cards;
* :mod:`~nashzoo.games.poker.presets`: every named game (Kuhn, Leduc, Oliehoek's games,
  limit and no-limit Hold'em, heads-up and ring).
"""

from nashzoo.games.poker.definition import NO_STACK, PokerDefinition, parse_gamedef
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame, PokerState
from nashzoo.games.poker.presets import (
    LIMIT_HOLDEM_GAMEDEF,
    NO_LIMIT_HOLDEM_GAMEDEF,
    PRESETS,
    four_bet_eight_card,
    kuhn,
    leduc,
    limit_holdem,
    limit_holdem_table,
    no_limit_holdem,
    ring_limit_holdem,
    two_board_round_limit,
    two_round_six_card,
)

__all__ = [
    "CALL",
    "FOLD",
    "RAISE",
    "LIMIT_HOLDEM_GAMEDEF",
    "NO_LIMIT_HOLDEM_GAMEDEF",
    "NO_STACK",
    "PokerDefinition",
    "PokerGame",
    "PokerState",
    "limit_holdem_table",
    "ring_limit_holdem",
    "two_board_round_limit",
    "no_limit_holdem",
    "PRESETS",
    "four_bet_eight_card",
    "kuhn",
    "leduc",
    "limit_holdem",
    "parse_gamedef",
    "two_round_six_card",
]
