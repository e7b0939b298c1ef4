"""Run agents through an AEC env."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pettingzoo import AECEnv

from nashzoo.envs.protocol import Agent
from nashzoo.errors import InvalidParameterError

__all__ = ["play_episode"]


def _agent_map(env: AECEnv, agents: Mapping[str, Agent] | Sequence[Agent]) -> dict[str, Agent]:
    names = list(env.possible_agents)
    if isinstance(agents, Mapping):
        missing = [n for n in names if n not in agents]
        if missing:
            raise InvalidParameterError(
                f"`agents` has no agent for {missing}; expected keys {names}, "
                f"received {list(agents)}."
            )
        return {n: agents[n] for n in names}
    agents = list(agents)
    if len(agents) != len(names):
        raise InvalidParameterError(
            f"`agents` needs one agent per seat {names}, received {len(agents)}."
        )
    return dict(zip(names, agents))


def play_episode(
    env: AECEnv,
    agents: Mapping[str, Agent] | Sequence[Agent],
    *,
    seed: int | None = None,
) -> dict[str, float]:
    """Play one episode and return each agent's total reward.

    Args:
        env: a PettingZoo AEC env (e.g. from :func:`nashzoo.make`).
        agents: one agent per seat, in ``env.possible_agents`` order or keyed by name.
            Each receives the env's observation and info plus ``info["info_state"]``
            (the agent info of :mod:`nashzoo.envs.protocol`).
        seed: seeds the env's chance and, through ``np.random.SeedSequence(seed)``, each
            agent's ``reset(seed=...)``; the same seed replays the same episode.

    Returns:
        ``{agent_name: total reward}`` (chips for poker).

    Raises:
        InvalidParameterError: wrong number of agents or missing seats.
    """
    seats = _agent_map(env, agents)
    if seed is None:
        agent_seeds: list[int | None] = [None] * len(seats)
    else:
        children = np.random.SeedSequence(seed).spawn(len(seats))
        agent_seeds = [int(c.generate_state(1)[0]) for c in children]
    env.reset(seed=seed)
    for agent, s in zip(seats.values(), agent_seeds):
        agent.reset(seed=s)
    totals = {name: 0.0 for name in seats}
    raw = env.unwrapped
    strings = getattr(raw, "information_state_string", None)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[name] += float(reward)
        if terminated or truncated:
            env.step(None)
            continue
        if callable(strings):  # the harness's agent info: the env's keys plus the string
            info = {**info, "info_state": strings(name)}
        env.step(seats[name].act(observation, info))
    return totals
