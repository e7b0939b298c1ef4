"""Actors and a learner: how the neural learners spread their experience-making.

A learner on this runtime keeps its networks, buffers and optimisers in this process and
leaves the making of experience (self-play episodes, traversals, games) to *actors*.
Each actor holds a copy of the networks at some *version*: the learner
:meth:`~Runtime.broadcast`\\ s its weights under a new version after it learns, and every
batch of experience an actor returns carries the version it was made with
(:class:`Experience`). This is the shape of DouZero, Ape-X and Sample Factory, on Ray
core.

Backends (``backend=``):

- ``"local"``: the actors are objects in this process, run one after another. No
  parallelism; it is the reference the Ray backend is checked against.
- ``"ray"``: each actor is a Ray actor (a process with one CPU and one numeric thread),
  on this machine or on the cluster at ``ray_address``.

Modes:

- *Lockstep* (``deterministic=True``, and always on the local backend): every
  :meth:`~Runtime.collect` gives each actor the newest weights, waits for one batch from
  every actor and returns them in actor order. With one seed, N actors give the same
  experience on either backend, whatever the timing.
- *Asynchronous* (Ray without ``deterministic``): each actor always has one batch in the
  making; :meth:`~Runtime.collect` returns the batches that are ready (at least one) and
  sets those actors to work again with the newest weights. A batch made with weights
  more than ``max_staleness`` versions older than the learner's is dropped, and counted
  in :attr:`RuntimeStats.dropped`.

Faults: a Ray actor that dies (its process killed, its node lost) is replaced by a new
one (its seed from the actor's index and its incarnation) holding the newest weights.
Its batch in the making is lost before anyone counted it, so the experience count stays
exact: only batches the learner received are counted, each once.

Seeds: actor ``k``'s ``i``-th incarnation is seeded from ``(seed, k, i)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.processes import limit_threads, start_ray
from nashzoo.validation import (
    Config,
    check_bool,
    check_choice,
    check_int,
    check_seed,
    choice,
    flag,
    integer,
    text,
)

__all__ = [
    "Actor",
    "ActorConfig",
    "Experience",
    "Runtime",
    "Rounds",
    "RuntimeStats",
    "actor_seed",
]


@dataclass(frozen=True)
class ActorConfig(Config):
    """Where a learner's experience is made: the settings every learner on the runtime
    shares (a base of its config).

    Attributes:
        actors: actors making experience with copies of the networks (see
            :mod:`nashzoo.agents.runtime`); ``None``: this process makes it between the
            learner's steps, as before the runtime existed (the default).
        backend: ``"local"`` (the actors run one after another in this process) or
            ``"ray"`` (each actor is a Ray process).
        ray_address: the Ray cluster to join, ``"host:port"``; ``None`` starts Ray on
            this machine (or joins the one ``RAY_ADDRESS`` names).
        max_staleness: drop experience made with weights more than this many versions
            behind the learner's (``None``: keep all).
        deterministic: lockstep collection: with one seed, N actors give the same
            checkpoints on either backend.
    """

    actors: int | None = integer(None, low=1, optional=True)
    backend: str = choice("local", ("local", "ray"))
    ray_address: str | None = text(None, optional=True)
    max_staleness: int | None = integer(None, low=0, optional=True)
    deterministic: bool = flag(False)

    def check(self) -> None:
        if self.ray_address is not None and self.backend != "ray":
            raise InvalidParameterError(
                f"{type(self).__name__}.ray_address is for backend='ray', received "
                f"backend={self.backend!r} with ray_address={self.ray_address!r}."
            )
        if self.actors is None and self.backend != "local":
            raise InvalidParameterError(
                f"{type(self).__name__}.backend={self.backend!r} needs `actors` (how many), "
                "received actors=None."
            )

    def shares(self, total: int) -> list[int]:
        """``total`` units of a lockstep round split among the actors (the first
        ``total % actors`` get one more)."""
        actors = self.actors or 1
        return [total // actors + (k < total % actors) for k in range(actors)]

    def runtime(
        self, make_actor: ActorFactory, seed: int | None, *, lockstep: bool = False
    ) -> Runtime:
        """The runtime these settings describe, its actors built by ``make_actor``
        (``lockstep``: always in lockstep, for learners whose steps are synchronous)."""
        if self.actors is None:
            raise InvalidParameterError("ActorConfig.runtime() needs `actors`, received None.")
        return Runtime(
            make_actor,
            actors=self.actors,
            backend=self.backend,
            ray_address=self.ray_address,
            max_staleness=self.max_staleness,
            deterministic=self.deterministic or lockstep,
            seed=seed,
        )


class Rounds:
    """The actors of a learner whose steps are synchronous (Deep CFR, ESCHER,
    simplex-gradient, Nash memory's matches): started at the first round and stopped by
    :meth:`close` (a later round starts new ones). Each round broadcasts one job as the
    next version, in lockstep, and returns the actors' data in actor order.

    Args:
        config: the learner's actor settings.
        make_actor: builds an actor (picklable for Ray).
        seed: the run's seed (the actors' streams come from it).
        lockstep: why a round is synchronous (what all of it uses), for the refusal of
            ``max_staleness``.

    Raises:
        InvalidParameterError: ``config.max_staleness`` is set (there is no staleness to
            bound: every batch of a round is made with its job).
    """

    def __init__(
        self, config: ActorConfig, make_actor: ActorFactory, seed: int | None, *, lockstep: str
    ) -> None:
        if config.max_staleness is not None:
            raise InvalidParameterError(
                f"{type(config).__name__}.max_staleness does not apply: {lockstep} "
                f"(lockstep), received {config.max_staleness}."
            )
        self.config = config
        self.make_actor = make_actor
        self.seed = seed
        self.runtime: Runtime | None = None
        self.version = 0

    def run(self, job: Any) -> list[Any]:
        """One round: ``job`` to every actor, their data back in actor order."""
        if self.runtime is None:
            self.runtime = self.config.runtime(self.make_actor, self.seed, lockstep=True)
        self.version += 1
        self.runtime.broadcast(job, self.version)
        return [batch.data for batch in self.runtime.collect()]

    def close(self) -> None:
        """Stop the actors, if any."""
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None


class Actor(Protocol):
    """What a learner's actor does: take weights, make a batch of experience."""

    def set_weights(self, weights: Any, version: int) -> None:
        """Use ``weights`` (the learner's broadcast) from now on."""

    def collect(self) -> tuple[int, Any]:
        """Make one batch: ``(count, data)``, ``count`` in the learner's unit of
        experience (episodes, traversals, games), ``data`` whatever its learner reads."""


