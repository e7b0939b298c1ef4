"""Agents: the :class:`Agent` protocol, the family registry, and one subpackage per
algorithm family (cfr/, nfsp/, nash_memory/, sb3/)."""

from nashzoo.agents.protocol import Agent, AgentInfo, PolicyAgent, action_mask_of
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.registry import AgentFamily, families, get_family, register_family
from nashzoo.agents.specs import AgentSpec, build_agent

__all__ = [
    "Agent",
    "AgentInfo",
    "PolicyAgent",
    "RandomAgent",
    "action_mask_of",
    "AgentFamily",
    "families",
    "get_family",
    "register_family",
    "AgentSpec",
    "build_agent",
]
