"""Agents trained with stable-baselines3 / sb3-contrib, as nashzoo PolicyAgents.

Needs the ``sb3`` extra (``pip install 'nashzoo[sb3]'``); imported only when used.
"""

from nashzoo.agents.sb3.adapter import SB3Agent, load_sb3_agent

__all__ = ["SB3Agent", "load_sb3_agent"]
