"""Conformance checks for nashzoo environments: :func:`check_env`."""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.test import api_test, parallel_api_test, seed_test

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv
from nashzoo.envs.protocol import INFO_KEYS
from nashzoo.envs.registration import make
from nashzoo.errors import EnvCheckError, InvalidParameterError
from nashzoo.games.base import HIDDEN
from nashzoo.validation import check_int

__all__ = ["check_env", "EnvCheckReport"]


@dataclass(frozen=True)
class EnvCheckReport:
    """What :func:`check_env` covered.

    Attributes:
        env_name: ``metadata["name"]`` of the env.
        episodes: random-play episodes checked.
        decisions: decisions checked across them.
        information_states: distinct information-state strings seen.
        game_info: the game's declarations (:class:`~nashzoo.games.GameInfo`), which
            every episode kept to.
    """

    env_name: str
    episodes: int
    decisions: int
    information_states: int
    game_info: Any = None


def _factory(env: Any) -> Callable[[], AECEnv]:
    if isinstance(env, str):
        return lambda: make(env)
    if isinstance(env, AECEnv):
        raw = env.unwrapped
        if type(raw) is GameEnv:
            return lambda: OrderEnforcingWrapper(
                GameEnv(
                    raw.game,
                    render_mode=raw.render_mode,
                    strict=raw.strict,
                    illegal_reward=raw.illegal_reward,
                    max_cycles=raw.max_cycles,
                    info_strings=raw.info_strings,
                    name=raw.metadata["name"],
                )
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


def check_env(
    env: str | AECEnv | Callable[[], AECEnv],
    *,
    episodes: int = 200,
    seed: int = 0,
    api_cycles: int = 200,
) -> EnvCheckReport:
    """Run nashzoo's checks, then PettingZoo's ``api_test`` and ``seed_test``.

    Our checks play ``episodes`` seeded random-legal episodes and verify at every step:
    observations lie in the observation space; the action mask equals the rules' legal
    actions; the observation tensor, the information-state string and the public history
    equal the rules'; infos hold numbers and arrays only, with the same keys on every
    step; one information-state string always comes with the same tensor and mask and
    vice versa (a bijection); the player's own earlier information states and actions are
    the same every time a string recurs (perfect recall); a zero-sum game's returns sum
    to zero and the episode's rewards equal them; and the same seed replays the same
    episode. Simultaneous-move games also pass PettingZoo's ``parallel_api_test``.

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
    try:
        declared = raw.game.info  # the game's declarations, checked once
    except InvalidParameterError as exc:
        raise EnvCheckError(f"The game's declarations are invalid: {exc}") from exc
    by_key: dict[str, tuple[bytes, bytes, tuple, tuple]] = {}
    by_tensor: dict[tuple[bytes, bytes], str] = {}
    decisions = 0
    for episode in range(episodes):
        ep_seed = seed + episode
        try:
            trace = _play_checked(instance, ep_seed, by_key, by_tensor)
        except (EnvCheckError, AssertionError):
            raise
        except Exception as exc:  # the env crashed: say where, and what the game declares
            raise EnvCheckError(
                f"The env raised {type(exc).__name__} in the episode of seed {ep_seed}: "
                f"{exc} (the game declares {declared}; do its declarations hold?)"
            ) from exc
        decisions += sum(1 for step in trace if step[-1] is not None)
        if episode < 3 and _play_checked(factory(), ep_seed, {}, {}) != trace:
            _fail(
                f"Two episodes with seed {ep_seed} differ: the env's randomness does not "
                "follow reset(seed=...)."
            )
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            api_test(instance, num_cycles=api_cycles)
            seed_test(factory, num_cycles=api_cycles)
            if raw.game.simultaneous:
                parallel_api_test(ParallelGameEnv(factory()), num_cycles=api_cycles)
        except AssertionError as exc:
            if isinstance(exc, EnvCheckError):
                raise
            raise EnvCheckError(f"PettingZoo's API tests failed: {exc}") from exc
    return EnvCheckReport(raw.metadata["name"], episodes, decisions, len(by_key), declared)


def _check_info(agent: str, info: Any, keys: dict[str, tuple[str, ...]]) -> None:
    if not isinstance(info, dict):
        _fail(f"infos[{agent!r}] is a {type(info).__name__}, not a dict.")
    names = tuple(sorted(info))
    expected = keys.setdefault(agent, names)
    if names != expected:
        _fail(
            f"The info keys of {agent} changed between steps: {list(expected)} then "
            f"{list(names)}; libraries such as TorchRL need the same keys on every step."
        )
    missing = [k for k in INFO_KEYS if k not in info]
    if missing:
        _fail(f"infos[{agent!r}] lacks {missing}; every nashzoo env info has {list(INFO_KEYS)}.")
    for k, v in info.items():
        if not isinstance(v, (bool, int, float, np.number, np.bool_, np.ndarray)):
            _fail(
                f"infos[{agent!r}][{k!r}] is a {type(v).__name__}; env infos hold numbers "
                "and arrays only (TorchRL turns every value into a tensor)."
            )


def _play_checked(
    env: AECEnv,
    seed: int,
    by_key: dict[str, tuple[bytes, bytes, tuple, tuple]],
    by_tensor: dict[tuple[bytes, bytes], str],
) -> list[tuple]:
    raw = env.unwrapped
    assert isinstance(raw, GameEnv)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = raw.game
    own: dict[str, list[tuple[str, int]]] = {a: [] for a in env.possible_agents}
    totals = {a: 0.0 for a in env.possible_agents}
    info_keys: dict[str, tuple[str, ...]] = {}
    trace: list[tuple] = []
    final_returns = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        state = raw.state_of_game()
        i = raw.agent_name_mapping[agent]
        if not env.observation_space(agent).contains(obs):
            _fail(
                f"The observation of {agent} lies outside its observation space "
                f"{env.observation_space(agent)}: {obs!r}."
            )
        key = raw.information_state_string(agent)
        if key != state.information_state_string(i):
            _fail(
                f"information_state_string({agent!r}) is {key!r} but the rules say "
                f"{state.information_state_string(i)!r}."
            )
        _check_info(agent, info, info_keys)
        public = state.public_history()
        padded = np.full(game.max_history_length, HIDDEN, np.int64)
        padded[: len(public)] = public
        if info["history_length"] != len(public) or not np.array_equal(
            info["public_history"], padded
        ):
            _fail(
                f"infos[{agent!r}] public history {info['public_history'].tolist()} (length "
                f"{info['history_length']}) differs from the rules' {public}."
            )
        tensor = obs["observation"]
        if not np.array_equal(tensor, state.information_state_tensor(i)):
            _fail(
                f"Observation of {agent} differs from the rules' information-state tensor "
                f"at {key!r}."
            )
        if terminated or truncated:
            if state.is_terminal():
                final_returns = state.returns()
            trace.append((agent, key, float(reward), None))
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = list(state.legal_actions())
        if np.flatnonzero(mask).tolist() != legal:
            _fail(
                f"Action mask {mask.tolist()} of {agent} at {key!r} does not match the "
                f"legal actions {legal}."
            )
        entry = (tensor.tobytes(), mask.tobytes(), tuple(own[agent]), tuple(public))
        known = by_key.setdefault(key, entry)
        if known[:2] != entry[:2]:
            _fail(f"Information state {key!r} came with two different observations or masks.")
        if known[3] != entry[3]:
            _fail(
                f"Information state {key!r} came with two different public histories "
                f"{list(known[3])} and {public}: the string must determine what the agent "
                "is told."
            )
        if known[2] != entry[2]:
            _fail(
                f"Perfect recall broken at {key!r}: {agent} reached it after different own "
                f"histories {known[2]} and {entry[2]}."
            )
        other = by_tensor.setdefault(entry[:2], key)
        if other != key:
            _fail(f"Information states {other!r} and {key!r} share one observation tensor.")
        action = legal[int(rng.integers(len(legal)))]
        own[agent].append((key, action))
        trace.append((agent, key, float(reward), action))
        env.step(action)
    if final_returns is None:
        _fail("The episode ended without reaching a terminal state of the rules.")
    assert final_returns is not None
    if game.zero_sum and abs(sum(final_returns)) > 1e-9:
        _fail(
            f"The game is declared zero-sum but its returns {final_returns} sum to "
            f"{sum(final_returns)}."
        )
    got = [totals[a] for a in env.possible_agents]
    if game.zero_sum and abs(sum(got)) > 1e-9:
        _fail(f"Rewards {got} of a zero-sum game do not sum to zero.")
    if not np.allclose(got, final_returns):
        _fail(f"Episode rewards {got} differ from the rules' returns {final_returns}.")
    _check_declared(game, raw.state_of_game().history(), final_returns)
    return trace


def _check_declared(game: Any, history: list[int], returns: list[float]) -> None:
    """The episode keeps to the game's :class:`~nashzoo.games.GameInfo`: replayed on the
    rules, every chance node has at most ``max_chance_outcomes`` outcomes (a
    distribution), at most ``max_chance_nodes`` chance events and ``max_game_length``
    player actions happen, the tensor has the declared size, and the returns lie in
    ``[min_utility, max_utility]``."""
    info = game.info
    state = game.new_initial_state()
    chance = actions = 0
    for action in history:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            chance += 1
            if len(outcomes) > info.max_chance_outcomes:
                _fail(
                    f"A chance node has {len(outcomes)} outcomes; the game declares "
                    f"max_chance_outcomes={info.max_chance_outcomes}."
                )
            if abs(sum(q for _, q in outcomes) - 1.0) > 1e-9:
                _fail(f"A chance node's probabilities sum to {sum(q for _, q in outcomes)}.")
        else:
            actions += 1
            p = state.current_player()
            size = len(state.information_state_tensor(p))
            if size != info.information_state_tensor_size:
                _fail(
                    f"The information-state tensor has {size} entries; the game declares "
                    f"information_state_tensor_size={info.information_state_tensor_size}."
                )
        state.apply_action(action)
    if chance > info.max_chance_nodes:
        _fail(f"An episode had {chance} chance events; the game declares max_chance_nodes="
              f"{info.max_chance_nodes}.")  # fmt: skip
    if actions > info.max_game_length:
        _fail(f"An episode had {actions} player actions; the game declares max_game_length="
              f"{info.max_game_length}.")  # fmt: skip
    low, high = info.min_utility - 1e-9, info.max_utility + 1e-9
    if any(not low <= r <= high for r in returns) or len(returns) != info.num_players:
        _fail(
            f"Returns {returns} lie outside the declared [{info.min_utility}, "
            f"{info.max_utility}] of {info.num_players} players."
        )
