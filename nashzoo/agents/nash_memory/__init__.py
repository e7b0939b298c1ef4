"""Nash-memory coevolution: Parallel Nash Memory and mixed -> behavioural conversion."""

from nashzoo.agents.nash_memory.mixture import (
    behavioural_mixture,
    mix_policies,
    realization_weights,
)
from nashzoo.agents.nash_memory.pnm import (
    Heuristic,
    ParallelNashMemory,
    PNMRecord,
    best_response_heuristic,
)

__all__ = [
    "ParallelNashMemory",
    "PNMRecord",
    "Heuristic",
    "best_response_heuristic",
    "behavioural_mixture",
    "mix_policies",
    "realization_weights",
    "solve_zero_sum",
]
