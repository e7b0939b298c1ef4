"""PettingZoo/Gymnasium wrappers over nashzoo envs.

The AEC envs already enforce call order, action types and ranges, and illegal-action
handling themselves (see :class:`nashzoo.envs.GameEnv`), so no PettingZoo wrapper stack is
needed on top of them. Single-agent Gymnasium views for stable-baselines3 come here.
"""

__all__: list[str] = []
