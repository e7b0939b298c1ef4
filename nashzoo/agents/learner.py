"""One shape for every learner, and the registry that names them.

A learner is an object that improves a policy for one game by training, on the model of
Stable-Baselines3's ``learn``/``save``/``load``:

.. code-block:: python

    learner = NFSP(game, NFSPConfig(seed=3))
    learner.train(seconds=60, callback=print_progress, progress=True)
    learner.exploitability()        # exact, where the game compiles
    agent = learner.agent()         # plays through the Agent protocol
    path = learner.save("nfsp.pt")
    again = NFSP.load(path)         # resumes where it stopped

The :class:`Learner` protocol states the contract; every built-in learner implements it
(NFSP, simplex-gradient, Nash-ISMCTS, and the tabular solvers through
:class:`~nashzoo.agents.cfr.learner.TabularLearner`). The registry maps a name (what
``nashzoo train NAME GAME`` takes) to the class and to the format of its saved files, and
reads other packages' learners from the ``nashzoo.learners`` entry-point group::

    [project.entry-points."nashzoo.learners"]
    my-learner = "my_package:ENTRY"   # a LearnerEntry, or a callable returning one

``nashzoo train`` builds its options from the learner's config dataclass (each field's
``help``), so registering a learner is all the command line needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__ = [
    "Learner",
    "Callback",
    "CallbackList",
    "FunctionCallback",
    "TrainCallback",
    "as_callback",
    "MeasuresMore",
    "HasPriorAgent",
    "Resumable",
    "ConvergencePoint",
    "ConvergenceCurve",
    "LearnerEntry",
    "LEARNER_ENTRY_POINT_GROUP",
    "register_learner",
    "learners",
    "get_learner",
    "learner_for_format",
]


class Callback:
    """A training callback in Stable-Baselines3's shape: :meth:`Learner.train` calls
    :meth:`on_training_start` once, :meth:`on_step` every ``callback_every`` seconds of
    training and at the end (returning ``False`` stops training), and
    :meth:`on_training_end` once after the last step. The training run's callbacks
    (curves, measured points, checkpoints, plots) are in :mod:`nashzoo.training`.
    """

    def on_training_start(self, learner: Any) -> None:
        """Before the first step of a :meth:`Learner.train` call."""

    def on_step(self, learner: Any) -> bool | None:
        """Every ``callback_every`` seconds of training and after the last step;
        ``False`` stops training."""
        return None

    def on_training_end(self, learner: Any) -> None:
        """After the last step (and its :meth:`on_step`)."""


class CallbackList(Callback):
    """Callbacks called in order (SB3's ``CallbackList``); training stops when any
    :meth:`on_step` returns ``False`` (the ones after it still run at that step)."""

    def __init__(self, callbacks: Sequence[Callback]) -> None:
        self.callbacks = list(callbacks)

    def on_training_start(self, learner: Any) -> None:
        for c in self.callbacks:
            c.on_training_start(learner)

    def on_step(self, learner: Any) -> bool | None:
        answers = [c.on_step(learner) for c in self.callbacks]
        return False if any(a is False for a in answers) else None

    def on_training_end(self, learner: Any) -> None:
        for c in self.callbacks:
            c.on_training_end(learner)


class FunctionCallback(Callback):
    """A plain function ``fn(learner)`` as a callback: called at every :meth:`on_step`
    (returning ``False`` stops)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def on_step(self, learner: Any) -> bool | None:
        return False if self.fn(learner) is False else None


TrainCallback = Callback | Callable[[Any], Any] | Sequence[Callback | Callable[[Any], Any]]
"""What :meth:`Learner.train`'s ``callback`` takes, as SB3's ``learn``: a
:class:`Callback`, a function called as ``callback(learner)`` (returning ``False`` stops
training), or a list of either (run in order)."""


def as_callback(callback: TrainCallback | None) -> Callback | None:
    """``callback`` as one :class:`Callback` (``None`` stays ``None``).

    Raises:
        InvalidParameterError: neither a Callback, a callable nor a list of them.
    """
    if callback is None or isinstance(callback, Callback):
        return callback
    if callable(callback):
        return FunctionCallback(callback)
    if isinstance(callback, (list, tuple)):
        return CallbackList([c for c in (as_callback(x) for x in callback) if c is not None])
    raise InvalidParameterError(
        "`callback` expects a nashzoo.agents.learner.Callback, a function of the learner or "
        f"a list of them, received {type(callback).__name__}."
    )


@runtime_checkable
class Learner(Protocol):
    """What every nashzoo learner implements.

    Its class attributes:

    - ``name``: the registry name (``"nfsp"``).
    - ``config_type``: the frozen :class:`~nashzoo.validation.Config` dataclass it takes.
    - ``step_unit``: what one training step is (``"episodes"``, ``"iterations"``,
      ``"generations"``); :attr:`steps` counts them.

    Its instance attributes:

    - ``game``: the game it learns.
    - ``config``: its config (an instance of ``config_type``).
    - ``steps``: steps trained so far (they survive :meth:`save` and :meth:`load`).
    - ``seconds``: training wall time so far, callbacks excluded.

    What the training run (:func:`nashzoo.training.run_training`) reads beyond these is
    declared by the optional protocols :class:`MeasuresMore`, :class:`HasPriorAgent` and
    :class:`Resumable`.
    """

    name: ClassVar[str]
    config_type: ClassVar[type]
    step_unit: ClassVar[str]
    game: Game
    config: Any
    seconds: float

    @property
    def steps(self) -> int:
        """Steps trained so far."""
        ...

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: TrainCallback | None = None,
        callback_every: float = 10.0,
        progress: bool = False,
    ) -> Any:
        """Train ``steps`` more steps or for ``seconds`` of wall time (whichever ends
        first; at least one is needed); ``callback`` (a :class:`Callback`, a function of
        the learner, or a list of them) every ``callback_every`` seconds and at the end;
        returns ``self``."""
        ...

    def exploitability(self) -> float:
        """Exact exploitability (chips) of what :meth:`agent` plays, where the game
        compiles (else :class:`~nashzoo.errors.GameTooLargeError`)."""
        ...

    def agent(self, *, name: str | None = None, seed: int | None = None) -> Any:
        """The trained policy as an :class:`~nashzoo.agents.Agent`."""
        ...

    def save(self, path: str | Path) -> Path:
        """Write everything :meth:`load` needs to resume (atomically)."""
        ...

    @classmethod
    def load(cls, path: str | Path) -> Any:
        """The learner a file written by :meth:`save` holds."""
        ...


