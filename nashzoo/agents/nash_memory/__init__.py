"""Nash-memory coevolution: Parallel Nash Memory on compiled trees, Nash memory over
agents with any oracle, and the latter as a learner (``nashzoo train nash-memory``; the
mixed -> behavioural conversion they use lives in :mod:`nashzoo.tree.mixture`,
re-exported here)."""

from nashzoo.agents.nash_memory.learner import NashMemoryConfig, NashMemoryLearner
from nashzoo.agents.nash_memory.pnm import (
    Heuristic,
    ParallelNashMemory,
    PNMRecord,
    best_response_heuristic,
)
from nashzoo.agents.nash_memory.population import (
    META_SOLVERS,
    Measure,
    MixtureAgent,
    Oracle,
    PopulationNashMemory,
    PopulationRecord,
    exact_measure,
    exact_oracle,
    solve_meta_game,
)
from nashzoo.tree.mixture import behavioural_mixture, mix_policies
from nashzoo.tree.reach import realization_weights

__all__ = [
    "NashMemoryConfig",
    "NashMemoryLearner",
    "Measure",
    "MixtureAgent",
    "Oracle",
    "PopulationNashMemory",
    "PopulationRecord",
    "exact_measure",
    "exact_oracle",
    "META_SOLVERS",
    "solve_meta_game",
    "ParallelNashMemory",
    "PNMRecord",
    "Heuristic",
    "best_response_heuristic",
    "behavioural_mixture",
    "mix_policies",
    "realization_weights",
    "solve_zero_sum",
]
