"""Run a solver while recording its exploitability curve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.learner import ConvergenceCurve, ConvergencePoint
from nashzoo.validation import check_int

__all__ = ["run_solver", "checkpoint_schedule"]


def checkpoint_schedule(iterations: int, points: int = 30) -> list[int]:
    """About ``points`` log-spaced iteration counts from 1 to ``iterations``."""
    iterations = check_int("iterations", iterations, 1)
    marks = np.unique(np.geomspace(1, iterations, num=max(points, 2)).astype(int))
    return sorted(set(marks.tolist()) | {iterations})


def run_solver(
    solver: TabularSolver,
    iterations: int,
    *,
    points: int = 30,
    target: float | None = None,
    progress: bool = False,
    measure: Callable[[TabularSolver], float] | None = None,
    policy: Callable[[TabularSolver], Any] | None = None,
) -> ConvergenceCurve:
    """Run ``solver`` for ``iterations`` more iterations, measuring exploitability at about
    ``points`` log-spaced checkpoints.

    Args:
        solver: any :class:`TabularSolver`.
        iterations: iterations to run.
        points: checkpoints on the curve.
        target: stop at the first checkpoint whose exploitability is <= ``target``.
        progress: show a tqdm progress bar with the current exploitability.
        measure: the exploitability of ``solver``'s average policy (default
            ``solver.exploitability()``; a card abstraction measures it in the real game).
        policy: the curve's final policy (default ``solver.average_policy()``).

    Returns:
        The :class:`ConvergenceCurve`.
    """
    marks = checkpoint_schedule(iterations, points)
    curve: list[ConvergencePoint] = []
    bar = None
    if progress:
        from nashzoo.extras import progress_bar

        bar = progress_bar(
            total=iterations,
            desc=f"{solver.name} {solver.tree.game.short_name}",
            unit="it",
            leave=True,
        )
    done = 0
    for mark in marks:
        wanted = mark - done
        before = solver.iteration
        solver.iterate(wanted)
        ran = solver.iteration - before
        if ran == 0 and curve:
            break
        finished = ran < wanted  # the solver stopped itself, e.g. a certified equilibrium
        if bar is not None:
            bar.update(wanted)
        done = mark
        expl = solver.exploitability() if measure is None else measure(solver)
        curve.append(ConvergencePoint(solver.iteration, solver.seconds, expl, "iterations"))
        if bar is not None:
            bar.set_postfix(exploitability=f"{expl:.3g}")
        if (target is not None and expl <= target) or finished:
            break
    if bar is not None:
        bar.close()
    final = solver.average_policy() if policy is None else policy(solver)
    return ConvergenceCurve(solver.name, repr(solver.tree.game), tuple(curve), final)
