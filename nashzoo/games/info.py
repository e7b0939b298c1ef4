"""What a game declares about itself: :class:`GameInfo`, one frozen, checked record."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError

__all__ = ["FastPaths", "GameInfo", "load_declared"]


@dataclass(frozen=True)
class FastPaths:
    """The compiled implementations a game offers beside its Python rules: what the game
    declares, so that no code outside ``nashzoo.games`` chooses an implementation by the
    game's class. Each is named by its import path (``"package.module:Name"``), so that
    the rules import none of the layers that run them, and built with the game first.

    Attributes:
        lane: a :class:`~nashzoo.games.lane.Lane` (``Lane(game)``): the rules in numba,
            one game at a time, that :class:`~nashzoo.envs.compiled.CompiledEnv` steps.
        vector_env: a batched env (``Env(game, num_envs, seed=seed)``) that
            :func:`nashzoo.vector.make_vector_env` prefers to the compiled tree's.
        large_vector_env: the batched env for when the game is too large to compile
            (``histories_lower_bound`` above the compiler's limit).
        decisions: bulk self-play with every legal action's successor
            (``Decisions(game, num_games)``: ``deal``, ``live_games``, ``views``,
            ``sample``, ``successors``, ``apply``, ``returns``), what simplex-gradient
            self-play learns from in one numba call per round of decisions.
    """

    lane: str | None = None
    vector_env: str | None = None
    large_vector_env: str | None = None
    decisions: str | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            path = getattr(self, f.name)
            if path is not None and (not isinstance(path, str) or path.count(":") != 1):
                raise InvalidParameterError(
                    f"FastPaths.{f.name} must be 'package.module:Name' or None, received {path!r}."
                )

    def load(self, name: str) -> Any:
        """The class (or factory) that path ``name`` names, imported on first use.

        Raises:
            InvalidParameterError: ``name`` is not a field or is not declared.
        """
        if name not in {f.name for f in fields(self)}:
            raise InvalidParameterError(f"FastPaths has no path {name!r}.")
        path = getattr(self, name)
        if path is None:
            raise InvalidParameterError(f"The game declares no {name} (FastPaths.{name}).")
        return load_declared(path)


def load_declared(path: str) -> Any:
    """What a game's declared import path (``"package.module:Name"``) names, imported
    now (:class:`FastPaths`, ``Game.rule_agents``).

    Raises:
        InvalidParameterError: not such a path.
    """
    if not isinstance(path, str) or path.count(":") != 1:
        raise InvalidParameterError(f"Expected a path 'package.module:Name', received {path!r}.")
    module, attribute = path.split(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class GameInfo:
    """What a game declares about itself, as one frozen record (OpenSpiel's ``GameType``
    and ``GameInfo`` in one): :attr:`Game.info` gathers it from the attributes the game
    sets, checked once; :func:`nashzoo.testing.check_env` checks that play keeps to it.

    Attributes:
        short_name, game_type: the game's identifier and its family in saved files.
        num_players: players (at least 1).
        num_distinct_actions: size of every player's action space (at least 1).
        max_chance_outcomes: most outcomes of one chance node (0: no chance).
        max_chance_nodes: most chance events on one history.
        max_game_length: most player actions on one history (at least 1).
        min_utility, max_utility: the payoff range of every player (finite, min <= max).
        zero_sum: returns always sum to zero (then ``min_utility <= 0 <= max_utility``).
        simultaneous: moves are simultaneous (played one after another, hidden).
        information_state_tensor_size: length of the information-state tensor (>= 1).
        big_blind: chips per big blind (poker), else ``None``.
    """

    short_name: str
    game_type: str
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    max_chance_nodes: int
    max_game_length: int
    min_utility: float
    max_utility: float
    zero_sum: bool
    simultaneous: bool
    information_state_tensor_size: int
    big_blind: float | None = None

    def __post_init__(self) -> None:
        where = self.short_name or "a game"
        for name, low in (
            ("num_players", 1),
            ("num_distinct_actions", 1),
            ("max_chance_outcomes", 0),
            ("max_chance_nodes", 0),
            ("max_game_length", 1),
            ("information_state_tensor_size", 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise InvalidParameterError(
                    f"{where} declares `{name}` = {value!r}; expected an integer >= {low}."
                )
        for name in ("min_utility", "max_utility"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.number))
                or not (np.isfinite(value))
            ):
                raise InvalidParameterError(
                    f"{where} declares `{name}` = {value!r}; expected a finite number."
                )
        if self.min_utility > self.max_utility:
            raise InvalidParameterError(
                f"{where} declares min_utility {self.min_utility} above max_utility "
                f"{self.max_utility}."
            )
        if self.zero_sum and not self.min_utility <= 0 <= self.max_utility:
            raise InvalidParameterError(
                f"{where} is declared zero-sum, so its payoff range must hold 0; received "
                f"[{self.min_utility}, {self.max_utility}]."
            )
        for name in ("zero_sum", "simultaneous"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidParameterError(
                    f"{where} declares `{name}` = {getattr(self, name)!r}; expected True or False."
                )
