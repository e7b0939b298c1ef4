"""Pure game rules (no PettingZoo): the single source of truth for every game.

Each game follows the OpenSpiel-style state API of :mod:`nashzoo.games.base`.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, FastPaths, Game, GameInfo, State
from nashzoo.games.fighting import FightingCardGame
from nashzoo.games.goofspiel import GoofspielGame
from nashzoo.games.kuhn import KuhnPokerGame
from nashzoo.games.leduc import LeducHoldemGame
from nashzoo.games.liars_dice import LiarsDiceGame
from nashzoo.games.matrix import (
    MatrixGame,
    matching_pennies,
    rock_paper_scissors,
    weighted_rock_paper_scissors,
)
from nashzoo.games.observation import ObservationCache, PlayerView
from nashzoo.games.poker import PokerGame

_GAME_TYPES: dict[str, type[Game]] = {}

GAME_TYPES: Mapping[str, type[Game]] = MappingProxyType(_GAME_TYPES)
"""Game families by their ``game_type`` (read-only: :func:`register_game_type` adds one)."""


def register_game_type(cls: type[Game]) -> type[Game]:
    """Let :func:`load_game` (and so every saved policy or agent file) rebuild games of
    ``cls`` from their spec, under ``cls.game_type``. Returns ``cls``, so it also serves as
    a class decorator; :func:`nashzoo.envs.register` calls it for an env whose factory is
    a Game class. Registering the same class again changes nothing.

    Raises:
        InvalidParameterError: not a Game subclass, no ``game_type``, or the name is taken
            by another class.
    """
    if not isinstance(cls, type) or not issubclass(cls, Game):
        raise InvalidParameterError(
            f"register_game_type expects a Game subclass, received {cls!r}."
        )
    name = cls.game_type
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(
            f"{cls.__name__} needs a class attribute game_type (a non-empty string naming "
            f"it in saved files), received {name!r}."
        )
    known = _GAME_TYPES.get(name)
    if known is not None and known is not cls:
        raise InvalidParameterError(
            f"Game type {name!r} is taken by {known.__module__}.{known.__qualname__}; give "
            f"{cls.__name__} another game_type."
        )
    _GAME_TYPES[name] = cls
    return cls


for _cls in (
    KuhnPokerGame,
    LeducHoldemGame,
    MatrixGame,
    FightingCardGame,
    PokerGame,
    LiarsDiceGame,
    GoofspielGame,
):
    register_game_type(_cls)


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
    # nashzoo 0.2's heads-up limit engine ("poker") is now the one poker engine's; its
    # definitions are read as the same games (PokerDefinition.from_dict)
    kind = "acpc_poker" if spec["type"] == "poker" else spec["type"]
    cls = GAME_TYPES.get(kind)
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
    "register_game_type",
    "load_game",
    "CHANCE",
    "HIDDEN",
    "TERMINAL",
    "ObservationCache",
    "PlayerView",
    "Game",
    "FastPaths",
    "GameInfo",
    "State",
    "KuhnPokerGame",
    "GoofspielGame",
    "LeducHoldemGame",
    "LiarsDiceGame",
    "MatrixGame",
    "PokerGame",
    "FightingCardGame",
    "rock_paper_scissors",
    "weighted_rock_paper_scissors",
    "matching_pennies",
]
