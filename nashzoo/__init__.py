"""nashzoo: imperfect-information card games as PettingZoo environments, game-theory
agents, and tools to measure them.

Quick start::

    import nashzoo
    env = nashzoo.make("nashzoo/leduc_holdem-v0")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else nashzoo.RandomAgent(seed=1).act(obs, info)
        env.step(action)

``import nashzoo`` loads numpy, gymnasium and pettingzoo only: numba, scipy, SQLAlchemy,
torch, ray and matplotlib load when the parts that need them are used.
"""

from nashzoo import errors, games, wrappers
from nashzoo.agents import Agent, AgentInfo, PolicyAgent, RandomAgent
from nashzoo.envs import make, make_game, make_parallel, registry, spec
from nashzoo.play import play_episode

__version__ = "0.2.0"

__all__ = [
    "Agent",
    "AgentInfo",
    "PolicyAgent",
    "RandomAgent",
    "errors",
    "games",
    "make",
    "make_game",
    "make_parallel",
    "play_episode",
    "registry",
    "spec",
    "wrappers",
    "__version__",
]
