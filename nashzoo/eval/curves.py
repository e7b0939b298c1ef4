"""A learner's curve where exact exploitability is out of reach.

On a game too big to compile (Limit Hold'em, the fighting game's default preset), a
learner's progress is measured three ways the package already has; one
:class:`MeasuredPoint` holds them for one moment of training:

* the duplicate score of the learner's agent against fixed baselines (random, the
  game's rule-based agent: :func:`nashzoo.agents.scripted.baselines`), with AIVAT where
  the game allows it (else common random numbers), and its 95% interval;
* LBR's lower bound on the exploitability of a stationary policy of the learner (a
  network's P, an average policy), when asked for.

``nashzoo train`` measures a point at every evaluation on such games, writes the points
beside ``--out`` (``<out>.curve.json``, rewritten atomically after each point, so a
killed run keeps them) and draws them with :func:`nashzoo.eval.plots.plot_measured`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.aivat import check_aivat_game
from nashzoo.eval.lbr import check_lbr_hands, local_best_response
from nashzoo.eval.matches import head_to_head
from nashzoo.extras import temporary_sibling
from nashzoo.games.base import Game
from nashzoo.validation import check_int

__all__ = [
    "MeasuredPoint",
    "measure_point",
    "variance_reduction_for",
    "write_points",
    "read_points",
]


@dataclass(frozen=True)
class MeasuredPoint:
    """One measurement of a learner on a game without exact exploitability.

    Attributes:
        step: training steps so far.
        seconds: training time so far.
        step_unit: what a step is.
        duplicate: per baseline, ``(mean, ci_low, ci_high)``: the agent's mean chips per
            game against it (positive: the agent wins).
        deals: deals per duplicate match (each played in both seatings).
        lbr: ``(value, ci_low, ci_high)``: LBR's winnings per hand against the measured
            policy (a lower bound on its exploitability), or ``None``.
        lbr_hands: hands of LBR.
        method: ``"aivat"`` or ``"crn"``.
    """

    step: int
    seconds: float
    step_unit: str
    duplicate: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    deals: int = 0
    lbr: tuple[float, float, float] | None = None
    lbr_hands: int = 0
    method: str = "aivat"

    def text(self, unit: str = "chips") -> str:
        """One line: each score with its interval (``unit`` per game), and LBR (``unit``
        per hand): ``vs random +1.234 [+1.0, +1.4] chips/game  LBR 2.1 [...] chips/hand``."""
        parts = [
            f"vs {name} {m:+.3f} [{lo:+.3f}, {hi:+.3f}] {unit}/game"
            for name, (m, lo, hi) in self.duplicate.items()
        ]
        if self.lbr is not None:
            parts.append(
                f"LBR {self.lbr[0]:.3f} [{self.lbr[1]:.3f}, {self.lbr[2]:.3f}] {unit}/hand"
            )
        return "  ".join(parts)


def variance_reduction_for(game: Game) -> str:
    """``"aivat"`` where AIVAT's value function describes the game (two players,
    zero-sum) and the game has a default one
    (:func:`~nashzoo.eval.aivat.default_value_function`), else ``"crn"`` (common random
    numbers)."""
    from nashzoo.eval.aivat import default_value_function

    try:
        check_aivat_game(game)
        default_value_function(game)
    except InvalidParameterError:
        return "crn"
    return "aivat"


def measure_point(
    game: Game,
    agent: Any,
    baselines: Mapping[str, Any],
    *,
    deals: int = 100,
    seed: int = 0,
    lbr_policy: Any = None,
    lbr_hands: int = 0,
    lbr_rollouts: int = 8,
    step: int = 0,
    seconds: float = 0.0,
    step_unit: str = "steps",
) -> MeasuredPoint:
    """Measure ``agent`` in ``deals`` duplicate deals against each of ``baselines`` (which
    may be empty) and,
    with ``lbr_hands`` > 0, LBR against ``lbr_policy`` (a PolicyAgent; default
    ``agent``).

    Raises:
        InvalidParameterError: bad ``deals`` or ``lbr_hands``, or no baseline.
    """
    deals = check_int("deals", deals, 1)
    lbr_hands = check_lbr_hands("lbr_hands", lbr_hands, 0)
    if not baselines and not lbr_hands:
        raise InvalidParameterError(
            "measure_point needs a baseline or lbr_hands > 0, received neither."
        )
    method = variance_reduction_for(game)
    duplicate = {}
    for name, baseline in baselines.items():
        result = head_to_head(
            game, agent, baseline, deals=deals, seed=seed, variance_reduction=method
        )
        duplicate[name] = (float(result.mean), float(result.ci95[0]), float(result.ci95[1]))
    lbr = None
    if lbr_hands:
        found = local_best_response(
            game,
            agent if lbr_policy is None else lbr_policy,
            hands=lbr_hands,
            rollouts=lbr_rollouts,
            seed=seed,
        )
        lbr = (float(found.value), float(found.ci95[0]), float(found.ci95[1]))
    return MeasuredPoint(
        step=int(step),
        seconds=float(seconds),
        step_unit=step_unit,
        duplicate=duplicate,
        deals=deals,
        lbr=lbr,
        lbr_hands=lbr_hands,
        method=method,
    )


def write_points(points: Sequence[MeasuredPoint], path: str | Path) -> Path:
    """Write ``points`` as JSON, atomically (a temporary file renamed over ``path``)."""
    path = Path(path)
    tmp = temporary_sibling(path)
    tmp.write_text(json.dumps([asdict(p) for p in points], indent=1))
    os.replace(tmp, path)
    return path


def read_points(path: str | Path) -> list[MeasuredPoint]:
    """The points :func:`write_points` wrote.

    Raises:
        InvalidParameterError: not such a file.
    """
    try:
        rows = json.loads(Path(path).read_text())
        return [
            MeasuredPoint(
                **{
                    **row,
                    "duplicate": {k: tuple(v) for k, v in row["duplicate"].items()},
                    "lbr": None if row["lbr"] is None else tuple(row["lbr"]),
                }
            )
            for row in rows
        ]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise InvalidParameterError(f"{path} is not a file of measured points: {exc}") from exc
