"""Pure game rules (no PettingZoo): the single source of truth for every game.

Each game follows the OpenSpiel-style state API of :mod:`nashzoo.games.base`.
"""

from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, State
from nashzoo.games.fighting import FightingCardGame
from nashzoo.games.kuhn import KuhnPokerGame
from nashzoo.games.leduc import LeducHoldemGame
from nashzoo.games.matrix import (
    MatrixGame,
    matching_pennies,
    rock_paper_scissors,
    weighted_rock_paper_scissors,
)
from nashzoo.games.observation import ObservationCache, PlayerView
from nashzoo.games.poker import PokerGame

GAME_TYPES: dict[str, type[Game]] = {
    "kuhn_poker": KuhnPokerGame,
    "leduc_holdem": LeducHoldemGame,
    "matrix_game": MatrixGame,
    "fighting_cards": FightingCardGame,
    "poker": PokerGame,
}
"""Game families by their ``game_type``."""


def load_game(spec: dict[str, Any]) -> Game:
    """Rebuild a game from :meth:`Game.to_spec` output.

    Raises:
        InvalidParameterError: unknown type, or parameters the game rejects.
    """
    if not isinstance(spec, dict) or "type" not in spec:
        raise InvalidParameterError(
            f"A game spec is a dict {{'type': ..., 'params': {{...}}}}, received {spec!r}."
        )
    if not isinstance(spec["type"], str):
        raise InvalidParameterError(f"A game spec's 'type' is a string, received {spec['type']!r}.")
    cls = GAME_TYPES.get(spec["type"])
    if cls is None:
        raise InvalidParameterError(
            f"Unknown game type {spec['type']!r}; known types are {sorted(GAME_TYPES)}."
        )
    params = spec.get("params") or {}
    if not isinstance(params, dict):
        raise InvalidParameterError(
            f"A game spec's 'params' is a dict of parameters, received {params!r}."
        )
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidParameterError(f"Bad parameters {params!r} for {cls.__name__}: {exc}") from exc


__all__ = [
    "GAME_TYPES",
    "load_game",
    "CHANCE",
    "HIDDEN",
    "TERMINAL",
    "ObservationCache",
    "PlayerView",
    "Game",
    "State",
    "KuhnPokerGame",
    "LeducHoldemGame",
    "MatrixGame",
    "PokerGame",
    "FightingCardGame",
    "rock_paper_scissors",
    "weighted_rock_paper_scissors",
    "matching_pennies",
]