@runtime_checkable
class HasPriorAgent(Protocol):
    """A learner whose agent states its probabilities only by searching (Nash-ISMCTS):
    its network's prior, a stationary policy, keeps LBR's range of the agent while the
    search plays (what the training run's LBR points ask for)."""

    def prior_agent(self) -> Any:
        """The prior network as a PolicyAgent (``action_probabilities``)."""
        ...


@runtime_checkable
class Resumable(Protocol):
    """A learner that may hold a file saved without its memories (Deep CFR's and
    ESCHER's agent files): ``resumable`` is ``False`` there, and the training run refuses
    to continue it. A learner without the attribute always resumes."""

    resumable: bool


@runtime_checkable
class MeasuresMore(Protocol):
    """A learner with more exact measurements than its agent's exploitability (the last
    iterate beside the average, the network's prior beside the search): ``nashzoo
    train`` prints and plots each as a curve of its own."""

    def other_exploitabilities(self) -> dict[str, float]:
        """Exact exploitability of each other policy, by a short name."""
        ...


@dataclass(frozen=True)
class ConvergencePoint:
    """One measurement of a learner: exploitability after ``step`` steps of
    ``step_unit`` (``seconds`` = training time so far, measurement excluded)."""

    step: int
    seconds: float
    exploitability: float
    step_unit: str = "iterations"


@dataclass(frozen=True)
class ConvergenceCurve:
    """A learner's run: its exploitability curve and (where kept) the final policy."""

    algorithm: str
    game: str
    points: tuple[ConvergencePoint, ...]
    policy: Any = field(default=None, repr=False)

    @property
    def final(self) -> ConvergencePoint:
        """The last point."""
        return self.points[-1]

    @property
    def step_unit(self) -> str:
        """The points' step unit (``"iterations"`` for an empty curve)."""
        return self.points[0].step_unit if self.points else "iterations"

    def first_below(self, threshold: float) -> ConvergencePoint | None:
        """The first recorded point with exploitability <= ``threshold``."""
        return next((p for p in self.points if p.exploitability <= threshold), None)


# -- the registry ----------------------------------------------------------------------------
LEARNER_ENTRY_POINT_GROUP = "nashzoo.learners"
"""The entry-point group other packages use to add learners."""


