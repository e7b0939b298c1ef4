"""Build agents from short text specs, as the tournament CLI takes them.

=========================  ======================================================
spec                       agent
=========================  ======================================================
``random``                 :class:`~nashzoo.agents.RandomAgent`
``path/to/policy.npz``     a saved :class:`~nashzoo.tree.TabularPolicy` (or ``.json``)
``path/to/agent.pt``       a saved NFSP agent (its average policy; torch extra)
``path/to/model.zip``      a saved stable-baselines3 model (MaskablePPO, PPO, A2C or DQN;
                           sb3 extra), played through :class:`~nashzoo.agents.sb3.SB3Agent`
``cfr+:1000``              the average policy of a solver after N iterations
                           (any name of :data:`nashzoo.agents.cfr.SOLVER_NAMES`)
``package.module:factory`` ``factory()`` (or ``factory(game=game)`` if it takes ``game``)
=========================  ======================================================
"""

from __future__ import annotations

import functools
import importlib
import inspect
from pathlib import Path
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game

__all__ = ["build_agent", "SPEC_HELP"]

SPEC_HELP = ("random | path/to/policy.npz|.json | path/to/nfsp.pt | path/to/sb3_model.zip | "
             "SOLVER:ITERATIONS (e.g. cfr+:1000) | package.module:factory")


@functools.lru_cache(maxsize=64)
def _solved_policy(algo: str, iterations: int, game: Game):
    from nashzoo.agents.cfr import make_solver

    seed = 0 if algo.endswith("mccfr") else None
    return make_solver(algo, game, seed=seed).iterate(iterations).average_policy()


@functools.lru_cache(maxsize=64)
def _loaded_policy(path: str, stamp: int, game: Game):
    from nashzoo.tree.policy import TabularPolicy

    return TabularPolicy.load(path, game=game)


def _sb3_agent(path: str, name: str) -> Any:
    """Load a saved SB3 model, trying the algorithms nashzoo supports in turn."""
    from nashzoo.agents.sb3 import SB3Agent

    try:
        import stable_baselines3 as sb3
    except ImportError as exc:
        from nashzoo.errors import MissingDependencyError

        raise MissingDependencyError(
            f"Agent spec {path!r} needs stable-baselines3: pip install 'nashzoo[sb3]'.") from exc
    classes = []
    try:
        from sb3_contrib import MaskablePPO

        classes.append(MaskablePPO)
    except ImportError:
        pass
    classes += [sb3.PPO, sb3.A2C, sb3.DQN]
    errors = []
    for cls in classes:
        try:
            return SB3Agent(cls.load(path, device="cpu"), name=name)
        except Exception as exc:  # try the next algorithm
            errors.append(f"{cls.__name__}: {type(exc).__name__}")
    raise InvalidParameterError(
        f"Agent spec {path!r}: not a loadable stable-baselines3 model ({'; '.join(errors)}).")


def build_agent(spec: str, game: Game, *, name: str | None = None) -> Any:
    """The agent described by ``spec`` for ``game``.

    Raises:
        InvalidParameterError: the spec matches none of the forms (message lists them), a
            policy file is for another game, or the factory cannot be imported.
    """
    from nashzoo.agents.cfr import SOLVER_NAMES, TabularPolicyAgent
    from nashzoo.agents.random_agent import RandomAgent

    if not isinstance(spec, str) or not spec:
        raise InvalidParameterError(f"An agent spec is a string ({SPEC_HELP}), received {spec!r}.")
    if spec == "random":
        agent = RandomAgent()
        agent.name = name or "random"
        return agent
    if spec.endswith((".npz", ".json")):
        path = Path(spec)
        stamp = path.stat().st_mtime_ns if path.exists() else 0
        policy = _loaded_policy(str(path.resolve()), stamp, game)
        return TabularPolicyAgent(policy, name=name or path.stem)
    if spec.endswith(".pt"):
        from nashzoo.agents.nfsp import NFSP

        nfsp = NFSP.load(spec)
        if nfsp.game != game:
            raise InvalidParameterError(f"{spec} holds an NFSP agent for {nfsp.game!r}, not "
                                        f"for {game!r}.")
        return nfsp.agent(name=name or Path(spec).stem)
    if spec.endswith(".zip"):
        return _sb3_agent(spec, name or Path(spec).stem)
    head, sep, tail = spec.rpartition(":")
    if sep and head in SOLVER_NAMES:
        if not tail.isdigit() or int(tail) < 1:
            raise InvalidParameterError(
                f"Agent spec {spec!r}: a solver spec is NAME:ITERATIONS with a positive "
                f"integer, e.g. {head}:1000.")
        policy = _solved_policy(head, int(tail), game)
        return TabularPolicyAgent(policy, name=name or spec)
    if sep and head and tail:
        try:
            factory = getattr(importlib.import_module(head), tail)
        except (ImportError, AttributeError) as exc:
            raise InvalidParameterError(
                f"Agent spec {spec!r}: cannot import {tail!r} from module {head!r} ({exc})."
            ) from exc
        params = inspect.signature(factory).parameters
        agent = factory(game=game) if "game" in params else factory()
        if not callable(getattr(agent, "act", None)):
            raise InvalidParameterError(
                f"Agent spec {spec!r}: {head}.{tail}() returned {type(agent).__name__}, which "
                "has no act(observation, info).")
        return agent
    raise InvalidParameterError(f"Unknown agent spec {spec!r}; expected one of: {SPEC_HELP}.")
