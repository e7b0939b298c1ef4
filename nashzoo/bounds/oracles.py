"""What Nash memory needs on games too big to compile: a learned best-response oracle
and a meta-game measured by duplicate matches.

:class:`~nashzoo.agents.nash_memory.PopulationNashMemory` and the learner
:class:`~nashzoo.agents.nash_memory.NashMemoryLearner` (agents layer) take their oracle
and measure as arguments; these, their defaults where members are learned, need the
Gymnasium wrappers and the matches, so they live here, above both (the learner names
them by import path).
"""

from __future__ import annotations

from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.matches import head_to_head
from nashzoo.games import Game
from nashzoo.validation import check_int

__all__ = ["learned_oracle", "duplicate_measure"]


def learned_oracle(*, steps: int = 50_000, num_envs: int = 16, n_steps: int = 128) -> Any:
    """An oracle that trains MaskablePPO for ``steps`` steps against the mixture (in both
    seats, one member drawn per game; :func:`~nashzoo.bounds.learned_best_response`) and
    returns it as an agent.

    Raises:
        InvalidParameterError: bad numbers.
    """
    steps = check_int("steps", steps, 1)
    num_envs = check_int("num_envs", num_envs, 1)
    n_steps = check_int("n_steps", n_steps, 2)

    def oracle(game: Game, mixture: Any, seed: int) -> Any:
        from nashzoo.agents.sb3 import SB3Agent
        from nashzoo.bounds.learned_br import learned_best_response

        found = learned_best_response(
            game, mixture, steps=steps, deals=1, num_envs=num_envs, seed=seed, n_steps=n_steps
        )
        return SB3Agent(found.model, seed=seed, name=f"learned-br-{seed}")

    return oracle


def duplicate_measure(deals: int = 2000) -> Any:
    """A measure that plays ``deals`` duplicate deals (both seats each), with AIVAT where
    the game has a value function (the chance events corrected always, and each agent's
    draws where it states its probabilities), common random numbers otherwise.

    Raises:
        InvalidParameterError: ``deals`` is not a positive integer.
    """
    deals = check_int("deals", deals, 1)

    def measure(game: Game, a: Any, b: Any, seed: int) -> tuple[float, float]:
        from nashzoo.eval.curves import variance_reduction_for

        if not (hasattr(a, "act") and hasattr(b, "act")):
            raise InvalidParameterError(
                f"duplicate_measure needs agents, received {type(a).__name__} and "
                f"{type(b).__name__}."
            )
        method = variance_reduction_for(game)
        result = head_to_head(game, a, b, deals=deals, seed=seed, variance_reduction=method)
        return result.mean, result.stderr

    return measure