ActorFactory = Callable[[int, int], Actor]
"""``make_actor(index, seed)``: a new actor; picklable for the Ray backend (a module-level
class or a ``functools.partial`` of one)."""


@dataclass(frozen=True)
class Experience:
    """One batch of experience as the learner receives it.

    Attributes:
        actor: the index of the actor that made it.
        version: the version of the weights it was made with.
        count: its size in the learner's unit (episodes, traversals, games).
        data: the learner's arrays.
    """

    actor: int
    version: int
    count: int
    data: Any


@dataclass
class RuntimeStats:
    """What a runtime has done.

    Attributes:
        batches, experience: batches received and used, and their total count.
        dropped, dropped_experience: batches dropped as stale, and their count.
        replaced: actors that died and were replaced.
    """

    batches: int = 0
    experience: int = 0
    dropped: int = 0
    dropped_experience: int = 0
    replaced: int = 0


def actor_seed(seed: int | None, index: int, incarnation: int = 0) -> int:
    """The seed of actor ``index``'s ``incarnation``-th start under run seed ``seed``
    (``None``: fresh entropy)."""
    entropy = None if seed is None else [seed, index, incarnation]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


class _Hosted:
    """An actor inside a Ray actor process: one numeric thread, built there."""

    def __init__(self, make_actor: ActorFactory, index: int, seed: int) -> None:
        limit_threads(1)
        self.actor = make_actor(index, seed)

    def set_weights(self, weights: Any, version: int) -> None:
        self.actor.set_weights(_writeable(weights), version)

    def collect(self) -> tuple[int, Any]:
        return self.actor.collect()


