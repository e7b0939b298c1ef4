"""No-limit poker: the names of :mod:`nashzoo.games.poker.acpc` that no-limit code uses.

The ACPC engine plays limit and no-limit definitions for 2 to 10 players;
:class:`NoLimitDefinition`, :class:`NoLimitPokerGame` and :class:`NoLimitPokerState` are
its classes under the names of the heads-up no-limit release.
"""

from nashzoo.games.poker.acpc import (
    NO_LIMIT_HOLDEM_GAMEDEF,
    PETTINGZOO_RAISES,
    AcpcDefinition,
    AcpcPokerGame,
    AcpcPokerState,
    no_limit_holdem,
)

NoLimitDefinition = AcpcDefinition
NoLimitPokerGame = AcpcPokerGame
NoLimitPokerState = AcpcPokerState

__all__ = [
    "NO_LIMIT_HOLDEM_GAMEDEF",
    "PETTINGZOO_RAISES",
    "NoLimitDefinition",
    "NoLimitPokerGame",
    "NoLimitPokerState",
    "no_limit_holdem",
]
