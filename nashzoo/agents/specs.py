"""Agent specs: the short strings the CLI and the tournament take for agents.

A spec is one of:

* ``NAME`` or ``NAME:ARGUMENT`` for a registered family (:mod:`nashzoo.agents.registry`):
  ``random``, ``cfr+:1000``, or any family an installed plugin adds;
* a path ending in a file family's suffix: ``policy.npz``/``.json``, ``nfsp.pt``,
  ``model.zip`` (stable-baselines3: a pickle that runs code when loaded);
* ``package.module:factory`` for local code: ``factory()``, or ``factory(game=game)`` if
  it takes ``game``.

:class:`AgentSpec` is the picklable factory the tournament runs in its worker processes;
:func:`build_agent` builds one agent at once.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nashzoo.agents.registry import AgentFamily, families, family_for_file, lookup_family
from nashzoo.envs.protocol import Agent
from nashzoo.errors import InvalidParameterError, NashzooError
from nashzoo.games import Game

__all__ = ["AgentSpec", "build_agent", "check_spec", "spec_help"]


def spec_help() -> str:
    """One line listing the spec forms (for ``--help`` and error messages)."""
    names = [f.usage for f in families().values() if not f.suffixes]
    files = sorted({s for f in families().values() for s in f.suffixes})
    return f"{' | '.join(names)} | path/to/file ({', '.join(files)}) | package.module:factory"


def _import_factory(spec: str, head: str, tail: str) -> Any:
    try:
        return getattr(importlib.import_module(head), tail)
    except (ImportError, AttributeError) as exc:
        raise InvalidParameterError(
            f"Agent spec {spec!r}: cannot import {tail!r} from module {head!r} ({exc})."
        ) from exc


def _module_file(head: str) -> str | None:
    try:
        found = importlib.util.find_spec(head)
    except (ImportError, ValueError):
        return None
    return found.origin if found is not None and found.origin not in (None, "built-in") else None


def _set_name(agent: Any, name: str | None) -> None:
    if name is not None:
        with contextlib.suppress(AttributeError):  # a read-only name stays as it is
            agent.name = name


def _named_family(spec: str) -> AgentFamily | None:
    """The family ``spec`` names before its ``:ARGUMENT`` (not a file family), or ``None``:
    a named family comes first, since its argument may itself name a file
    (``nash-ismcts:0.2s+blueprint.npz``)."""
    head, sep, tail = spec.partition(":")
    family = lookup_family(head) if sep and tail else None
    return family if family is not None and not family.suffixes else None


def check_spec(spec: str, game: Game | None = None) -> None:
    """Raise unless ``spec`` has one of the forms (a registered family, an existing file
    of a file family, or an importable ``package.module:factory``) and, with ``game``,
    its family can play that game as far as its :attr:`~AgentFamily.check` knows, all
    without building the agent: what a command checks of every agent before it builds
    any (a slow one first), and a server of its fixed agents when it starts.

    Raises:
        InvalidParameterError: not a spec of any form (the message lists them), a
            ``module:factory`` that does not import, or a family that cannot play
            ``game`` (the message says why).
        FileNotFoundError: a file spec names a missing file.
    """
    if not isinstance(spec, str) or not spec:
        raise InvalidParameterError(
            f"An agent spec is a non-empty string ({spec_help()}), received {spec!r}."
        )
    named = _named_family(spec)
    if named is None and family_for_file(spec) is not None:
        if not Path(spec).is_file():
            raise FileNotFoundError(f"Agent spec {spec!r}: no such file.")
        return
    family = named or lookup_family(spec.partition(":")[0])
    if family is not None:
        why = None if game is None or family.check is None else family.check(game)
        if why is not None:
            raise InvalidParameterError(f"{spec} cannot play {game}: {why}.")
        return
    head, sep, tail = spec.rpartition(":")
    if not (sep and head and tail):
        raise InvalidParameterError(f"Unknown agent spec {spec!r}; expected one of: {spec_help()}.")
    _import_factory(spec, head, tail)


def build_agent(spec: str, game: Game, *, name: str | None = None) -> Agent:
    """The agent described by ``spec`` for ``game``.

    Args:
        spec: see the module docstring.
        game: the game the agent will play.
        name: display name to give the agent (default: the family's choice).

    Raises:
        InvalidParameterError: the spec matches none of the forms (the message lists
            them), or building the agent failed (the message names the spec and the cause).
        FileNotFoundError: a file spec names a missing file.
        MissingDependencyError: the family needs an extra that is not installed.
    """
    if not isinstance(spec, str) or not spec:
        raise InvalidParameterError(
            f"An agent spec is a non-empty string ({spec_help()}), received {spec!r}."
        )
    if not isinstance(game, Game):
        raise InvalidParameterError(
            f"build_agent needs a nashzoo Game, received {type(game).__name__}."
        )
    named = _named_family(spec)
    argument: str | None
    family: AgentFamily | None
    if named is not None:
        family, argument = named, spec.partition(":")[2]
    else:
        family, argument = family_for_file(spec), spec
    if family is None:
        head, sep, tail = spec.partition(":")
        family = lookup_family(head)
        argument = tail if sep else None
        if family is not None and argument == "":
            raise InvalidParameterError(
                f"Agent spec {spec!r} ends in ':' with nothing after it; write {head!r} "
                f"alone, or {head}:ARGUMENT ({family.description})."
            )
        if family is None:
            head, sep, tail = spec.rpartition(":")
            if not (sep and head and tail):
                raise InvalidParameterError(
                    f"Unknown agent spec {spec!r}; expected one of: {spec_help()}."
                )
            return _from_module(spec, head, tail, game, name)
    try:
        agent = family.factory(game, argument)
    except (NashzooError, FileNotFoundError):
        raise
    except Exception as exc:
        raise InvalidParameterError(
            f"Agent spec {spec!r}: the {family.name} family failed to build an agent: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    _set_name(agent, name)
    return agent


def _from_module(spec: str, head: str, tail: str, game: Game, name: str | None) -> Agent:
    factory = _import_factory(spec, head, tail)
    if not callable(factory):
        raise InvalidParameterError(f"Agent spec {spec!r}: {head}.{tail} is not callable.")
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    try:
        agent = factory(game=game) if "game" in params else factory()
    except NashzooError:
        raise
    except Exception as exc:
        raise InvalidParameterError(
            f"Agent spec {spec!r}: {head}.{tail}() raised {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(getattr(agent, "act", None)):
        raise InvalidParameterError(
            f"Agent spec {spec!r}: {head}.{tail}() returned {type(agent).__name__}, which "
            "has no act(observation, info)."
        )
    _set_name(agent, name)
    return agent


@dataclass(frozen=True)
class AgentSpec:
    """A picklable agent factory built from a spec string: ``AgentSpec("cfr+:1000")(game)``.

    The tournament identifies an agent by :attr:`spec` and fingerprints :attr:`files`, so
    a changed policy file, checkpoint, model or agent module makes a new tournament
    instead of silently mixing two different agents' results.

    Attributes:
        spec: the spec string.
        name: display name given to the agents it builds (``None``: the family's).
    """

    spec: str
    name: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.spec, str) or not self.spec:
            raise InvalidParameterError(
                f"An agent spec is a non-empty string, received {self.spec!r}."
            )

    def __call__(self, game: Game) -> Agent:
        return build_agent(self.spec, game, name=self.name)

    @property
    def files(self) -> tuple[str, ...]:
        """Files the agent is built from: the file of a file spec, or the module file of a
        ``module:factory`` spec."""
        if family_for_file(self.spec) is not None:
            return (self.spec,)
        head, sep, _ = self.spec.partition(":")
        if lookup_family(head) is not None:
            return ()
        head, sep, tail = self.spec.rpartition(":")
        if sep and head:
            origin = _module_file(head)
            return (origin,) if origin and Path(origin).is_file() else ()
        return ()

    @property
    def family(self) -> str | None:
        """The family name the spec resolves to (``None`` for ``module:factory``)."""
        found = family_for_file(self.spec)
        if found is None:
            found = lookup_family(self.spec.partition(":")[0])
        return None if found is None else found.name
