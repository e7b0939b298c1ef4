"""Poker from game definitions: limit and no-limit, heads-up and ring games.

* :mod:`~nashzoo.games.poker.definition`: the ACPC game-definition format
  (:class:`PokerDefinition`, :class:`AcpcDefinition`, :func:`parse_gamedef`,
  :func:`parse_acpc_gamedef`), with a choice of raise sizes;
* :mod:`~nashzoo.games.poker.engine`: the limit rules (:class:`PokerGame`, :class:`PokerState`);
* :mod:`~nashzoo.games.poker.acpc`: any ACPC definition, limit or no-limit, 2 to 10
  players (:class:`AcpcPokerGame`; no-limit with an action abstraction of pot fractions);
* :mod:`~nashzoo.games.poker.hands`: ranking hands of up to seven cards;
* :mod:`~nashzoo.games.poker.presets`: every named game (Kuhn, Leduc, Oliehoek's games,
  limit and no-limit Hold'em, heads-up and ring).
"""

from nashzoo.games.poker.acpc import AcpcPokerGame, AcpcPokerState
from nashzoo.games.poker.definition import (
    NO_STACK,
    AcpcDefinition,
    PokerDefinition,
    parse_acpc_gamedef,
    parse_gamedef,
    parse_nolimit_gamedef,
)
from nashzoo.games.poker.engine import CALL, FOLD, RAISE, PokerGame, PokerState
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
    "AcpcDefinition",
    "AcpcPokerGame",
    "AcpcPokerState",
    "limit_holdem_table",
    "ring_limit_holdem",
    "two_board_round_limit",
    "parse_acpc_gamedef",
    "no_limit_holdem",
    "parse_nolimit_gamedef",
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
