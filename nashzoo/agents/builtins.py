"""nashzoo's built-in agent families (registered on import by :mod:`nashzoo.agents.registry`).

=========================  ======================================================
spec                       agent
=========================  ======================================================
``random``                 :class:`~nashzoo.agents.RandomAgent`
``cfr+:1000``              the average policy of a solver after N iterations (every
                           solver of :data:`nashzoo.agents.cfr.SOLVER_NAMES`)
``path/to/policy.npz``     a saved :class:`~nashzoo.tree.TabularPolicy` (or ``.json``)
``path/to/agent.pt``       a saved NFSP agent (its average policy; torch extra)
``path/to/model.zip``      a saved stable-baselines3 model (sb3 extra). SB3 files are
                           pickles: loading one runs code; never load one from someone
                           you do not trust outside a sandbox.
=========================  ======================================================
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from nashzoo.agents.registry import AgentFamily, register_family
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__: list[str] = []

_ITERATIONS = re.compile(r"[0-9]+")


def _random(game: Game, argument: str | None) -> Any:
    from nashzoo.agents.random_agent import RandomAgent

    if argument:
        raise InvalidParameterError(f"The random agent takes no argument, received {argument!r}.")
    return RandomAgent(name="random")


@functools.lru_cache(maxsize=64)
def _solved_policy(algo: str, iterations: int, game: Game) -> Any:
    from nashzoo.agents.cfr import SAMPLING_SOLVERS, make_solver

    seed = 0 if algo in SAMPLING_SOLVERS else None
    return make_solver(algo, game, seed=seed).iterate(iterations).average_policy()


def _solver_factory(algo: str, default_iterations: int) -> Any:
    def build(game: Game, argument: str | None) -> Any:
        from nashzoo.agents.cfr.agent import TabularPolicyAgent

        text = argument if argument is not None else str(default_iterations)
        if not _ITERATIONS.fullmatch(text) or int(text) < 1:
            raise InvalidParameterError(
                f"A solver spec is {algo}:ITERATIONS with a positive integer (e.g. "
                f"{algo}:1000), received {algo}:{text}."
            )
        policy = _solved_policy(algo, int(text), game)
        return TabularPolicyAgent(policy, name=f"{algo}:{text}")

    build.__name__ = f"solve_{algo}"
    return build


@functools.lru_cache(maxsize=64)
def _loaded_policy(path: str, stamp: int, game: Game) -> Any:
    from nashzoo.tree.policy import TabularPolicy

    return TabularPolicy.load(path, game=game)


def _tabular_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.cfr.agent import TabularPolicyAgent

    file = Path(str(path))
    if not file.is_file():
        raise FileNotFoundError(f"No policy file at {file}")
    policy = _loaded_policy(str(file.resolve()), file.stat().st_mtime_ns, game)
    return TabularPolicyAgent(policy, name=file.stem)


def _nfsp_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.nfsp import NFSP

    nfsp = NFSP.load(str(path))
    if nfsp.game != game:
        raise InvalidParameterError(
            f"{path} holds an NFSP agent for {nfsp.game!r}, not for {game!r}."
        )
    return nfsp.agent(name=Path(str(path)).stem)


def _sb3_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.sb3 import load_sb3_agent

    return load_sb3_agent(str(path), game)


def _register() -> None:
    from nashzoo.agents.cfr import SAMPLING_SOLVERS, SOLVER_NAMES

    register_family(AgentFamily("random", _random, "uniformly random legal actions"))
    for algo in SOLVER_NAMES:
        sampling = algo in SAMPLING_SOLVERS
        default = 100_000 if sampling else 1000
        register_family(
            AgentFamily(
                algo,
                _solver_factory(algo, default),
                f"the average policy of nashzoo's {algo} solver after ITERATIONS iterations",
                argument="ITERATIONS",
                needs_tree=True,
                samples=sampling,
                defaults={"iterations": default, **({"seed": 0} if sampling else {})},
            )
        )
    register_family(
        AgentFamily(
            "tabular-file",
            _tabular_file,
            "a saved TabularPolicy (.npz or .json)",
            needs_tree=True,
            suffixes=(".npz", ".json"),
        )
    )
    register_family(
        AgentFamily(
            "nfsp-file",
            _nfsp_file,
            "a saved NFSP agent's average policy (torch extra)",
            suffixes=(".pt",),
        )
    )
    register_family(
        AgentFamily(
            "sb3-file",
            _sb3_file,
            "a saved stable-baselines3 model (sb3 extra); the file is a "
            "pickle and runs code when loaded",
            suffixes=(".zip",),
            loads_code=True,
        )
    )


_register()
