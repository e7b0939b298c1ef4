"""Conformance checks for nashzoo environments: :func:`check_env`."""

from __future__ import annotations

import contextlib
import copy
import io
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.test import api_test, parallel_api_test, seed_test

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.envs.registration import make
from nashzoo.errors import EnvCheckError, InvalidParameterError
from nashzoo.games.base import check_int

__all__ = ["check_env", "EnvCheckReport"]


@dataclass(frozen=True)
class EnvCheckReport:
    """What :func:`check_env` covered.

    Attributes:
        env_name: ``metadata["name"]`` of the env.
        episodes: random-play episodes checked.
        decisions: decisions checked across them.
        information_states: distinct information-state strings seen.
    """

    env_name: str
    episodes: int
    decisions: int
    information_states: int


def _factory(env: Any) -> Callable[[], AECEnv]:
    if isinstance(env, str):
        return lambda: make(env)
    if isinstance(env, AECEnv):
        raw = env.unwrapped
        if isinstance(raw, GameEnv):
            return lambda: OrderEnforcingWrapper(
                GameEnv(raw.game, render_mode=raw.render_mode, strict=raw.strict,
                        illegal_reward=raw.illegal_reward, name=raw.metadata["name"])
            )
        return lambda: copy.deepcopy(env)
    if callable(env):
        return env
    raise InvalidParameterError(
        f"check_env expects an env id, an AEC env or a zero-argument env factory, "
        f"received {type(env).__name__}."
    )


def _fail(msg: str) -> None:
    raise EnvCheckError(msg)


def check_env(env: str | AECEnv | Callable[[], AECEnv], *, episodes: int = 200,
              seed: int = 0, api_cycles: int = 200) -> EnvCheckReport:
    """Run PettingZoo's ``api_test`` and ``seed_test``, then nashzoo's own checks.

    Our checks play ``episodes`` seeded random-legal episodes and verify at every step:
    the action mask equals the rules' legal actions; the observation tensor and the
    ``info_state`` string equal the rules' information state; one information-state string
    always comes with the same tensor and mask and vice versa (a bijection); the player's
    own earlier information states and actions are the same every time a string recurs
    (perfect recall); the episode's rewards equal the rules' returns and sum to zero for
    zero-sum games; and the same seed replays the same episode. Simultaneous-move games
    also pass PettingZoo's ``parallel_api_test``.

    Args:
        env: an env id, a nashzoo AEC env, or a zero-argument factory of one.
        episodes: random-play episodes to check.
        seed: root seed of the episodes.
        api_cycles: ``num_cycles`` for PettingZoo's tests.

    Returns:
        An :class:`EnvCheckReport`.

    Raises:
        EnvCheckError: a check failed (an ``AssertionError``); the message says which.
        InvalidParameterError: ``env`` is not a nashzoo env.
    """
    episodes = check_int("episodes", episodes, 1)
    factory = _factory(env)
    instance = factory()
    raw = instance.unwrapped
    if not isinstance(raw, GameEnv):
        raise InvalidParameterError(
            f"check_env checks nashzoo GameEnv-based envs, received {type(raw).__name__}."
        )
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(instance, num_cycles=api_cycles)
        seed_test(factory, num_cycles=api_cycles)
        if raw.game.simultaneous:
            from pettingzoo.utils.conversions import aec_to_parallel

            parallel_api_test(aec_to_parallel(factory()), num_cycles=api_cycles)

    by_key: dict[str, tuple[bytes, bytes, tuple]] = {}
    by_tensor: dict[tuple[bytes, bytes], str] = {}
    decisions = 0
    for episode in range(episodes):
        ep_seed = seed + episode
        trace = _play_checked(instance, raw, ep_seed, by_key, by_tensor)
        decisions += sum(1 for step in trace if step[-1] is not None)
        if episode < 3 and _play_checked(instance, raw, ep_seed, {}, {}) != trace:
            _fail(f"Two episodes with seed {ep_seed} differ: the env is not deterministic.")
    return EnvCheckReport(raw.metadata["name"], episodes, decisions, len(by_key))


def _play_checked(env: AECEnv, raw: GameEnv, seed: int,
                  by_key: dict[str, tuple[bytes, bytes, tuple]],
                  by_tensor: dict[tuple[bytes, bytes], str]) -> list[tuple]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = raw.game
    own: dict[str, list[tuple[str, int]]] = {a: [] for a in env.possible_agents}
    totals = {a: 0.0 for a in env.possible_agents}
    trace: list[tuple] = []
    final_returns = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        state = raw.state_of_game()
        i = raw.agent_name_mapping[agent]
        key = info.get("info_state")
        if key != state.information_state_string(i):
            _fail(f"infos[{agent!r}]['info_state'] is {key!r} but the rules say "
                  f"{state.information_state_string(i)!r}.")
        tensor = obs["observation"]
        if not np.array_equal(tensor, state.information_state_tensor(i)):
            _fail(f"Observation of {agent} differs from the rules' information-state tensor "
                  f"at {key!r}.")
        if terminated or truncated:
            if state.is_terminal():
                final_returns = state.returns()
            trace.append((agent, key, float(reward), None))
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = list(state.legal_actions())
        if np.flatnonzero(mask).tolist() != legal:
            _fail(f"Action mask {mask.tolist()} of {agent} at {key!r} does not match the "
                  f"legal actions {legal}.")
        entry = (tensor.tobytes(), mask.tobytes(), tuple(own[agent]))
        known = by_key.setdefault(key, entry)
        if known[:2] != entry[:2]:
            _fail(f"Information state {key!r} came with two different observations or masks.")
        if known[2] != entry[2]:
            _fail(f"Perfect recall broken at {key!r}: {agent} reached it after different own "
                  f"histories {known[2]} and {entry[2]}.")
        other = by_tensor.setdefault(entry[:2], key)
        if other != key:
            _fail(f"Information states {other!r} and {key!r} share one observation tensor.")
        action = legal[int(rng.integers(len(legal)))]
        own[agent].append((key, action))
        trace.append((agent, key, float(reward), action))
        env.step(action)
    if final_returns is not None:
        got = [totals[a] for a in env.possible_agents]
        if not np.allclose(got, final_returns):
            _fail(f"Episode rewards {got} differ from the rules' returns {final_returns}.")
        if game.zero_sum and abs(sum(got)) > 1e-9:
            _fail(f"Returns {got} of a zero-sum game do not sum to zero.")
    else:
        _fail("The episode ended without reaching a terminal state of the rules.")
    return trace
