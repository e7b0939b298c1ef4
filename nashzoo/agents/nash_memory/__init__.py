"""Nash-memory coevolution: Parallel Nash Memory (the mixed -> behavioural conversion it
uses lives in :mod:`nashzoo.tree.mixture`, re-exported here)."""

from nashzoo.agents.nash_memory.pnm import (
    Heuristic,
    ParallelNashMemory,
    PNMRecord,
    best_response_heuristic,
)
from nashzoo.tree.mixture import behavioural_mixture, mix_policies
from nashzoo.tree.reach import realization_weights

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
