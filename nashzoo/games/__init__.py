"""Pure game rules (no PettingZoo): the single source of truth for every game.

Each game follows the OpenSpiel-style state API of :mod:`nashzoo.games.base`.
"""

from nashzoo.games.base import CHANCE, TERMINAL, Game, State
from nashzoo.games.kuhn import KuhnPokerGame
from nashzoo.games.leduc import LeducHoldemGame
from nashzoo.games.matrix import (
    MatrixGame,
    matching_pennies,
    rock_paper_scissors,
    weighted_rock_paper_scissors,
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "State",
    "KuhnPokerGame",
    "LeducHoldemGame",
    "MatrixGame",
    "rock_paper_scissors",
    "weighted_rock_paper_scissors",
    "matching_pennies",
]
