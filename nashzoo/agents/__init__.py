"""Agents: the :class:`Agent` protocol and one subpackage per algorithm family."""

from nashzoo.agents.protocol import Agent, PolicyAgent, action_mask_of
from nashzoo.agents.random_agent import RandomAgent

__all__ = ["Agent", "PolicyAgent", "RandomAgent", "action_mask_of"]