@dataclass(frozen=True)
class LearnerEntry:
    """One registered learner.

    Attributes:
        name: what ``nashzoo train NAME`` takes (no spaces, ``:`` or ``/``).
        target: the class, or ``"package.module:Class"`` (imported on first use, so
            listing learners does not import torch).
        description: one line for ``nashzoo train --help``.
        file_format: the ``"format"`` its saved files declare (``"nashzoo.nfsp"``), so a
            saved file finds the learner that reads it, or a tuple of them (a learner whose
            files take one of several forms); ``None`` if it has none.
        suffix: the suffix of its saved files (``".pt"``, ``".npz"``).
        load_agent: ``load_agent(path, game)`` builds an agent from a saved file; default
            ``cls.load(path).agent(name=file stem)`` after checking the game.
    """

    name: str
    target: Any
    description: str
    file_format: str | tuple[str, ...] | None = None
    suffix: str = ".pt"
    load_agent: Callable[[str, Game], Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c in self.name for c in ":/ "):
            raise InvalidParameterError(
                f"A learner name is a non-empty string without spaces, ':' or '/', received "
                f"{self.name!r}."
            )
        if not (isinstance(self.target, (str, type))):
            raise InvalidParameterError(
                f"LearnerEntry {self.name!r}: target must be a class or 'module:Class', "
                f"received {type(self.target).__name__}."
            )

    @property
    def file_formats(self) -> tuple[str, ...]:
        """Every ``"format"`` its saved files may declare."""
        if self.file_format is None:
            return ()
        return (self.file_format,) if isinstance(self.file_format, str) else self.file_format

    def load_class(self) -> type:
        """The learner class (imported now if the target is a string).

        Raises:
            InvalidParameterError: the target does not import, or is not a class with a
                ``config_type``.
        """
        target = self.target
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            try:
                target = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                raise InvalidParameterError(
                    f"Learner {self.name!r}: cannot import {self.target!r}: {exc}"
                ) from exc
        if not isinstance(target, type) or not hasattr(target, "config_type"):
            raise InvalidParameterError(
                f"Learner {self.name!r} must be a class with a config_type, received {target!r}."
            )
        return target

    def agent_from_file(self, path: str, game: Game) -> Any:
        """An agent for ``game`` from a file this learner saved.

        Raises:
            InvalidParameterError: the file holds a learner for another game.
            PolicyFileError: not a readable file of this learner.
        """
        if self.load_agent is not None:
            return self.load_agent(path, game)
        learner = self.load_class().load(path)  # type: ignore[attr-defined]
        if learner.game != game:
            raise InvalidParameterError(
                f"{path} holds a {self.name} learner for {learner.game}, not for {game}."
            )
        return learner.agent(name=Path(path).stem)


_LEARNERS: dict[str, LearnerEntry] = {}


def register_learner(entry: LearnerEntry, *, replace: bool = False) -> LearnerEntry:
    """Add ``entry`` to the registry.

    Raises:
        InvalidParameterError: not a :class:`LearnerEntry`, or the name is taken and
            ``replace`` is False.
    """
    if not isinstance(entry, LearnerEntry):
        raise InvalidParameterError(
            f"register_learner expects a LearnerEntry, received {type(entry).__name__}."
        )
    if not replace and _LEARNERS.get(entry.name, entry) is not entry:
        raise InvalidParameterError(
            f"A learner named {entry.name!r} is registered already; pass replace=True to "
            "override it."
        )
    _LEARNERS[entry.name] = entry
    return entry


def _load() -> None:
    from nashzoo.agents.registry import builtins_and_plugins

    builtins_and_plugins(LEARNER_ENTRY_POINT_GROUP, LearnerEntry, _LEARNERS, register_learner)


def learners() -> dict[str, LearnerEntry]:
    """Every registered learner by name (built-ins and installed plugins)."""
    _load()
    return dict(sorted(_LEARNERS.items()))


def get_learner(name: str) -> LearnerEntry:
    """The learner called ``name``.

    Raises:
        InvalidParameterError: no such learner (the message suggests close names).
    """
    _load()
    entry = _LEARNERS.get(name)
    if entry is None:
        from nashzoo.agents.registry import unknown_name

        raise unknown_name("learner", name, _LEARNERS)
    return entry


def learner_for_format(file_format: str) -> LearnerEntry | None:
    """The learner whose saved files declare ``file_format``, or ``None``."""
    _load()
    return next((e for e in _LEARNERS.values() if file_format in e.file_formats), None)