def _writeable(weights: Any) -> Any:
    """``weights`` with its read-only numpy arrays copied (in dicts, lists and tuples).
    Ray hands arrays out of its object store read-only, and numba types a read-only array
    apart from a writeable one: the actors' kernels would otherwise compile (and cache) a
    second specialization in every actor process, about 2 s each on a cold cache (Deep
    CFR's traversals, ESCHER's episodes)."""
    if isinstance(weights, np.ndarray):
        return weights if weights.flags.writeable else weights.copy()
    if isinstance(weights, dict):
        return {key: _writeable(value) for key, value in weights.items()}
    if isinstance(weights, (list, tuple)):
        values = [_writeable(value) for value in weights]
        return type(weights)(*values) if hasattr(weights, "_fields") else type(weights)(values)
    return weights


class Runtime:
    """Actors making experience for one learner (see the module's description).

    Args:
        make_actor: ``make_actor(index, seed)`` builds an actor (picklable for Ray).
        actors: how many actors (>= 1).
        backend: ``"local"`` or ``"ray"``.
        ray_address: the Ray cluster to join (``"host:port"``); ``None`` starts Ray on
            this machine (or joins ``RAY_ADDRESS``).
        max_staleness: drop a batch made with weights more than this many versions
            behind the learner's (``None``: keep every batch).
        deterministic: lockstep collection on Ray too (always so on the local backend).
        seed: the run's seed (actor seeds come from it).

    Raises:
        InvalidParameterError: a setting out of range (0 actors, a negative staleness, an
            unknown backend, an address not of the form ``host:port``).
        WorkerError: nothing answers at ``ray_address``.
        MissingDependencyError: the Ray backend without ray installed.
    """

    def __init__(
        self,
        make_actor: ActorFactory,
        *,
        actors: int,
        backend: str = "local",
        ray_address: str | None = None,
        max_staleness: int | None = None,
        deterministic: bool = False,
        seed: int | None = 0,
    ) -> None:
        self.actors = check_int("actors", actors, 1)
        self.backend = check_choice("backend", backend, ("local", "ray"))
        if ray_address is not None and backend != "ray":
            raise InvalidParameterError(
                f"ray_address is for backend='ray', received backend={backend!r} with "
                f"ray_address={ray_address!r}."
            )
        self.max_staleness = (
            None if max_staleness is None else check_int("max_staleness", max_staleness, 0)
        )
        self.deterministic = check_bool("deterministic", deterministic) or backend == "local"
        self.seed = check_seed(seed)
        self.stats = RuntimeStats()
        self._make_actor = make_actor
        self._incarnation = [0] * self.actors
        self._weights: Any = None
        self._shared: Any = None  # the weights as Ray holds them
        self._version = -1
        self._given = [-1] * self.actors  # the version each actor holds
        self._ray: Any = None
        if self.backend == "ray":
            self._ray = start_ray(ray_address, feature="Training with backend='ray'")
            self._remote = self._ray.remote(num_cpus=1, max_restarts=0)(_Hosted)
            self._dead = (
                self._ray.exceptions.RayActorError,
                self._ray.exceptions.WorkerCrashedError,
            )
        self._workers = [self._start(k) for k in range(self.actors)]
        # Ray, asynchronous: each actor's batch in the making and its weights' version
        self._pending: dict[int, tuple[Any, int]] = {}

    # -- actors ------------------------------------------------------------------------------
    def _start(self, index: int) -> Any:
        seed = actor_seed(self.seed, index, self._incarnation[index])
        self._given[index] = -1
        if self._ray is None:
            return self._make_actor(index, seed)
        return self._remote.remote(self._make_actor, index, seed)

    def _replace(self, index: int) -> None:
        """Actor ``index`` died: start its next incarnation."""
        self.stats.replaced += 1
        self._incarnation[index] += 1
        with contextlib.suppress(Exception):  # already gone
            self._ray.kill(self._workers[index])
        self._workers[index] = self._start(index)

    def _give(self, index: int) -> None:
        """Hand actor ``index`` the newest weights if it holds older ones (Ray runs an
        actor's calls in the order they are made, so its next batch uses them)."""
        if self._given[index] == self._version:
            return
        worker = self._workers[index]
        if self._ray is None:
            worker.set_weights(self._weights, self._version)
        else:
            worker.set_weights.remote(self._shared, self._version)
        self._given[index] = self._version

    @property
    def version(self) -> int:
        """The newest weights' version (-1 before the first broadcast)."""
        return self._version

    def broadcast(self, weights: Any, version: int) -> None:
        """The learner's newest weights; every batch made from now on uses them.

        Raises:
            InvalidParameterError: ``version`` is not above the last one.
        """
        version = check_int("version", version, self._version + 1)
        self._weights, self._version = weights, version
        if self._ray is not None:
            self._shared = self._ray.put(weights)

    def collect(self) -> list[Experience]:
        """The next batches of experience (see the module's description), at least one;
        stale ones are dropped (and more collected); each is counted in :attr:`stats`
        once.

        Raises:
            InvalidParameterError: no weights were broadcast yet, or ``max_staleness``
                dropped every one of ``20 * actors`` batches in a row.
        """
        if self._version < 0:
            raise InvalidParameterError("Runtime.collect() before the first broadcast().")
        kept: list[Experience] = []
        dropped = 0
        while not kept:
            batches = self._lockstep() if self.deterministic else self._asynchronous()
            for batch in batches:
                if self._stale(batch):
                    dropped += 1
                    self.stats.dropped += 1
                    self.stats.dropped_experience += batch.count
                    continue
                self.stats.batches += 1
                self.stats.experience += batch.count
                kept.append(batch)
            if not kept and dropped >= 20 * self.actors:
                raise InvalidParameterError(
                    f"max_staleness={self.max_staleness} dropped the last {dropped} batches "
                    f"of {self.actors} actors and kept none: each batch arrives at least "
                    "one version behind when several actors share the learner; allow a "
                    "larger staleness, or None."
                )
        return kept

    def _stale(self, batch: Experience) -> bool:
        """Whether ``batch`` was made with weights more than ``max_staleness`` versions
        behind the newest."""
        return self.max_staleness is not None and self._version - batch.version > self.max_staleness

    def _lockstep(self) -> list[Experience]:
        for k in range(self.actors):
            self._give(k)
        if self._ray is None:
            made = [self._workers[k].collect() for k in range(self.actors)]
            return [Experience(k, self._version, *_checked(m)) for k, m in enumerate(made)]
        out = []
        futures = [self._workers[k].collect.remote() for k in range(self.actors)]
        for k, future in enumerate(futures):
            while True:
                try:
                    made = self._ray.get(future)
                    break
                except self._dead:
                    self._replace(k)
                    self._give(k)
                    future = self._workers[k].collect.remote()
            out.append(Experience(k, self._version, *_checked(made)))
        return out

    def _asynchronous(self) -> list[Experience]:
        for k in range(self.actors):
            if k not in self._pending:
                self._give(k)
                self._pending[k] = (self._workers[k].collect.remote(), self._version)
        while True:
            futures = {future: k for k, (future, _) in self._pending.items()}
            ready, _ = self._ray.wait(list(futures), num_returns=1)
            ready, _ = self._ray.wait(list(futures), num_returns=len(futures), timeout=0)
            out = []
            for future in sorted(ready, key=futures.__getitem__):
                k = futures[future]
                version = self._pending.pop(k)[1]
                try:
                    out.append(Experience(k, version, *_checked(self._ray.get(future))))
                except self._dead:
                    self._replace(k)
                self._give(k)
                self._pending[k] = (self._workers[k].collect.remote(), self._version)
            if out:
                return out

    def kill_actor(self, index: int) -> None:
        """Kill actor ``index``'s process (Ray; for fault drills): the runtime replaces it
        at its next collection."""
        index = check_int("index", index, 0, self.actors - 1)
        if self._ray is None:
            raise InvalidParameterError(
                "kill_actor needs backend='ray' (local actors are objects)."
            )
        self._ray.kill(self._workers[index], no_restart=True)

    def close(self) -> None:
        """Stop the actors (Ray keeps running for the rest of the process)."""
        if self._ray is not None:
            for worker in self._workers:
                with contextlib.suppress(Exception):  # already gone
                    self._ray.kill(worker)
        self._workers, self._pending = [], {}

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checked(made: Any) -> tuple[int, Any]:
    """An actor's ``(count, data)``, its count an integer >= 0."""
    if not isinstance(made, tuple) or len(made) != 2:
        raise InvalidParameterError(
            f"An actor's collect() must return (count, data), received {type(made).__name__}."
        )
    return check_int("count", made[0], 0), made[1]
