"""The env registry: ids like ``"nashzoo/leduc_holdem-v0"`` mapped to game factories.

Every id is also registered in PettingZoo's registries (``pettingzoo.make("aec", id)``,
and ``pettingzoo.make("parallel", id)`` for simultaneous-move games) where the installed
PettingZoo has one (1.27 and later; with older releases only ``nashzoo.make`` knows them).
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pettingzoo

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv
from nashzoo.errors import InvalidParameterError, UnknownEnvError
from nashzoo.games import register_game_type
from nashzoo.games.base import Game

__all__ = [
    "EnvSpec",
    "register",
    "make",
    "make_parallel",
    "env_class",
    "make_game",
    "load_game",
    "split_game_strings",
    "spec",
    "registry",
]

_ENV_KWARGS = (
    "render_mode",
    "strict",
    "illegal_reward",
    "max_cycles",
    "info_strings",
    "info_masks",
)


@dataclass(frozen=True)
class EnvSpec:
    """What an id stands for.

    Attributes:
        id: e.g. ``"nashzoo/leduc_holdem-v0"``.
        game_factory: callable building the :class:`~nashzoo.games.base.Game` from the
            keyword parameters the id accepts.
        doc_module: module whose docstring is the env's reference page.
        parallel: whether the game is simultaneous-move (parallel API offered).
        default_params: parameters the id fixes (e.g. a preset's payoffs).
    """

    id: str
    game_factory: Callable[..., Game]
    doc_module: str
    parallel: bool = False
    default_params: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``"leduc_holdem_v0"`` for ``"nashzoo/leduc_holdem-v0"``."""
        return self.id.split("/", 1)[-1].replace("-", "_")

    def game_parameters(self) -> list[str]:
        """Names of the game parameters the id accepts."""
        sig = inspect.signature(self.game_factory)
        return [
            p.name
            for p in sig.parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]


registry: dict[str, EnvSpec] = {}


def register(spec_: EnvSpec) -> None:
    """Add an env spec to nashzoo's registry and, where it has one, to PettingZoo's; a
    factory that is a Game class is registered as a game type too
    (:func:`nashzoo.games.register_game_type`), so saved files can name its games.

    Raises:
        InvalidParameterError: the factory's ``game_type`` is taken by another class.
    """
    if isinstance(spec_.game_factory, type) and issubclass(spec_.game_factory, Game):
        register_game_type(spec_.game_factory)
    registry[spec_.id] = spec_
    pz_register = getattr(pettingzoo, "register", None)
    if pz_register is None:  # PettingZoo < 1.27 has no registry
        return
    pz_register("aec", spec_.id, entry_point=_Maker(spec_.id, make))
    if spec_.parallel:
        pz_register("parallel", spec_.id, entry_point=_Maker(spec_.id, make_parallel))


class _Maker:
    """Picklable entry point ``make(id, **kwargs)`` for PettingZoo's registry."""

    def __init__(self, env_id: str, fn: Callable[..., Any]) -> None:
        self.env_id, self.fn = env_id, fn

    def __call__(self, **kwargs: Any) -> Any:
        return self.fn(self.env_id, **kwargs)


def spec(env_id: str) -> EnvSpec:
    """The :class:`EnvSpec` of ``env_id``.

    Raises:
        UnknownEnvError: no such id; the message suggests the closest ids.
    """
    if not isinstance(env_id, str):
        raise UnknownEnvError(
            f"An env id is a string like 'nashzoo/kuhn_poker-v0', received {env_id!r}."
        )
    found = registry.get(env_id) or registry.get(f"nashzoo/{env_id}")
    if found is None:
        versionless = {i.rsplit("-v", 1)[0]: i for i in registry}
        key = env_id if "/" in env_id else f"nashzoo/{env_id}"
        if key in versionless:
            found = registry[versionless[key]]
    if found is None:
        close = difflib.get_close_matches(env_id, list(registry), n=3, cutoff=0.4)
        if not close:
            close = difflib.get_close_matches(f"nashzoo/{env_id}", list(registry), n=3, cutoff=0.4)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownEnvError(
            f"No environment registered as {env_id!r}.{hint} Registered: {sorted(registry)}."
        )
    return found


def make_game(env_id: str, **params: Any) -> Game:
    """Build the rules behind ``env_id`` with game parameters ``params``.

    Raises:
        UnknownEnvError: unknown id.
        InvalidParameterError: an unknown parameter name, or an out-of-range value.
    """
    s = spec(env_id)
    allowed = s.game_parameters()
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise InvalidParameterError(
            f"{s.id} has no parameter {', '.join(repr(k) for k in unknown)}; its game "
            f"parameters are {allowed}, and every env takes {list(_ENV_KWARGS)}."
        )
    return s.game_factory(**{**s.default_params, **params})


def load_game(text: str) -> Game:
    """Build the rules named by one string: an env id, optionally with game parameters
    in OpenSpiel's ``load_game`` form, ``"kuhn_poker(players=3)"`` or
    ``"nashzoo/limit_holdem-v0(players=3,stack=2000)"``. Values are read as JSON where
    they parse (``3``, ``true``, ``[1, 2]``) and kept as strings otherwise. Where one
    string must name a game with its parameters (a leaderboard's board, a bundle's
    ``games`` list), this is the form.

    Raises:
        InvalidParameterError: the text is not ``ID`` or ``ID(KEY=VALUE,...)``, or a
            parameter is unknown or out of range.
        UnknownEnvError: unknown id.
    """
    import json

    if not isinstance(text, str):
        raise InvalidParameterError(
            f"A game is named by a string like 'kuhn_poker(players=3)', received {text!r}."
        )
    found = re.fullmatch(r"\s*([\w./-]+)\s*(?:\((.*)\))?\s*", text, flags=re.DOTALL)
    if found is None:
        raise InvalidParameterError(
            f"A game string is ID or ID(KEY=VALUE,...), e.g. 'kuhn_poker(players=3)'; "
            f"received {text!r}."
        )
    env_id, inner = found.group(1), found.group(2)
    params: dict[str, Any] = {}
    for item in _split_top_level(inner or ""):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", key):
            raise InvalidParameterError(
                f"A game parameter is KEY=VALUE, received {item.strip()!r} in {text!r}."
            )
        if key in params:
            raise InvalidParameterError(f"Game parameter {key!r} is given twice in {text!r}.")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw.strip()
    return make_game(env_id, **params)


def split_game_strings(text: str) -> list[str]:
    """A comma-separated list of game strings (:func:`load_game`), split at the commas
    outside their parentheses: ``"kuhn_poker(players=3,deck_size=5),leduc_holdem"``
    gives two."""
    return [item.strip() for item in _split_top_level(text) if item.strip()]


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (a list value keeps its commas)."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:k])
            start = k + 1
    if text.strip():
        items.append(text[start:])
    return items


def make(
    env_id: str,
    *,
    render_mode: str | None = None,
    strict: bool = False,
    illegal_reward: float = -1.0,
    max_cycles: int | None = None,
    info_strings: bool = False,
    info_masks: bool = False,
    **params: Any,
) -> OrderEnforcingWrapper:
    """Make the wrapped AEC env registered as ``env_id``.

    Args:
        env_id: e.g. ``"nashzoo/leduc_holdem-v0"`` (the ``nashzoo/`` prefix and the version
            may be left out).
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        strict: raise on illegal actions instead of ending the episode with a penalty.
        illegal_reward: the offender's reward when ``strict`` is False.
        max_cycles: truncate after this many cycles (one decision per agent each);
            ``None`` plays every game to its end.
        info_strings: also put the information-state string in ``infos[agent]["info_state"]``
            (off by default: infos hold numbers and arrays only).
        info_masks: also put each agent's ``int8`` action mask in
            ``infos[agent]["action_mask"]`` (AgileRL and Shimmy read masks there).
        **params: game parameters, e.g. ``deck_size=8`` for Kuhn poker.

    Returns:
        A :class:`~nashzoo.envs.aec.GameEnv` inside an :class:`OrderEnforcingWrapper`.
    """
    s = spec(env_id)
    game = make_game(s.id, **params)
    raw = env_class(game)(
        game,
        render_mode=render_mode,
        strict=strict,
        illegal_reward=illegal_reward,
        max_cycles=max_cycles,
        info_strings=info_strings,
        info_masks=info_masks,
        name=s.name,
    )
    return OrderEnforcingWrapper(raw)


def env_class(game: Game) -> type[GameEnv]:
    """The AEC env class that plays ``game`` fastest:
    :class:`~nashzoo.envs.compiled.CompiledEnv` (the rules in numba) for poker on the
    52-card deck, else :class:`~nashzoo.envs.aec.GameEnv`; both give the same episodes."""
    from nashzoo.envs.compiled import CompiledEnv, serves

    return CompiledEnv if serves(game) else GameEnv


def make_parallel(env_id: str, **kwargs: Any) -> ParallelGameEnv:
    """Make the parallel-API env of a simultaneous-move game (e.g. ``"nashzoo/rps-v0"``).

    Raises:
        InvalidParameterError: the game is not simultaneous-move.
    """
    s = spec(env_id)
    if not s.parallel:
        raise InvalidParameterError(
            f"{s.id} is a sequential game; the parallel API serves simultaneous-move games "
            f"only ({sorted(i for i, x in registry.items() if x.parallel)})."
        )
    return ParallelGameEnv(make(s.id, **kwargs))
