"""The registry of agent families: how a spec string such as ``cfr+:1000`` becomes an agent.

A family is an :class:`AgentFamily`: a name, a factory ``factory(game, argument)`` and a
few facts the tools need (whether it compiles the game tree, whether it samples, what its
argument means, its defaults). nashzoo registers its own families here; other installed
packages add theirs through the ``nashzoo.agents`` entry-point group, the way pytest
plugins (``pytest11``) and Gymnasium env plugins work. In the plugin's ``pyproject.toml``::

    [project.entry-points."nashzoo.agents"]
    myagent = "nashzoo_myagent:FAMILY"

where ``FAMILY`` is an :class:`AgentFamily` (or a zero-argument callable returning one).
After ``pip install nashzoo-myagent``, ``--agent me=myagent:ARG`` works in every command.
Entry points are read once, on the first look-up of a name nashzoo does not know.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from nashzoo.envs.protocol import Agent
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__ = [
    "AgentFamily",
    "ENTRY_POINT_GROUP",
    "register_family",
    "get_family",
    "families",
    "family_for_file",
    "lookup_family",
    "refresh_plugins",
]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "nashzoo.agents"
"""The entry-point group other packages use to add agent families."""

AgentFactory = Callable[[Game, "str | None"], Agent]


@dataclass(frozen=True)
class AgentFamily:
    """One kind of agent that spec strings can name.

    Attributes:
        name: what specs call it (``"cfr+"``, ``"random"``, ``"myagent"``); no ``:`` or
            path separators.
        factory: ``factory(game, argument)`` builds an agent for ``game``; ``argument`` is
            the text after ``NAME:`` in the spec (``None`` when absent), or the file path
            for file families.
        description: one line for ``nashzoo agents`` and error messages.
        argument: what the argument means (``"ITERATIONS"``), or ``None`` if it takes none.
        needs_tree: the family compiles the game tree (works on games small enough only).
        samples: building the agent draws random numbers (it takes a seed).
        defaults: default parameters, for the docs and ``nashzoo agents``.
        suffixes: file suffixes this family loads (``(".npz", ".json")``); a spec that is a
            path ending in one of them goes to this family.
        loads_code: files of this family run code when loaded (pickles): never accept them
            from people you do not trust, unless sandboxed.
        check: ``check(game)`` says, cheaply and without building anything, why the
            family cannot play ``game`` (``None``: it can as far as it knows); what a
            command checks of every agent before it builds any.
    """

    name: str
    factory: AgentFactory
    description: str
    argument: str | None = None
    needs_tree: bool = False
    samples: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)
    suffixes: tuple[str, ...] = ()
    loads_code: bool = False
    check: Callable[[Game], str | None] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c in self.name for c in ":/\\"):
            raise InvalidParameterError(
                f"An agent family name is a non-empty string without ':' or '/', received "
                f"{self.name!r}."
            )
        if not callable(self.factory):
            raise InvalidParameterError(
                f"AgentFamily {self.name!r}: factory must be callable, received "
                f"{type(self.factory).__name__}."
            )

    @property
    def usage(self) -> str:
        """``NAME`` or ``NAME:ARGUMENT`` (or the file suffixes of a file family)."""
        if self.suffixes:
            return "path/to/file" + "|".join(self.suffixes)
        return self.name + (f":{self.argument}" if self.argument else "")


_FAMILIES: dict[str, AgentFamily] = {}
_SUFFIXES: dict[str, AgentFamily] = {}


def register_family(family: AgentFamily, *, replace: bool = False) -> AgentFamily:
    """Add ``family`` to the registry (and its file suffixes, if any).

    Raises:
        InvalidParameterError: the name (or a suffix) is taken and ``replace`` is False.
    """
    if not isinstance(family, AgentFamily):
        raise InvalidParameterError(
            f"register_family expects an AgentFamily, received {type(family).__name__}."
        )
    if not replace and family.name in _FAMILIES and _FAMILIES[family.name] is not family:
        raise InvalidParameterError(
            f"An agent family named {family.name!r} is registered "
            "already; pass replace=True to override it."
        )
    _FAMILIES[family.name] = family
    for suffix in family.suffixes:
        _SUFFIXES[suffix.lower()] = family
    return family


def _load_entry_points() -> None:
    builtins_and_plugins(ENTRY_POINT_GROUP, AgentFamily, _FAMILIES, register_family)


_LOADED_GROUPS: set[str] = set()


def builtins_and_plugins(
    group: str, kind: type[Any], table: Mapping[str, Any], register: Callable[[Any], Any]
) -> None:
    """Register nashzoo's built-ins, then (once per process) every plugin of the
    entry-point ``group``: each loads a ``kind`` (or a zero-argument callable returning
    one) named like its entry point. A broken plugin or a taken name is logged and
    skipped; it never breaks nashzoo. Serves the agent families and the learners."""
    _builtins()
    if group in _LOADED_GROUPS:
        return
    _LOADED_GROUPS.add(group)
    for ep in entry_points(group=group):
        try:
            obj = ep.load()
            item: Any = obj() if callable(obj) and not isinstance(obj, kind) else obj
            if not isinstance(item, kind):
                raise TypeError(f"it loads a {type(item).__name__}, not a {kind.__name__}")
            if item.name != ep.name:
                raise TypeError(
                    f"the entry point is named {ep.name!r} but the {kind.__name__} {item.name!r}"
                )
            if item.name in table:
                logger.warning(
                    "plugin %s (%s) of %s ignored: the name %r is taken",
                    ep.value,
                    ep.dist.name if ep.dist else "?",
                    group,
                    item.name,
                )
                continue
            register(item)
        except Exception as exc:  # one broken plugin must not break nashzoo
            logger.warning(
                "plugin %r (%s) of %s could not be loaded: %s: %s",
                ep.name,
                ep.value,
                group,
                type(exc).__name__,
                exc,
            )


def refresh_plugins() -> None:
    """Read the ``nashzoo.agents`` and ``nashzoo.learners`` entry points again (after
    installing a plugin into a running process); what is registered already stays."""
    _LOADED_GROUPS.clear()
    _load_entry_points()


def _builtins() -> None:
    import importlib

    importlib.import_module("nashzoo.agents.builtins")  # registers the built-ins


def families() -> dict[str, AgentFamily]:
    """Every registered family by name (built-ins and installed plugins)."""
    _builtins()
    _load_entry_points()
    return dict(sorted(_FAMILIES.items()))


def get_family(name: str) -> AgentFamily:
    """The family called ``name``.

    Raises:
        InvalidParameterError: no such family (the message suggests close names).
    """
    _builtins()
    family = _FAMILIES.get(name)
    if family is None:
        _load_entry_points()
        family = _FAMILIES.get(name)
    if family is None:
        raise unknown_name("agent family", name, _FAMILIES)
    return family


def unknown_name(what: str, name: str, known: Mapping[str, Any]) -> InvalidParameterError:
    """The error for a name no registry entry has: close names suggested, all listed."""
    close = difflib.get_close_matches(name, list(known), n=2)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return InvalidParameterError(f"No {what} {name!r}.{hint} Known: {sorted(known)}.")


def lookup_family(name: str) -> AgentFamily | None:
    """The family called ``name``, or ``None``."""
    _builtins()
    if name not in _FAMILIES:
        _load_entry_points()
    return _FAMILIES.get(name)


def family_for_file(path: str) -> AgentFamily | None:
    """The file family whose suffix ends ``path``, or ``None``."""
    _builtins()
    _load_entry_points()
    lower = path.lower()
    for suffix, family in _SUFFIXES.items():
        if lower.endswith(suffix):
            return family
    return None
