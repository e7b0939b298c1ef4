"""The Agent protocol every nashzoo agent speaks (structural: no subclassing needed).

Defined in :mod:`nashzoo.envs.protocol` (it is the env's contract with a player, and the
match engine in :mod:`nashzoo.eval`, a sibling of this package, types with it too);
re-exported here, where agent authors look for it.
"""

from nashzoo.envs.protocol import (
    INFO_KEYS,
    Agent,
    AgentInfo,
    Observation,
    PolicyAgent,
    action_mask_of,
    batch_probabilities,
    sample_index,
    sample_rows,
)

__all__ = [
    "Agent",
    "PolicyAgent",
    "AgentInfo",
    "Observation",
    "INFO_KEYS",
    "action_mask_of",
    "sample_index",
    "sample_rows",
    "batch_probabilities",
]
