"""The one generic PettingZoo AEC adapter over any :mod:`nashzoo.games` game.

Every registered env is a :class:`GameEnv` around a game's rules, wrapped by
:class:`OrderEnforcingWrapper`. Per-game reference pages (spaces, observation index
tables, action tables, rewards, version history) live in the per-game env modules.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper as _PZOrderEnforcingWrapper

from nashzoo.errors import (
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    ResetNeededError,
)
from nashzoo.envs.observation import ObservationCache
from nashzoo.games.base import TERMINAL, Game, check_action_value, sample_chance_outcome

__all__ = ["GameEnv", "OrderEnforcingWrapper", "IllegalActionWarning"]

logger = logging.getLogger(__name__)

ObsDict = dict[str, np.ndarray]


class IllegalActionWarning(UserWarning):
    """Warned when a masked-out action ends an episode (non-strict envs)."""


class GameEnv(AECEnv):
    """PettingZoo AEC environment over a :class:`~nashzoo.games.base.Game`.

    Agents are ``"player_0" .. "player_{n-1}"``. Chance nodes are resolved inside the env
    with a ``np.random.Generator`` seeded by ``reset(seed=...)``.

    Observations are dicts ``{"observation": float32 information-state tensor,
    "action_mask": int8 mask}``; the mask is all zeros for an agent that is not to move.
    ``infos[agent]["info_state"]`` is the agent's perfect-recall information-state string.
    Rewards are the game's returns (chips for poker), given once at the end.

    Args:
        game: the rules.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a string) or ``"human"``
            (``render()`` prints it).
        strict: if True an illegal (masked-out) action raises
            :class:`~nashzoo.errors.IllegalActionError`; if False (PettingZoo's convention)
            it ends the episode, the offender receives ``illegal_reward``, every other
            agent 0, and an :class:`IllegalActionWarning` is issued.
        illegal_reward: reward of an agent whose illegal action ended the episode.
        name: the env's name in ``metadata`` (e.g. ``"kuhn_poker_v0"``).

    Raises:
        InvalidParameterError: unknown ``render_mode`` or non-numeric ``illegal_reward``.
    """

    observation_cache_size: int = 200_000
    """Most observations kept, keyed by information-state string (they are copied out)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "nashzoo_game_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: Game,
        *,
        render_mode: str | None = None,
        strict: bool = False,
        illegal_reward: float = -1.0,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(game, Game):
            raise InvalidParameterError(
                f"GameEnv expects a nashzoo Game, received {type(game).__name__}."
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(
                f"Parameter `render_mode` must be one of {self.metadata['render_modes']} "
                f"or None, received {render_mode!r}."
            )
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise InvalidParameterError(
                f"Parameter `illegal_reward` expects a number, received {illegal_reward!r}."
            )
        self.game = game
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.illegal_reward = float(illegal_reward)
        self.metadata = {
            **GameEnv.metadata,
            "name": name or f"{game.short_name}_v0",
            "is_parallelizable": game.simultaneous,
        }
        n = game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        num_actions = game.num_distinct_actions
        self._num_actions = num_actions
        self._tensor_size = game.information_state_tensor_size
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self._tensor_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._state = None
        self._observations = ObservationCache(game, self.observation_cache_size)

    # -- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode; ``seed`` re-seeds the chance generator.

        Without a seed, the generator continues its stream (a fresh env starts from OS
        entropy), as in Gymnasium.
        """
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[0]
        self._advance()

    def state_of_game(self):
        """The underlying :class:`~nashzoo.games.base.State` (a clone, safe to mutate)."""
        self._require_reset()
        return self._state.clone()

    def _require_reset(self) -> None:
        if self._state is None:
            raise ResetNeededError("Call reset() before using the environment.")

    def _advance(self) -> None:
        """Resolve chance nodes, then set the next agent, infos and final rewards."""
        state = self._state
        rng = self._rng
        while state.is_chance_node():
            state._apply(sample_chance_outcome(state.chance_outcomes(), rng.random()))
        agents = self.possible_agents
        info_string = state._information_state_string
        self.infos = {agent: {"info_state": info_string(i)} for i, agent in enumerate(agents)}
        player = state.current_player()
        if player == TERMINAL:
            returns = state.returns()
            for i, agent in enumerate(agents):
                self.rewards[agent] = returns[i]
                self.terminations[agent] = True
            self._accumulate_rewards()
            # agent_selection stays; every agent then steps None to leave.
        else:
            self.agent_selection = agents[player]

    def observe(self, agent: str) -> ObsDict:
        """Observation dict of ``agent`` (fresh arrays, safe to keep)."""
        self._require_reset()
        info = self.infos.get(agent)
        i = self.agent_name_mapping[agent]
        state = self._state
        key = info["info_state"] if info is not None else state._information_state_string(i)
        tensor, mask = self._observations.get(state, i, key)
        return {"observation": tensor.copy(), "action_mask": mask.copy()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, accumulated reward, terminated, truncated, info of the agent to act."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        """Apply ``action`` for ``agent_selection``.

        Raises:
            ActionTypeError: the action is not an integer (``None`` for a live agent).
            InvalidActionError: the action is outside ``[0, num_actions)``.
            IllegalActionError: the action is masked out and ``strict=True``.
            GameOverError: the episode is over, or a done agent got a non-``None`` action.
        """
        self._require_reset()
        if not self.agents:
            raise GameOverError(
                "The episode is over and every agent has left; call reset() to play again."
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"{agent} is done (its episode ended); the only valid action is None, "
                    f"received {action!r}."
                )
            self._was_dead_step(None)
            return
        a = check_action_value(action, self._num_actions)
        state = self._state
        self._cumulative_rewards[agent] = 0.0
        if a not in state.legal_actions():
            self._illegal(agent, a)
            return
        state._apply(a)
        self._advance()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> None:
        legal = list(self._state.legal_actions())
        msg = (
            f"{agent} played illegal action {action} "
            f"({self.game.action_name(action)}); legal actions are {legal}."
        )
        if self.strict:
            raise IllegalActionError(msg)
        warnings.warn(
            msg + f" The episode ends with reward {self.illegal_reward} for {agent} "
            "(pass strict=True to raise instead).",
            IllegalActionWarning,
            stacklevel=3,
        )
        for other in self.agents:
            self.rewards[other] = 0.0
            self.terminations[other] = True
            self.infos[other]["illegal_action"] = other == agent
        self.rewards[agent] = self.illegal_reward
        self._accumulate_rewards()

    # -- rendering ------------------------------------------------------------------------
    def render(self) -> str | None:
        """Text of the current state; printed in ``"human"`` mode, returned in ``"ansi"``."""
        if self.render_mode is None:
            warnings.warn(
                "render() was called without a render_mode; pass render_mode='ansi' or "
                "'human' when making the env.",
                stacklevel=2,
            )
            return None
        self._require_reset()
        text = str(self._state)
        if self._state.is_terminal():
            text += f" | returns: {self._state.returns()}"
        elif self.agents:
            text += f" | to act: {self.agent_selection}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (text rendering only)."""


def _guarded(name: str) -> property:
    def get(self: "OrderEnforcingWrapper") -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (after reset).")


class OrderEnforcingWrapper(_PZOrderEnforcingWrapper):
    """PettingZoo's order enforcement, with three changes.

    Use before ``reset()`` raises :class:`~nashzoo.errors.ResetNeededError` (still an
    ``AssertionError``, as PettingZoo's); a step after every agent has left raises
    :class:`~nashzoo.errors.GameOverError` (PettingZoo's wrapper only warns, and a step
    that does nothing is a silent bug); and
    the attributes read in every step (``agents``, ``agent_selection``, ``rewards``, ...)
    are properties rather than ``__getattr__`` look-ups, which made the wrapper cost more
    than the game itself.
    """

    agents = _guarded("agents")
    agent_selection = _guarded("agent_selection")
    rewards = _guarded("rewards")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    infos = _guarded("infos")
    num_agents = _guarded("num_agents")

    def _check_reset(self, what: str) -> None:
        if not self._has_reset:
            raise ResetNeededError(f"Call reset() before {what}.")

    def observe(self, agent: str) -> Any:
        self._check_reset("observe()")
        return self.env.observe(agent)

    def render(self) -> Any:
        self._check_reset("render()")
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63):
        self._check_reset("agent_iter()")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        self._check_reset("step()")
        env = self.env
        if not env.agents:
            raise GameOverError(
                "The episode is over and every agent has left; call reset() to play again."
            )
        self._has_updated = True
        env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_reset("last()")
        return self.env.last(observe)
