"""The CFR family and friends, on compiled game trees.

================  ===============================================  =====================
name              class                                            reference
================  ===============================================  =====================
``rm``            :class:`RegretMatchingSolver` (matrix games)     Hart & Mas-Colell 2000
``cfr``           :class:`CFRSolver`                               Zinkevich et al. 2007
``cfr+``          :class:`CFRPlusSolver`                           Tammelin 2014
``lcfr``          :class:`LinearCFRSolver`                         Brown & Sandholm 2019
``dcfr``          :class:`DCFRSolver` (1.5, 0, 2)                  Brown & Sandholm 2019
``pcfr+``         :class:`PredictiveCFRPlusSolver`                 Farina et al. 2021
``mmd``           :class:`MMDSolver` (last iterate -> QRE)         Sokota et al. 2023
``es-mccfr``      :class:`ExternalSamplingMCCFRSolver`             Lanctot et al. 2009
``os-mccfr``      :class:`OutcomeSamplingMCCFRSolver`              Lanctot et al. 2009
``xfp``           :class:`XFPSolver`                               Heinrich et al. 2015
``fsp``           :class:`FSPSolver` (sample-based, tabular)       Heinrich et al. 2015
``nash-memory``   :class:`~nashzoo.agents.nash_memory.ParallelNashMemory`  Oliehoek et al. 2006
================  ===============================================  =====================
"""

from __future__ import annotations

from typing import Any

from nashzoo.agents.cfr.agent import TabularPolicyAgent
from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.cfr.cfr import (
    CFRPlusSolver,
    CFRSolver,
    DCFRSolver,
    LinearCFRSolver,
    RegretMatchingSolver,
)
from nashzoo.agents.cfr.fsp import FSPSolver
from nashzoo.agents.cfr.mccfr import ExternalSamplingMCCFRSolver, OutcomeSamplingMCCFRSolver
from nashzoo.agents.cfr.mmd import MMDSolver
from nashzoo.agents.cfr.pcfr import PredictiveCFRPlusSolver
from nashzoo.agents.cfr.xfp import XFPSolver
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree

SOLVERS: dict[str, type[TabularSolver]] = {
    "rm": RegretMatchingSolver,
    "cfr": CFRSolver,
    "cfr+": CFRPlusSolver,
    "lcfr": LinearCFRSolver,
    "dcfr": DCFRSolver,
    "pcfr+": PredictiveCFRPlusSolver,
    "mmd": MMDSolver,
    "es-mccfr": ExternalSamplingMCCFRSolver,
    "os-mccfr": OutcomeSamplingMCCFRSolver,
    "xfp": XFPSolver,
    "fsp": FSPSolver,
}

"""Solver classes of this package by algorithm name."""

_ELSEWHERE = {"nash-memory": ("nashzoo.agents.nash_memory", "ParallelNashMemory")}
SOLVER_NAMES: tuple[str, ...] = tuple(SOLVERS) + tuple(_ELSEWHERE)
"""Every algorithm name :func:`make_solver` accepts."""


def solver_class(name: str) -> type[TabularSolver] | None:
    """The solver class registered as ``name`` (``None`` if unknown)."""
    if name in _ELSEWHERE:
        import importlib

        module, attr = _ELSEWHERE[name]
        return getattr(importlib.import_module(module), attr)
    return SOLVERS.get(name)


SAMPLING_SOLVERS = ("es-mccfr", "os-mccfr", "fsp")


def make_solver(
    name: str, game: Game | GameTree, *, seed: int | None = None, **kwargs: Any
) -> TabularSolver:
    """Build a solver by name (see the table above).

    Args:
        name: algorithm name, e.g. ``"cfr+"``.
        game: the game or its compiled tree.
        seed: for the sampling solvers; rejected by the deterministic ones.
        **kwargs: the solver's own options.

    Raises:
        InvalidParameterError: unknown name, or a seed for a deterministic solver.
    """
    cls = solver_class(name)
    if cls is None:
        import difflib

        close = difflib.get_close_matches(name, list(SOLVER_NAMES), n=2)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise InvalidParameterError(
            f"Unknown algorithm {name!r}.{hint} Known: {list(SOLVER_NAMES)}."
        )
    if name in SAMPLING_SOLVERS:
        return cls(game, seed=seed, **kwargs)  # type: ignore[call-arg]  # the MCCFR solvers
    if seed is not None:
        raise InvalidParameterError(f"{name} is deterministic and takes no seed.")
    return cls(game, **kwargs)


__all__ = [
    "SOLVERS",
    "SOLVER_NAMES",
    "solver_class",
    "make_solver",
    "TabularSolver",
    "TabularPolicyAgent",
    "RegretMatchingSolver",
    "CFRSolver",
    "CFRPlusSolver",
    "LinearCFRSolver",
    "DCFRSolver",
    "PredictiveCFRPlusSolver",
    "MMDSolver",
    "ExternalSamplingMCCFRSolver",
    "OutcomeSamplingMCCFRSolver",
    "XFPSolver",
    "FSPSolver",
]
