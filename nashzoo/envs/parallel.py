"""PettingZoo's parallel API for simultaneous-move games, over the AEC adapter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo.utils.conversions import aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger

from nashzoo.errors import ActionTypeError, InvalidParameterError

__all__ = ["ParallelGameEnv"]


class ParallelGameEnv(aec_to_parallel_wrapper):
    """PettingZoo's ``aec_to_parallel`` with the AEC env's checks on ``step``.

    ``step(actions)`` needs exactly one action per live agent: an unknown or missing
    agent key is an error (PettingZoo's converter ignores the first and fails with a
    bare ``KeyError`` on the second). An illegal move that ends the game part-way through
    a cycle ends it for every agent (the converter asserts instead). Stepping after every
    agent has left warns and returns empty dicts, as the AEC env does.
    """

    def step(self, actions: Any) -> tuple[dict, dict, dict, dict, dict]:
        env = self.aec_env
        if not env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return {}, {}, {}, {}, {}
        if not isinstance(actions, Mapping):
            raise ActionTypeError(
                f"The parallel step() takes a dict {{agent: action}}, received "
                f"{type(actions).__name__}."
            )
        live = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
        unknown = sorted(set(actions) - set(live), key=str)
        missing = [a for a in live if a not in actions]
        if unknown or missing:
            parts = []
            if unknown:
                parts.append(f"actions for {unknown}, which are not live agents")
            if missing:
                parts.append(f"no action for {missing}")
            raise InvalidParameterError(
                f"step() got {' and '.join(parts)}; expected one action for each of {live}."
            )
        rewards = {a: 0.0 for a in env.agents}
        for agent in live:
            if env.terminations[agent] or env.truncations[agent]:
                break  # an illegal move ended the game part-way through the cycle
            env.step(actions[agent])
            for other in env.agents:
                rewards[other] += env.rewards[other]
        terminations = dict(env.terminations)
        truncations = dict(env.truncations)
        infos = dict(env.infos)
        observations = {agent: env.observe(agent) for agent in env.agents}
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        self.agents = env.agents[:]
        return observations, rewards, terminations, truncations, infos
