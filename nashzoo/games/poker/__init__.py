"""Heads-up limit poker from game definitions.

* :mod:`~nashzoo.games.poker.definition`: the ACPC game-definition format
  (:class:`PokerDefinition`, :func:`parse_gamedef`), with a choice of raise sizes;
* :mod:`~nashzoo.games.poker.engine`: the rules (:class:`PokerGame`, :class:`PokerState`);
* :mod:`~nashzoo.games.poker.hands`: ranking hands of up to seven cards;
* :mod:`~nashzoo.games.poker.presets`: Kuhn, Leduc, Oliehoek's games, Limit Hold'em.
"""

from nashzoo.games.poker.definition import PokerDefinition, parse_gamedef
from nashzoo.games.poker.engine import CALL, FOLD, RAISE, PokerGame, PokerState
from nashzoo.games.poker.presets import (
    LIMIT_HOLDEM_GAMEDEF,
    PRESETS,
    four_bet_eight_card,
    kuhn,
    leduc,
    limit_holdem,
    two_round_six_card,
)

__all__ = [
    "CALL",
    "FOLD",
    "RAISE",
    "LIMIT_HOLDEM_GAMEDEF",
    "PRESETS",
    "PokerDefinition",
    "PokerGame",
    "PokerState",
    "four_bet_eight_card",
    "kuhn",
    "leduc",
    "limit_holdem",
    "parse_gamedef",
    "two_round_six_card",
]
